// OS noise from a selfish-detour trace (Netgauge's format: detour start and
// duration), charged to CPU activities the way LogGOPSim charges it.
//
// The rule (LogGOPSim's Noise::get_noise, in picoseconds): rank r reads the
// trace from its own offset off_r. An activity [t, t+len) on rank r maps to
// trace position s = (t + off_r) mod (T - len), where T is the start of the
// last detour (the trace's span; when len >= T the modulus is T). It is
// charged
//   * the rest of the detour in progress at s: start_k + dur_k - s for the
//     last detour with start_k <= s, if positive (only looked for when s is
//     after the first detour's start); plus
//   * the full duration of every later detour that starts before s + len,
//     where the walk wraps to the trace's start after its last detour (and,
//     as in the reference, resumes at the second detour).
// The activity then ends that much later; noise charged during an activity
// does not itself attract more noise.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace cloudnoise {

// Activity starts [lo, hi] (trace positions with the rank's offset, as
// noise() takes them) that one lookup showed to fall between two detours,
// for activities of the length looked up: each is charged max(0, end -
// start), the rest of the detour before it. Empty when lo > hi.
struct QuietSpan {
  int64_t lo = 1, hi = 0, end = 0;
};

class OsNoiseTrace {
 public:
  // starts and durations in picoseconds; starts must be non-decreasing and
  // there must be at least two detours.
  OsNoiseTrace(std::vector<int64_t> starts_ps, std::vector<int64_t> durations_ps);

  int64_t span_ps() const { return starts_.back(); }
  size_t size() const { return starts_.size(); }

  // Noise charged to an activity of `len` ps starting at trace offset `start`
  // (already including the rank's offset). `cursor` remembers where the last
  // lookup of the same rank ended: a rank's activities move forward through
  // the trace, so searches start there instead of at the whole trace.
  // Needs start >= 0 and 0 <= len <= limits::kMaxTimePs, as every activity
  // of the engine is (the bindings check what Python passes).
  int64_t noise(int64_t start, int64_t len, size_t& cursor) const {
    // The common case, inline: the activity starts between the detour at the
    // cursor and the next one and ends before that next one starts, so it is
    // charged only the rest of the detour in progress (the general rule
    // below gives the same). Short o-sized activities on a sparse trace are
    // almost all this case.
    const int64_t span = starts_.back();
    const int64_t modulus = span > len ? span - len : span;
    // A rank's offset is below the span and a run is short, so `start` is
    // almost always below twice the modulus: a subtraction, not a 64-bit
    // division, on every CPU activity.
    int64_t s = start;
    if (s >= modulus || s < 0) s = s >= modulus && s - modulus < modulus ? s - modulus : s % modulus;
    const size_t c = cursor;
    if (c + 1 < starts_.size() && s > starts_[0] && starts_[c] <= s && s < starts_[c + 1] &&
        s + len <= starts_[c + 1]) {
      const int64_t end_last = starts_[c] + durations_[c];
      return end_last > s ? end_last - s : 0;
    }
    return noise_at(s, len, cursor);
  }
  int64_t noise(int64_t start, int64_t len) const {
    size_t cursor = 0;
    return noise(start, len, cursor);
  }

  // After noise(start, len, cursor): every start charged as simply as this
  // one, so a rank's next activities of that length need no lookup. (An
  // activity of o on a trace of sparse detours nearly always is.)
  QuietSpan quiet_span(int64_t start, int64_t len, size_t cursor) const {
    const int64_t span = starts_.back();
    const int64_t modulus = span > len ? span - len : span;
    // (Near the end of the time range the span's bounds would not fit: no span.)
    if (start < 0 || start > INT64_MAX - 2 * span) return {};
    const int64_t s = start % modulus;
    const size_t c = cursor;
    if (!(c + 1 < starts_.size() && s > starts_[0] && starts_[c] <= s && s < starts_[c + 1] &&
          s + len <= starts_[c + 1]))
      return {};
    // The positions giving the same case: after the first detour, from the
    // cursor's detour until the activity would reach the next one, and
    // without wrapping (the same multiple of the modulus removed).
    const int64_t shift = start - s;
    const int64_t lo = std::max(starts_[c], starts_[0] + 1);
    const int64_t hi = std::min(starts_[c + 1] - std::max<int64_t>(len, 1), modulus - 1);
    return {lo + shift, hi + shift, starts_[c] + durations_[c] + shift};
  }

  // A cursor for trace position `s` in [0, span): the last detour starting
  // at or before it (0 when none does). A rank starts its repetition here,
  // so its first lookup needs no search.
  size_t locate(int64_t s) const {
    if (s <= starts_[0]) return 0;
    const auto k = static_cast<size_t>(static_cast<double>(s) * bucket_scale_);
    size_t c = bucket_first_[std::min(k, bucket_first_.size() - 1)];
    while (c > 0 && starts_[c] > s) --c;  // the bucket's start was rounded
    while (c + 1 < starts_.size() && starts_[c + 1] <= s) ++c;
    return c;
  }

 private:
  std::vector<int64_t> starts_, durations_;
  std::vector<int64_t> cumulative_;  // cumulative_[i] = sum of durations_[0..i]
  // locate()'s index: the span cut into equal buckets, each naming the last
  // detour starting at or before the bucket's start.
  std::vector<uint32_t> bucket_first_;
  double bucket_scale_ = 0;  // buckets per ps

  // noise() for the trace position s (start already reduced).
  int64_t noise_at(int64_t s, int64_t len, size_t& cursor) const;

  // Index of the first detour at or after `from` whose start is > value
  // (strict) or >= value (!strict), searched outward from `from`.
  size_t search_from(size_t from, int64_t value, bool strict) const;
};

}  // namespace cloudnoise
