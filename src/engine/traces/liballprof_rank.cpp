#include "liballprof_rank.hpp"

#include <charconv>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <unordered_map>

#include "line_source.hpp"

namespace cloudnoise::traces {

namespace {

constexpr int64_t kLapAny = -1;       // MPI_ANY_SOURCE in the events' convention
constexpr int64_t kLapProcNull = -2;  // MPI_PROC_NULL
constexpr uint32_t kLapAnyPeer = 0xFFFFFFFF;  // an any-source receive's peer in GOAL (goal_tags.ANY_PEER)
constexpr double kLapTimeLimit = 1e17;  // ns from the origin (liballprof.py's MAX_US * 1000)
constexpr int64_t kLapTagLimit = int64_t{1} << 24;
constexpr size_t kLapMaxNames = 1 << 16;  // distinct call names (a damaged file may name any number)
constexpr uint8_t kLapSend = 1, kLapRecv = 2, kLapCalc = 3;

// Thrown inside the converter to hand the rank to the Python converter.
struct LapFallback {
  const char* why;
};
[[noreturn, gnu::noinline, gnu::cold]] void lap_fall(const char* why) { throw LapFallback{why}; }

// An int as Python's int() reads it; anything it might read otherwise falls back.
int64_t lap_int(std::string_view s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size()) lap_fall("an integer field");
  return v;
}

// A finite float as Python's float() reads it (both round correctly).
double lap_float(std::string_view s) {
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::general);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v)) lap_fall("a time field");
  return v;
}

// A datatype's size from `ID,SIZE,EXTENT` (liballprof.py's _size).
int64_t lap_type_size(std::string_view field) {
  const size_t a = field.find(',');
  if (a == std::string_view::npos) return 0;
  const size_t b = field.find(',', a + 1);
  const int64_t size = lap_int(field.substr(a + 1, b == std::string_view::npos ? std::string_view::npos : b - a - 1));
  if (size < 0) lap_fall("a negative datatype size");
  return size;
}

bool lap_space(char c) {  // what Python's str.rstrip() strips, in ASCII
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\x0b' || c == '\x0c' ||
         (c >= '\x1c' && c <= '\x1f');
}

// One map type only (each instantiation costs install-time compilation):
// int -> slot; texts are looked up by their hash, and the slot's text is
// compared (a collision of two texts hands the rank to Python).
using LapIntMap = std::unordered_map<int64_t, uint32_t>;

int64_t lap_hash(std::string_view s) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return static_cast<int64_t>(h);
}

struct LapName {
  std::string text;
  CallPlan plan;
  size_t by_name = 0;              // its slot in result.by_name
  int64_t unsupported = -1;        // its slot in result.unsupported, once counted
};

// A request the converter waits for: a send op, or a receive posted after `after`.
struct LapPending {
  bool recv = false;
  int64_t op = -1;  // send: its op (-1: to MPI_PROC_NULL)
  int64_t after = -1, cid = 0, peer = 0, tag = 0, bytes = 0;
};

class LapConverter {
 public:
  LapConverter(const LiballprofRankSetup& s, LiballprofHooks& h, RankOpStore& ops,
               LiballprofRankResult& r)
      : setup_(s), hooks_(h), ops_(ops), res_(r) {}

  void run();

 private:
  LapName& name_entry(std::string_view name);
  std::vector<LapPending>& queue(int64_t req);
  int64_t time_ns(std::string_view field) const;
  int64_t comm_id(std::string_view text, std::string_view name);
  const CommDesc& comm(int64_t cid);
  uint32_t world_peer(const CommDesc& d, int64_t peer) const;
  uint32_t goal_tag(const CommDesc& d, int64_t tag) const;
  void compute_until(int64_t t);
  void account(int64_t t0, int64_t t1);
  void channel(uint32_t src, uint32_t dst, uint32_t tag, int delta);
  void wildcard(uint32_t tag);
  int64_t recv_posted(int64_t cid, int64_t peer, int64_t tag, int64_t bytes, int64_t after);
  void p2p(const CallPlan& p, int64_t t0, int64_t t1);
  void wait(const CallPlan& p, int64_t t0, int64_t t1);
  void request_array(int64_t base, int64_t count, std::vector<int64_t>& out) const;
  void collective(std::string_view line, int64_t t0, int64_t t1);

