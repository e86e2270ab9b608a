// The engine's pending events, popped in (time, ts) order exactly as
// LogGOPSim's priority queue pops them: earlier time first, then earlier
// insertion stamp.
//
// Almost every event is pushed at or after the time of the event being
// processed, so the queue is a radix heap on time with 16-way buckets: an
// event's bucket is named by the highest 4-bit digit in which its time
// differs from the last popped time `last_` (the level) and its own value
// of that digit. Buckets in index order hold ever later times, so the
// lowest non-empty one (a bitmap scan) holds the earliest events; taking it
// moves its events down to lower levels around its minimum, which becomes
// `last_`. An event moves at most once per level, a few times in its life
// where a binary radix heap moves it once per bit (8 times per event under
// network noise, where most times are distinct). Events at exactly `last_`
// wait in `now_`, sorted by stamp (fresh stamps are the largest, so they
// append).
//
// LogGOPSim can schedule an op at a time already past (an op on an idle
// second CPU, released by another CPU's activity); such events go to a small
// ordinary heap that is always drained first, since all its times are
// below `last_`.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <vector>

namespace cloudnoise {

enum EventKind : uint32_t { kEvSend = 1, kEvRecv = 2, kEvCalc = 3, kEvMsg = 4 };

struct Event {
  int64_t time;        // picoseconds
  uint64_t ts;         // insertion stamp; kept when an event is re-queued
  uint32_t op;         // global op index (for a message: its send op)
  uint32_t host_kind;  // host << 3 | EventKind (for a message: the sender)

  uint32_t host() const { return host_kind >> 3; }
  EventKind kind() const { return static_cast<EventKind>(host_kind & 7u); }
  static uint32_t pack(uint32_t host, EventKind kind) { return host << 3 | kind; }
};
static_assert(sizeof(Event) == 24);

class EventQueue {
 public:
  EventQueue() { spares_.reserve(kSpares); }

  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }

  void clear() {
    for (size_t w = 0; w < kWords; ++w)
      for (uint64_t bits = nonempty_[w]; bits; bits &= bits - 1)
        buckets_[w * 64 + static_cast<size_t>(std::countr_zero(bits))].clear();
    nonempty_.fill(0);
    now_.clear();
    head_ = 0;
    past_.clear();
    last_ = 0;
    size_ = 0;
  }

  void push(const Event& e) {
    ++size_;
    if (e.time < last_) {
      past_.push_back(e);
      std::push_heap(past_.begin(), past_.end(), later);
      return;
    }
    if (e.time == last_) {
      if (now_.size() == head_ || now_.back().ts < e.ts) {
        now_.push_back(e);
      } else {
        // A re-queued event with an old stamp: keep now_ in stamp order.
        const auto pos = std::upper_bound(now_.begin() + static_cast<std::ptrdiff_t>(head_), now_.end(), e,
                                          [](const Event& a, const Event& b) { return a.ts < b.ts; });
        now_.insert(pos, e);
      }
      return;
    }
    put(e);
  }

  Event pop() {
    --size_;
    if (!past_.empty()) {
      std::pop_heap(past_.begin(), past_.end(), later);
      const Event e = past_.back();
      past_.pop_back();
      return e;
    }
    if (head_ == now_.size()) refill();
    const Event e = now_[head_++];
    if (head_ == now_.size()) {
      now_.clear();
      head_ = 0;
    }
    return e;
  }

 private:
  static constexpr unsigned kDigitBits = 4;
  static constexpr size_t kDigits = size_t{1} << kDigitBits;
  static constexpr size_t kBuckets = (63 + kDigitBits - 1) / kDigitBits * kDigits;  // times below 2^63
  static constexpr size_t kWords = (kBuckets + 63) / 64;

  static bool later(const Event& a, const Event& b) {
    return a.time > b.time || (a.time == b.time && a.ts > b.ts);
  }

  // time > last_.
  size_t bucket_of(int64_t time) const {
    const auto high_bit = static_cast<unsigned>(
        63 - std::countl_zero(static_cast<uint64_t>(time) ^ static_cast<uint64_t>(last_)));
    const unsigned level = high_bit / kDigitBits;
    const auto digit = static_cast<size_t>(static_cast<uint64_t>(time) >> (level * kDigitBits)) & (kDigits - 1);
    return level * kDigits + digit;
  }

