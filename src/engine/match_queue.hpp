// A host's unexpected-message queue: messages that arrived before a
// matching receive was posted, in arrival order (LogGOPSim's list
// matching, see match_runs.hpp).
//
// One cache line per host, the header and up to 4 entries inline:
// collectives post their receives early, so this queue is mostly empty.
// Keeping it at one line also keeps neighbouring hosts' queues adjacent,
// which the hardware's adjacent-line prefetch turns into free hits in
// rank-order sweeps (the ring). Longer queues spill to runs. Inline entries
// are always older than spilled ones, and the inline block is only empty
// when nothing is spilled.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "match_runs.hpp"

namespace cloudnoise {

class alignas(64) UnexpectedQueue {
 public:
  static constexpr uint32_t kInline = 4;

  void push(const MatchEntry& e) {
    if (!spilled()) {
      if (end_ < kInline) {
        inline_[end_++] = e;
        return;
      }
      if (begin_ > 0) {
        // Room left at the front by taken entries: close the gap.
        uint8_t k = 0;
        for (uint8_t i = begin_; i < end_; ++i) inline_[k++] = inline_[i];
        begin_ = 0;
        end_ = k;
        inline_[end_++] = e;
        return;
      }
      if (!spill_) spill_ = std::make_unique<MatchRuns>();
    }
    spill_->push(e);
  }

  // Removes and returns the first entry matching (src, tag); op kNoMatch
  // when none does.
  MatchEntry take(uint32_t src, uint32_t tag) {
    for (uint32_t i = begin_; i < end_; ++i) {
      if (entry_matches(inline_[i].src, inline_[i].tag, src, tag)) {
        const MatchEntry found = inline_[i];
        for (uint32_t k = i; k > begin_; --k) inline_[k] = inline_[k - 1];
        ++begin_;
        if (begin_ == end_) refill();
        return found;
      }
    }
    if (spilled()) return spill_->take(src, tag);
    return {0, 0, kNoMatch};
  }

  bool empty() const { return begin_ == end_; }
  void clear() {
    begin_ = end_ = 0;
    if (spill_) spill_->clear();  // keeps its storage for the next repetition
  }
  // The waiting entries, oldest first (for reports).
  std::vector<MatchEntry> snapshot() const {
    std::vector<MatchEntry> out(inline_ + begin_, inline_ + end_);
    if (spill_) spill_->append_to(out);
    return out;
  }

 private:
  bool spilled() const { return spill_ && !spill_->empty(); }

  void refill() {
    begin_ = end_ = 0;
    while (end_ < kInline && spilled()) inline_[end_++] = spill_->pop_front();
  }

  uint8_t begin_ = 0, end_ = 0;  // the live inline entries
  std::unique_ptr<MatchRuns> spill_;  // allocated when the queue first outgrows the inline block
  MatchEntry inline_[kInline];
};
static_assert(sizeof(UnexpectedQueue) == 64);

}  // namespace cloudnoise
