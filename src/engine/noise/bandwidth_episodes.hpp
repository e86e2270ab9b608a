// Bandwidth drops that persist in time: while a sending host is inside an
// episode, its messages move at no more than the episode's fraction of the
// peak bandwidth (Engine::episode_G_fs). Sec. IV-C of the paper: Oracle's
// drops are "clustered in time", lasting up to 0.6 s. Per-message draws (QuantileTable) cannot show
// this: over the hundreds of messages of a long collective they average out,
// where a persistent drop slows every message a node sends while it lasts.
//
// Like an OS-noise trace, one table of episodes over a period is shared by
// all hosts of a repetition, each reading it from its own drawn offset,
// wrapping at the period. Episodes are disjoint, sorted, and lie within
// [0, period). A table is given (the same for every repetition) or drawn for
// each repetition by an EpisodeProcess (episode_process.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace cloudnoise {

class BandwidthEpisodes {
 public:
  BandwidthEpisodes(std::vector<int64_t> starts_ps, std::vector<int64_t> ends_ps, std::vector<double> fractions,
                    int64_t period_ps);
  // A drawn table, which may hold none (a period without a drop).
  static BandwidthEpisodes drawn(std::vector<int64_t> starts_ps, std::vector<int64_t> ends_ps,
                                 std::vector<double> fractions, int64_t period_ps) {
    return BandwidthEpisodes(std::move(starts_ps), std::move(ends_ps), std::move(fractions), period_ps, true);
  }

  int64_t period_ps() const { return period_; }
  size_t size() const { return starts_.size(); }
  const std::vector<int64_t>& starts_ps() const { return starts_; }
  const std::vector<int64_t>& ends_ps() const { return ends_; }
  const std::vector<double>& fractions() const { return fractions_; }

  // Positions [lo, hi) of one period that share a fraction: an episode, or
  // the gap between two. A host's lookups move forward in time, so the
  // engine keeps the last span per host and searches only on leaving it.
  struct Span {
    int64_t lo = 1, hi = 0;  // empty
    double fraction = 1.0;
    bool holds(int64_t s) const { return lo <= s && s < hi; }
  };

  // The position of `at` >= 0 within the period.
  int64_t wrap(int64_t at) const { return at < period_ ? at : at % period_; }

  // The span holding position s in [0, period).
  Span span_at(int64_t s) const {
    if (starts_.empty()) return {0, period_, 1.0};
    const auto it = std::upper_bound(starts_.begin(), starts_.end(), s);
    if (it == starts_.begin()) return {0, starts_.front(), 1.0};
    const size_t k = static_cast<size_t>(it - starts_.begin()) - 1;
    if (s < ends_[k]) return {starts_[k], ends_[k], fractions_[k]};
    return {ends_[k], k + 1 < starts_.size() ? starts_[k + 1] : period_, 1.0};
  }

  // The bandwidth fraction at position `at` >= 0 (wrapped by the period):
  // the episode's inside one, 1 outside.
  double fraction_at(int64_t at) const { return span_at(wrap(at)).fraction; }

 private:
  BandwidthEpisodes(std::vector<int64_t> starts_ps, std::vector<int64_t> ends_ps, std::vector<double> fractions,
                    int64_t period_ps, bool may_be_empty);

  std::vector<int64_t> starts_, ends_;
  std::vector<double> fractions_;
  int64_t period_;
};

}  // namespace cloudnoise
