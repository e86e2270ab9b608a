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
// costs no second miss for its storage; longer queues spill to a vector.
// Inline entries are always older than spilled ones.
class alignas(64) MatchQueue {
 public:
  static constexpr uint32_t kNone = 0xFFFFFFFFu;

  void push(const MatchEntry& e) {
    if (head_ == spill_.size() && count_ < kInline) {
      inline_[count_++] = e;
    } else {
      spill_.push_back(e);
    }
  }

  // Removes and returns the first entry matching (src, tag); its op is
  // kNone when nothing matches. A stream of messages from one peer meeting
  // receives posted in order matches at the front, which is taken in O(1).
  MatchEntry take(uint32_t src, uint32_t tag) {
    for (uint32_t i = 0; i < count_; ++i) {
      if (matches(inline_[i], src, tag)) {
        const MatchEntry found = inline_[i];
        for (uint32_t k = i + 1; k < count_; ++k) inline_[k - 1] = inline_[k];
        --count_;
        if (head_ < spill_.size()) {  // the oldest spilled entry moves inline
          inline_[count_++] = spill_[head_];
          advance_head();
        }
        return found;
      }
    }
    for (size_t i = head_; i < spill_.size(); ++i) {
      if (matches(spill_[i], src, tag)) {
        const MatchEntry found = spill_[i];
        if (i == head_)
          advance_head();
        else
          spill_.erase(spill_.begin() + static_cast<std::ptrdiff_t>(i));
        return found;
      }
    }
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
    out.insert(out.end(), spill_.begin() + static_cast<std::ptrdiff_t>(head_), spill_.end());
    return out;
  }

 private:
  static constexpr uint32_t kInline = 2;

  static bool matches(const MatchEntry& e, uint32_t src, uint32_t tag) {
    return (src == kAny || e.src == kAny || e.src == src) && (tag == kAny || e.tag == kAny || e.tag == tag);
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
  uint32_t head_ = 0;  // first live entry of spill_
  std::vector<MatchEntry> spill_;
};
static_assert(sizeof(MatchQueue) == 64);

}  // namespace cloudnoise