  const LiballprofRankSetup& setup_;
  LiballprofHooks& hooks_;
  RankOpStore& ops_;
  LiballprofRankResult& res_;
  std::vector<std::string_view> f_;  // the fields of the current line
  int64_t index_ = -1;
  int64_t cur_ = -1, last_exit_ = 0;
  bool finalized_ = false;
  LapIntMap name_slot_;             // hash of a call name -> names_
  std::vector<LapName> names_;
  LapIntMap comm_slot_;             // hash of a `HANDLE,RANK,SIZE` text -> comm_texts_/comm_ids_
  std::vector<std::string> comm_texts_;
  std::vector<uint32_t> comm_ids_;
  std::vector<CommDesc> descs_;
  std::vector<uint8_t> known_;
  LapIntMap reader_pending_;        // the reader's requests (for Wait* arrays; values unused)
  LapIntMap pending_;               // request -> queues_ (the converter's, oldest first)
  std::vector<std::vector<LapPending>> queues_;
  std::vector<uint32_t> free_queues_;
  LapIntMap channel_slot_;          // (peer, tag, direction) -> res_.channels
  LapIntMap wildcard_slot_;         // GOAL tag -> res_.wildcards
  std::vector<int64_t> reqs_;
  std::vector<int64_t> joined_;
};

LapName& LapConverter::name_entry(std::string_view name) {
  const int64_t h = lap_hash(name);
  auto it = name_slot_.find(h);
  if (it != name_slot_.end()) {
    if (names_[it->second].text != name) lap_fall("two call names with one hash");
    return names_[it->second];
  }
  if (names_.size() >= kLapMaxNames) lap_fall("too many call names");
  LapName e;
  e.text = name;
  e.plan = hooks_.plan(name);
  e.by_name = res_.by_name.size();
  res_.by_name.emplace_back(std::string(name), 0);
  name_slot_.emplace(h, static_cast<uint32_t>(names_.size()));
  names_.push_back(std::move(e));
  return names_.back();
}

std::vector<LapPending>& LapConverter::queue(int64_t req) {
  auto [it, added] = pending_.try_emplace(req, 0);
  if (added) {
    if (free_queues_.empty()) {
      it->second = static_cast<uint32_t>(queues_.size());
      queues_.emplace_back();
    } else {
      it->second = free_queues_.back();
      free_queues_.pop_back();
    }
  }
  return queues_[it->second];
}

int64_t LapConverter::time_ns(std::string_view field) const {
  // Python: round((float(field) - offset) * 1000), round half to even
  const double ns = std::nearbyint((lap_float(field) - setup_.offset_us) * 1000.0);
  if (!(-kLapTimeLimit < ns && ns < kLapTimeLimit)) lap_fall("a time far from the run");
  return static_cast<int64_t>(ns);
}

int64_t LapConverter::comm_id(std::string_view text, std::string_view name) {
  const int64_t h = lap_hash(text);
  auto it = comm_slot_.find(h);
  if (it != comm_slot_.end()) {
    if (comm_texts_[it->second] != text) lap_fall("two communicator texts with one hash");
    return comm_ids_[it->second];
  }
  const int64_t cid = hooks_.comm_id(text, name);
  if (cid < 0 || cid > (int64_t{1} << 24)) lap_fall("a communicator the Python reader refuses");
  comm_slot_.emplace(h, static_cast<uint32_t>(comm_texts_.size()));
  comm_texts_.emplace_back(text);
  comm_ids_.push_back(static_cast<uint32_t>(cid));
  return cid;
}

const CommDesc& LapConverter::comm(int64_t cid) {
  if (cid < 0 || cid > (int64_t{1} << 24)) lap_fall("a communicator id");
  const auto k = static_cast<size_t>(cid);
  if (k >= known_.size()) {
    known_.resize(k + 1, 0);
    descs_.resize(k + 1);
  }
  if (!known_[k]) {
    if (!hooks_.comm_desc(cid, descs_[k])) lap_fall("a communicator the converter does not know");
    known_[k] = 1;
  }
  return descs_[k];
}

uint32_t LapConverter::world_peer(const CommDesc& d, int64_t peer) const {
  if (peer < 0 || peer >= d.size) lap_fall("a peer outside its communicator");
  return d.members.empty() ? static_cast<uint32_t>(peer) : d.members[static_cast<size_t>(peer)];
}

uint32_t LapConverter::goal_tag(const CommDesc& d, int64_t tag) const {
  if (tag < 0 || tag >= kLapTagLimit) lap_fall("a tag the converter warns about or refuses");
  return d.tag_base | static_cast<uint32_t>(tag);
}

