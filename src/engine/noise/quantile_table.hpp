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

  // Drawn up to three times per simulated message, so the common case is
  // one cache line and no division: u's bucket names the segment holding
  // it, with the segment's slope precomputed.
  double quantile(double u) const {
    if (!(u > 0.0)) return v_.front();
    if (u >= 1.0) return v_.back();
    const Bucket& b = bucket_[static_cast<size_t>(u * kBuckets)];
    if (b.single) return b.v + (u - b.p) * b.slope;
    return search(u, b.segment);
  }

  // quantile(u) for u = CounterRng::uniform's value of `bits` (its top 53
  // bits over 2^53), bit for bit. The bucket is the top bits themselves, so
  // its load starts before u is converted: a draw sits on the engine's
  // critical path, twice per message. A bucket that starts its segment
  // (most of them: the grids are steps of 1/4096 in the body) takes the
  // short path: u - p is then exactly the low 41 of those 53 bits over
  // 2^53, and 2^-53 sits in the stored slope, so the draw waits only for
  // the load, one multiply and one add.
  double quantile_of_bits(uint64_t bits) const {
    static_assert(kBuckets == 4096, "the bucket is the top 12 bits");
    const uint64_t top53 = bits >> 11;
    const Aligned& a = aligned_[bits >> 52];
    if (a.slope == a.slope) [[likely]]
      return a.v + static_cast<double>(top53 & ((uint64_t{1} << 41) - 1)) * a.slope;
    return quantile_of_top53(top53);
  }
  // Whether every draw of bucket k (a draw's top 12 bits) lies on one
  // segment with a finite slope, so that its value never decreases as the
  // draw's bits grow.
  bool bucket_is_one_segment(size_t k) const;
  size_t size() const { return p_.size(); }
  // The least value a draw can give, and the largest.
  double min() const { return v_.front(); }
  double max() const { return v_.back(); }

 private:
  static constexpr size_t kBuckets = 4096;

  // The bucket [k/B, (k+1)/B) of u: its first segment, and when that
  // segment covers the whole bucket, the segment itself.
  struct Bucket {
    double p, v, slope;  // segment start, value there, dv/dp
    uint32_t segment;
    uint32_t single;     // the bucket lies within one segment
  };

  // A bucket's short path: the value at its start and the segment's
  // slope times 2^-53; slope NaN where the bucket needs the long path.
  struct Aligned {
    double v, slope;
  };

  double quantile_of_top53(uint64_t top53) const {
    const Bucket& b = bucket_[top53 >> 41];
    if (top53 == 0) return v_.front();
    const double u = static_cast<double>(top53) * 0x1.0p-53;
    if (b.single) return b.v + (u - b.p) * b.slope;
    return search(u, b.segment);
  }
  double segment_value(size_t i, double u) const { return v_[i] + (u - p_[i]) * slope_[i]; }
  double search(double u, size_t i) const;

  std::vector<double> p_, v_, slope_;
  std::vector<Bucket> bucket_;
  std::vector<Aligned> aligned_;  // beside bucket_: half its bytes per draw
};

}  // namespace cloudnoise
