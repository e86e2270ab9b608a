// Sorts a batch of events into pop order when the batch is a few runs that
// are each in order already, as the queues' batches are: events pushed one
// by one carry ever larger stamps, and each batch moved in from elsewhere
// is in order too. The runs are merged instead of sorted from scratch
// (under OS noise alone thousands of events share one time, and a full
// sort of each batch cost a quarter of the run); only a batch of many short
// runs is sorted outright.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "event.hpp"

namespace cloudnoise {

class EventSorter {
 public:
  void sort(std::vector<Event>& events) {
    const size_t n = events.size();
    if (n < 2) return;
    if (n <= kInsertionMax) {
      // A calendar slot's batch is mostly one to three events.
      for (size_t i = 1; i < n; ++i) {
        if (!event_before(events[i], events[i - 1])) continue;
        const Event e = events[i];
        size_t j = i;
        for (; j > 0 && event_before(e, events[j - 1]); --j) events[j] = events[j - 1];
        events[j] = e;
      }
      return;
    }
    merge_runs(events);
  }

 private:
  static constexpr size_t kInsertionMax = 16;

  void merge_runs(std::vector<Event>& events) {
    bounds_.assign(1, 0);
    for (size_t i = 1; i < events.size(); ++i)
      if (event_before(events[i], events[i - 1])) {
        bounds_.push_back(i);
        if (bounds_.size() > kMaxMergedRuns) {
          std::sort(events.begin(), events.end(), EventBefore{});
          return;
        }
      }
    if (bounds_.size() == 1) return;
    bounds_.push_back(events.size());
    // Bottom-up: merge neighbouring runs into scratch_, then swap, until one
    // run is left; the buffers keep their storage, so nothing is allocated.
    while (bounds_.size() > 2) {
      scratch_.resize(events.size());
      size_t out = 1;
      for (size_t k = 0; k + 1 < bounds_.size(); k += 2) {
        const auto a = events.begin() + static_cast<std::ptrdiff_t>(bounds_[k]);
        const auto b = events.begin() + static_cast<std::ptrdiff_t>(bounds_[k + 1]);
        const auto c = k + 2 < bounds_.size()
                           ? events.begin() + static_cast<std::ptrdiff_t>(bounds_[k + 2])
                           : b;
        std::merge(a, b, b, c, scratch_.begin() + static_cast<std::ptrdiff_t>(bounds_[k]),
                   EventBefore{});
        bounds_[out++] = k + 2 < bounds_.size() ? bounds_[k + 2] : bounds_[k + 1];
      }
      bounds_.resize(out);
      events.swap(scratch_);
    }
  }

  static constexpr size_t kMaxMergedRuns = 8;
  std::vector<size_t> bounds_;  // where each run starts, then the end
  std::vector<Event> scratch_;
};

}  // namespace cloudnoise