void LapConverter::compute_until(int64_t t) {
  const int64_t gap = t - last_exit_;
  if (gap <= 0) return;
  double x = std::nearbyint(static_cast<double>(gap) * setup_.compute_scale);
  if (x == 0) x = 1;  // Python: round(gap * scale) or 1
  if (!(x < 9e15)) lap_fall("a calc too long");
  const auto ns = static_cast<int64_t>(x);
  if (__builtin_add_overflow(res_.compute_ns, ns, &res_.compute_ns)) lap_fall("compute time overflows");
  const uint32_t c = ops_.op(kLapCalc, static_cast<uint64_t>(ns) * 1000, 0, 0);
  if (cur_ >= 0) ops_.edge(c, static_cast<uint32_t>(cur_), 0);
  cur_ = c;
}

void LapConverter::account(int64_t t0, int64_t t1) {
  if (t1 > t0) res_.mpi_ns += t1 - t0;
  if (t1 > last_exit_) last_exit_ = t1;
}

void LapConverter::channel(uint32_t src, uint32_t dst, uint32_t tag, int delta) {
  // one end is this rank; tags are below 2^31 (goal_tags.py's layout)
  const bool sent = src == setup_.rank;
  const int64_t key = static_cast<int64_t>(uint64_t{sent ? dst : src} << 32 | uint64_t{tag} << 1 | sent);
  auto [it, added] = channel_slot_.try_emplace(key, static_cast<uint32_t>(res_.channels.size()));
  if (added) res_.channels.push_back(ChannelCount{src, dst, tag});
  ChannelCount& c = res_.channels[it->second];
  c.balance += delta;
  (delta > 0 ? c.send_index : c.recv_index) = index_;
}

void LapConverter::wildcard(uint32_t tag) {  // Matching.wildcard, for this rank's receives
  auto [it, added] = wildcard_slot_.try_emplace(tag, static_cast<uint32_t>(res_.wildcards.size()));
  if (added) res_.wildcards.push_back(WildcardCount{tag});
  WildcardCount& w = res_.wildcards[it->second];
  ++w.count;
  w.latest_index = index_;
  if (res_.first_wildcard < 0) res_.first_wildcard = index_;
}

// rank_converter.py's recv_as_posted/recv for a receive whose status the trace does not record:
// from a named rank, or from MPI_ANY_SOURCE (an any-source receive, matched by the simulation).
int64_t LapConverter::recv_posted(int64_t cid, int64_t peer, int64_t tag, int64_t bytes, int64_t after) {
  const CommDesc& d = comm(cid);
  if (peer == kLapProcNull) return -1;
  if (peer == kLapAny) {
    const uint32_t gtag = goal_tag(d, tag);
    const uint32_t r = ops_.op(kLapRecv, static_cast<uint64_t>(bytes), kLapAnyPeer, gtag);
    if (after >= 0) ops_.edge(r, static_cast<uint32_t>(after), 0);
    wildcard(gtag);
    return r;
  }
  if (peer < 0) lap_fall("a negative source other than MPI_ANY_SOURCE");
  const uint32_t src = world_peer(d, peer);
  const uint32_t gtag = goal_tag(d, tag);
  const uint32_t r = ops_.op(kLapRecv, static_cast<uint64_t>(bytes), src, gtag);
  if (after >= 0) ops_.edge(r, static_cast<uint32_t>(after), 0);
  channel(src, setup_.rank, gtag, -1);
  return r;
}

