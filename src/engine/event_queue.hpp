// The engine's pending events, ordered by (time, ts) exactly as LogGOPSim's
// priority queue orders them: earlier time first, then earlier insertion
// stamp. A 4-ary implicit heap in one vector: shallow, cache friendly.
#pragma once

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
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  void clear() { heap_.clear(); }
  void reserve(size_t n) { heap_.reserve(n); }

  void push(const Event& e) {
    size_t i = heap_.size();
    heap_.push_back(e);
    while (i > 0) {
      const size_t parent = (i - 1) / 4;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }

  Event pop() {
    const Event top = heap_.front();
    const Event last = heap_.back();
    heap_.pop_back();
    const size_t n = heap_.size();
    if (n == 0) return top;
    size_t i = 0;
    for (;;) {
      const size_t c = 4 * i + 1;
      if (c >= n) break;
      size_t best = c;
      const size_t cend = c + 4 < n ? c + 4 : n;
      for (size_t k = c + 1; k < cend; ++k)
        if (before(heap_[k], heap_[best])) best = k;
      if (!before(heap_[best], last)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = last;
    return top;
  }

 private:
  static bool before(const Event& a, const Event& b) {
    return a.time < b.time || (a.time == b.time && a.ts < b.ts);
  }
  std::vector<Event> heap_;
};

}  // namespace cloudnoise
