#include "os_noise_trace.hpp"

#include <algorithm>
#include <stdexcept>

#include "../input_limits.hpp"
#include "../sim_time.hpp"

namespace cloudnoise {

OsNoiseTrace::OsNoiseTrace(std::vector<int64_t> starts_ps, std::vector<int64_t> durations_ps)
    : starts_(std::move(starts_ps)), durations_(std::move(durations_ps)) {
  if (starts_.size() != durations_.size())
    throw std::invalid_argument("OS noise trace: starts and durations differ in length");
  if (starts_.size() < 2)
    throw std::invalid_argument("OS noise trace needs at least two detours");
  if (starts_.size() > 0xFFFFFFFFu)
    throw std::invalid_argument("OS noise trace: more than 2^32 detours");
  for (size_t i = 0; i < starts_.size(); ++i) {
    if (starts_[i] < 0 || durations_[i] < 0)
      throw std::invalid_argument("OS noise trace: negative start or duration");
    if (i && starts_[i] < starts_[i - 1])
      throw std::invalid_argument("OS noise trace: detour starts must not decrease");
    if (starts_[i] > limits::kMaxTimePs - durations_[i])
      throw std::invalid_argument("OS noise trace: a detour ends after 10^5 s, the limit of one simulated time");
  }
  if (starts_.back() <= 0) throw std::invalid_argument("OS noise trace spans no time");
  cumulative_.resize(durations_.size());
  int64_t sum = 0;
  for (size_t i = 0; i < durations_.size(); ++i) {
    cumulative_[i] = sum += durations_[i];
    if (sum > limits::kMaxTimePs)
      throw std::invalid_argument("OS noise trace: the detours add up to more than 10^5 s, the limit of one simulated time");
  }
  // About one detour per bucket, so locate() scans one or two.
  const size_t buckets = std::min<size_t>(starts_.size(), size_t{1} << 20);
  bucket_scale_ = static_cast<double>(buckets) / static_cast<double>(starts_.back());
  bucket_first_.resize(buckets);
  size_t c = 0;
  for (size_t k = 0; k < buckets; ++k) {
    // A bucket's start, rounded down: the detour named may start a little
    // before it, which only costs locate() a step.
    const auto start = static_cast<int64_t>(static_cast<double>(k) / bucket_scale_);
    while (c + 1 < starts_.size() && starts_[c + 1] <= start) ++c;
    bucket_first_[k] = static_cast<uint32_t>(c);
  }
}

size_t OsNoiseTrace::search_from(size_t from, int64_t value, bool strict) const {
  const size_t n = starts_.size();
  auto past = [&](size_t i) { return strict ? starts_[i] > value : starts_[i] >= value; };
  // Gallop from `from` to bracket the answer, then binary search inside.
  size_t lo = from, hi = from;
  if (from < n && past(from)) {
    size_t step = 1;
    while (lo > 0 && past(lo - 1)) {
      hi = lo;
      lo = lo > step ? lo - step : 0;
      step *= 2;
    }
    if (lo > 0 || !past(0)) ++lo;  // lo is now known not past, answer in (lo-1, hi]
    else return 0;
    --lo;
  } else {
    size_t step = 1;
    while (hi < n && !past(hi)) {
      lo = hi;
      hi = hi + step < n ? hi + step : n;
      step *= 2;
    }
  }
  auto first = starts_.begin() + static_cast<std::ptrdiff_t>(lo);
  auto last = starts_.begin() + static_cast<std::ptrdiff_t>(std::min(hi, n));
  auto it = strict ? std::upper_bound(first, last, value) : std::lower_bound(first, last, value);
  return static_cast<size_t>(it - starts_.begin());
}

int64_t OsNoiseTrace::noise_at(int64_t s, int64_t len, size_t& cursor) const {
  const int64_t span = starts_.back();
  const size_t n = starts_.size();
  size_t pos = 0;
  int64_t noise = 0;
  if (s > starts_[0]) {
    // The last detour that starts at or before s.
    pos = search_from(std::min(cursor, n - 1), s, true) - 1;
    cursor = pos;
    const int64_t end_last = starts_[pos] + durations_[pos];
    if (end_last > s) noise += end_last - s;
  }
  // Every later detour that starts before the activity ends, wrapping to
  // the second detour after the last (prefix sums instead of a walk, so a
  // long calc over a dense trace costs O(log n) per wrap).
  int64_t end = time_add(s, len);
  for (;;) {
    if (pos == n - 1 && end > 2 * span) {
      // Whole wraps at once: while the activity, wrapped once more, still
      // reaches past the last detour, each wrap charges detours 1..n-1 and
      // moves the end back by the span. Counted, not walked, so a long
      // activity over a short trace costs no more than a short one.
      const int64_t wraps = (end - 2 * span - 1) / span + 1;
      int64_t charged;
      if (__builtin_mul_overflow(wraps, cumulative_[n - 1] - cumulative_[0], &charged))
        throw_time_overflow();
      noise = time_add(noise, charged);
      end -= wraps * span;
    }
    if (pos == n - 1) {
      end -= span;
      pos = 0;
    }
    const size_t first_not_before = std::max(pos + 1, search_from(pos + 1, end, false));
    const size_t last = first_not_before - 1;  // last detour starting before `end`
    if (last <= pos) break;
    noise = time_add(noise, cumulative_[last] - cumulative_[pos]);
    pos = last;
    if (pos != n - 1) break;
  }
  return noise;
}

}  // namespace cloudnoise
