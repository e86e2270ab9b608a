// Counting a schedule's operations before generating it: the products and
// sums saturate instead of wrapping, so a request too large to generate is
// refused by comparing with kMaxOps rather than slipping through as a small
// wrapped number.
#pragma once

#include <cstdint>
#include <limits>

namespace cloudnoise::op_count {

// The engine indexes ops with 32-bit integers (one value kept as a marker).
inline constexpr uint64_t kMaxOps = std::numeric_limits<uint32_t>::max() - 1;

// a * b, saturating at the uint64 maximum.
inline uint64_t mul_sat(uint64_t a, uint64_t b) {
  if (a != 0 && b > std::numeric_limits<uint64_t>::max() / a)
    return std::numeric_limits<uint64_t>::max();
  return a * b;
}

// a + b, saturating at the uint64 maximum.
inline uint64_t add_sat(uint64_t a, uint64_t b) {
  return b > std::numeric_limits<uint64_t>::max() - a ? std::numeric_limits<uint64_t>::max()
                                                      : a + b;
}

}  // namespace cloudnoise::op_count
