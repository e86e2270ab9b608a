#include "level_process.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "../input_limits.hpp"
#include "sequential_draws.hpp"
#include "table_period.hpp"

namespace cloudnoise {

LevelProcess::LevelProcess(double mean_hold_ps, std::shared_ptr<const QuantileTable> level_ps, int64_t period_ps)
    : mean_hold_(mean_hold_ps), level_(std::move(level_ps)), period_(period_ps) {
  if (period_ <= 0 || period_ > limits::kMaxTimePs)
    throw std::invalid_argument("latency levels: the period must be in (0, 10^5 s]");
  if (!(mean_hold_ > 0.0 && mean_hold_ <= static_cast<double>(limits::kMaxTimePs)))
    throw std::invalid_argument("latency levels: the mean hold must be in (0, 10^5 s]");
  if (!level_) throw std::invalid_argument("latency levels: no level distribution");
  const double bound = static_cast<double>(LatencyLevels::kMaxLevelPs);
  if (!(level_->min() >= -bound && level_->max() <= bound))
    throw std::invalid_argument("latency levels: the levels must be within +-10^12 ps (1 s)");
}

int64_t LevelProcess::period_ps(uint32_t hosts) const { return table_period_ps(period_, mean_hold_, hosts); }

int64_t LevelProcess::min_level_ps() const { return static_cast<int64_t>(std::floor(level_->min())); }
int64_t LevelProcess::max_level_ps() const { return static_cast<int64_t>(std::ceil(level_->max())); }

LatencyLevels LevelProcess::draw(uint64_t seed, uint64_t repetition, uint32_t hosts, RngStream stream) const {
  constexpr double kNs = 1000.0;  // the least hold: keeps the starts strictly ascending
  SequentialDraws draws(seed, repetition, stream);
  std::vector<int64_t> starts, values;
  const int64_t table_period = period_ps(hosts);
  const double period = static_cast<double>(table_period);
  double t = 0.0;
  while (starts.size() < kMaxLevels) {
    // The drawn level is within the table's bounds (checked above), so it rounds within +-kMaxLevelPs.
    values.push_back(std::llround(draws.from(*level_)));
    starts.push_back(std::llround(t));
    t += std::max(kNs, draws.exponential(mean_hold_));
    // A start that would round to the period lies past the table as well.
    if (t >= period || std::llround(t) >= table_period) break;
  }
  return LatencyLevels(std::move(starts), std::move(values), table_period);
}

}  // namespace cloudnoise
