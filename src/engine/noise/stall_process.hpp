// Latency stalls as a process in time (cloudnoise/model/latency_episodes.py
// states the model): each repetition draws its own table of stalls from
// (seed, repetition), so repetitions are independent draws of the noise and
// repetition r of a long run equals that repetition run alone, on any
// number of threads. A table shared by every repetition would make a run of
// many repetitions one draw of the episodes: with heavy-tailed episode
// lengths a few long ones decide the whole run.
//
// * bursty: an episode starts after a quiet time drawn exponential (mean
//   `mean_quiet`); it is a train of stalls, each `stall` long and the next
//   `gap` after it, for as long as a stall starts within the episode's
//   `duration` from its first; the next quiet time starts 1 ns after its
//   last stall ends.
// * periodic: a stall of `stall` (a draw each) every `every`.
//
// A table spans `period` (the model's rule for a table's length), which
// every host of the repetition reads from its own offset (Engine::reset).
// It holds at most kMaxStalls stalls: a draw that would hold more ends its
// table after the kMaxStalls-th.
#pragma once

#include <cstdint>
#include <memory>

#include "latency_stalls.hpp"
#include "quantile_table.hpp"

namespace cloudnoise {

class StallProcess {
 public:
  static constexpr size_t kMaxStalls = 4'000'000;

  // Times in ps; the tables draw lengths in ps.
  static StallProcess bursty(double mean_quiet_ps, std::shared_ptr<const QuantileTable> duration_ps,
                             std::shared_ptr<const QuantileTable> stall_ps, std::shared_ptr<const QuantileTable> gap_ps,
                             int64_t period_ps);
  static StallProcess periodic(int64_t every_ps, std::shared_ptr<const QuantileTable> stall_ps, int64_t period_ps);

  // Repetition `repetition`'s table: a function of (seed, repetition) alone.
  LatencyStalls draw(uint64_t seed, uint64_t repetition) const;

  int64_t period_ps() const { return period_; }
  bool is_periodic() const { return every_ > 0; }

 private:
  StallProcess() = default;
  LatencyStalls draw_bursty(uint64_t seed, uint64_t repetition) const;
  LatencyStalls draw_periodic(uint64_t seed, uint64_t repetition) const;

  double mean_quiet_ = 0.0;
  int64_t every_ = 0;  // > 0: periodic
  std::shared_ptr<const QuantileTable> duration_, stall_, gap_;
  int64_t period_ = 0;
};

}  // namespace cloudnoise
