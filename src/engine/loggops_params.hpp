// LogGOPS parameters in the engine's integer units.
#pragma once

#include <cstdint>

namespace cloudnoise {

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
  // cloudnoise's one extension, off by default: the per-byte CPU overhead
  // of rendezvous messages (size > S), when it differs from the eager O.
  // A shared-memory or RDMA rendezvous send only announces its message, so
  // the sender's CPU does not pay the copy that an eager send does. -1:
  // O for every size, as LogGOPSim.
  int64_t O_rendezvous_fs = -1;

  int64_t O_for(uint64_t bytes) const { return bytes > S && O_rendezvous_fs >= 0 ? O_rendezvous_fs : O_fs; }
};

}  // namespace cloudnoise
