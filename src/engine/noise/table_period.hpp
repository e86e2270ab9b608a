// How long a repetition's table of noise in time (latency stalls, bandwidth
// episodes) runs: the model's own period, or, read by more hosts, at least
// kCyclesPerHost mean cycles (quiet time and episode) per host, at most
// 10^5 s. Every host of a repetition reads the table from its own offset
// (Engine::reset); hosts that read the same few episodes would meet the same
// longest ones, so the slowest of many hosts would stop growing with their
// number.
#pragma once

#include <algorithm>
#include <cstdint>

#include "../input_limits.hpp"

namespace cloudnoise {

inline constexpr double kCyclesPerHost = 4.0;

inline int64_t table_period_ps(int64_t model_period_ps, double mean_cycle_ps, uint32_t hosts) {
  const double wanted = kCyclesPerHost * static_cast<double>(hosts) * mean_cycle_ps;
  return std::max(model_period_ps,
                  static_cast<int64_t>(std::min(wanted, static_cast<double>(limits::kMaxTimePs))));
}

}  // namespace cloudnoise
