#include "goal_writer.hpp"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>

#ifdef CLOUDNOISE_HAVE_ZLIB
#include <zlib.h>
#endif

namespace cloudnoise {

namespace {
constexpr size_t kChunkBytes = size_t{1} << 20;
}  // namespace

GoalTextWriter::GoalTextWriter(ChunkWriter out) : out_(std::move(out)) {
  buf_.reserve(kChunkBytes + 256);
}

void GoalTextWriter::put(std::string_view s) { buf_.append(s); }

void GoalTextWriter::put(uint64_t v) {
  char tmp[24];
  const auto res = std::to_chars(tmp, tmp + sizeof tmp, v);
  buf_.append(tmp, res.ptr);
}

void GoalTextWriter::put_peer(uint32_t v) {
  if (v == kAny)
    put("-1");
  else
    put(uint64_t{v});
}

void GoalTextWriter::put_label(uint32_t local) {
  put("l");
  put(uint64_t{local} + 1);
}

void GoalTextWriter::maybe_flush() {
  if (buf_.size() >= kChunkBytes) flush();
}

void GoalTextWriter::flush() {
  if (buf_.empty()) return;
  out_(buf_);
  buf_.clear();
}

uint32_t GoalTextWriter::next_label() {
  const uint32_t local = ops_in_rank_++;
  put_label(local);
  put(": ");
  return local;
}

void GoalTextWriter::num_ranks(uint32_t n) {
  put("num_ranks ");
  put(uint64_t{n});
  put("\n");
}

void GoalTextWriter::begin_rank(uint32_t rank) {
  ops_in_rank_ = 0;
  put("\nrank ");
  put(uint64_t{rank});
  put(" {\n");
}

void GoalTextWriter::end_rank() {
  put("}\n");
  maybe_flush();
}

uint32_t GoalTextWriter::send(uint64_t bytes, uint32_t dest, uint32_t tag, uint8_t cpu,
                              uint8_t nic) {
  const uint32_t local = next_label();
  put("send ");
  put(bytes);
  put("b to ");
  put_peer(dest);
  put(" tag ");
  put_peer(tag);
  if (cpu != 0) {
    put(" cpu ");
    put(uint64_t{cpu});
  }
  if (nic != 0) {
    put(" nic ");
    put(uint64_t{nic});
  }
  put("\n");
  maybe_flush();
  return local;
}

uint32_t GoalTextWriter::recv(uint64_t bytes, uint32_t src, uint32_t tag, uint8_t cpu,
                              uint8_t nic) {
  const uint32_t local = next_label();
  put("recv ");
  put(bytes);
  put("b from ");
  put_peer(src);
  put(" tag ");
  put_peer(tag);
  if (cpu != 0) {
    put(" cpu ");
    put(uint64_t{cpu});
  }
  if (nic != 0) {
    put(" nic ");
    put(uint64_t{nic});
  }
  put("\n");
  maybe_flush();
  return local;
}

uint32_t GoalTextWriter::calc(uint64_t picoseconds, uint8_t cpu) {
  if (picoseconds % 1000 != 0)
    throw ScheduleError("calc of " + std::to_string(picoseconds) +
                            " ps is not a whole number of nanoseconds, which GOAL text needs",
                        0);
  const uint32_t local = next_label();
  put("calc ");
  put(picoseconds / 1000);
  if (cpu != 0) {
    put(" cpu ");
    put(uint64_t{cpu});
  }
  put("\n");
  maybe_flush();
  return local;
}

void GoalTextWriter::requires_done(uint32_t a, uint32_t b) {
  put_label(a);
  put(" requires ");
  put_label(b);
  put("\n");
  maybe_flush();
}

void GoalTextWriter::requires_start(uint32_t a, uint32_t b) {
  put_label(a);
  put(" irequires ");
  put_label(b);
  put("\n");
  maybe_flush();
}

void write_goal(const Schedule& sched, const ChunkWriter& out) {
  GoalTextWriter w(out);
  w.num_ranks(sched.num_ranks());
  for (uint32_t r = 0; r < sched.num_ranks(); ++r) {
    w.begin_rank(r);
    const uint32_t first = sched.rank_begin(r), last = sched.rank_end(r);
    for (uint32_t i = first; i < last; ++i) {
      const Op op = sched.op(r, i);
      switch (op.kind) {
        case OpKind::Send:
          w.send(op.amount, op.peer, op.tag, op.cpu, op.nic);
          break;
        case OpKind::Recv:
          w.recv(op.amount, op.peer, op.tag, op.cpu, op.nic);
          break;
        case OpKind::Calc:
          if (op.nic != 0)
            throw ScheduleError("a calc on nic " + std::to_string(op.nic) +
                                    " cannot be written as GOAL text",
                                0);
          w.calc(op.amount, op.cpu);
          break;
      }
    }
    // Grouped by the op waited for: reading this back gives every op the
    // same successor lists, in the same order, as `sched`.
    for (uint32_t i = first; i < last; ++i)
      for (uint32_t succ : sched.done_successors(r, i)) w.requires_done(succ - first, i - first);
    for (uint32_t i = first; i < last; ++i)
      for (uint32_t succ : sched.start_successors(r, i)) w.requires_start(succ - first, i - first);
    w.end_rank();
  }
  w.flush();
}

std::string goal_text(const Schedule& sched) {
  std::string text;
  write_goal(sched, [&text](std::string_view chunk) { text.append(chunk); });
  return text;
}

struct GoalFile::Impl {
  std::string path;
  std::FILE* plain = nullptr;
#ifdef CLOUDNOISE_HAVE_ZLIB
  gzFile gz = nullptr;
#endif

