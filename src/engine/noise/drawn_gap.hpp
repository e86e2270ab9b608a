// The per-byte gap G a message is sent with under bandwidth noise: its
// base G over a fraction drawn from a quantile table, rounded to integer
// femtoseconds. A draw sits on the engine's critical path (its sender's
// next send waits for it), so for one base G the result is tabulated per
// bucket of the draw's top 12 bits, exactly:
//
// Within a bucket whose draw is one linear segment with a finite slope,
// the drawn fraction never decreases as the draw's bits grow (each
// rounded step, u - p, times a slope >= 0, plus v, is monotone), so G
// never increases. Across a bucket the fraction moves by ~1/4096 of its
// range: mostly G takes one value, or two, switching at one point that a
// binary search over the bucket's 2^41 draws finds. Such a bucket's G is
// then a load and a compare instead of a multiply, an add, a division and
// a rounding; any other bucket takes the formula itself.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "../round_to_int.hpp"
#include "quantile_table.hpp"

namespace cloudnoise {

// G_fs over the bandwidth fraction drawn from `bits` (fractions below 1e-9
// count as 1e-9), before and after rounding: the rule itself, which the
// table reproduces bit for bit.
[[gnu::always_inline]] inline double drawn_gap_unrounded(const QuantileTable& fraction, uint64_t bits,
                                                         int64_t G_fs) {
  return static_cast<double>(G_fs) / std::max(1e-9, fraction.quantile_of_bits(bits));
}
[[gnu::always_inline]] inline int64_t drawn_gap_fs(const QuantileTable& fraction, uint64_t bits, int64_t G_fs) {
  return round_to_int(drawn_gap_unrounded(fraction, bits, G_fs));
}

class DrawnGapTable {
 public:
  DrawnGapTable(std::shared_ptr<const QuantileTable> fraction, int64_t G_fs)
      : fraction_(std::move(fraction)), G_fs_(G_fs), bucket_(kBuckets) {
    for (uint64_t k = 0; k < kBuckets; ++k) bucket_[k] = tabulate(k);
  }

  const QuantileTable* fraction() const { return fraction_.get(); }
  int64_t base_fs() const { return G_fs_; }

  // drawn_gap_fs(*fraction(), bits, base_fs()), bit for bit.
  [[gnu::always_inline]] int64_t gap_fs(uint64_t bits) const {
    const Bucket b = bucket_[bits >> 52];
    // The draw's low 41 bits over 2^9: where it lies against the switch.
    const auto hi = static_cast<uint32_t>(bits >> 20);
    if (b.G != kFormula && hi != b.switch_hi) [[likely]]
      return int64_t{b.G} - static_cast<int64_t>(hi > b.switch_hi);
    return drawn_gap_fs(*fraction_, bits, G_fs_);
  }

  // How many of the 4096 buckets are tabulated (for tests and benches).
  size_t tabulated() const {
    return static_cast<size_t>(std::count_if(bucket_.begin(), bucket_.end(), [](const Bucket& b) { return b.G != kFormula; }));
  }

 private:
  static constexpr uint64_t kBuckets = 4096;
  static constexpr uint64_t kLowMask = (uint64_t{1} << 41) - 1;
  static constexpr uint32_t kNever = 0xFFFFFFFFu;    // G never switches in the bucket
  static constexpr uint32_t kFormula = 0xFFFFFFFFu;  // as G: the bucket takes the formula

  // 8 bytes, so the table (32 KB) stays in the cache beside the rest of a
  // run: a draw sits on every message. G at the bucket's draws before the
  // switch, G - 1 from it on; the switch (a 41-bit draw) is kept to its
  // top 32 bits, and the draws sharing those with it (one in 2^32) take
  // the formula, as do the last 512 draws of a bucket that never
  // switches, and the buckets not tabulated (G = kFormula).
  struct Bucket {
    uint32_t G = kFormula;
    uint32_t switch_hi = kNever;
  };

  // The draw of the bucket's `low41`-th 53-bit value (the low 11 bits of a
  // draw are not used).
  static uint64_t bits_of(uint64_t k, uint64_t low41) { return ((k << 41) | low41) << 11; }

  // G's value over the bucket before rounding, when it is in the range
  // round_to_int converts by itself (so that tabulating cannot throw where
  // no draw of the run would).
  bool in_range(uint64_t bits) const { return drawn_gap_unrounded(*fraction_, bits, G_fs_) < 0x1.0p52; }

  Bucket tabulate(uint64_t k) const {
    if (G_fs_ < 0 || !fraction_->bucket_is_one_segment(k)) return {};
    const uint64_t first = bits_of(k, 0), last = bits_of(k, kLowMask);
    if (!in_range(first) || !in_range(last)) return {};
    const int64_t g_first = drawn_gap_fs(*fraction_, first, G_fs_);
    const int64_t g_last = drawn_gap_fs(*fraction_, last, G_fs_);
    if (g_first < 0 || g_first >= int64_t{kFormula}) return {};
    if (g_first == g_last) return {static_cast<uint32_t>(g_first), kNever};
    if (g_first - g_last != 1) return {};
    // The least low41 whose G is g_last: G(lo) = g_first, G(hi) = g_last.
    uint64_t lo = 0, hi = kLowMask;
    while (hi - lo > 1) {
      const uint64_t mid = lo + (hi - lo) / 2;
      (drawn_gap_fs(*fraction_, bits_of(k, mid), G_fs_) == g_first ? lo : hi) = mid;
    }
    return {static_cast<uint32_t>(g_first), static_cast<uint32_t>(hi >> 9)};
  }

  std::shared_ptr<const QuantileTable> fraction_;  // held: the table is read through it
  int64_t G_fs_;
  std::vector<Bucket> bucket_;
};

}  // namespace cloudnoise