  void put(const Event& e) {
    const size_t b = bucket_of(e.time);
    auto& bucket = buckets_[b];
    if (bucket.capacity() == 0 && !spares_.empty()) {
      // Take the storage a bucket gave back last: it is still in cache.
      bucket = std::move(spares_.back());
      spares_.pop_back();
    }
    bucket.push_back(e);
    nonempty_[b / 64] |= uint64_t{1} << (b % 64);
  }

  // now_ is empty: move the lowest non-empty bucket's events down around
  // its minimum time, which becomes `last_`.
  void refill() {
    now_.clear();
    head_ = 0;
    size_t w = 0;
    while (nonempty_[w] == 0) ++w;
    const size_t b = w * 64 + static_cast<size_t>(std::countr_zero(nonempty_[w]));
    nonempty_[w] &= nonempty_[w] - 1;
    auto& src = buckets_[b];
    int64_t min_time = src.front().time;
    for (const Event& e : src) min_time = std::min(min_time, e.time);
    last_ = min_time;
    for (const Event& e : src) {
      if (e.time == last_)
        now_.push_back(e);
      else
        put(e);
    }
    src.clear();
    // As time advances through a digit's values, a level's 16 buckets take
    // turns; each would keep storage of its own that is cold by its next
    // turn (the 16K-rank ring ran 15 % slower so). Emptied storage is
    // handed on instead, most recent first.
    if (spares_.size() < kSpares) spares_.push_back(std::move(src));
    if (now_.size() > 1) sort_now();
  }

  // Puts now_ in stamp order. A bucket is a concatenation of a few runs in
  // stamp order (events pushed into it directly, then each batch moved down
  // from a higher bucket), so the runs are merged; only a batch of many
  // short runs is sorted from scratch. Under OS noise alone, thousands of
  // events share one time and a full sort of each batch cost a quarter of
  // the run.
  void sort_now() {
    const auto by_ts = [](const Event& a, const Event& b) { return a.ts < b.ts; };
    bounds_.assign(1, 0);
    for (size_t i = 1; i < now_.size(); ++i)
      if (now_[i].ts < now_[i - 1].ts) {
        bounds_.push_back(i);
        if (bounds_.size() > kMaxMergedRuns) {
          std::sort(now_.begin(), now_.end(), by_ts);
          return;
        }
      }
    if (bounds_.size() == 1) return;
    bounds_.push_back(now_.size());
    // Bottom-up: merge neighbouring runs into scratch_, then swap, until one
    // run is left; the buffers keep their storage, so nothing is allocated.
    while (bounds_.size() > 2) {
      scratch_.resize(now_.size());
      size_t out = 1;
      for (size_t k = 0; k + 1 < bounds_.size(); k += 2) {
        const auto a = now_.begin() + static_cast<std::ptrdiff_t>(bounds_[k]);
        const auto b = now_.begin() + static_cast<std::ptrdiff_t>(bounds_[k + 1]);
        const auto c = k + 2 < bounds_.size() ? now_.begin() + static_cast<std::ptrdiff_t>(bounds_[k + 2]) : b;
        std::merge(a, b, b, c, scratch_.begin() + static_cast<std::ptrdiff_t>(bounds_[k]), by_ts);
        bounds_[out++] = k + 2 < bounds_.size() ? bounds_[k + 2] : bounds_[k + 1];
      }
      bounds_.resize(out);
      now_.swap(scratch_);
    }
  }

  static constexpr size_t kMaxMergedRuns = 8;
  std::vector<size_t> bounds_;  // where each run of now_ starts, then its end
  std::vector<Event> scratch_;

  std::array<std::vector<Event>, kBuckets> buckets_;
  static constexpr size_t kSpares = 8;
  std::vector<std::vector<Event>> spares_;  // emptied bucket storage, last emptied at the back
  std::array<uint64_t, kWords> nonempty_{};
  std::vector<Event> now_;  // events at exactly last_, by stamp
  size_t head_ = 0;         // next event of now_
  std::vector<Event> past_;
  int64_t last_ = 0;
  size_t size_ = 0;
};

}  // namespace cloudnoise
