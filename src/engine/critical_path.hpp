// The critical path of a repetition: the chain of activities, from time 0
// to the last rank's end, each of which started the moment the one before
// it ended, and the time along it split into the LogGOPS terms and the
// noise that made it.
//
// What is recorded (when asked: Engine::set_critical_path; every hook is
// compiled out of the loops otherwise). A *node* is an event that ran: an
// op starting, or the message of a send op taken at its receiver. Each
// per-host time the engine keeps (a CPU's, a NIC's next free time) has a
// *setter*: the node whose activity set it, and which part of that
// activity it was (its CPU part, its NIC's gap, ...: a PathLink). Whenever
// an event is queued, at the time one of those resources frees or at a
// message's arrival, the recorder logs that time and why (the setter that
// binds: the later of the CPU and the NIC, the CPU on a tie; for a message
// queued at its arrival, its flight from its send). An event's start is
// its last queued time, so following "why" from the setter of the last
// rank's CPU back to a node queued at time 0 gives a chain of activities
// whose lengths add up to the runtime exactly. The hooks live in the steps
// every event loop takes (engine_steps.hpp), so the general, windowed and
// specialised loops record the same path.
//
// What it costs: a 24-byte log entry per queued event, written in
// sequence, and a store per resource an activity sets; the path is found
// in one backward pass over the log.
//
// The time along a link is split afterwards (Engine::path_segment,
// critical_path_parts.cpp) by taking the same step again with the same
// draws (the OS-noise lookup, the latency and bandwidth draws keyed by the
// send, the sender's stalls and episodes at its time), and checked to add
// up to the recorded times to the picosecond.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

namespace cloudnoise {

// What a stretch of the critical path is made of: the LogGOPS terms, then
// the noise (each noise apart, its source's own kind).
enum class PathPart : uint8_t {
  Compute,           // calcs
  o,                 // CPU overhead per message (a send's, a receive's)
  g,                 // NIC gap per message
  L,                 // latency (under switch draws: the noiseless network's)
  G,                 // NIC gap per byte: (size - 1) x G (noiseless)
  O,                 // CPU overhead per byte
  OsDetour,          // OS detours charged to CPU activities
  LatencyDraw,       // the message's drawn latency excess and its sender's latency level (or switch
                     // draw beyond the noiseless L)
  LatencyStall,      // the rest of its sender's latency stall
  BandwidthDraw,     // the extra time of its drawn bandwidth
  BandwidthEpisode,  // the extra time of its sender's bandwidth drop
};
inline constexpr size_t kPathParts = 11;
using PathParts = std::array<int64_t, kPathParts>;

// Which activity ended at the moment an event started: the constraint that
// set its start.
enum class PathLink : uint8_t {
  Start,    // time 0: the op waited for nothing
  Cpu,      // a CPU activity: a send's o (and O), a received message's o (and G or O), a calc
  NicSend,  // the NIC's gap after a send: g and G x bytes
  NicRecv,  // the NIC's gap after a message received: g and G x bytes
  Flight,   // a message's way from its send to its receiver: o and L
  Hold,     // a rendezvous send held until its receiver took the message (no time)
};
inline constexpr size_t kPathLinks = 6;

// An event that ran: op `op` starting, or the message of send op `op`
// taken at its receiver.
struct PathNode {
  uint32_t op = 0;
  bool message = false;
};

// One stretch of the path: `node`'s activity on `link`, from `start` (the
// node's start) to `end` (when the next node on the path started).
struct PathSegment {
  PathNode node;
  PathLink link = PathLink::Start;
  uint8_t kind = 0;     // what ran: 1 a send, 2 a receive, 3 a calc, 4 a message taken (EventKind's numbers)
  // The next node on the path waited for this one as a dependency (it was
  // released by it), not only for the resource it held.
  bool dependency = false;
  uint32_t host = 0;    // where the activity ran (a flight: the sender)
  uint8_t cpu = 0, nic = 0;  // its CPU and NIC there (a message's: its send's indices, as LogGOPSim uses them)
  uint32_t peer = 0;    // a message's other end (the receiver for a send, the sender for a message)
  uint64_t bytes = 0;   // a message's size; a calc's length in ps
  int64_t start = 0, end = 0;
  PathParts parts{};    // adds up to end - start
  // The LogGOPS terms it charges (PathCounts): how many L, o and g, and
  // whether its bytes are charged G and O.
  uint8_t n_L = 0, n_o_send = 0, n_o_recv = 0, n_g = 0;
  bool charges_G = false, charges_O = false;
};

// How often each LogGOPS term lies on a path: the runtime's derivatives
// with respect to the parameters, for as long as the path stays critical.
struct PathCounts {
  uint64_t L = 0;        // latencies (flights; a rendezvous under switch draws counts 3)
  uint64_t o_send = 0;   // sends' o (their CPU part and their flight)
  uint64_t o_recv = 0;   // receives' o
  uint64_t g = 0;        // NIC gaps
  uint64_t G_bytes = 0;  // bytes charged G ((size - 1) per message)
  uint64_t O_bytes = 0;  // bytes charged O
  uint64_t calcs = 0;
  uint64_t segments = 0;
};

struct CriticalPath {
  PathParts parts{};  // the sum of the segments' parts: the runtime
  PathCounts counts;
  int64_t end = 0;    // the runtime
  uint32_t last_host = 0;
  std::vector<PathSegment> segments;  // from time 0 to the end
};

class CriticalPathRecorder {
 public:
  // A node and a link, packed (node << 3 | link, node = op << 1 | message); Start is 0.
  using Why = uint64_t;
  static constexpr Why kStart = 0;

