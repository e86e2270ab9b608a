// LogGOPSim's order of insertion stamps, recovered from stamps given host
// by host in time windows (windowed_events.hpp).
//
// LogGOPSim stamps every event it queues from one global counter, in the
// order it processes events; equal times pop in stamp order. Processing a
// window host by host gives stamps in another order (provisional stamps).
// Each window still gives the same range of stamps as the reference does,
// because both process the same events in it; only the order inside the
// range differs. So two stamps given in different windows, or before the
// first window, compare as the reference's do, and so do two given by one
// host (each host's own order is the reference's).
//
// Two stamps x and y given in one window by different hosts: the reference
// gave first the one whose pusher (the event being processed when it was
// queued) it processed first. Pushers pop in (time, stamp) order, so the
// answer is the pushers' times when they differ, and otherwise the same
// question one level up, about the pushers' own stamps. Each step goes to
// strictly smaller stamps, so it ends: at two stamps from different
// windows, at one pusher that gave both (then in push order), or at
// pushers at different times. Without latency noise whole waves of hosts
// run in lockstep and these chains can be a dozen levels deep.
//
// Every stamp's pusher (its time offset in its window and its stamp) is
// kept in a ring of the most recent stamps: 2^20 by default (8 MB; the
// 16K-rank dissemination under dense OS noise gives 688,128 stamps, and
// with 2^18 one repetition in ten needed one already overwritten: a
// message held back through a long detour keeps its old stamp). Events
// carry no pusher of their own (they stay 24 bytes): a tie is settled from
// the records of the two events' stamps up. A chain that reaches further
// back cannot be followed; the comparison is then
// reported as unsettled (ambiguous), and the engine runs the repetition
// again through the global queue.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

namespace cloudnoise {

class StampOrder {
 public:
  static constexpr uint32_t kDefaultRecordBits = 20;
  // Set in a record's pusher_off (window offsets are below 2^31) for a
  // stamp given at a sender as part of its pusher's rendezvous completion
  // (windowed_events.hpp): the pusher itself was processed at the receiver.
  static constexpr uint32_t kCompletionPart = 0x80000000u;

  explicit StampOrder(uint32_t record_bits = kDefaultRecordBits)
      : mask_((uint32_t{1} << record_bits) - 1),
        records_(std::make_unique_for_overwrite<Record[]>(size_t{mask_} + 1)) {}

  void reset() {
    window_stamps_.clear();
    block_window_.clear();
    newest_ = 0;
    ambiguous_ = false;
  }

  // A window starts; `stamp` is the first stamp it will give.
  void start_window(uint32_t stamp) {
    // Blocks starting before `stamp` and not yet indexed lie in the window
    // that just ended (or before the first): they start at or after its
    // first stamp.
    const auto windows = static_cast<uint32_t>(window_stamps_.size());
    while ((uint64_t{block_window_.size()} << kBlockShift) < stamp) block_window_.push_back(windows);
    window_stamps_.push_back(stamp);
  }

  // Stamp `ts` was given to an event queued by the event of stamp
  // `pusher_ts`, processed at `pusher_off` into the current window. Stamps
  // are given in increasing order.
  [[gnu::always_inline]] void record(uint32_t ts, uint32_t pusher_off, uint32_t pusher_ts) {
    Record& r = records_[ts & mask_];
    r.pusher_off = pusher_off;
    r.pusher_ts = pusher_ts;
    newest_ = ts;
  }

  // The window in which stamp `ts` was given: 1 for the first, 0 before it.
  size_t window_of(uint32_t ts) const {
    const size_t n = window_stamps_.size();
    if (n == 0 || ts >= window_stamps_.back()) return n;
    // The block's first stamp lies in block_window_'s window; windows hold
    // thousands of stamps and blocks 256, so this is mostly no step or one.
    size_t w = block_window_[ts >> kBlockShift];
    while (w < n && window_stamps_[w] <= ts) ++w;
    return w;
  }

  // Whether stamp x, given by a host other than y's to an event at the
  // same time as y's, came before y in the reference.
  [[gnu::noinline]] bool before(uint32_t x, uint32_t y) {
    for (;;) {
      // x and y are distinct events processed at one time in one window.
      const size_t w = window_of(x);
      if (w != window_of(y) || w == 0) return x < y;
      if (!recorded(x) || !recorded(y)) {
        ambiguous_ = true;
        return x < y;
      }
      const Record rx = records_[x & mask_], ry = records_[y & mask_];
      if (rx.pusher_ts == ry.pusher_ts) {
        // One pusher gave both, in this order; unless one was given at a
        // sender its rendezvous completion (the reference gave both hosts'
        // ops in ascending host order, which the records do not hold).
        if ((rx.pusher_off ^ ry.pusher_off) & kCompletionPart) ambiguous_ = true;
        return x < y;
      }
      const uint32_t off_x = rx.pusher_off & ~kCompletionPart, off_y = ry.pusher_off & ~kCompletionPart;
      if (off_x != off_y) return off_x < off_y;
      x = rx.pusher_ts;
      y = ry.pusher_ts;
    }
  }

  // Two stamps' order could not be followed back (see the top).
  bool ambiguous() const { return ambiguous_; }
  // The windows found an order they cannot settle (windowed_events.hpp).
  void set_ambiguous() { ambiguous_ = true; }

 private:
  static constexpr uint32_t kBlockShift = 8;

  struct Record {
    uint32_t pusher_off, pusher_ts;
  };

  bool recorded(uint32_t ts) const { return newest_ - ts <= mask_; }

  uint32_t mask_;  // records_ holds the newest mask_ + 1 stamps' pushers
  std::unique_ptr<Record[]> records_;
  uint32_t newest_ = 0;
  std::vector<uint32_t> window_stamps_;  // the first stamp given in each window so far
  std::vector<uint32_t> block_window_;   // per 2^kBlockShift stamps: window_of its first
  bool ambiguous_ = false;
};

}  // namespace cloudnoise
