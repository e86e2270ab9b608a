// The engine's pending events, popped in (time, ts) order exactly as
// LogGOPSim's priority queue pops them: earlier time first, then earlier
// insertion stamp.
//
// Almost every event is pushed at or after the time of the event being
// processed, so the queue is a radix heap on time: bucket b holds events whose
// time differs from the last popped time `last_` first in bit b-1, and
// bucket 0 holds events at exactly `last_`, kept sorted by stamp (fresh
// stamps are the largest, so they append). Each event moves down at most 64
// buckets in its life; pops and pushes are O(1) amortised with sequential
// memory access, where a binary heap of 32K events misses the cache on every
// level.
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
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }

  void clear() {
    for (auto& b : buckets_) b.clear();
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
      auto& b0 = buckets_[0];
      if (b0.size() == head_ || b0.back().ts < e.ts) {
        b0.push_back(e);
      } else {
        // A re-queued event with an old stamp: keep bucket 0 in stamp order.
        const auto pos = std::upper_bound(b0.begin() + static_cast<std::ptrdiff_t>(head_), b0.end(), e,
                                          [](const Event& a, const Event& b) { return a.ts < b.ts; });
        b0.insert(pos, e);
      }
      return;
    }
    buckets_[bucket_of(e.time)].push_back(e);
  }

  Event pop() {
    --size_;
    if (!past_.empty()) {
      std::pop_heap(past_.begin(), past_.end(), later);
      const Event e = past_.back();
      past_.pop_back();
      return e;
    }
    auto& b0 = buckets_[0];
    if (head_ == b0.size()) refill();
    const Event e = b0[head_++];
    if (head_ == b0.size()) {
      b0.clear();
      head_ = 0;
    }
    return e;
  }

 private:
  static bool later(const Event& a, const Event& b) {
    return a.time > b.time || (a.time == b.time && a.ts > b.ts);
  }

  size_t bucket_of(int64_t time) const {
    return static_cast<size_t>(
        64 - std::countl_zero(static_cast<uint64_t>(time) ^ static_cast<uint64_t>(last_)));
  }

  // Bucket 0 is empty: move the smallest non-empty bucket's events down
  // around its minimum time, which becomes `last_`.
  void refill() {
    buckets_[0].clear();
    head_ = 0;
    size_t i = 1;
    while (buckets_[i].empty()) ++i;
    auto& src = buckets_[i];
    int64_t min_time = src.front().time;
    for (const Event& e : src) min_time = std::min(min_time, e.time);
    last_ = min_time;
    for (const Event& e : src) buckets_[e.time == last_ ? 0 : bucket_of(e.time)].push_back(e);
    src.clear();
    auto& b0 = buckets_[0];
    if (!std::is_sorted(b0.begin(), b0.end(), [](const Event& a, const Event& b) { return a.ts < b.ts; }))
      std::sort(b0.begin(), b0.end(), [](const Event& a, const Event& b) { return a.ts < b.ts; });
  }

  std::array<std::vector<Event>, 65> buckets_;
  size_t head_ = 0;  // next event of bucket 0
  std::vector<Event> past_;
  int64_t last_ = 0;
  size_t size_ = 0;
};

}  // namespace cloudnoise
