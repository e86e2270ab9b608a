// Pending events for processing a run host after host, in time windows,
// with LogGOPSim's results.
//
// LogGOPSim processes all events in one global (time, stamp) order. Under
// network noise every event time is distinct, so that order visits the
// hosts at random: each event finds its host's state, posted receives and
// OS-noise cursor cold, and every event takes a trip through a priority
// queue.
//
// A message sent at time t reaches its receiver no earlier than
// t + o + L + (least latency excess) + (least latency level, when
// negative; the latency clamped at -o): the lookahead. Cut time into windows
// no longer than that, and nothing processed in a window creates an event
// for another host in the same window but one: a rendezvous completion. So a
// window's events can be taken host by host, each host's in the global
// order restricted to it, and every host sees exactly the events, in the
// order, that LogGOPSim's single queue gives it. An op released for the
// current host inside the window is served from a short local list without
// touching the window store.
//
// Rendezvous. A receiver's match at time t completes its sender's send at
// once: the sender's CPU and NIC are held to t, and the send's successors
// are released, with stamps given by the matching event. No lookahead
// covers that, so the completion becomes an event of its own for the
// sender (kEvRendezvousDone) at t, ordered as the matching event (its
// stamp and owner). A sender not yet visited in the window finds it among
// its events; a sender visited already is visited again after the
// window's hosts, which is exact when everything it processed in the window
// came before the completion. Otherwise, or when two stamps the matching
// event gave at both hosts must be ordered (the reference gave them in
// ascending host order, which no record holds), the window is ambiguous and
// the repetition runs again in the global order.
//
// Stamps. LogGOPSim breaks ties between equal times by insertion stamp, a
// global counter. Here stamps are given in host-major order instead
// (provisional stamps); StampOrder (stamp_order.hpp) recovers the
// reference's order of two of them by following their pushers back. A
// chain it cannot follow (its records were overwritten) flags the run as
// ambiguous, and the engine runs it again in the global order; that is
// rare.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "event.hpp"
#include "stamp_order.hpp"

namespace cloudnoise {

struct WindowedEvent {
  uint32_t time_off;    // its time, from the start of its window (ps)
  uint32_t ts;          // provisional stamp
  uint32_t op;          // global op index (for a message: its send op)
  uint32_t host_kind;   // Event::pack(pusher, kind): the pusher is the owner (a message's sender)
  uint32_t host;        // where it is processed (a message's receiver)
  uint32_t carried;     // a message's G in fs per byte as its sender drew it; 0: draw again
};
// Windows are written once and read once: every byte is traffic.
static_assert(sizeof(WindowedEvent) == 24);

// A growable array of events whose append is inline: a capacity check and
// field stores. (std::vector's emplace_back of eight fields came out of
// line, passing every field by reference: about 45 instructions an event.)
class EventRun {
 public:
  EventRun() = default;
  EventRun(EventRun&& other) noexcept { swap(other); }
  EventRun& operator=(EventRun&& other) noexcept {
    EventRun taken(std::move(other));
    swap(taken);
    return *this;
  }

  bool full() const { return size_ == capacity_; }
  // Appends to a run that is not full.
  [[gnu::always_inline]] void append_unchecked(uint32_t time_off, uint32_t ts, uint32_t op,
                                               uint32_t host_kind, uint32_t host,
                                               uint32_t carried) {
    WindowedEvent& e = data_[size_++];
    e.time_off = time_off;
    e.ts = ts;
    e.op = op;
    e.host_kind = host_kind;
    e.host = host;
    e.carried = carried;
  }
  void append(const WindowedEvent& e) {
    if (size_ == capacity_) grow();
    data_[size_++] = e;
  }
  void append(uint32_t time_off, uint32_t ts, uint32_t op, uint32_t host_kind, uint32_t host,
              uint32_t carried) {
    if (size_ == capacity_) [[unlikely]]
      grow();
    append_unchecked(time_off, ts, op, host_kind, host, carried);
  }
  // Inserts before position i.
  void insert(size_t i, const WindowedEvent& e) {
    append(e);
    std::copy_backward(begin() + i, end() - 1, end());
    data_[i] = e;
  }
  void pop_back() { --size_; }
  void clear() { size_ = 0; }
  // Length n, every event left unset: a buffer about to be overwritten
  // whole (the grouping's target) is not copied when it grows.
  void resize_unset(size_t n) {
    if (capacity_ < n) {
      size_t capacity = capacity_ ? capacity_ : 64;
      while (capacity < n) capacity *= 2;
      data_ = std::make_unique_for_overwrite<WindowedEvent[]>(capacity);
      capacity_ = capacity;
    }
    size_ = n;
  }
  void swap(EventRun& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(capacity_, other.capacity_);
  }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  bool empty() const { return size_ == 0; }
  WindowedEvent& operator[](size_t i) { return data_[i]; }
  const WindowedEvent& operator[](size_t i) const { return data_[i]; }
  WindowedEvent& back() { return data_[size_ - 1]; }
  WindowedEvent* begin() { return data_.get(); }
  WindowedEvent* end() { return data_.get() + size_; }
  const WindowedEvent* begin() const { return data_.get(); }
  const WindowedEvent* end() const { return data_.get() + size_; }

