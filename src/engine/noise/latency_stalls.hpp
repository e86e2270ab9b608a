// Latency stalls that come in time: while a sending host is
// inside a stall, its messages leave when the stall ends, so the stall's
// remaining time is added to their latency (Engine::stall_delay_ps). A
// Netgauge latency series on Alps shows them: stretches of about a
// millisecond in which a ~45 us stall recurs every ~57 us, and none in
// between; drawn per message (QuantileTable) the same share of slow samples
// hits most repetitions of a collective, as a state in time only those that
// run while a host is stalled.
//
// Like the bandwidth episodes, one table of stalls over a period is shared
// by all hosts of a repetition, each reading it from its own drawn offset
// (or all from one, for a system-wide state), wrapping at the period.
// Stalls are disjoint, sorted, and lie within [0, period). A table is given
// (the same for every repetition) or drawn for each repetition by a
// StallProcess (stall_process.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace cloudnoise {

class LatencyStalls {
 public:
  // A given table: at least one stall.
  LatencyStalls(std::vector<int64_t> starts_ps, std::vector<int64_t> ends_ps, int64_t period_ps);
  // A drawn table, which may hold none (a period without a stall).
  static LatencyStalls drawn(std::vector<int64_t> starts_ps, std::vector<int64_t> ends_ps, int64_t period_ps) {
    return LatencyStalls(std::move(starts_ps), std::move(ends_ps), period_ps, true);
  }

  int64_t period_ps() const { return period_; }
  size_t size() const { return starts_.size(); }
  const std::vector<int64_t>& starts_ps() const { return starts_; }
  const std::vector<int64_t>& ends_ps() const { return ends_; }

  // Positions [lo, hi) of one period that are one stall (stalled) or the
  // quiet time between two. A host's lookups mostly move forward in time,
  // so the engine keeps the last span per host and searches on leaving it.
  struct Span {
    int64_t lo = 1, hi = 0;  // empty
    bool stalled = false;
    bool holds(int64_t s) const { return lo <= s && s < hi; }
    // What a message sent at position s (held) waits.
    int64_t delay(int64_t s) const { return stalled ? hi - s : 0; }
  };

  // The position of `at` >= 0 within the period.
  int64_t wrap(int64_t at) const { return at < period_ ? at : at % period_; }

  // The span holding position s in [0, period).
  Span span_at(int64_t s) const {
    if (starts_.empty()) return {0, period_, false};
    const auto it = std::upper_bound(starts_.begin(), starts_.end(), s);
    if (it == starts_.begin()) return {0, starts_.front(), false};
    const size_t k = static_cast<size_t>(it - starts_.begin()) - 1;
    if (s < ends_[k]) return {starts_[k], ends_[k], true};
    return {ends_[k], k + 1 < starts_.size() ? starts_[k + 1] : period_, false};
  }

  // The wait of a message sent at position `at` >= 0 (wrapped by the period).
  int64_t delay_at(int64_t at) const {
    const int64_t s = wrap(at);
    return span_at(s).delay(s);
  }

 private:
  LatencyStalls(std::vector<int64_t> starts_ps, std::vector<int64_t> ends_ps, int64_t period_ps, bool may_be_empty);

  std::vector<int64_t> starts_, ends_;
  int64_t period_;
};

}  // namespace cloudnoise
