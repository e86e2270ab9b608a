// A host's posted-receive or unexpected-message queue. Matching follows
// LogGOPSim's list matching: the first entry in arrival order whose source
// and tag agree, where -1 (kAny) on either side matches anything.
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

// One cache line: the first entries live inline, so the common short queue
// costs no second miss for its storage; longer queues spill to a vector of
// runs. A run is consecutive entries with one source and tag whose ops step
// by a fixed stride -- a rank posting all its receives from one peer makes a
// single run, not thousands of entries. Inline entries are always older
// than spilled ones; order within and across runs is arrival order.
class alignas(64) MatchQueue {
 public:
  static constexpr uint32_t kNone = 0xFFFFFFFFu;

  void push(const MatchEntry& e) {
    if (head_ == spill_.size() && count_ < kInline) {
      inline_[count_++] = e;
      return;
    }
    if (head_ < spill_.size()) {
      Run& last = spill_.back();
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
    spill_.push_back({e.src, e.tag, e.op, 1, 0});
  }

  // Removes and returns the first entry matching (src, tag); its op is
  // kNone when nothing matches. A stream of messages from one peer meeting
  // receives posted in order matches at the front, which is taken in O(1).
  MatchEntry take(uint32_t src, uint32_t tag) {
    for (uint32_t i = 0; i < count_; ++i) {
      if (matches(inline_[i].src, inline_[i].tag, src, tag)) {
        const MatchEntry found = inline_[i];
        for (uint32_t k = i + 1; k < count_; ++k) inline_[k - 1] = inline_[k];
        --count_;
        if (head_ < spill_.size()) inline_[count_++] = pop_first(head_);  // the oldest spilled moves inline
        return found;
      }
    }
    for (size_t i = head_; i < spill_.size(); ++i)
      if (matches(spill_[i].src, spill_[i].tag, src, tag)) return pop_first(i);
    return {0, 0, kNone};
  }

  bool empty() const { return count_ == 0 && head_ == spill_.size(); }
  void clear() {
    count_ = 0;
    spill_.clear();
    head_ = 0;
  }
  // The waiting entries, oldest first (for reports).
  std::vector<MatchEntry> snapshot() const {
    std::vector<MatchEntry> out(inline_, inline_ + count_);
    for (size_t i = head_; i < spill_.size(); ++i)
      for (uint32_t k = 0; k < spill_[i].count; ++k)
        out.push_back({spill_[i].src, spill_[i].tag, spill_[i].first + k * spill_[i].stride});
    return out;
  }

 private:
  struct Run {
    uint32_t src, tag, first, count, stride;
  };
  static constexpr uint32_t kInline = 2;

  static bool matches(uint32_t e_src, uint32_t e_tag, uint32_t src, uint32_t tag) {
    return (src == kAny || e_src == kAny || e_src == src) && (tag == kAny || e_tag == kAny || e_tag == tag);
  }

  // Takes the first entry of run i.
  MatchEntry pop_first(size_t i) {
    Run& run = spill_[i];
    const MatchEntry e{run.src, run.tag, run.first};
    run.first += run.stride;
    if (--run.count == 0) {
      if (i == head_)
        advance_head();
      else
        spill_.erase(spill_.begin() + static_cast<std::ptrdiff_t>(i));
    }
    return e;
  }

  void advance_head() {
    ++head_;
    if (head_ == spill_.size()) {
      spill_.clear();
      head_ = 0;
    } else if (head_ >= 64 && head_ * 2 >= spill_.size()) {
      spill_.erase(spill_.begin(), spill_.begin() + head_);
      head_ = 0;
    }
  }

  MatchEntry inline_[kInline];
  uint32_t count_ = 0;
  uint32_t head_ = 0;  // first live run of spill_
  std::vector<Run> spill_;
};
static_assert(sizeof(MatchQueue) == 64);

}  // namespace cloudnoise