  [[gnu::noinline]] void grow() {
    const size_t capacity = capacity_ ? 2 * capacity_ : 64;
    auto data = std::make_unique_for_overwrite<WindowedEvent[]>(capacity);
    std::copy(begin(), end(), data.get());
    data_ = std::move(data);
    capacity_ = capacity;
  }

 private:
  std::unique_ptr<WindowedEvent[]> data_;
  size_t size_ = 0, capacity_ = 0;
};

class WindowedEvents {
 public:
  static constexpr uint32_t kNoHost = 0xFFFFFFFFu;

  // Remembers the pushers of the newest 2^record_bits stamps (StampOrder).
  explicit WindowedEvents(uint32_t record_bits = StampOrder::kDefaultRecordBits)
      : order_(record_bits) {}

  // Drops every event; windows are `width` ps wide (at most the lookahead,
  // and at most 2^31 ps: offsets in a window are 32-bit). With
  // `rendezvous`, hosts' visits are tracked for completions (see the top).
  void reset(uint32_t hosts, int64_t width, bool rendezvous = false) {
    hosts_ = hosts;
    width_ = width;
    track_visits_ = rendezvous;
    if (rendezvous) {
      visited_.assign(hosts, kNone);
      last_off_.resize(hosts);
      injected_count_.assign(hosts, 0);
      outstanding_.resize(size_t{hosts} * kOutstanding);
      outstanding_count_.assign(hosts, 0);
      deferred_index_.assign(hosts, kNoHost);
    }
    injected_.clear();
    deferred_.clear();
    for (EventRun& run : ring_)
      if (run.capacity() != 0) {
        run.clear();
        spare_.push_back(std::move(run));
      }
    ring_count_ = 0;
    far_.clear();
    far_min_ = kNone;
    local_.clear();
    work_.clear();
    window_ = first_free_ = 0;
    window_start_ = window_end_ = 0;
    next_ = group_end_ = 0;
    host_ = kNoHost;
    current_ts_ = kNoStamp;
    current_off_ = 0;
    order_.reset();
  }

  // The window holding `time` (>= 0). Windows are as wide as the lookahead,
  // not the power of two below it (up to 2x wider: fewer, fuller windows,
  // ~7% less time on bench_noise's case), so finding one takes a division;
  // but an event lands in the current window or, being a message, mostly in
  // the next two: those take a compare.
  [[gnu::always_inline]] uint64_t window_of(int64_t time) const {
    if (window_end_ != 0) {  // a window is current
      if (time >= window_end_) {
        const int64_t ahead = time - window_end_;
        if (ahead < width_) return window_ + 1;
        if (ahead < 2 * width_) return window_ + 2;
      } else if (time >= window_start_) {
        return window_;
      }
    }
    return static_cast<uint64_t>(time) / static_cast<uint64_t>(width_);
  }

