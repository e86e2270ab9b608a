#include "latency_levels.hpp"

#include <stdexcept>

#include "../input_limits.hpp"

namespace cloudnoise {

LatencyLevels::LatencyLevels(std::vector<int64_t> starts_ps, std::vector<int64_t> values_ps, int64_t period_ps)
    : starts_(std::move(starts_ps)), values_(std::move(values_ps)), period_(period_ps) {
  if (starts_.size() != values_.size()) throw std::invalid_argument("latency levels: starts and values differ in length");
  if (starts_.empty()) throw std::invalid_argument("latency levels: none given");
  if (starts_.size() > 0xFFFFFFFFu) throw std::invalid_argument("latency levels: more than 2^32 levels");
  if (period_ <= 0 || period_ > limits::kMaxTimePs)
    throw std::invalid_argument("latency levels: the period must be in (0, 10^5 s]");
  if (starts_.front() != 0) throw std::invalid_argument("latency levels: the first level must start at 0");
  for (size_t i = 0; i < starts_.size(); ++i) {
    if (starts_[i] >= period_) throw std::invalid_argument("latency levels: every level must start within the period");
    if (i && starts_[i] <= starts_[i - 1])
      throw std::invalid_argument("latency levels: the starts must be strictly ascending");
    if (values_[i] < -kMaxLevelPs || values_[i] > kMaxLevelPs)
      throw std::invalid_argument("latency levels: each level must be within +-10^12 ps (1 s)");
  }
  min_ = *std::min_element(values_.begin(), values_.end());
  max_ = *std::max_element(values_.begin(), values_.end());
}

}  // namespace cloudnoise
