// The engine's pending events, popped in (time, ts) order exactly as
// LogGOPSim's priority queue pops them: earlier time first, then earlier
// insertion stamp.
//
// A calendar queue. Time is cut into slots of 2^shift_ ps, and a window of
// kSlots slots from the current one (base_) holds each pending event in its
// slot's list, so a push is one link and nothing moves until its slot comes
// up; a bitmap (with a summary word per 64 words) finds the next non-empty
// slot. That slot's events are sorted once into `now_`, which pops serve in
// order; an event pushed into the slot being served is inserted there in
// order. Events beyond the window wait in a radix heap (radix_heap.hpp) and
// move into their slot as the window reaches them; events pushed at a time
// before the current slot (LogGOPSim can schedule an op at a time already
// past: an op on an idle second CPU, released by another CPU's activity) go
// to a small heap that is always drained first.
//
// A slot that takes several pushes in a row (without network noise a whole
// step of a collective shares one time) keeps its newer events in a vector
// instead of its list.
//
// The order is exact whatever the slot width; the width only decides the
// speed, so it adapts to the run: narrower while slots come up holding
// several distinct times, wider while many pushes land beyond the window. It
// is kept across clear(), so the repetitions of one engine start tuned.
//
// Under noise nearly every event time is distinct. The radix heap this
// replaces as the front moved each event down about four levels before
// popping it; here an event is written once and read once. The 16K-rank
// dissemination per repetition: 50 -> 46 ms with OS and network noise,
// 26.5 -> 23 ms with OS noise alone; without noise, unchanged.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "event.hpp"
#include "event_heap.hpp"
#include "event_sorter.hpp"
#include "radix_heap.hpp"

namespace cloudnoise {

class EventQueue {
 public:
  EventQueue() : heads_(kSlots, kNil) {}

  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }

  // Pending events dropped; the learned slot width is kept.
  void clear() {
    for (size_t w = 0; w < kWords; ++w)
      for (uint64_t bits = bits_[w]; bits; bits &= bits - 1)
        heads_[w * 64 + static_cast<size_t>(std::countr_zero(bits))] = kNil;
    bits_.fill(0);
    summary_.fill(0);
    nodes_.clear();
    free_ = kNil;
    now_.clear();
    head_ = 0;
    past_.clear();
    far_.clear();
    hot_.clear();
    hot_slot_ = last_linked_ = kNoSlot;
    base_ = 0;
    last_time_ = 0;
    size_ = in_slots_ = 0;
    reset_counters();
  }

  // Times must not be negative.
  [[gnu::always_inline]] void push(const Event& e) {
    ++size_;
    ++pushes_;
    const uint64_t b = slot_of(e.time);
    const uint64_t ahead = b - base_;  // b < base_ wraps to a huge value
    if (ahead - 1 < kSlots - 1) {      // a later slot of the window
      if (b == hot_slot_) {
        hot_.push_back(e);
        ++in_slots_;
      } else {
        link_tracked(e, b);
      }
    } else if (ahead == 0) {
      insert_now(e);
    } else {
      push_outside(e, b);
    }
  }

  Event pop() {
    --size_;
    if (!past_.empty()) return past_.pop();
    if (head_ == now_.size()) return advance();
    const Event e = now_[head_++];
    last_time_ = e.time;
    return e;
  }

 private:
  static constexpr unsigned kSlotBits = 15;
  static constexpr size_t kSlots = size_t{1} << kSlotBits;
  static constexpr size_t kWords = kSlots / 64;
  static constexpr size_t kSummaryWords = kWords / 64;
  static constexpr uint32_t kNil = 0xFFFFFFFFu;
  static constexpr uint64_t kNoSlot = ~uint64_t{0};
  static constexpr uint32_t kHotRun = 4;
  // How many slot advances between two looks at the width.
  static constexpr uint64_t kAdaptPeriod = 4096;

  struct Node {
    Event e;
    uint32_t next;  // the next node of the slot's list, or kNil
  };

