#include "bandwidth_episodes.hpp"

#include <cmath>
#include <stdexcept>

#include "../input_limits.hpp"

namespace cloudnoise {

BandwidthEpisodes::BandwidthEpisodes(std::vector<int64_t> starts_ps, std::vector<int64_t> ends_ps,
                                     std::vector<double> fractions, int64_t period_ps)
    : BandwidthEpisodes(std::move(starts_ps), std::move(ends_ps), std::move(fractions), period_ps, false) {}

BandwidthEpisodes::BandwidthEpisodes(std::vector<int64_t> starts_ps, std::vector<int64_t> ends_ps,
                                     std::vector<double> fractions, int64_t period_ps, bool may_be_empty)
    : starts_(std::move(starts_ps)), ends_(std::move(ends_ps)), fractions_(std::move(fractions)), period_(period_ps) {
  if (starts_.size() != ends_.size() || starts_.size() != fractions_.size())
    throw std::invalid_argument("bandwidth episodes: starts, ends and fractions differ in length");
  if (starts_.empty() && !may_be_empty) throw std::invalid_argument("bandwidth episodes: none given");
  if (starts_.size() > 0xFFFFFFFFu) throw std::invalid_argument("bandwidth episodes: more than 2^32 episodes");
  if (period_ <= 0 || period_ > limits::kMaxTimePs)
    throw std::invalid_argument("bandwidth episodes: the period must be in (0, 10^5 s]");
  for (size_t i = 0; i < starts_.size(); ++i) {
    if (starts_[i] < 0 || ends_[i] <= starts_[i] || ends_[i] > period_)
      throw std::invalid_argument("bandwidth episodes: each must start at or after 0 and end after its start, "
                                  "within the period");
    if (i && starts_[i] < ends_[i - 1])
      throw std::invalid_argument("bandwidth episodes: they must be sorted and must not overlap");
    if (!(fractions_[i] >= limits::kMinEpisodeFraction && fractions_[i] <= 1.0))
      throw std::invalid_argument("bandwidth episodes: a fraction of the peak must be in [0.001, 1]");
  }
}

}  // namespace cloudnoise
