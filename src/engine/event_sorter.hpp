// Sorts a batch of events into pop order when the batch is a few runs that
// are each in order already, as the queues' batches are: events pushed one
// by one carry ever larger stamps, and each batch moved in from elsewhere
// is in order too. The runs are merged instead of sorted from scratch
// (under OS noise alone thousands of events share one time, and a full
// sort of each batch cost a quarter of the run); a batch of many short runs
// is sorted by time with a radix sort and then by stamp where needed
// (sort_many_runs), or outright when small or spread wide.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
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
          sort_many_runs(events);
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

  // A batch of many short runs. A calendar slot spans a few hundred
  // picoseconds, and dense traffic puts thousands of events in one: Fig.
  // 16's 16K-node DGEMM + dissemination under Oracle HPC's noise pops slots
  // of ~2,000 messages at ~900 distinct times, 1,200 runs, and sorting them
  // outright was a fifth of the run. A stable radix sort by time (11 bits
  // a pass, from the least significant) orders them by time, each time's
  // events in the order they came; those carry ever larger stamps except
  // events queued again with their old one, so a time's group is mostly in
  // stamp order already and is sorted only where it is not. The order is
  // (time, stamp) exactly as before; small batches and wide spans are
  // sorted outright.
  void sort_many_runs(std::vector<Event>& events) {
    const size_t n = events.size();
    int64_t lo = events[0].time, hi = lo;
    for (const Event& e : events) {
      lo = std::min(lo, e.time);
      hi = std::max(hi, e.time);
    }
    const auto span = static_cast<uint64_t>(hi - lo);
    const unsigned bits = static_cast<unsigned>(std::bit_width(span));
    if (n < kRadixMin || bits > kRadixPasses * kDigitBits) {
      std::sort(events.begin(), events.end(), EventBefore{});
      return;
    }
    scratch_.resize(n);
    for (unsigned shift = 0; shift < bits; shift += kDigitBits) {
      const unsigned width = std::min(kDigitBits, bits - shift);
      const size_t buckets = size_t{1} << width;
      const uint64_t mask = buckets - 1;
      std::fill(counts_.begin(), counts_.begin() + static_cast<std::ptrdiff_t>(buckets), 0);
      for (const Event& e : events) ++counts_[static_cast<uint64_t>(e.time - lo) >> shift & mask];
      uint32_t at = 0;
      for (size_t b = 0; b < buckets; ++b) {
        const uint32_t c = counts_[b];
        counts_[b] = at;
        at += c;
      }
      for (const Event& e : events) scratch_[counts_[static_cast<uint64_t>(e.time - lo) >> shift & mask]++] = e;
      events.swap(scratch_);
    }
    for (size_t i = 0; i < n;) {
      size_t j = i + 1;
      bool in_order = true;
      for (; j < n && events[j].time == events[i].time; ++j) in_order = in_order && events[j - 1].ts < events[j].ts;
      if (!in_order)
        std::sort(events.begin() + static_cast<std::ptrdiff_t>(i), events.begin() + static_cast<std::ptrdiff_t>(j),
                  EventBefore{});
      i = j;
    }
  }

  static constexpr size_t kMaxMergedRuns = 8;
  // Radix sorting pays for its bucket counts from this many events on.
  static constexpr size_t kRadixMin = 128;
  static constexpr unsigned kDigitBits = 11;
  static constexpr unsigned kRadixPasses = 2;  // spans below 2^22 ps (4.2 us)
  std::vector<size_t> bounds_;  // where each run starts, then the end
  std::vector<Event> scratch_;
  std::array<uint32_t, size_t{1} << kDigitBits> counts_{};
};

}  // namespace cloudnoise
