// Round counts computed exactly the way Schedgen computes them, floating
// point included: the reference derives them from log()/ceil() on doubles,
// and where that rounds up past an exact power (nway 4 on 125 ranks gives
// 3.0000000000000004 -> 4 rounds) the reference emits the extra round, so we
// must too to stay op-for-op identical.
#pragma once

#include <cmath>
#include <cstdint>

namespace cloudnoise::schedgen_rounds {

// ceil(log2(ranks)): rounds of the binomial trees and of dissemination.
inline uint32_t ceil_log2(uint32_t ranks) {
  return static_cast<uint32_t>(std::ceil(std::log2(static_cast<double>(ranks))));
}

// (int)log2(ranks): steps per phase of recursive doubling (truncated).
inline uint32_t floor_log2(uint32_t ranks) {
  return static_cast<uint32_t>(std::log2(static_cast<double>(ranks)));
}

// ceil(log(ranks) / log(nway + 1)): rounds of n-way dissemination.
inline uint32_t nway_rounds(uint32_t ranks, uint32_t nway) {
  return static_cast<uint32_t>(
      std::ceil(std::log(static_cast<double>(ranks)) / std::log(static_cast<double>(nway) + 1.0)));
}

// ceil(size / segmentsize) in doubles: segments of the pipelined rings.
inline uint64_t segments(uint64_t size, uint64_t segmentsize) {
  return static_cast<uint64_t>(
      std::ceil(static_cast<double>(size) / static_cast<double>(segmentsize)));
}

}  // namespace cloudnoise::schedgen_rounds