  // An event created while the current event is processed (or before the
  // first window). An event keeping the current event's stamp is that event
  // re-queued: it keeps its pusher too.
  [[gnu::always_inline]] void push(int64_t time, uint32_t ts, uint32_t op, uint32_t host_kind,
                                   uint32_t host, uint32_t carried) {
    const bool requeued = ts == current_ts_;
    const uint64_t w = window_of(time);
    const auto off = static_cast<uint32_t>(time - static_cast<int64_t>(w) * width_);
    // A re-queued event keeps its stamp, and so its pusher's record.
    if (!requeued) order_.record(ts, current_off_, current_ts_);
    // Built in place, field by field: an event built on the stack and
    // copied whole right away stalls on store forwarding.
    if (host == host_ && time < window_end_) {
      // Mostly the op the current event released, with nothing else queued.
      if (local_.empty())
        local_.append(off, ts, op, host_kind, host, carried);
      else
        push_local({off, ts, op, host_kind, host, carried});
      return;
    }
    if (w - first_free_ < kRing) [[likely]] {
      EventRun& run = ring_[w & (kRing - 1)];
      if (run.full()) [[unlikely]]
        make_room(run);
      run.append_unchecked(off, ts, op, host_kind, host, carried);
      ++ring_count_;
    } else {
      push_outside({off, ts, op, host_kind, host, carried}, w);
    }
  }

  // push() of an event for the current host, unless pop() would return it
  // next: then it is not stored, becomes the current event as pop() would
  // make it, and true is returned. That is the common case of a
  // collective's step (a message matched, the next send released at once):
  // the event skips the local list's store and load, and a load of the
  // whole event right after its fields were stored one by one, which
  // stalls on store forwarding.
  [[gnu::always_inline]] bool push_or_take(int64_t time, uint32_t ts, uint32_t op, uint32_t host_kind,
                                           uint32_t host) {
    // A new stamp, given by the current event (as push() records it).
    order_.record(ts, current_off_, current_ts_);
    const int64_t off = time - window_start_;
    if (host == host_ && local_.empty() && off >= 0 && off < width_) {
      const WindowedEvent taken{static_cast<uint32_t>(off), ts, op, host_kind, host, 0};
      if (next_ >= group_end_ || !before(work_[next_], taken)) {
        current_ts_ = ts;
        current_off_ = taken.time_off;
        return true;
      }
    }
    push(time, ts, op, host_kind, host, 0);  // records the stamp again, alike
    return false;
  }

  // Moves to the next window holding events, `stamp` being the first stamp
  // its processing will give; false when no event is left.
  bool next_window(uint32_t stamp) {
    if (host_ != kNoHost || (track_visits_ ? scan_ != 0 || !deferred_.empty() : next_ < work_.size()) ||
        !local_.empty() || !injected_.empty())
      throw std::logic_error("windowed events: a window was left unfinished");
    if (ring_count_ == 0) {
      if (far_.empty()) return false;
      first_free_ = far_min_;
    }
    if (!far_.empty() && far_min_ - first_free_ < kRing) pull_far();
    window_ = first_free_;
    while (ring_[window_ & (kRing - 1)].empty()) ++window_;
    first_free_ = window_ + 1;
    // The consumed window's buffer is kept for a window yet to fill: a
    // window's slot holds a buffer only while it has events, so memory
    // follows the events pending, not the ring's length.
    work_.clear();
    if (work_.capacity() != 0) spare_.push_back(std::move(work_));
    work_ = std::move(ring_[window_ & (kRing - 1)]);
    ring_count_ -= work_.size();
    window_start_ = static_cast<int64_t>(window_) * width_;
    window_end_ = window_start_ + width_;
    order_.start_window(stamp);
    group_by_host();
    next_ = group_end_ = 0;
    scan_ = work_.size();
    return true;
  }

  // Moves to the window's next host with events; false at the window's end.
  // After the window's own hosts come the senders with completions left.
  // Without rendezvous (reset's `rendezvous` false); with, next_host_tracked.
  bool next_host() {
    host_ = kNoHost;
    current_ts_ = kNoStamp;
    if (group_end_ >= work_.size()) return false;
    next_ = group_end_;
    host_ = work_[next_].host;
    group_end_ = next_ + 1;
    while (group_end_ < work_.size() && work_[group_end_].host == host_) ++group_end_;
    return true;
  }

