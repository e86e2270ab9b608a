// A host's posted-receive or unexpected-message queue. Matching follows
// LogGOPSim's list matching: the first entry in arrival order whose source
// and tag agree, where -1 (kAny) on either side matches anything.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "schedule.hpp"

namespace cloudnoise {

struct MatchEntry {
  uint32_t src;
  uint32_t tag;
  uint32_t op;  // the posted recv, or the send of an unexpected message
};

// Three cache lines holding the header and up to 14 entries inline: a
// dissemination over 16K ranks posts 14 receives per rank at once, and with
// noise its messages reach hosts in random order, so every match is a cache
// miss on the queue -- one contiguous block costs one miss (and the adjacent
// lines come with it), where a separate heap vector cost a second one.
// Longer queues spill to a heap vector of runs. A run is consecutive entries
// with one source and tag whose ops step by a fixed stride -- a rank posting
// all its receives from one peer makes a single run, not thousands of
// entries. Inline entries are always older than spilled ones, and the
// inline block is only empty when nothing is spilled; order within and
// across runs is arrival order.
template <uint32_t kInline>
class alignas(64) BasicMatchQueue {
 public:
  static constexpr uint32_t kNone = 0xFFFFFFFFu;

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
      if (!spill_) spill_ = std::make_unique<Spill>();
    }
    spill_->push(e);
  }

  // Removes and returns the first entry matching (src, tag); its op is
  // kNone when nothing matches. A stream of messages from one peer meeting
  // receives posted in order matches at the front, which is taken in O(1).
  MatchEntry take(uint32_t src, uint32_t tag) {
    for (uint32_t i = begin_; i < end_; ++i) {
      if (matches(inline_[i].src, inline_[i].tag, src, tag)) {
        const MatchEntry found = inline_[i];
        // Close the gap from the nearer end: the front, usually, as
        // messages mostly arrive in the order their receives were posted.
        if (i - begin_ <= end_ - 1u - i) {
          for (uint32_t k = i; k > begin_; --k) inline_[k] = inline_[k - 1];
          ++begin_;
        } else {
          for (uint32_t k = i + 1; k < end_; ++k) inline_[k - 1] = inline_[k];
          --end_;
        }
        if (begin_ == end_) refill();
        return found;
      }
    }
    if (spilled()) return spill_->take(src, tag);
    return {0, 0, kNone};
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
  static constexpr uint32_t kRefill = kInline < 4 ? kInline : 4;  // (64 - 16-byte header) / 12-byte entries

  static bool matches(uint32_t e_src, uint32_t e_tag, uint32_t src, uint32_t tag) {
    return (src == kAny || e_src == kAny || e_src == src) && (tag == kAny || e_tag == kAny || e_tag == tag);
  }

  // Entries past the inline block, as runs from head onwards.
  class Spill {
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

    MatchEntry take(uint32_t src, uint32_t tag) {
      for (size_t i = head_; i < runs_.size(); ++i)
        if (matches(runs_[i].src, runs_[i].tag, src, tag)) return pop_first(i);
      return {0, 0, kNone};
    }

    // Takes the oldest entry (the spill must not be empty).
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

  bool spilled() const { return spill_ && !spill_->empty(); }

  // The inline block ran empty: the oldest spilled entries move in, only
  // as many as share the header's cache line. A long queue (the ring's
  // thousands of receives from one peer) is taken from the front, so its
  // takes then touch that one line until the next refill; filling all 14
  // spread them over three lines and made the 16K-rank ring slower.
  void refill() {
    begin_ = end_ = 0;
    while (end_ < kRefill && spilled()) inline_[end_++] = spill_->pop_front();
  }

  uint8_t begin_ = 0, end_ = 0;  // the live inline entries
  std::unique_ptr<Spill> spill_;  // allocated when a queue first outgrows the inline block
  MatchEntry inline_[kInline];
};
// Posted receives: dissemination's 14 per rank fit inline.
using MatchQueue = BasicMatchQueue<14>;
static_assert(sizeof(MatchQueue) == 192);
// Unexpected messages: collectives post their receives early, so this queue
// is mostly empty and one line per host suffices. Keeping it at one line
// also keeps neighbouring hosts' queues adjacent, which the hardware's
// adjacent-line prefetch turns into free hits in rank-order sweeps (the
// ring).
using UnexpectedQueue = BasicMatchQueue<4>;
static_assert(sizeof(UnexpectedQueue) == 64);

}  // namespace cloudnoise