  static Why why(uint32_t op, bool message, PathLink link) {
    return (uint64_t{op} << 1 | static_cast<uint64_t>(message)) << 3 | static_cast<uint64_t>(link);
  }
  static PathLink link_of(Why w) { return static_cast<PathLink>(w & 7); }
  static PathNode node_of(Why w) { return {static_cast<uint32_t>(w >> 4 & 0xFFFFFFFFu), ((w >> 3) & 1) != 0}; }

  // One event queued: its node, the time, and why then (`setter`); for an op
  // made ready, also the node that released it. Written in the order the
  // engine queues events, so a node's entries come after those of every
  // node it waited for (walk_path reads them backwards).
  struct Entry {
    int64_t time;
    uint64_t bits;     // the setter (Why, bits 0-35), kMessage, kReleased, kReleasedByMessage
    uint32_t op;       // the node's op
    uint32_t released_by;  // with kReleased: the op of the event that released it
    static constexpr uint64_t kMessage = uint64_t{1} << 62, kReleased = uint64_t{1} << 61,
                              kReleasedByMessage = uint64_t{1} << 60, kSetter = (uint64_t{1} << 36) - 1;
    PathNode node() const { return {op, (bits & kMessage) != 0}; }
    Why setter() const { return bits & kSetter; }
    bool released() const { return (bits & kReleased) != 0; }
    Why releaser() const { return why(released_by, (bits & kReleasedByMessage) != 0, PathLink::Start); }
  };

  // Ready for a run of a schedule of `ops` ops whose hosts keep `resources`
  // times (the engine's host state): every setter is the start.
  // `match_ops`: with rendezvous in windows, `ops` (matched / begin_match), else 0.
  void start_run(size_t resources, uint64_t match_ops, uint64_t ops) {
    size_ = 0;
    // An entry per op and per message at least: room for that at once, not by doubling.
    if (log_.size() < ops + ops / 2) log_.resize(ops + ops / 2);
    setter_.assign(resources, kStart);
    if (match_ops) match_.assign(match_ops, kStart);
    for (auto& channels : channel_) channels.clear();
    now_ = kStart;
  }