  // next_host with rendezvous: the window's hosts in descending order, but
  // a sender waiting on a receiver (waits_on) after it; then the senders
  // with completions left (see the top).
  [[gnu::noinline]] bool next_host_tracked() {
    if (host_ != kNoHost) {
      visited_[host_] = window_;
      last_off_[host_] = current_off_ & ~StampOrder::kCompletionPart;
    }
    host_ = kNoHost;
    current_ts_ = kNoStamp;
    // Descending: a sender mostly sends to higher ranks (rings,
    // dissemination, trees), so its receivers come first.
    while (scan_ != 0) {
      const size_t end = scan_;
      const uint32_t host = work_[end - 1].host;
      size_t begin = end - 1;
      while (begin > 0 && work_[begin - 1].host == host) --begin;
      scan_ = begin;
      if (waits_on(host) != kNoHost) {
        deferred_index_[host] = static_cast<uint32_t>(deferred_.size());
        deferred_.push_back({host, begin, end});
        continue;
      }
      return visit(host, begin, end);
    }
    // Then the deferred hosts and the hosts with completions only, each
    // after the hosts it waits on that still have events to process (a
    // cycle is cut anywhere: the completions' check catches what that gets
    // wrong).
    size_t candidate = kNone;
    bool from_deferred = false;
    for (size_t i = deferred_.size(); i-- > 0;) {
      const uint32_t host = deferred_[i].host;
      if (host == kNoHost) continue;
      if (candidate == kNone) candidate = i, from_deferred = true;
      if (!waits_on_pending(host)) {
        candidate = i;
        from_deferred = true;
        goto chosen;
      }
    }
    for (size_t i = injected_.size(); i-- > 0;) {
      const uint32_t host = injected_[i].host;
      if (deferred_index_[host] != kNoHost) continue;  // visited with its events
      if (candidate == kNone) candidate = i, from_deferred = false;
      if (!waits_on_pending(host)) {
        candidate = i;
        from_deferred = false;
        goto chosen;
      }
    }
    if (candidate == kNone) {
      deferred_.clear();
      return false;
    }
  chosen:
    if (from_deferred) {
      Deferred& d = deferred_[candidate];
      const Deferred taken = d;
      d.host = kNoHost;
      deferred_index_[taken.host] = kNoHost;
      return visit(taken.host, taken.begin, taken.end);
    }
    return visit(injected_[candidate].host, work_.size(), work_.size());
  }

  // A rendezvous message of `sender` reaches `receiver` at `arrival`: until
  // it is matched, the receiver may complete its send at any time from then
  // on. Kept per receiver: how many are unmatched, the earliest arrival
  // among them (earliest since the count was last 0: an earlier bound only
  // defers the sender more often).
  void rendezvous_sent(uint32_t sender, uint32_t receiver, int64_t arrival) {
    uint8_t& n = outstanding_count_[sender];
    if (n == kUntracked) return;
    Outstanding* o = &outstanding_[size_t{sender} * kOutstanding];
    for (uint8_t k = 0; k < n; ++k)
      if (o[k].receiver == receiver) {
        ++o[k].count;
        o[k].arrival = std::min(o[k].arrival, arrival);
        return;
      }
    if (n == kOutstanding) {  // more receivers than are tracked: the sender waits for no one
      n = kUntracked;
      return;
    }
    o[n++] = {receiver, 1, arrival};
  }

  // One of them was matched at `receiver` (its completion placed or done).
  void rendezvous_matched(uint32_t sender, uint32_t receiver) {
    uint8_t& n = outstanding_count_[sender];
    if (n == kUntracked) return;
    Outstanding* o = &outstanding_[size_t{sender} * kOutstanding];
    for (uint8_t k = 0; k < n; ++k)
      if (o[k].receiver == receiver) {
        if (--o[k].count == 0) o[k] = o[--n];
        return;
      }
  }

  // The event being processed (at time t, at the current host; its owner
  // `owner`) matched a rendezvous message of `sender`: its send op
  // `send_op` completes at t, through the NIC `nic` (see the top). A sender
  // visited already must have processed nothing at t or later (a tie at t
  // is not settled here: rare, and the repetition runs again).
  void complete_rendezvous(uint32_t sender, uint32_t send_op, uint32_t nic, uint32_t owner) {
    const WindowedEvent done{current_off_ & ~StampOrder::kCompletionPart, current_ts_, send_op,
                             Event::pack(owner, kEvRendezvousDone), sender, nic};
    if (host_ == kNoHost || sender == host_ ||
        (visited_[sender] == window_ && last_off_[sender] >= done.time_off)) {
      order_.set_ambiguous();
      return;
    }
    injected_.push_back(done);
    ++injected_count_[sender];
  }

  // The current event is a rendezvous completion: the stamps it gives are
  // the sender's part of its pusher's (StampOrder::kCompletionPart).
  void mark_completion_part() { current_off_ |= StampOrder::kCompletionPart; }