  uint64_t slot_of(int64_t time) const { return static_cast<uint64_t>(time) >> shift_; }

  // Apart from the hot path: only while the pool grows to the most events
  // ever pending.
  [[gnu::noinline]] uint32_t new_node() {
    if (nodes_.size() >= kNil) throw std::length_error("more than 2^32 events pending at once");
    nodes_.emplace_back();
    return static_cast<uint32_t>(nodes_.size() - 1);
  }

  // Before the current slot, or beyond the window.
  [[gnu::noinline]] void push_outside(const Event& e, uint64_t b) {
    if (b < base_) {
      past_.push(e);
    } else {
      ++far_pushes_;
      push_far(e);
    }
  }

  void push_far(const Event& e) {
    far_min_time_ = far_.empty() ? e.time : std::min(far_min_time_, e.time);
    far_.push(e);
  }

  // Inline: out of line, its call saved and restored registers for ~18 of
  // its ~70 instructions per push (the ring under network noise).
  [[gnu::always_inline]] void link_tracked(const Event& e, uint64_t b) {
    link(e, b);
    run_ = b == last_linked_ ? run_ + 1 : 1;
    last_linked_ = b;
    if (run_ == kHotRun) make_hot(b);
  }

  [[gnu::always_inline]] void link(const Event& e, uint64_t b) {
    uint32_t n = free_;
    if (n != kNil)
      free_ = nodes_[n].next;
    else
      n = new_node();
    const size_t s = b & (kSlots - 1);
    nodes_[n] = {e, heads_[s]};
    heads_[s] = n;
    bits_[s / 64] |= uint64_t{1} << (s % 64);
    summary_[s / 4096] |= uint64_t{1} << (s / 64 % 64);
    ++in_slots_;
  }

