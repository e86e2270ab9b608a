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
// message's arrival, the recorder notes that time and why (the setter that
// binds: the later of the CPU and the NIC, the CPU on a tie; for a message
// queued at its arrival, its flight from its send). An event's start is
// its last queued time, so following "why" from the setter of the last
// rank's CPU back to a node queued at time 0 gives a chain of activities
// whose lengths add up to the runtime exactly. The hooks live in the steps
// every event loop takes (engine_steps.hpp), so the general, windowed and
// specialised loops record the same path.
//
// What it costs: 40 bytes per op of the schedule (a record per op and per
// message), one store per queued event and two per activity.
//
// The time along a link is split afterwards (Engine::path_segment,
// critical_path_parts.cpp) by taking the same step again with the same
// draws (the OS-noise lookup, the latency and bandwidth draws keyed by the
// send, the sender's stalls and episodes at its time), and checked to add
// up to the recorded times to the picosecond.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
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
  LatencyDraw,       // the message's drawn latency excess (or switch draw beyond the noiseless L)
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
  // A node and a link, packed (node << 3 | link); Start is 0.
  using Why = uint64_t;
  static constexpr Why kStart = 0;

  static Why why(uint32_t op, bool message, PathLink link) {
    return (uint64_t{op} << 1 | static_cast<uint64_t>(message)) << 3 | static_cast<uint64_t>(link);
  }
  static PathLink link_of(Why w) { return static_cast<PathLink>(w & 7); }
  static PathNode node_of(Why w) { return {static_cast<uint32_t>(w >> 4), ((w >> 3) & 1) != 0}; }

  // Ready for a run of a schedule of `ops` ops whose hosts keep `resources`
  // times (the engine's host state): every setter is the start.
  void start_run(uint64_t ops, size_t resources, bool track_matches) {
    if (op_.size() != ops) {
      op_.assign(ops, OpRecord{});
      message_.assign(ops, MessageRecord{});
    }
    setter_.assign(resources, kStart);
    if (track_matches) match_.assign(ops, kStart);
    now_ = kStart;
  }
  uint64_t ops() const { return op_.size(); }

  // The hooks (engine_steps.hpp).
  // An event is queued at `time`, which `w` set.
  [[gnu::always_inline]] void queued(uint32_t op, bool message, int64_t time, Why w) {
    if (message) {
      message_[op] = {time, w};
    } else {
      op_[op].time = time;
      op_[op].why = w;
    }
  }
  // The event now running.
  [[gnu::always_inline]] void begin(uint32_t op, bool message) { now_ = why(op, message, PathLink::Start); }
  // The running event released op `op`.
  [[gnu::always_inline]] void released(uint32_t op) { op_[op].released_by = now_; }
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

  // A node's start and why it started then.
  int64_t time(PathNode n) const { return n.message ? message_[n.op].time : op_[n.op].time; }
  Why why_of(PathNode n) const { return n.message ? message_[n.op].why : op_[n.op].why; }
  // The node that released op `op` (its link bits are Start).
  Why released_by(uint32_t op) const { return op_[op].released_by; }

 private:
  struct OpRecord {
    int64_t time = 0;
    Why why = kStart;
    Why released_by = kStart;
  };
  struct MessageRecord {
    int64_t time = 0;
    Why why = kStart;
  };
  std::vector<OpRecord> op_;
  std::vector<MessageRecord> message_;  // by send op
  std::vector<Why> setter_;             // parallel to the engine's host state
  std::vector<Why> match_;              // by send op, rendezvous in windows only
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
