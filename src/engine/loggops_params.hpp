// LogGOPS parameters in the engine's integer units.
#pragma once

#include <cstdint>
#include <vector>

namespace cloudnoise {

// cloudnoise's extension for measured profiles: latency, per-byte gap and
// per-byte CPU overhead for messages of at least min_bytes. A transport's
// one-way time is not one straight line from 1 B to 16 MiB (the eager/
// rendezvous switch, copies that fit the caches or not); Netgauge fits a
// line per regime, and these are those lines.
struct SizeClass {
  uint64_t min_bytes = 0;
  int64_t L_ps = 0;
  int64_t G_fs = 0;
  int64_t O_fs = 0;
};

// L, o, g in picoseconds; G and O per byte in femtoseconds, so that
// 100 Gb/s (G = 0.08 ns/B = 80 ps/B) and any integer-nanosecond LogGOPSim
// parameter are exact. S is the eager/rendezvous threshold in bytes
// (eager when size <= S).
struct LogGOPSParams {
  int64_t L_ps = 0;
  int64_t o_ps = 0;
  int64_t g_ps = 0;
  int64_t G_fs = 0;
  int64_t O_fs = 0;
  uint64_t S = 0;
  // An extension, off by default: the per-byte CPU overhead of rendezvous
  // messages (size > S), when it differs from the eager O. A shared-memory
  // or RDMA rendezvous send only announces its message, so the sender's CPU
  // does not pay the copy that an eager send does. -1: O for every size, as
  // LogGOPSim.
  int64_t O_rendezvous_fs = -1;
  // The separate-overheads extension, off by default: the CPU overhead of
  // receiving a message when it differs from sending one (o_ps is then the
  // send overhead). -1: o for both, as LogGOPSim.
  int64_t o_r_ps = -1;
  // The size-class extension, off by default: when given (sorted by
  // min_bytes, the first at 0), a message's L, G and O are its class's and
  // L, G, O, O_rendezvous above are not used. Empty: LogGOPSim exactly.
  std::vector<SizeClass> classes;

  int64_t o_recv() const { return o_r_ps >= 0 ? o_r_ps : o_ps; }
  const SizeClass& class_for(uint64_t bytes) const {
    size_t k = 0;
    while (k + 1 < classes.size() && classes[k + 1].min_bytes <= bytes) ++k;
    return classes[k];
  }
  // L, G and O of a message of `bytes` bytes: its size class's, or the
  // LogGOPS parameters (O_rendezvous beyond S when given). The engine needs
  // all three per message, so they come from one look at `classes`.
  struct Costs {
    int64_t L_ps, G_fs, O_fs;
  };
  [[gnu::always_inline]] Costs costs_for(uint64_t bytes) const {
    if (!classes.empty()) {
      const SizeClass& c = class_for(bytes);
      return {c.L_ps, c.G_fs, c.O_fs};
    }
    return {L_ps, G_fs, bytes > S && O_rendezvous_fs >= 0 ? O_rendezvous_fs : O_fs};
  }
  // The smallest latency any message can have (the engine's lookahead).
  int64_t min_L() const {
    if (classes.empty()) return L_ps;
    int64_t least = classes.front().L_ps;
    for (const SizeClass& c : classes) least = c.L_ps < least ? c.L_ps : least;
    return least;
  }
};

}  // namespace cloudnoise
