// A plain binary heap of events in pop order, for the few events the
// queues take outside their buckets: those pushed at a time already past.
#pragma once

#include <algorithm>
#include <vector>

#include "event.hpp"

namespace cloudnoise {

class EventHeap {
 public:
  bool empty() const { return heap_.empty(); }
  void clear() { heap_.clear(); }
  const Event& top() const { return heap_.front(); }

  void push(const Event& e) {
    heap_.push_back(e);
    std::push_heap(heap_.begin(), heap_.end(), later);
  }

  Event pop() {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    const Event e = heap_.back();
    heap_.pop_back();
    return e;
  }

 private:
  static bool later(const Event& a, const Event& b) { return event_before(b, a); }
  std::vector<Event> heap_;
};

}  // namespace cloudnoise