  // The current host's next event in LogGOPSim's order, and its time; false
  // when it has none left in this window. Pushes from here on are its
  // children.
  [[gnu::always_inline]] bool pop(WindowedEvent& e, int64_t& time) {
    const bool from_window = next_ < group_end_;
    if (local_.empty()) {
      if (!from_window) return false;
      e = work_[next_++];
    } else if (from_window && before(work_[next_], local_.back())) {
      e = work_[next_++];
    } else {
      e = local_.back();
      local_.pop_back();
    }
    time = window_start_ + e.time_off;
    current_ts_ = e.ts;
    current_off_ = e.time_off;
    return true;
  }

  // Two events of one host at one time whose order could not be settled
  // (see the top): the run must be processed again in the global order.
  bool ambiguous() const { return order_.ambiguous(); }

 private:
  static constexpr uint64_t kRing = 4096;  // windows held in order; later ones wait in far_
  static constexpr uint64_t kNone = ~uint64_t{0};
  static constexpr uint32_t kNoStamp = 0xFFFFFFFFu;

  struct FarEvent {
    uint64_t window;
    WindowedEvent e;
  };

  // Pop order of two events of one host in one window.
  bool before(const WindowedEvent& a, const WindowedEvent& b) {
    return a.time_off < b.time_off || (a.time_off == b.time_off && stamp_before(a, b));
  }

  // Equal times: which of the two LogGOPSim's stamps put first.
  bool stamp_before(const WindowedEvent& a, const WindowedEvent& b) {
    // Given by one host (re-queued events keep their pusher): its order is
    // the reference's.
    if (Event::host_of(a.host_kind) == Event::host_of(b.host_kind)) return a.ts < b.ts;
    // Otherwise by their pushers, as recorded when they were given.
    return order_.before(a.ts, b.ts);
  }

  struct Outstanding {
    uint32_t receiver, count;
    int64_t arrival;
  };
  static constexpr uint8_t kOutstanding = 4;  // tracked per host
  static constexpr uint8_t kUntracked = 0xFF;
  struct Deferred {
    uint32_t host;
    size_t begin, end;  // its events in work_
  };

  // A host the given host should be visited after in this window: the
  // receiver of one of its rendezvous messages, arrived by the window's
  // end and unmatched, that is not visited yet. kNoHost: none.
  uint32_t waits_on(uint32_t host) const {
    const uint8_t n = outstanding_count_[host];
    if (n == kUntracked) return kNoHost;
    const Outstanding* o = &outstanding_[size_t{host} * kOutstanding];
    for (size_t k = 0; k < n; ++k)
      if (o[k].arrival < window_end_ && visited_[o[k].receiver] != window_ && o[k].receiver != host)
        return o[k].receiver;
    return kNoHost;
  }

  // Whether the host waits on one (waits_on) with events left to process
  // in this window.
  bool waits_on_pending(uint32_t host) const {
    const uint8_t n = outstanding_count_[host];
    if (n == kUntracked) return false;
    const Outstanding* o = &outstanding_[size_t{host} * kOutstanding];
    for (size_t k = 0; k < n; ++k) {
      const uint32_t r = o[k].receiver;
      if (o[k].arrival < window_end_ && visited_[r] != window_ && r != host &&
          (deferred_index_[r] != kNoHost || injected_count_[r] != 0))
        return true;
    }
    return false;
  }

  bool visit(uint32_t host, size_t begin, size_t end) {
    host_ = host;
    next_ = begin;
    group_end_ = end;
    if (injected_count_[host] != 0) take_injected();
    return true;
  }

  // The current host's completions, into its local list.
  [[gnu::noinline]] void take_injected() {
    size_t keep = 0;
    for (const WindowedEvent& e : injected_) {
      if (e.host == host_)
        push_local(e);
      else
        injected_[keep++] = e;
    }
    injected_.resize(keep);
    injected_count_[host_] = 0;
  }

  [[gnu::noinline]] void push_local(const WindowedEvent& e) {
    // Descending, so the next event is at the back; mostly empty or one.
    size_t i = local_.size();
    while (i > 0 && before(local_[i - 1], e)) --i;
    local_.insert(i, e);
  }

  // A full run grows; an empty one without storage takes a spare buffer.
  [[gnu::noinline]] void make_room(EventRun& run) {
    if (run.capacity() == 0 && !spare_.empty()) {
      run = std::move(spare_.back());
      spare_.pop_back();
    } else {
      run.grow();
    }
  }

