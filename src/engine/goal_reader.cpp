#include "goal_reader.hpp"

#include "input_limits.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <exception>
#include <optional>
#include <thread>
#include <cerrno>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "label_table.hpp"

#ifdef CLOUDNOISE_HAVE_ZLIB
#include <zlib.h>
#endif

namespace cloudnoise {

namespace {

// A dependency whose labels are resolved when its rank block closes, so
// labels may be used before they are defined.
struct PendingDep {
  std::string_view after, before;
  uint64_t line;
  bool on_start;
};

class Reader {
 public:
  Reader(std::string_view text, const std::string& name, uint64_t first_line = 1)
      : p_(text.data()), end_(text.data() + text.size()), name_(name), line_(first_line) {}

  // A slice of a file holding only `rank` blocks, from `first_rank` on, of
  // a schedule of num_ranks: for parsing big files in pieces.
  Schedule parse_ranks(uint32_t num_ranks, uint32_t first_rank) {
    ScheduleBuilder builder(num_ranks, first_rank);
    for (;;) {
      skip_space_and_newlines();
      if (p_ == end_) break;
      const uint64_t stmt_line = line_;
      if (identifier("'rank'") != "rank") fail("expected 'rank'");
      rank_block(builder, num_ranks, stmt_line);
    }
    return builder.finish_part();
  }

  // The header before the first rank block: the number of ranks.
  uint32_t parse_num_ranks() {
    reject_binary();
    skip_space_and_newlines();
    if (identifier("'num_ranks'") != "num_ranks") fail("expected 'num_ranks'");
    const uint64_t n = number("the number of ranks", 1, limits::kMaxRanks);
    end_of_statement();
    skip_space_and_newlines();
    if (p_ != end_) fail("unexpected text before the first rank block");
    return static_cast<uint32_t>(n);
  }

  Schedule parse() {
    reject_binary();
    std::unique_ptr<ScheduleBuilder> builder;
    uint64_t num_ranks = 0, num_ranks_line = 0;
    for (;;) {
      skip_space_and_newlines();
      if (p_ == end_) break;
      const uint64_t stmt_line = line_;
      const std::string_view word = identifier("'num_ranks' or 'rank'");
      if (word == "num_ranks") {
        if (builder) fail("num_ranks given twice");
        num_ranks_line = stmt_line;
        num_ranks = number("the number of ranks", 1, limits::kMaxRanks);
        builder = std::make_unique<ScheduleBuilder>(static_cast<uint32_t>(num_ranks));
        end_of_statement();
      } else if (word == "rank") {
        if (!builder) fail("'rank' block before 'num_ranks'");
        rank_block(*builder, num_ranks, stmt_line);
      } else {
        fail("unknown keyword '" + std::string(word) + "' (expected 'num_ranks' or 'rank')");
      }
    }
    if (!builder) fail_at(line_, "empty schedule: no 'num_ranks' line");
    Schedule s;
    guarded([&] { s = builder->finish(); }, num_ranks_line);
    return s;
  }

 private:
  // `rank R { ... }`, after the word `rank`.
  void rank_block(ScheduleBuilder& builder, uint64_t num_ranks, uint64_t stmt_line) {
    const uint64_t r = number("a rank number", 0, std::numeric_limits<uint32_t>::max());
    if (r >= num_ranks)
      fail("rank " + std::to_string(r) + " out of range (num_ranks " + std::to_string(num_ranks) + ")");
    skip_space();
    if (p_ == end_ || *p_ != '{') fail("expected '{' after 'rank " + std::to_string(r) + "'");
    ++p_;
    guarded([&] { builder.begin_rank(static_cast<uint32_t>(r)); }, stmt_line);
    rank_body(builder, static_cast<uint32_t>(r), num_ranks, stmt_line);
  }

  [[noreturn]] void fail_at(uint64_t line, const std::string& what) const {
    throw GoalError(name_ + ":" + std::to_string(line) + ": " + what);
  }
  [[noreturn]] void fail(const std::string& what) const { fail_at(line_, what); }

  template <class F>
  void guarded(F&& f, uint64_t line) {
    try {
      f();
    } catch (const ScheduleError& e) {
      fail_at(e.line() ? e.line() : line, e.what());
    }
  }