  // Moves slot s's events to the back of `out`, in the order they were
  // pushed (a list is built newest first).
  void unlink_slot(size_t s, std::vector<Event>& out) {
    const size_t first = out.size();
    for (uint32_t n = heads_[s]; n != kNil;) {
      Node& node = nodes_[n];
      out.push_back(node.e);
      const uint32_t next = node.next;
      node.next = free_;
      free_ = n;
      n = next;
      --in_slots_;
    }
    std::reverse(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
    mark_empty(s);
  }

  // Pushes went to slot b kHotRun times in a row: more of them will follow
  // (without network noise a whole step of a collective shares one time),
  // and they are kept in a vector. Draining a list of thousands is a chain of
  // dependent loads (the 1024-rank ring without noise ran 8 % slower so).
  void make_hot(uint64_t b) {
    flush_hot();
    hot_slot_ = b;
  }

  // The hot slot's vector joins its list.
  void flush_hot() {
    if (hot_slot_ == kNoSlot) return;
    in_slots_ -= hot_.size();
    for (const Event& e : hot_) link(e, hot_slot_);
    hot_.clear();
    hot_slot_ = kNoSlot;
  }

  // Moves slot s's events to the back of `out`, in the order they were
  // pushed, and empties it.
  void take_slot(size_t s, std::vector<Event>& out) {
    const bool hot = hot_slot_ != kNoSlot && (hot_slot_ & (kSlots - 1)) == s;
    unlink_slot(s, out);
    if (!hot) return;
    out.insert(out.end(), hot_.begin(), hot_.end());
    in_slots_ -= hot_.size();
    hot_.clear();
    hot_slot_ = kNoSlot;
  }

  // An event for the slot being served: into now_'s unserved part, in order.
  // Fresh events carry the largest stamp and mostly the latest time, so
  // they append.
  void insert_now(const Event& e) {
    if (head_ == now_.size() || event_before(now_.back(), e)) {
      now_.push_back(e);
      return;
    }
    const auto pos = std::upper_bound(now_.begin() + static_cast<std::ptrdiff_t>(head_), now_.end(),
                                      e, EventBefore{});
    now_.insert(pos, e);
  }

  // The first non-empty slot at or after slot index s, cyclically; one must
  // exist.
  size_t next_nonempty(size_t s) const {
    const size_t w = s / 64;
    const uint64_t here = bits_[w] & (~uint64_t{0} << (s % 64));
    if (here) return w * 64 + static_cast<size_t>(std::countr_zero(here));
    // The summary from word w + 1 on, then from the start: the window wraps
    // (back to word w itself, whose set bits all lie before s).
    const size_t from = w + 1;
    for (size_t k = 0; k <= kSummaryWords; ++k) {
      size_t i = from / 64 + k;
      uint64_t m;
      if (i < kSummaryWords) {
        m = summary_[i] & (k == 0 ? ~uint64_t{0} << (from % 64) : ~uint64_t{0});
      } else {
        i -= kSummaryWords;
        m = summary_[i];
      }
      if (m) {
        const size_t word = i * 64 + static_cast<size_t>(std::countr_zero(m));
        return word * 64 + static_cast<size_t>(std::countr_zero(bits_[word]));
      }
    }
    return kSlots;  // unreachable while a slot is non-empty
  }

  // now_ is used up: the next non-empty slot (or, with every slot empty,
  // the far heap's earliest event's slot) becomes the current one, and its
  // first event is returned. A slot holding one event, as under noise
  // nearly all do, hands it over directly; others are sorted into now_. A
  // change of width places the events again from the last popped time's
  // slot, which may then hold none: hence the loop. (All of them are later
  // than that time, so none lands in the past heap, which pop() has found
  // empty.)
  Event advance() {
    for (;;) {
      now_.clear();
      head_ = 0;
      if (in_slots_ == 0) {
        base_ = slot_of(far_min_time_);
        pull_far();
      } else {
        const size_t cur = base_ & (kSlots - 1);
        const size_t next = next_nonempty((cur + 1) & (kSlots - 1));
        base_ += (next - cur) & (kSlots - 1);
        pull_far();
        const uint32_t n = heads_[next];
        if (now_.empty() && nodes_[n].next == kNil && hot_slot_ != base_) {
          const Event e = nodes_[n].e;
          release_lone_node(next, n);
          last_time_ = e.time;
          if (++advances_ == kAdaptPeriod) adapt();
          return e;
        }
        take_slot(next, now_);
      }
      if (now_.size() > 1) sorter_.sort(now_);
      for (size_t i = 1; i < now_.size(); ++i) distinct_ += now_[i].time != now_[i - 1].time;
      if (++advances_ == kAdaptPeriod) adapt();
      if (!now_.empty()) {
        last_time_ = now_[head_].time;
        return now_[head_++];
      }
    }
  }

  // Slot s holds node n alone: it is emptied.
  void release_lone_node(size_t s, uint32_t n) {
    nodes_[n].next = free_;
    free_ = n;
    --in_slots_;
    mark_empty(s);
  }

  // The summary's bit is cleared without a branch: whether a slot was the
  // last of its word is a coin toss under noise (the 1,024-rank ring: 0.6
  // million mispredictions in 2 million advances, valgrind's model).
  void mark_empty(size_t s) {
    heads_[s] = kNil;
    const uint64_t word = bits_[s / 64] & ~(uint64_t{1} << (s % 64));
    bits_[s / 64] = word;
    summary_[s / 4096] &= ~(uint64_t{word == 0} << (s / 64 % 64));
  }

  // Far events the window now reaches move into their slots. Inline for
  // the check alone: nearly every advance finds the far heap empty (the
  // 1,024-rank ring under network noise: 75,718 far events in 2.08 million
  // advances), and the call cost ~28 instructions each.
  [[gnu::always_inline]] void pull_far() {
    if (!far_.empty()) [[unlikely]]
      pull_far_events();
  }

  [[gnu::noinline]] void pull_far_events() {
    while (!far_.empty() && slot_of(far_min_time_) - base_ < kSlots) {
      const Event e = far_.pop();
      far_min_time_ = far_.empty() ? 0 : far_.top().time;
      const uint64_t b = slot_of(e.time);
      if (b == base_)
        now_.push_back(e);
      else
        link(e, b);
    }
  }

  // Slots that come up holding several events on average are too wide:
  // sorting them and inserting into them costs more than skipping empty
  // slots in the bitmap. A window too short sends pushes to the far heap.
  // (Events sharing one time, as without network noise, fill a slot at any
  // width; a full slot of them needs no sorting, so only time spread
  // counts.)
  void adapt() {
    const uint64_t far_share_x16 = pushes_ ? far_pushes_ * 16 / pushes_ : 0;
    unsigned shift = shift_;
    if (far_share_x16 >= 1 && shift_ < kMaxShift) {
      shift = shift_ + 1;
      // Narrower than this pushed too much out of the window: staying above
      // it keeps the width from swinging (each change places every event
      // again).
      min_shift_ = shift;
    } else if (distinct_ > advances_ && shift_ > min_shift_) {
      shift = shift_ - 1;
    }
    reset_counters();
    if (shift != shift_) rewidth(shift);
  }

  void reset_counters() { advances_ = distinct_ = pushes_ = far_pushes_ = 0; }

  // Places every pending event (but the past heap's) again under a new
  // slot width, the current slot being the last popped event's.
  void rewidth(unsigned shift) {
    moving_.assign(now_.begin() + static_cast<std::ptrdiff_t>(head_), now_.end());
    for (size_t w = 0; w < kWords; ++w)
      while (bits_[w]) take_slot(w * 64 + static_cast<size_t>(std::countr_zero(bits_[w])), moving_);
    last_linked_ = kNoSlot;
    now_.clear();
    head_ = 0;
    shift_ = shift;
    base_ = slot_of(last_time_);
    for (const Event& e : moving_) {
      const uint64_t b = slot_of(e.time);
      if (b == base_) {
        now_.push_back(e);
      } else if (b < base_) {
        past_.push(e);
      } else if (b - base_ < kSlots) {
        link(e, b);
      } else {
        push_far(e);
      }
    }
    pull_far();
    sorter_.sort(now_);
  }

  static constexpr unsigned kMaxShift = 62 - kSlotBits;

  std::vector<uint32_t> heads_;                    // per slot: its newest node, or kNil
  std::array<uint64_t, kWords> bits_{};            // non-empty slots
  std::array<uint64_t, kSummaryWords> summary_{};  // non-zero words of bits_
  std::vector<Node> nodes_;
  uint32_t free_ = kNil;         // free nodes, most recently freed first (still in cache)
  unsigned shift_ = 10;          // slot width 2^shift_ ps
  unsigned min_shift_ = 0;       // the narrowest width allowed from now on
  uint64_t base_ = 0;            // the slot being served, as time >> shift_
  uint64_t hot_slot_ = kNoSlot;  // the slot whose newer events are in hot_
  std::vector<Event> hot_;
  uint64_t last_linked_ = kNoSlot;  // the slot of the last event linked
  uint32_t run_ = 0;                // events linked there in a row
  std::vector<Event> now_;          // its events in pop order
  size_t head_ = 0;                 // next event of now_
  EventHeap past_;                  // events before the current slot
  RadixHeap far_;                   // events beyond the window
  int64_t far_min_time_ = 0;        // the earliest of them, while there are any
  int64_t last_time_ = 0;           // of the last event popped from now_
  size_t size_ = 0, in_slots_ = 0;
  EventSorter sorter_;
  std::vector<Event> moving_;  // rewidth's scratch
  // Since the last look at the width.
  uint64_t advances_ = 0;
  uint64_t distinct_ = 0;  // times in a slot that differ from the one before
  uint64_t pushes_ = 0, far_pushes_ = 0;
};

}  // namespace cloudnoise