  [[gnu::noinline]] void push_outside(const WindowedEvent& e, uint64_t w) {
    if (w < first_free_)
      throw std::logic_error(
          "windowed events: an event for another host inside the current window");
    far_.push_back({w, e});
    far_min_ = std::min(far_min_, w);
  }

  void pull_far() {
    size_t keep = 0;
    far_min_ = kNone;
    for (const FarEvent& f : far_) {
      if (f.window - first_free_ < kRing) {
        EventRun& run = ring_[f.window & (kRing - 1)];
        if (run.full()) make_room(run);
        run.append(f.e);
        ++ring_count_;
      } else {
        far_[keep++] = f;
        far_min_ = std::min(far_min_, f.window);
      }
    }
    far_.resize(keep);
  }

  // The window's events, grouped by host in ascending order, each host's
  // in pop order.
  void group_by_host() {
    const size_t n = work_.size();
    if (n < 64) {
      std::sort(work_.begin(), work_.end(), [this](const WindowedEvent& a, const WindowedEvent& b) {
        return a.host < b.host || (a.host == b.host && before(a, b));
      });
      return;
    }
    // A counting sort on the host's high bits, about two events per
    // bucket (counting every host would cost a pass over all hosts per
    // window), then an insertion sort of each short bucket.
    uint32_t drop = 0;
    while ((uint64_t{hosts_} >> drop) > n / 2) ++drop;
    const size_t buckets = (size_t{hosts_} >> drop) + 1;
    count_.assign(buckets + 1, 0);
    for (const WindowedEvent& e : work_) ++count_[(e.host >> drop) + 1];
    for (size_t k = 0; k < buckets; ++k) count_[k + 1] += count_[k];
    sorted_.resize_unset(n);
    for (const WindowedEvent& e : work_) sorted_[count_[e.host >> drop]++] = e;
    work_.swap(sorted_);
    for (size_t i = 1; i < n; ++i) {
      const WindowedEvent& prev = work_[i - 1];
      if (work_[i].host > prev.host || (work_[i].host == prev.host && !before(work_[i], prev)))
        continue;
      const WindowedEvent e = work_[i];
      size_t j = i;
      for (; j > 0 && (e.host < work_[j - 1].host ||
                       (e.host == work_[j - 1].host && before(e, work_[j - 1])));
           --j)
        work_[j] = work_[j - 1];
      work_[j] = e;
    }
  }

  uint32_t hosts_ = 0;
  int64_t width_ = 1;
  std::vector<EventRun> ring_ = std::vector<EventRun>(kRing);
  std::vector<EventRun> spare_;  // emptied buffers, for windows that start to fill
  size_t ring_count_ = 0;
  std::vector<FarEvent> far_;  // beyond the ring, unordered
  uint64_t far_min_ = kNone;
  uint64_t window_ = 0;      // the current window
  uint64_t first_free_ = 0;  // the earliest window a push may go to; the ring holds kRing from it
  int64_t window_start_ = 0, window_end_ = 0;
  // The current window's events, grouped; the current host's are
  // [next_, group_end_).
  EventRun work_, sorted_;
  size_t next_ = 0, group_end_ = 0;
  std::vector<uint32_t> count_;
  uint32_t host_ = kNoHost;
  EventRun local_;  // the current host's events pushed in this window, descending
  // The event being processed: its stamp and offset in the window (with
  // StampOrder::kCompletionPart for a completion).
  uint32_t current_ts_ = kNoStamp, current_off_ = 0;
  // With rendezvous: per host, the window of its last visit and the offset
  // of the last event it processed there; completions waiting for their
  // senders.
  bool track_visits_ = false;
  std::vector<uint64_t> visited_;
  std::vector<uint32_t> last_off_;
  std::vector<WindowedEvent> injected_;
  std::vector<uint32_t> injected_count_;
  // Per host, its unmatched rendezvous messages by receiver (kOutstanding
  // receivers each) and how many receivers; the hosts deferred in this window (host kNoHost once visited).
  std::vector<Outstanding> outstanding_;
  std::vector<uint8_t> outstanding_count_;
  std::vector<Deferred> deferred_;
  std::vector<uint32_t> deferred_index_;
  size_t scan_ = 0;  // with rendezvous: where the last unvisited host's events end in work_
  StampOrder order_;
};

}  // namespace cloudnoise