  void reject_binary() const {
    if (p_ == end_) fail_at(1, "empty file: expected 'num_ranks N'");
    const size_t probe = std::min<size_t>(end_ - p_, 4096);
    for (size_t i = 0; i < probe; ++i) {
      const unsigned char c = static_cast<unsigned char>(p_[i]);
      if (c == 0 || (c < 32 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v'))
        fail_at(1, "binary data, not GOAL text (a LogGOPSim .bin schedule? give the .goal text)");
    }
  }

  // Skips blanks and comments on the current line. A block comment may span
  // lines; newlines inside it are counted.
  void skip_space() {
    while (p_ != end_) {
      const char c = *p_;
      if (cls(c) & kBlank) {
        ++p_;
      } else if (c == '/' && p_ + 1 != end_ && p_[1] == '/') {
        while (p_ != end_ && *p_ != '\n') ++p_;
      } else if (c == '/' && p_ + 1 != end_ && p_[1] == '*') {
        const uint64_t open = line_;
        p_ += 2;
        for (;;) {
          if (p_ == end_) fail_at(open, "unterminated '/*' comment");
          if (*p_ == '\n') ++line_;
          if (*p_ == '*' && p_ + 1 != end_ && p_[1] == '/') {
            p_ += 2;
            break;
          }
          ++p_;
        }
      } else {
        return;
      }
    }
  }

  void skip_space_and_newlines() {
    for (;;) {
      skip_space();
      if (p_ != end_ && *p_ == '\n') {
        ++p_;
        ++line_;
      } else {
        return;
      }
    }
  }

  // Character classes by table lookup: the scanner's hot loops test one
  // byte at a time.
  enum : uint8_t { kIdentStart = 1, kIdentChar = 2, kDigit = 4, kBlank = 8 };
  static constexpr std::array<uint8_t, 256> kClass = [] {
    std::array<uint8_t, 256> t{};
    for (int c = 'a'; c <= 'z'; ++c) t[c] = kIdentStart | kIdentChar;
    for (int c = 'A'; c <= 'Z'; ++c) t[c] = kIdentStart | kIdentChar;
    t['_'] = kIdentStart | kIdentChar;
    for (int c = '0'; c <= '9'; ++c) t[c] = kIdentChar | kDigit;
    for (int c : {' ', '\t', '\r', '\f', '\v'}) t[c] = kBlank;
    return t;
  }();
  static uint8_t cls(char c) { return kClass[static_cast<unsigned char>(c)]; }
  static bool ident_start(char c) { return cls(c) & kIdentStart; }
  static bool ident_char(char c) { return cls(c) & kIdentChar; }

  std::string_view identifier(const char* expected) {
    skip_space();
    if (p_ == end_ || !ident_start(*p_)) fail(std::string("expected ") + expected + found());
    const char* b = p_;
    while (p_ != end_ && ident_char(*p_)) ++p_;
    return {b, static_cast<size_t>(p_ - b)};
  }

  std::string found() const {
    if (p_ == end_) return ", found end of file";
    if (*p_ == '\n') return ", found end of line";
    const char* e = p_;
    while (e != end_ && e - p_ < 20 && *e != '\n' && *e != ' ' && *e != '\t') ++e;
    return ", found '" + std::string(p_, e) + "'";
  }

  uint64_t number(const char* what, uint64_t lo, uint64_t hi) {
    skip_space();
    if (p_ == end_ || *p_ < '0' || *p_ > '9') fail(std::string("expected ") + what + found());
    uint64_t v = 0;
    const char* b = p_;
    constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
    while (p_ != end_ && (cls(*p_) & kDigit)) {
      const uint64_t d = static_cast<uint64_t>(*p_ - '0');
      if (v >= kMax / 10 && (v > kMax / 10 || d > kMax % 10))
        fail(std::string(what) + " '" + std::string(b, p_ + 1) + "...' does not fit in 64 bits");
      v = v * 10 + d;
      ++p_;
    }
    if (v < lo || v > hi)
      fail(std::string(what) + " " + std::to_string(v) + " out of range [" + std::to_string(lo) +
           ", " + std::to_string(hi) + "]");
    return v;
  }

  // A rank, tag or source that may be -1 (any).
  uint32_t number_or_any(const char* what, bool allow_any, uint64_t hi) {
    skip_space();
    if (p_ != end_ && *p_ == '-') {
      if (!allow_any || p_ + 1 == end_ || p_[1] != '1' ||
          (p_ + 2 != end_ && p_[2] >= '0' && p_[2] <= '9'))
        fail(std::string("expected ") + what + (allow_any ? " or -1" : "") + found());
      p_ += 2;
      return kAny;
    }
    return static_cast<uint32_t>(number(what, 0, hi));
  }

  // After a statement: only blanks/comments, then a newline, '}' or the end.
  void end_of_statement() {
    skip_space();
    if (p_ == end_ || *p_ == '}') return;
    if (*p_ == '\n') {
      ++p_;
      ++line_;
      return;
    }
    fail("unexpected text" + found());
  }

  void rank_body(ScheduleBuilder& b, uint32_t rank, uint64_t num_ranks, uint64_t open_line) {
    labels_.reset();
    pending_.clear();
    for (;;) {
      skip_space_and_newlines();
      if (p_ == end_)
        fail_at(open_line, "missing '}' to close 'rank " + std::to_string(rank) + "'");
      if (*p_ == '}') {
        ++p_;
        break;
      }
      if (schedgen_statement(b, rank, num_ranks)) continue;
      const uint64_t stmt_line = line_;
      const std::string_view first = identifier("an operation, a label or '}'");
      skip_space();
      if (p_ != end_ && *p_ == ':') {
        ++p_;
        const std::string_view kind = identifier("'send', 'recv' or 'calc'");
        const uint32_t idx = operation(b, kind);
        if (!labels_.insert(first, idx))
          fail_at(stmt_line, "duplicate label '" + std::string(first) + "' in rank " +
                                 std::to_string(rank));
      } else if (first == "send" || first == "recv" || first == "calc") {
        operation(b, first);
      } else {
        const std::string_view rel = identifier("':', 'requires' or 'irequires'");
        if (rel != "requires" && rel != "irequires")
          fail_at(stmt_line, "unknown keyword '" + std::string(rel) +
                                 "' (expected 'requires' or 'irequires' after a label)");
        const std::string_view before = identifier("a label");
        pending_.push_back({first, before, stmt_line, rel == "irequires"});
      }
      end_of_statement();
    }
    for (const PendingDep& d : pending_) {
      const uint32_t a = labels_.find(d.after), c = labels_.find(d.before);
      if (a == LabelTable::kMissing)
        fail_at(d.line, "undefined label '" + std::string(d.after) + "' in rank " +
                            std::to_string(rank));
      if (c == LabelTable::kMissing)
        fail_at(d.line, "undefined label '" + std::string(d.before) + "' in rank " +
                            std::to_string(rank));
      if (a == c) fail_at(d.line, "operation '" + std::string(d.after) + "' depends on itself");
      if (d.on_start)
        b.requires_start(a, c);
      else
        b.requires_done(a, c);
    }
  }

  // The statements Schedgen writes, nearly every line of a big file:
  //   LABEL: send Nb to R tag T        LABEL: recv Nb from R tag T
  //   LABEL: calc N                    LABEL requires LABEL
  // with single spaces and nothing else on the line, scanned in one pass
  // (the general path below costs a skip_space and a keyword comparison
  // per token). Anything else (comments, options, other spacing, values
  // out of range, any error) returns false with nothing consumed, and the
  // general path reads the statement and words its errors.
  bool schedgen_statement(ScheduleBuilder& b, uint32_t rank, uint64_t num_ranks) {
    const char* q = p_;
    const char* const e = end_;
    if (!ident_start(*q)) return false;
    const char* const label_begin = q;
    while (q != e && ident_char(*q)) ++q;
    const std::string_view label(label_begin, static_cast<size_t>(q - label_begin));
    const bool on_done = scan(q, " requires ");
    const bool on_start = !on_done && scan(q, " irequires ");
    if (on_done || on_start) {
      if (label == "send" || label == "recv" || label == "calc") return false;
      if (q == e || !ident_start(*q)) return false;
      const char* const before_begin = q;
      while (q != e && ident_char(*q)) ++q;
      if (q == e || *q != '\n') return false;
      pending_.push_back({label, std::string_view(before_begin, static_cast<size_t>(q - before_begin)),
                          line_, on_start});
      p_ = q + 1;
      ++line_;
      return true;
    }
    if (!scan(q, ": ")) return false;
    OpKind kind;
    if (scan(q, "send ")) kind = OpKind::Send;
    else if (scan(q, "recv ")) kind = OpKind::Recv;
    else if (scan(q, "calc ")) kind = OpKind::Calc;
    else return false;
    uint64_t amount = 0, peer = 0, tag = 0;
    if (!scan_digits(q, amount)) return false;
    if (kind == OpKind::Calc) {
      // Out of range: the general path reads it again and words the error.
      if (amount > static_cast<uint64_t>(limits::kMaxTimeNs)) return false;
    } else {
      if (amount > limits::kMaxMessageBytes) return false;
      if (q != e && *q == 'b') ++q;
      if (!(kind == OpKind::Send ? scan(q, " to ") : scan(q, " from "))) return false;
      if (kind == OpKind::Recv && scan(q, "-1")) peer = kAny;
      else if (!scan_digits(q, peer) || peer >= num_ranks) return false;
      if (!scan(q, " tag ")) return false;
      if (kind == OpKind::Recv && scan(q, "-1")) tag = kAny;
      else if (!scan_digits(q, tag) || tag >= kAny) return false;
    }
    if (q == e || *q != '\n') return false;
    const uint64_t line = line_;
    uint32_t idx = 0;
    guarded(
        [&] {
          if (kind == OpKind::Send)
            idx = b.send(amount, static_cast<uint32_t>(peer), static_cast<uint32_t>(tag), 0, 0);
          else if (kind == OpKind::Recv)
            idx = b.recv(amount, static_cast<uint32_t>(peer), static_cast<uint32_t>(tag), 0, 0);
          else
            idx = b.calc(amount * 1000, 0, 0);
        },
        line);
    b.set_line(line);
    if (!labels_.insert(label, idx))
      fail_at(line, "duplicate label '" + std::string(label) + "' in rank " + std::to_string(rank));
    p_ = q + 1;
    ++line_;
    return true;
  }

  // Consumes `word` (a literal) if the text at q starts with it; the length
  // is a constant, so the comparison is a few integer compares, no call.
  template <size_t N>
  bool scan(const char*& q, const char (&word)[N]) const {
    constexpr size_t n = N - 1;
    if (static_cast<size_t>(end_ - q) < n || std::memcmp(q, word, n) != 0) return false;
    q += n;
    return true;
  }

  // Consumes 1 to 18 decimal digits (so the value cannot overflow); more
  // are left to the general path, which checks the range.
  bool scan_digits(const char*& q, uint64_t& value) const {
    if (end_ - q >= 8) {
      // Up to 7 digits, the common case, read as one 8-byte word whose low
      // byte is the first character. Digit characters become 0..9.
      uint64_t word;
      std::memcpy(&word, q, 8);
      const uint64_t digits = little_endian(word) ^ 0x3030303030303030ull;
      const unsigned n = leading_digits(digits);
      if (n > 0 && n < 8) {
        // Shifted up, the n digits are the last of eight, after zeros.
        value = eight_digits(digits << (8 * (8 - n)));
        q += n;
        return true;
      }
    }
    const char* const first = q;
    const char* const stop = end_ - q > 19 ? q + 19 : end_;
    uint64_t v = 0;
    for (unsigned d; q != stop && (d = static_cast<unsigned char>(*q) - unsigned{'0'}) < 10u; ++q)
      v = v * 10 + d;
    value = v;
    return q != first && q - first <= 18;
  }

  static uint64_t little_endian(uint64_t word) {
    if constexpr (std::endian::native == std::endian::big) return __builtin_bswap64(word);
    return word;
  }

  // How many bytes of `digits` (characters XOR '0', the first in the low
  // byte) are digits (0..9) before the first that is not. A non-digit
  // byte is >= 10: it has its top bit, or gets it from adding 0x76 (which
  // carries into higher bytes only from a non-digit, past the first one).
  static unsigned leading_digits(uint64_t digits) {
    const uint64_t non_digit = ((digits + 0x7676767676767676ull) | digits) & 0x8080808080808080ull;
    return non_digit ? static_cast<unsigned>(std::countr_zero(non_digit)) / 8 : 8;
  }

  // The number whose 8 decimal digits are the bytes of `digits`, the most
  // significant in the low byte: digit pairs, then pairs of pairs, by
  // multiplication.
  static uint64_t eight_digits(uint64_t digits) {
    const uint64_t pairs = digits * 10 + (digits >> 8);
    return (((pairs & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
            (((pairs >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >>
           32;
  }

  uint32_t operation(ScheduleBuilder& b, std::string_view kind) {
    const uint64_t line = line_;
    uint32_t idx = 0;
    if (kind == "calc") {
      const uint64_t ns = number("a calc time in ns", 0, static_cast<uint64_t>(limits::kMaxTimeNs));
      uint8_t cpu = 0, nic = 0;
      options(cpu, nic, nullptr);
      guarded([&] { idx = b.calc(ns * 1000, cpu, nic); }, line);
    } else if (kind == "send" || kind == "recv") {
      const bool is_send = kind == "send";
      const uint64_t bytes = number("a message size in bytes", 0, limits::kMaxMessageBytes);
      skip_space();
      if (p_ != end_ && *p_ == 'b') ++p_;
      const std::string_view dir = identifier(is_send ? "'to'" : "'from'");
      if (dir != (is_send ? "to" : "from"))
        fail(std::string("expected '") + (is_send ? "to" : "from") + "', found '" +
             std::string(dir) + "'");
      const uint32_t peer =
          number_or_any(is_send ? "a destination rank" : "a source rank", !is_send,
                        std::numeric_limits<uint32_t>::max() - 1);
      uint8_t cpu = 0, nic = 0;
      uint32_t tag = 0;
      options(cpu, nic, &tag);
      if (is_send && tag == kAny) fail_at(line, "a send cannot use the wildcard tag -1");
      guarded(
          [&] {
            idx = is_send ? b.send(bytes, peer, tag, cpu, nic) : b.recv(bytes, peer, tag, cpu, nic);
          },
          line);
    } else {
      fail_at(line, "unknown operation '" + std::string(kind) + "' (expected send, recv or calc)");
    }
    b.set_line(line);
    return idx;
  }

  // Trailing `tag T`, `cpu C`, `nic N` in any order.
  void options(uint8_t& cpu, uint8_t& nic, uint32_t* tag) {
    for (;;) {
      skip_space();
      if (p_ == end_ || !ident_start(*p_)) return;
      const char* save = p_;
      const std::string_view key = identifier("an option");
      if (key == "cpu") {
        cpu = static_cast<uint8_t>(number("a cpu number", 0, 255));
      } else if (key == "nic") {
        nic = static_cast<uint8_t>(number("a nic number", 0, 255));
      } else if (key == "tag" && tag) {
        *tag = number_or_any("a tag", true, std::numeric_limits<uint32_t>::max() - 1);
      } else {
        p_ = save;
        fail("unknown keyword '" + std::string(key) + "'" +
             (tag ? " (expected tag, cpu or nic)" : " (expected cpu or nic)"));
      }
    }
  }

  const char* p_;
  const char* end_;
  const std::string& name_;
  uint64_t line_ = 1;
  LabelTable labels_;
  std::vector<PendingDep> pending_;
};

bool is_gzip(const std::string& head) {
  return head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
         static_cast<unsigned char>(head[1]) == 0x8b;
}

std::string read_all(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw GoalError(path + ": cannot open: " + std::strerror(errno));
  std::string data;
  if (std::fseek(f.get(), 0, SEEK_END) == 0) {
    const long size = std::ftell(f.get());
    if (size > 0) data.reserve(static_cast<size_t>(size));
    std::fseek(f.get(), 0, SEEK_SET);
  }
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0) data.append(buf, n);
  if (std::ferror(f.get())) throw GoalError(path + ": read error: " + std::strerror(errno));
  return data;
}

#ifdef CLOUDNOISE_HAVE_ZLIB
std::string inflate_gzip(const std::string& path, const std::string& compressed) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) throw GoalError(path + ": cannot initialise zlib");
  std::string out;
  out.resize(std::max<size_t>(compressed.size() * 4, 1 << 16));
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  zs.avail_in = static_cast<uInt>(compressed.size());
  size_t produced = 0;
  int rc = Z_OK;
  for (;;) {
    if (produced == out.size()) out.resize(out.size() * 2);
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    const size_t room = std::min<size_t>(out.size() - produced, 1u << 30);
    zs.avail_out = static_cast<uInt>(room);
    rc = inflate(&zs, Z_NO_FLUSH);
    produced += room - zs.avail_out;
    if (rc == Z_STREAM_END) {
      // Concatenated gzip members are valid gzip: keep going if input remains.
      if (zs.avail_in == 0) break;
      inflateReset(&zs);
      continue;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) break;
    if (rc == Z_BUF_ERROR && zs.avail_in == 0) break;
  }
  inflateEnd(&zs);
  if (rc != Z_STREAM_END)
    throw GoalError(path + ":1: corrupt or truncated gzip data");
  out.resize(produced);
  return out;
}
#endif

}  // namespace

namespace {

// Files this large are parsed in two pieces on two threads.
constexpr size_t kParallelParseBytes = 16u << 20;

// The offset just after the first "\nrank " at or after `from`, or npos.
size_t next_rank_line(std::string_view text, size_t from) {
  const size_t at = text.find("\nrank ", from);
  return at == std::string_view::npos ? at : at + 1;
}

// Big files in two halves split at a `rank` line, each half parsed on its
// own thread and the schedules joined. Only the success path is parallel:
// any doubt (a block comment that could hide the split, any error) returns
// nullopt and the caller parses sequentially, which reports errors exactly.
std::optional<Schedule> parse_in_two(std::string_view text, const std::string& name) {
  if (std::thread::hardware_concurrency() < 2) return std::nullopt;
  if (text.find("/*") != std::string_view::npos) return std::nullopt;
  const size_t first = next_rank_line(text, 0);
  const size_t middle = next_rank_line(text, text.size() / 2);
  if (first == std::string_view::npos || middle == std::string_view::npos || middle <= first)
    return std::nullopt;
  uint32_t split_rank = 0;
  {
    size_t i = middle + 5;  // after "rank "
    while (i < text.size() && text[i] == ' ') ++i;
    if (i >= text.size() || text[i] < '0' || text[i] > '9') return std::nullopt;
    uint64_t v = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9' && v < (1ull << 33); ++i)
      v = v * 10 + static_cast<uint64_t>(text[i] - '0');
    if (v == 0 || v >= (1ull << 32)) return std::nullopt;
    split_rank = static_cast<uint32_t>(v);
  }
  try {
    const uint32_t num_ranks = Reader(text.substr(0, first), name).parse_num_ranks();
    if (split_rank >= num_ranks) return std::nullopt;
    const std::string_view head = text.substr(first, middle - first), tail = text.substr(middle);
    const uint64_t head_line = 1 + static_cast<uint64_t>(std::count(text.begin(), text.begin() + first, '\n'));
    const uint64_t tail_line = head_line + static_cast<uint64_t>(std::count(head.begin(), head.end(), '\n'));
    std::optional<Schedule> second;
    std::exception_ptr second_error;
    std::thread worker([&] {
      try {
        second = Reader(tail, name, tail_line).parse_ranks(num_ranks, split_rank);
      } catch (...) {
        second_error = std::current_exception();
      }
    });
    std::optional<Schedule> whole;
    try {
      whole = Reader(head, name, head_line).parse_ranks(num_ranks, 0);
    } catch (...) {
    }
    worker.join();
    if (!whole || !second || second_error) return std::nullopt;
    if (whole->num_ranks() != split_rank || split_rank + second->num_ranks() != num_ranks)
      return std::nullopt;
    whole->append(std::move(*second));
    return whole;
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace

Schedule read_goal_text(std::string_view text, const std::string& name) {
  if (text.size() >= kParallelParseBytes)
    if (auto s = parse_in_two(text, name)) return std::move(*s);
  return Reader(text, name).parse();
}

// A read-only memory map of a whole file: the text is parsed in place, so a
// 180 MB schedule costs no 180 MB copy.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw GoalError(path + ": cannot open: " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      return;  // not a regular file (a pipe, say): the caller reads it instead
    }
    size_ = static_cast<size_t>(st.st_size);
    if (size_ > 0) {
      void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p != MAP_FAILED) {
        data_ = static_cast<const char*>(p);
        ::madvise(p, size_, MADV_SEQUENTIAL);
      }
    }
    ::close(fd);
    mapped_ = data_ != nullptr || size_ == 0;
  }
  ~MappedFile() {
    if (data_) ::munmap(const_cast<char*>(data_), size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  bool mapped() const { return mapped_; }
  std::string_view text() const { return {data_ ? data_ : "", size_}; }

 private:
  const char* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;
};

Schedule read_goal_file(const std::string& path) {
  {
    const MappedFile file(path);
    const std::string_view text = file.text();
    const bool gzip = text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f &&
                      static_cast<unsigned char>(text[1]) == 0x8b;
    if (file.mapped() && !gzip) return read_goal_text(text, path);
  }
  std::string data = read_all(path);
  if (is_gzip(data)) {
#ifdef CLOUDNOISE_HAVE_ZLIB
    data = inflate_gzip(path, data);
#else
    throw GoalError(path + ":1: gzip input needs zlib; inflate it first");
#endif
  }
  return read_goal_text(data, path);
}

bool goal_reader_has_gzip() {
#ifdef CLOUDNOISE_HAVE_ZLIB
  return true;
#else
  return false;
#endif
}

}  // namespace cloudnoise
