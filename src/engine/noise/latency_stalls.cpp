#include "latency_stalls.hpp"

#include <stdexcept>

#include "../input_limits.hpp"

namespace cloudnoise {

LatencyStalls::LatencyStalls(std::vector<int64_t> starts_ps, std::vector<int64_t> ends_ps, int64_t period_ps)
    : LatencyStalls(std::move(starts_ps), std::move(ends_ps), period_ps, false) {}

LatencyStalls::LatencyStalls(std::vector<int64_t> starts_ps, std::vector<int64_t> ends_ps, int64_t period_ps,
                             bool may_be_empty)
    : starts_(std::move(starts_ps)), ends_(std::move(ends_ps)), period_(period_ps) {
  if (starts_.size() != ends_.size()) throw std::invalid_argument("latency stalls: starts and ends differ in length");
  if (starts_.empty() && !may_be_empty) throw std::invalid_argument("latency stalls: none given");
  if (starts_.size() > 0xFFFFFFFFu) throw std::invalid_argument("latency stalls: more than 2^32 stalls");
  if (period_ <= 0 || period_ > limits::kMaxTimePs)
    throw std::invalid_argument("latency stalls: the period must be in (0, 10^5 s]");
  for (size_t i = 0; i < starts_.size(); ++i) {
    if (starts_[i] < 0 || ends_[i] <= starts_[i] || ends_[i] > period_)
      throw std::invalid_argument("latency stalls: each must start at or after 0 and end after its start, "
                                  "within the period");
    if (i && starts_[i] < ends_[i - 1])
      throw std::invalid_argument("latency stalls: they must be sorted and must not overlap");
  }
}

}  // namespace cloudnoise
