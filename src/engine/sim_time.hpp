// Simulated-time arithmetic that cannot wrap: a sum beyond the int64
// picosecond range (about 106 days) stops the run with std::overflow_error
// instead of coming out as a negative time. Inputs are range-checked where
// they enter (input_limits.hpp), but many in-range times still add up: a
// million 27-hour calcs overflow. The check is one add-with-overflow-flag
// and a never-taken branch per sum.
#pragma once

#include <cstdint>

namespace cloudnoise {

[[noreturn]] void throw_time_overflow();

[[gnu::always_inline]] inline int64_t time_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) [[unlikely]]
    throw_time_overflow();
  return r;
}

[[gnu::always_inline]] inline int64_t time_add(int64_t a, int64_t b, int64_t c) {
  return time_add(time_add(a, b), c);
}

[[gnu::always_inline]] inline int64_t time_add(int64_t a, int64_t b, int64_t c, int64_t d) {
  return time_add(time_add(a, b), time_add(c, d));
}

}  // namespace cloudnoise
