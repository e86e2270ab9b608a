// Events popped in (time, ts) order: a radix heap on time with 16-way
// buckets, the engine's queue for events beyond the calendar's window
// (event_queue.hpp), which are few and far apart.
//
// An event's bucket is named by the highest 4-bit digit in which its time
// differs from the last popped time `last_` (the level) and its own value
// of that digit. Buckets in index order hold ever later times, so the
// lowest non-empty one (a bitmap scan) holds the earliest events; taking it
// moves its events down to lower levels around its minimum, which becomes
// `last_`. An event moves at most once per level. Events at exactly `last_`
// wait in `now_`, sorted by stamp (fresh stamps are the largest, so they
// append). Events pushed at a time already below `last_` go to a small
// ordinary heap that is always drained first.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#include "event.hpp"
#include "event_heap.hpp"
#include "event_sorter.hpp"

namespace cloudnoise {

class RadixHeap {
 public:
  RadixHeap() { spares_.reserve(kSpares); }

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
      past_.push(e);
      return;
    }
    if (e.time == last_) {
      if (now_.size() == head_ || now_.back().ts < e.ts) {
        now_.push_back(e);
      } else {
        // A re-queued event with an old stamp: keep now_ in stamp order.
        const auto pos =
            std::upper_bound(now_.begin() + static_cast<std::ptrdiff_t>(head_), now_.end(), e,
                             [](const Event& a, const Event& b) { return a.ts < b.ts; });
        now_.insert(pos, e);
      }
      return;
    }
    put(e);
  }

  // The earliest event, left in place (the heap must not be empty).
  const Event& top() {
    if (!past_.empty()) return past_.top();
    if (head_ == now_.size()) refill();
    return now_[head_];
  }

  Event pop() {
    --size_;
    if (!past_.empty()) return past_.pop();
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
  static constexpr size_t kBuckets =
      (63 + kDigitBits - 1) / kDigitBits * kDigits;  // times below 2^63
  static constexpr size_t kWords = (kBuckets + 63) / 64;

  // time > last_.
  size_t bucket_of(int64_t time) const {
    const auto high_bit = static_cast<unsigned>(
        63 - std::countl_zero(static_cast<uint64_t>(time) ^ static_cast<uint64_t>(last_)));
    const unsigned level = high_bit / kDigitBits;
    const auto digit =
        static_cast<size_t>(static_cast<uint64_t>(time) >> (level * kDigitBits)) & (kDigits - 1);
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
    sorter_.sort(now_);
  }

  EventSorter sorter_;
  std::array<std::vector<Event>, kBuckets> buckets_;
  static constexpr size_t kSpares = 8;
  std::vector<std::vector<Event>> spares_;  // emptied bucket storage, last emptied at the back
  std::array<uint64_t, kWords> nonempty_{};
  std::vector<Event> now_;  // events at exactly last_, by stamp
  size_t head_ = 0;         // next event of now_
  EventHeap past_;
  int64_t last_ = 0;
  size_t size_ = 0;
};

}  // namespace cloudnoise
