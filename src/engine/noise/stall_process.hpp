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
// * recurring: stalls that never stop coming: each `stall` long, the next
//   `gap` after it (both drawn), from a start at 0. The table ends where
//   the first stall past the period would start, so its wrap is one more
//   drawn gap, not a cut.
//
// A bursty table spans the model's period (about 500 episodes) or longer,
// read by more hosts (table_period.hpp): with 500 episodes read by every
// host, the busy demo machine's 16 B dissemination took 74.7 ms at 4,096
// nodes and 72.8 ms at 16,384. A table
// holds at most kMaxStalls stalls: a draw that would hold more ends its
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

  // Times in ps; the tables draw lengths in ps. mean_cycle_ps: a bursty
  // model's mean quiet time plus mean episode.
  static StallProcess bursty(double mean_quiet_ps, double mean_cycle_ps,
                             std::shared_ptr<const QuantileTable> duration_ps,
                             std::shared_ptr<const QuantileTable> stall_ps, std::shared_ptr<const QuantileTable> gap_ps,
                             int64_t period_ps);
  static StallProcess periodic(int64_t every_ps, std::shared_ptr<const QuantileTable> stall_ps, int64_t period_ps);
  // mean_cycle_ps: the mean stall plus the mean gap.
  static StallProcess recurring(double mean_cycle_ps, std::shared_ptr<const QuantileTable> stall_ps,
                                std::shared_ptr<const QuantileTable> gap_ps, int64_t period_ps);

  // Repetition `repetition`'s table, read by `hosts` hosts from their own
  // offsets: a function of (seed, repetition, hosts) alone.
  LatencyStalls draw(uint64_t seed, uint64_t repetition, uint32_t hosts = 1) const;

  // The period of a table read by `hosts` hosts.
  int64_t period_ps(uint32_t hosts = 1) const;
  bool is_periodic() const { return every_ > 0; }

 private:
  StallProcess() = default;
  LatencyStalls draw_bursty(uint64_t seed, uint64_t repetition, int64_t table_period) const;
  LatencyStalls draw_periodic(uint64_t seed, uint64_t repetition) const;
  LatencyStalls draw_recurring(uint64_t seed, uint64_t repetition, int64_t table_period) const;

  double mean_quiet_ = 0.0, mean_cycle_ = 0.0;
  int64_t every_ = 0;  // > 0: periodic
  bool recurring_ = false;
  std::shared_ptr<const QuantileTable> duration_, stall_, gap_;
  int64_t period_ = 0;
};

}  // namespace cloudnoise
