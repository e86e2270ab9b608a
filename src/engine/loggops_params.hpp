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
};

}  // namespace cloudnoise
