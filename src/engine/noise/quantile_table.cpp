#include "quantile_table.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace cloudnoise {

namespace {
constexpr size_t kBuckets = 4096;
}

QuantileTable::QuantileTable(std::vector<double> probabilities, std::vector<double> values)
    : p_(std::move(probabilities)), v_(std::move(values)) {
  if (p_.size() != v_.size() || p_.size() < 2)
    throw std::invalid_argument("quantile table: need >= 2 probabilities and as many values");
  if (p_.front() != 0.0 || p_.back() != 1.0)
    throw std::invalid_argument("quantile table: probabilities must run from 0 to 1");
  for (size_t i = 1; i < p_.size(); ++i) {
    if (!(p_[i] > p_[i - 1]))
      throw std::invalid_argument("quantile table: probabilities must increase strictly");
    if (!(v_[i] >= v_[i - 1]) || !std::isfinite(v_[i]))
      throw std::invalid_argument("quantile table: values must be finite and non-decreasing");
  }
  if (!std::isfinite(v_[0])) throw std::invalid_argument("quantile table: values must be finite");
  bucket_.resize(kBuckets + 1);
  for (size_t k = 0; k <= kBuckets; ++k) {
    const double lo = static_cast<double>(k) / kBuckets;
    const auto it = std::upper_bound(p_.begin(), p_.end(), lo);
    bucket_[k] = static_cast<uint32_t>(std::max<std::ptrdiff_t>(0, (it - p_.begin()) - 1));
  }
}

double QuantileTable::quantile(double u) const {
  if (u <= 0.0) return v_.front();
  if (u >= 1.0) return v_.back();
  size_t i = bucket_[static_cast<size_t>(u * kBuckets)];
  while (i + 2 < p_.size() && p_[i + 1] <= u) ++i;
  const double w = (u - p_[i]) / (p_[i + 1] - p_[i]);
  return v_[i] + w * (v_[i + 1] - v_[i]);
}

}  // namespace cloudnoise
