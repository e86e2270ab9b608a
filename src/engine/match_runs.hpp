// The overflow of a match queue: entries past its inline block, kept as
// runs. A run is consecutive entries with one source and tag whose ops step
// by a fixed stride, so a rank posting all its receives from one peer (the
// ring allreduce: thousands) makes one run, not thousands of entries.
// Matching follows LogGOPSim's list matching: the first entry in arrival
// order whose source and tag agree, where -1 (kAny) on either side matches
// anything.
#pragma once

#include <cstdint>
#include <vector>

#include "schedule.hpp"

namespace cloudnoise {

struct MatchEntry {
  uint32_t src;
  uint32_t tag;
  uint32_t op;  // the posted recv, or the send of an unexpected message
};

inline constexpr uint32_t kNoMatch = 0xFFFFFFFFu;

inline bool entry_matches(uint32_t e_src, uint32_t e_tag, uint32_t src, uint32_t tag) {
  return (src == kAny || e_src == kAny || e_src == src) && (tag == kAny || e_tag == kAny || e_tag == tag);
}

class MatchRuns {
 public:
  bool empty() const { return head_ == runs_.size(); }
  void clear() {
    runs_.clear();
    head_ = 0;
  }

  void push(const MatchEntry& e) {
    if (!empty()) {
      Run& last = runs_.back();
      if (last.src == e.src && last.tag == e.tag && e.op > last.first) {
        if (last.count == 1) {
          last.stride = e.op - last.first;
          last.count = 2;
          return;
        }
        if (e.op == last.first + last.count * last.stride) {
          ++last.count;
          return;
        }
      }
    }
    runs_.push_back({e.src, e.tag, e.op, 1, 0});
  }

  // Removes and returns the first entry matching (src, tag); op kNoMatch
  // when none does.
  MatchEntry take(uint32_t src, uint32_t tag) {
    for (size_t i = head_; i < runs_.size(); ++i)
      if (entry_matches(runs_[i].src, runs_[i].tag, src, tag)) return pop_first(i);
    return {0, 0, kNoMatch};
  }

  // Takes the oldest entry (there must be one).
  MatchEntry pop_front() { return pop_first(head_); }

  void append_to(std::vector<MatchEntry>& out) const {
    for (size_t i = head_; i < runs_.size(); ++i)
      for (uint32_t k = 0; k < runs_[i].count; ++k)
        out.push_back({runs_[i].src, runs_[i].tag, runs_[i].first + k * runs_[i].stride});
  }

 private:
  struct Run {
    uint32_t src, tag, first, count, stride;
  };

  // Takes the first entry of run i.
  MatchEntry pop_first(size_t i) {
    Run& run = runs_[i];
    const MatchEntry e{run.src, run.tag, run.first};
    run.first += run.stride;
    if (--run.count == 0) {
      if (i == head_)
        advance_head();
      else
        runs_.erase(runs_.begin() + static_cast<std::ptrdiff_t>(i));
    }
    return e;
  }

  void advance_head() {
    ++head_;
    if (head_ == runs_.size()) {
      clear();
    } else if (head_ >= 64 && head_ * 2 >= runs_.size()) {
      runs_.erase(runs_.begin(), runs_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }

  std::vector<Run> runs_;
  size_t head_ = 0;  // first live run
};

}  // namespace cloudnoise
