// A host's posted-receive or unexpected-message queue. Matching follows
// LogGOPSim's list matching: the first entry in arrival order whose source
// and tag agree, where -1 (kAny) on either side matches anything.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "schedule.hpp"

namespace cloudnoise {

struct MatchEntry {
  uint32_t src;
  uint32_t tag;
  uint32_t op;  // the posted recv, or the send of an unexpected message
};

class MatchQueue {
 public:
  static constexpr uint32_t kNone = 0xFFFFFFFFu;

  void push(const MatchEntry& e) { entries_.push_back(e); }

  // Removes and returns the first entry matching (src, tag); its op is
  // kNone when nothing matches. The front entry usually matches (a stream
  // of messages from one peer meeting receives posted in order), so it is
  // taken by advancing `head_`, not by shifting the rest.
  MatchEntry take(uint32_t src, uint32_t tag) {
    for (size_t i = head_; i < entries_.size(); ++i) {
      const MatchEntry& e = entries_[i];
      if ((src == kAny || e.src == kAny || e.src == src) &&
          (tag == kAny || e.tag == kAny || e.tag == tag)) {
        const MatchEntry found = e;
        if (i == head_) {
          ++head_;
          if (head_ == entries_.size()) {
            entries_.clear();
            head_ = 0;
          } else if (head_ >= 64 && head_ * 2 >= entries_.size()) {
            entries_.erase(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(head_));
            head_ = 0;
          }
        } else {
          entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
        }
        return found;
      }
    }
    return {0, 0, kNone};
  }

  bool empty() const { return head_ == entries_.size(); }
  void clear() {
    entries_.clear();
    head_ = 0;
  }
  // The waiting entries, oldest first.
  std::span<const MatchEntry> entries() const {
    return {entries_.data() + head_, entries_.data() + entries_.size()};
  }

 private:
  std::vector<MatchEntry> entries_;
  size_t head_ = 0;
};

}  // namespace cloudnoise