void LapConverter::p2p(const CallPlan& p, int64_t t0, int64_t t1) {
  const int64_t count = lap_int(f_[p.count]);
  const int64_t size = lap_type_size(f_[p.type]);
  const __int128 wide = static_cast<__int128>(count) * size;
  if (wide < 0 || wide > static_cast<__int128>(setup_.max_bytes)) lap_fall("a byte count out of range");
  const auto bytes = static_cast<int64_t>(wide);
  int64_t peer = lap_int(f_[p.peer]);
  if (setup_.mpich && (peer == -1 || peer == -2)) peer = peer == -1 ? kLapProcNull : kLapAny;
  const int64_t cid = comm_id(f_[p.comm], f_[0]);
  const int64_t tag = lap_int(f_[p.tag]);
  const bool nonblocking = p.sub == CallPlan::Isend || p.sub == CallPlan::Irecv;
  int64_t req = 0;
  if (nonblocking) {
    req = lap_int(f_[p.request]);
    reader_pending_.try_emplace(req, 1);
  }
  if (peer == kLapProcNull) {  // no communication; its time stays compute (rank_converter.py)
    if (nonblocking) {
      comm(cid);
      LapPending e;
      e.recv = p.sub == CallPlan::Irecv;
      e.after = cur_, e.cid = cid, e.peer = peer, e.tag = tag, e.bytes = bytes;
      queue(req).push_back(e);
    }
    return;
  }
  compute_until(t0);
  if (p.sub == CallPlan::Send || p.sub == CallPlan::Isend) {
    const CommDesc& d = comm(cid);
    const uint32_t dst = world_peer(d, peer);
    const uint32_t gtag = goal_tag(d, tag);
    const uint32_t s = ops_.op(kLapSend, static_cast<uint64_t>(bytes), dst, gtag);
    if (cur_ >= 0) ops_.edge(s, static_cast<uint32_t>(cur_), 0);
    channel(setup_.rank, dst, gtag, +1);
    if (p.sub == CallPlan::Send) {
      cur_ = s;
    } else {
      LapPending e;
      e.op = s;
      queue(req).push_back(e);
    }
  } else if (p.sub == CallPlan::Recv) {
    const int64_t r = recv_posted(cid, peer, tag, bytes, cur_);
    if (r >= 0) cur_ = r;
  } else {
    comm(cid);
    LapPending e;
    e.recv = true;
    e.after = cur_, e.cid = cid, e.peer = peer, e.tag = tag, e.bytes = bytes;
    queue(req).push_back(e);
  }
  account(t0, t1);
}

// liballprof.py's _array: the element size (4 or 8 bytes) that names the most pending requests.
void LapConverter::request_array(int64_t base, int64_t count, std::vector<int64_t>& out) const {
  if (count < 0 || count > (int64_t{1} << 24)) lap_fall("a request count");
  if (base > (int64_t{1} << 62) || base < -(int64_t{1} << 62)) lap_fall("a request address");
  out.clear();
  for (int64_t i = 0; i < count; ++i)
    if (reader_pending_.count(base + i * 4)) out.push_back(base + i * 4);
  if (static_cast<int64_t>(out.size()) == count) return;
  size_t eight = 0;
  for (int64_t i = 0; i < count; ++i) eight += reader_pending_.count(base + i * 8);
  if (eight > out.size()) {
    out.clear();
    for (int64_t i = 0; i < count; ++i)
      if (reader_pending_.count(base + i * 8)) out.push_back(base + i * 8);
  }
}

void LapConverter::wait(const CallPlan& p, int64_t t0, int64_t t1) {
  if (p.sub == CallPlan::One) {
    const int64_t req = lap_int(f_[p.request]);
    reqs_.clear();
    if (reader_pending_.count(req)) reqs_.push_back(req);
  } else {
    const int64_t base = lap_int(f_[p.request]);
    request_array(base, lap_int(f_[p.count]), reqs_);
    if (p.sub == CallPlan::Any && reqs_.size() > 1) reqs_.erase(reqs_.begin() + 1, reqs_.end());
  }
  for (int64_t r : reqs_) reader_pending_.erase(r);
  if (reqs_.empty()) return;  // a wait that found nothing: its time is compute
  compute_until(t0);
  joined_.clear();
  for (int64_t r : reqs_) {
    auto it = pending_.find(r);
    if (it == pending_.end()) lap_fall("a request the converter never started");
    std::vector<LapPending>& q = queues_[it->second];
    const LapPending e = q.front();
    q.erase(q.begin());
    if (q.empty()) {
      free_queues_.push_back(it->second);
      pending_.erase(it);
    }
    const int64_t o = e.recv ? recv_posted(e.cid, e.peer, e.tag, e.bytes, e.after) : e.op;
    if (o >= 0) joined_.push_back(o);
  }
  if (!joined_.empty()) {
    const uint32_t j = ops_.op(kLapCalc, 0, 0, 0);
    if (cur_ >= 0) ops_.edge(j, static_cast<uint32_t>(cur_), 0);
    for (int64_t o : joined_) ops_.edge(j, static_cast<uint32_t>(o), 0);
    cur_ = j;
  }
  account(t0, t1);
}

void LapConverter::collective(std::string_view line, int64_t t0, int64_t t1) {
  compute_until(t0);
  HookOps h = hooks_.collective(line, index_, t0, t1, cur_, ops_.ops());
  if (!h.ok) lap_fall("a collective the Python converter refuses");
  for (const StoredOp& o : h.ops) ops_.op(o.kind, o.amount, o.peer, o.tag);
  for (const StoredEdge& e : h.edges) ops_.edge(e.from, e.to, e.start);
  if (h.exit >= 0) cur_ = h.exit;
  account(t0, t1);
}

