// A distribution given by its inverse CDF at a grid of probabilities,
// interpolated linearly in between. Python turns every noise model
// (empirical samples, lognormal, Pareto tails, mixtures) into one of these;
// the engine only ever draws from it. The grid may be dense in the tail so
// that rare spikes survive.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cloudnoise {

class QuantileTable {
 public:
  // probabilities: strictly increasing, first 0, last 1; values
  // non-decreasing, same length (at least 2).
  QuantileTable(std::vector<double> probabilities, std::vector<double> values);

  double quantile(double u) const;
  size_t size() const { return p_.size(); }

 private:
  std::vector<double> p_, v_;
  // bucket_[k]: first grid segment that can hold u in [k/B, (k+1)/B).
  std::vector<uint32_t> bucket_;
};

}  // namespace cloudnoise
