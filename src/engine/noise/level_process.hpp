// Latency levels as a process in time: each repetition draws its own table
// of levels from (seed, repetition), as StallProcess draws stalls, so
// repetitions are independent draws of the levels and repetition r depends
// on (seed, r) alone.
//
// A renewal process: the first level starts at 0; each level is drawn from
// `level` (ps, may be negative) independently of the others and holds for a
// time drawn exponential (mean `mean_hold`, at least 1 ns), then the next
// one starts. A table spans the model's period, or, read by more hosts,
// kCyclesPerHost mean holds per host (table_period.hpp: a level's cycle is
// its hold), which every host of the repetition reads from its own offset
// (Engine::reset). It holds at most kMaxLevels levels: a draw that would
// hold more ends its table after the kMaxLevels-th, whose level then holds
// to the period's end.
#pragma once

#include <cstdint>
#include <memory>

#include "counter_rng.hpp"
#include "latency_levels.hpp"
#include "quantile_table.hpp"

namespace cloudnoise {

class LevelProcess {
 public:
  static constexpr size_t kMaxLevels = 4'000'000;

  // Times in ps; level_ps draws a level in ps, within +-LatencyLevels::kMaxLevelPs.
  LevelProcess(double mean_hold_ps, std::shared_ptr<const QuantileTable> level_ps, int64_t period_ps);

  // Repetition `repetition`'s table, read by `hosts` hosts from their own
  // offsets: a function of (seed, repetition, hosts, stream) alone. The
  // stream keeps tables of different uses (latency levels, the latency
  // state) independent within one repetition.
  LatencyLevels draw(uint64_t seed, uint64_t repetition, uint32_t hosts = 1,
                     RngStream stream = RngStream::LevelTables) const;

  // The period of a table read by `hosts` hosts.
  int64_t period_ps(uint32_t hosts = 1) const;
  // Bounds of every level a table can hold: the level table's least value
  // rounded down, its largest rounded up.
  int64_t min_level_ps() const;
  int64_t max_level_ps() const;

 private:
  double mean_hold_;
  std::shared_ptr<const QuantileTable> level_;
  int64_t period_;
};

}  // namespace cloudnoise