  [[noreturn]] void fail(const std::string& what) const {
    throw ScheduleError("cannot " + what + " " + path + ": " + std::strerror(errno), 0);
  }

  void write(std::string_view chunk) {
    if (chunk.empty()) return;
#ifdef CLOUDNOISE_HAVE_ZLIB
    if (gz != nullptr) {
      if (gzwrite(gz, chunk.data(), static_cast<unsigned>(chunk.size())) !=
          static_cast<int>(chunk.size()))
        fail("write");
      return;
    }
#endif
    if (std::fwrite(chunk.data(), 1, chunk.size(), plain) != chunk.size()) fail("write");
  }

  // Returns false when closing reported an error.
  bool close_quietly() {
    bool ok = true;
    if (plain != nullptr) {
      ok = std::fclose(plain) == 0;
      plain = nullptr;
    }
#ifdef CLOUDNOISE_HAVE_ZLIB
    if (gz != nullptr) {
      ok = gzclose(gz) == Z_OK;
      gz = nullptr;
    }
#endif
    return ok;
  }
};

GoalFile::GoalFile(const std::string& path) : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  const bool gzip = path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  if (gzip) {
#ifdef CLOUDNOISE_HAVE_ZLIB
    impl_->gz = gzopen(path.c_str(), "wb6");
    if (impl_->gz == nullptr) impl_->fail("open");
    gzbuffer(impl_->gz, 1u << 20);
#else
    throw ScheduleError("this engine was built without zlib and cannot write " + path +
                            "; write a plain .goal file and gzip it",
                        0);
#endif
  } else {
    impl_->plain = std::fopen(path.c_str(), "wb");
    if (impl_->plain == nullptr) impl_->fail("open");
  }
}

GoalFile::~GoalFile() {
  if (impl_) impl_->close_quietly();
}

ChunkWriter GoalFile::writer() {
  Impl* impl = impl_.get();
  return [impl](std::string_view chunk) { impl->write(chunk); };
}

void GoalFile::close() {
  if (!impl_->close_quietly()) impl_->fail("close");
}

}  // namespace cloudnoise