void LapConverter::run() {
  LineSource src(setup_.path);
  size_t next_bind = 0;
  std::string_view line;
  while (src.next(line)) {
    while (!line.empty() && lap_space(line.back())) line.remove_suffix(1);
    if (line.empty() || line[0] == '#') {
      if (std::memchr(line.data(), '\r', line.size())) lap_fall("a carriage return");
      continue;
    }
    for (char c : line)
      if (c < '\x21' || c > '\x7e') lap_fall("a character outside printable ASCII");
    ++index_;
    if (finalized_) lap_fall("a call after MPI_Finalize");
    f_.clear();
    for (size_t a = 0;;) {
      const size_t b = line.find(':', a);
      f_.push_back(line.substr(a, b == std::string_view::npos ? std::string_view::npos : b - a));
      if (b == std::string_view::npos) break;
      a = b + 1;
    }
    if (next_bind < setup_.bind_indices.size() && setup_.bind_indices[next_bind] == index_) {
      hooks_.comm_at(index_);
      comm_slot_.clear();
      comm_texts_.clear();
      comm_ids_.clear();
      while (next_bind < setup_.bind_indices.size() && setup_.bind_indices[next_bind] == index_) ++next_bind;
    }
    if (f_.size() < 3) lap_fall("a short line");
    const std::string_view name = f_[0];
    LapName& entry = name_entry(name);
    if (index_ == 0) {
      if (name != "MPI_Init" && name != "MPI_Init_thread") lap_fall("no MPI_Init");
      if (f_.back() == "-") lap_fall("MPI_Init without an end time");
      time_ns(f_.back());  // (checked only: MPI_Init's times are not used)
      ++res_.by_name[entry.by_name].second;
      continue;
    }
    const int64_t t0 = time_ns(f_[1]);
    const int64_t t1 = f_.back() == "-" ? t0 : time_ns(f_.back());
    if (t1 < t0) lap_fall("a call that ends before it starts");
    ++res_.by_name[entry.by_name].second;
    if (name == "MPI_Finalize") {
      compute_until(t0);
      res_.finalize_ns = t0;
      finalized_ = true;
      continue;
    }
    const CallPlan& p = entry.plan;
    // The classes read by field position know their line's length (the
    // others have nfields 0).
    if (p.nfields != 0 && f_.size() != p.nfields) lap_fall("a call with other arguments");
    switch (p.cls) {
      case CallPlan::Local:
        break;
      case CallPlan::Unsupported:
        if (!setup_.allow_unsupported) lap_fall("an unsupported call");
        if (entry.unsupported < 0) {
          entry.unsupported = static_cast<int64_t>(res_.unsupported.size());
          res_.unsupported.emplace_back(std::string(name), 0);
        }
        ++res_.unsupported[static_cast<size_t>(entry.unsupported)].second;
        break;
      case CallPlan::P2P:
        p2p(p, t0, t1);
        break;
      case CallPlan::Wait:
        wait(p, t0, t1);
        break;
      case CallPlan::Collective:
        collective(line, t0, t1);
        break;
      case CallPlan::CommCreate:
        if (!hooks_.comm_create(line, index_, t0, t1)) lap_fall("a constructor the Python reader refuses");
        break;
      default:
        lap_fall("a call the C++ converter does not convert");
    }
  }
  if (src.failed()) lap_fall("the file cannot be read to its end");
  if (!finalized_) lap_fall("no MPI_Finalize");
  for (const auto& [req, slot] : pending_)
    for (const LapPending& e : queues_[slot])
      if (e.recv) lap_fall("a receive that never completes");
  res_.calls = index_ + 1;
}

}  // namespace

LiballprofRankResult convert_liballprof_rank(const LiballprofRankSetup& setup, LiballprofHooks& hooks,
                                             RankOpStore& ops) {
  LiballprofRankResult res;
  ops.clear();
  try {
    LapConverter(setup, hooks, ops, res).run();
    res.converted = true;
  } catch (const LapFallback& f) {
    res = LiballprofRankResult{};
    res.fallback = f.why;
    ops.clear();
  } catch (const std::length_error&) {
    res = LiballprofRankResult{};
    res.fallback = "a rank with more than 2^32-1 ops";
    ops.clear();
  }
  return res;
}

}  // namespace cloudnoise::traces
