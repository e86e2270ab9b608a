// Latency levels that persist in time: a sending host's latency stands at a
// level for a while, then at another. Measured ping-pong series show round
// trips at one level for many round trips in a row, then at another; drawn
// per message (QuantileTable) the same spread of latencies would average
// out within a few round trips. A message a host sends at t gets the host's
// level at t added to its latency (Engine::level_ps); a level may be
// negative (a faster path), but a message still never arrives before its
// send starts (the engine clamps its latency at -o).
//
// Like the latency stalls, one table of levels over a period is shared by
// all hosts of a repetition, each reading it from its own drawn offset,
// wrapping at the period. The table is piecewise constant: level k holds
// from starts[k] to starts[k + 1] (the last to the period). A table is given
// (the same for every repetition) or drawn for each repetition by a
// LevelProcess (level_process.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace cloudnoise {

class LatencyLevels {
 public:
  // The largest level, either way: 1 s.
  static constexpr int64_t kMaxLevelPs = 1'000'000'000'000;

  // starts_ps: strictly ascending, the first 0, all within [0, period);
  // values_ps: one level per start, each within +-kMaxLevelPs.
  LatencyLevels(std::vector<int64_t> starts_ps, std::vector<int64_t> values_ps, int64_t period_ps);

  int64_t period_ps() const { return period_; }
  size_t size() const { return starts_.size(); }
  const std::vector<int64_t>& starts_ps() const { return starts_; }
  const std::vector<int64_t>& values_ps() const { return values_; }
  // The least and the largest level of the table.
  int64_t min_value_ps() const { return min_; }
  int64_t max_value_ps() const { return max_; }

  // Positions [lo, hi) of one period that hold one level. A host's lookups
  // mostly move forward in time, so the engine keeps the last span per
  // host and searches only on leaving it.
  struct Span {
    int64_t lo = 1, hi = 0;  // empty
    int64_t value = 0;
    bool holds(int64_t s) const { return lo <= s && s < hi; }
  };

  // The position of `at` >= 0 within the period.
  int64_t wrap(int64_t at) const { return at < period_ ? at : at % period_; }

  // The span holding position s in [0, period).
  Span span_at(int64_t s) const {
    // starts_.front() is 0 <= s: the span is the last start at or before s.
    const auto it = std::upper_bound(starts_.begin(), starts_.end(), s);
    const size_t k = static_cast<size_t>(it - starts_.begin()) - 1;
    return {starts_[k], k + 1 < starts_.size() ? starts_[k + 1] : period_, values_[k]};
  }

  // The level at position `at` >= 0 (wrapped by the period).
  int64_t value_at(int64_t at) const { return span_at(wrap(at)).value; }

 private:
  std::vector<int64_t> starts_, values_;
  int64_t period_;
  int64_t min_ = 0, max_ = 0;
};

}  // namespace cloudnoise
