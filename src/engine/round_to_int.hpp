// Rounding a drawn double to integer picoseconds or femtoseconds, as
// std::llround (half away from zero) does, without its libm call: two
// draws per message under network noise wait on it.
#pragma once

#include <cmath>
#include <cstdint>

#include "sim_time.hpp"

namespace cloudnoise {

// Bit for bit llround's result; a value beyond int64 (a drawn latency of
// 1e300, a G over a tiny bandwidth fraction), whose llround is undefined,
// stops the run with std::overflow_error instead of becoming a time.
[[gnu::always_inline]] inline int64_t round_to_int(double x) {
  if (!(std::fabs(x) < 0x1.0p52)) [[unlikely]] {
    if (!(std::fabs(x) < 0x1.0p63)) throw_time_overflow();
    return std::llround(x);
  }
  // Below 2^52: add the largest double below one half, with x's sign, and
  // truncate. Halves go away from zero (0.5 + (0.5 - 2^-54) = 1 - 2^-54
  // is a tie between 1 - 2^-53 and 1, and rounds to the even 1) and all
  // else to the nearest. One add and one conversion, where taking the
  // fraction out of the truncated value took two conversions, a
  // subtraction and two compares (~4% of a repetition under network
  // noise). tests/test_round_to_int.py checks it against exact rationals.
  return static_cast<int64_t>(x + std::copysign(0x1.fffffffffffffp-2, x));
}

}  // namespace cloudnoise