  // The hooks (engine_steps.hpp).
  // An event is queued at `time`, which `w` set.
  [[gnu::always_inline]] void queued(uint32_t op, bool message, int64_t time, Why w) {
    append(time, w | (message ? Entry::kMessage : 0), op, 0);
  }
  // Op `op` is released by the running event and queued at `time`, which `w` set.
  [[gnu::always_inline]] void ready(uint32_t op, int64_t time, Why w) {
    append(time, w | Entry::kReleased | ((now_ >> 3 & 1) ? Entry::kReleasedByMessage : 0), op,
           static_cast<uint32_t>(now_ >> 4));
  }
  // The event now running.
  [[gnu::always_inline]] void begin(uint32_t op, bool message) { now_ = why(op, message, PathLink::Start); }
  // Resource `r`'s free time was set by `w` (a node's activity on a link).
  [[gnu::always_inline]] void set(size_t r, Why w) { setter_[r] = w; }
  // The running event, through `link`.
  [[gnu::always_inline]] Why now(PathLink link) const { return now_ | static_cast<Why>(link); }
  [[gnu::always_inline]] Why setter(size_t r) const { return setter_[r]; }
  // In windows: the running event matched send op `send_op`'s rendezvous
  // message, whose completion its sender processes later as an event of
  // its own, which then runs as the match (begin_match).
  void matched(uint32_t send_op) { match_[send_op] = now_; }
  void begin_match(uint32_t send_op) { now_ = match_[send_op]; }
  // Under in-order delivery between two ranks (channel_order.hpp): the
  // message of send op `op` from h to r, drawn to arrive at `drawn`, arrives
  // at `arrival`; when later, it waited for the previous message from h to
  // r, whose flight set that time.
  void channel(uint32_t h, uint32_t r, uint32_t op, int64_t drawn, int64_t arrival) {
    if (channel_.size() <= h) channel_.resize(h + 1);
    Why& setter = channel_[h][r];
    if (arrival == drawn)
      setter = why(op, false, PathLink::Flight);
    else
      queued(op, true, arrival, setter);
  }

  // The run's entries, in the order written.
  size_t size() const { return size_; }
  const Entry& entry(size_t i) const { return log_[i]; }

 private:
  [[gnu::always_inline]] void append(int64_t time, uint64_t bits, uint32_t op, uint32_t released_by) {
    if (size_ == log_.size()) [[unlikely]]
      grow();
    Entry& e = log_[size_++];
    e.time = time;
    e.bits = bits;
    e.op = op;
    e.released_by = released_by;
  }
  [[gnu::noinline]] void grow() { log_.resize(std::max<size_t>(size_t{1} << 16, 2 * log_.size())); }

  // A log, written in sequence: an entry per queued event. Records by op,
  // written in place, would be touched a few per host and window over 18 MB
  // on a 16K-rank dissemination, missing the caches that hold the hosts'
  // state: they cost 2.85x the engine's time there, the log 1.4-1.6x.
  std::vector<Entry> log_;
  size_t size_ = 0;
  std::vector<Why> setter_;  // parallel to the engine's host state
  std::vector<Why> match_;   // by send op, rendezvous in windows only
  // Per sender, receiver -> the flight that set the last arrival there.
  std::vector<std::unordered_map<uint32_t, Why>> channel_;
  Why now_ = kStart;
};

// The host a noise part of a segment came from: OS detours from the host
// whose CPU they stopped, network noise from the message's sender (its
// draws are keyed by the send, its stalls and episodes are the sender's).
inline uint32_t noise_host(const PathSegment& s, PathPart part) {
  if (part == PathPart::OsDetour) return s.host;
  return s.node.message ? s.peer : s.host;
}

// Follows the recorded links back from `last` (the setter of the last
// rank's CPU, which freed at `end`) to time 0: the segments in time order.
// `segment(node, link, start)` gives the node's activity on that link with
// its parts split (Engine::path_segment): it must end where the next node
// started. Throws std::logic_error when the links do not form such a chain
// from 0 (an engine bug).
using SegmentOf = std::function<PathSegment(PathNode, PathLink, int64_t)>;
std::vector<PathSegment> walk_path(const CriticalPathRecorder& rec, CriticalPathRecorder::Why last, int64_t end,
                                   const SegmentOf& segment);

// A path from its segments: their parts summed, and the LogGOPS terms counted.
CriticalPath summarize_path(std::vector<PathSegment> segments, int64_t end, uint32_t last_host);

}  // namespace cloudnoise
