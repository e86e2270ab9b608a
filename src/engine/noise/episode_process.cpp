#include "episode_process.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "../input_limits.hpp"
#include "sequential_draws.hpp"
#include "table_period.hpp"

namespace cloudnoise {

EpisodeProcess::EpisodeProcess(double mean_quiet_ps, double mean_cycle_ps,
                               std::shared_ptr<const QuantileTable> duration_ps,
                               std::shared_ptr<const QuantileTable> fraction, int64_t period_ps)
    : mean_quiet_(mean_quiet_ps), mean_cycle_(mean_cycle_ps), duration_(std::move(duration_ps)),
      fraction_(std::move(fraction)), period_(period_ps) {
  if (period_ <= 0 || period_ > limits::kMaxTimePs)
    throw std::invalid_argument("bandwidth episodes: the period must be in (0, 10^5 s]");
  if (!(mean_quiet_ > 0.0 && mean_quiet_ <= static_cast<double>(limits::kMaxTimePs)))
    throw std::invalid_argument("bandwidth episodes: the mean quiet time must be in (0, 10^5 s]");
  if (!(mean_cycle_ >= mean_quiet_ && mean_cycle_ <= 2.0 * static_cast<double>(limits::kMaxTimePs)))
    throw std::invalid_argument("bandwidth episodes: the mean cycle must be at least the mean quiet time");
  if (!duration_ || !(duration_->min() >= 0.0))
    throw std::invalid_argument("bandwidth episodes: durations must be >= 0");
  if (!fraction_) throw std::invalid_argument("bandwidth episodes: no fraction distribution");
}

int64_t EpisodeProcess::period_ps(uint32_t hosts) const {
  return table_period_ps(period_, mean_cycle_, hosts);
}

BandwidthEpisodes EpisodeProcess::draw(uint64_t seed, uint64_t repetition, uint32_t hosts) const {
  constexpr int64_t kNs = 1000;  // the least episode
  SequentialDraws draws(seed, repetition, RngStream::EpisodeTables);
  std::vector<int64_t> starts, ends;
  std::vector<double> fractions;
  const int64_t table_period = period_ps(hosts);
  const double period = static_cast<double>(table_period);
  double t = 0.0;
  while (starts.size() < kMaxEpisodes) {
    t += draws.exponential(mean_quiet_);
    const double length = std::min(draws.from(*duration_), period);
    const double fraction = std::clamp(draws.from(*fraction_), limits::kMinEpisodeFraction, 1.0);
    if (t >= period) break;
    const int64_t start = std::llround(t);
    const int64_t end = start + std::clamp<int64_t>(std::llround(length), kNs, table_period);
    if (end > table_period) break;  // every later episode starts later still
    starts.push_back(start);
    ends.push_back(end);
    fractions.push_back(fraction);
    t = static_cast<double>(end);
  }
  return BandwidthEpisodes::drawn(std::move(starts), std::move(ends), std::move(fractions), table_period);
}

}  // namespace cloudnoise
