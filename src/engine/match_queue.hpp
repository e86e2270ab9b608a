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

class MatchQueue {
 public:
  static constexpr uint32_t kNone = 0xFFFFFFFFu;

  void push(const MatchEntry& e) { entries_.push_back(e); }

  // Removes and returns the first entry matching (src, tag); its op is
  // kNone when nothing matches.
  MatchEntry take(uint32_t src, uint32_t tag) {
    for (size_t i = 0; i < entries_.size(); ++i) {
      const MatchEntry& e = entries_[i];
      if ((src == kAny || e.src == kAny || e.src == src) &&
          (tag == kAny || e.tag == kAny || e.tag == tag)) {
        const MatchEntry found = e;
        entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
        return found;
      }
    }
    return {0, 0, kNone};
  }

  bool empty() const { return entries_.empty(); }
  void clear() { entries_.clear(); }
  const std::vector<MatchEntry>& entries() const { return entries_; }

 private:
  std::vector<MatchEntry> entries_;
};

}  // namespace cloudnoise
