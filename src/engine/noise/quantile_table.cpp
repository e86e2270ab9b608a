#include "quantile_table.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace cloudnoise {

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
  slope_.resize(p_.size() - 1);
  for (size_t i = 0; i + 1 < p_.size(); ++i) slope_[i] = (v_[i + 1] - v_[i]) / (p_[i + 1] - p_[i]);
  bucket_.resize(kBuckets);
  for (size_t k = 0; k < kBuckets; ++k) {
    const double lo = static_cast<double>(k) / kBuckets;
    const double hi = static_cast<double>(k + 1) / kBuckets;
    const auto it = std::upper_bound(p_.begin(), p_.end(), lo);
    const auto i = static_cast<size_t>(std::max<std::ptrdiff_t>(0, (it - p_.begin()) - 1));
    // Single when no later grid point lies inside the bucket.
    const bool single = p_[i + 1] >= hi;
    bucket_[k] = {p_[i], v_[i], slope_[i], static_cast<uint32_t>(i), single ? 1u : 0u};
  }
  // The short path gives the long path's result bit for bit where
  //  - the segment starts at the bucket's start and covers the bucket, so
  //    u - p is the low 41 bits over 2^53, exactly (both are multiples of
  //    2^-53 less than 2^-12 apart);
  //  - slope * 2^-53 is exact (not subnormal), so low41 * (slope * 2^-53)
  //    rounds the same real number as (low41 * 2^-53) * slope;
  //  - in bucket 0, v_0 + 0 * slope is v_0 itself (the long path returns
  //    v_0 at u = 0): not when v_0 is -0 or the slope infinite.
  aligned_.resize(kBuckets);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (size_t k = 0; k < kBuckets; ++k) {
    const Bucket& b = bucket_[k];
    const double slope = b.slope * 0x1.0p-53;
    const bool exact = b.slope == 0.0 || std::isinf(b.slope) || std::abs(slope) >= std::numeric_limits<double>::min();
    const bool zero_ok = k != 0 || (std::isfinite(b.slope) && !std::signbit(b.v));
    const bool aligned = b.single && b.p == static_cast<double>(k) / kBuckets && exact && zero_ok;
    aligned_[k] = {b.v, aligned ? slope : nan};
  }
}

bool QuantileTable::bucket_is_one_segment(size_t k) const {
  return k < kBuckets && bucket_[k].single && std::isfinite(bucket_[k].slope);
}

double QuantileTable::search(double u, size_t i) const {
  while (i + 2 < p_.size() && p_[i + 1] <= u) ++i;
  return segment_value(i, u);
}

}  // namespace cloudnoise
