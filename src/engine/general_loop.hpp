// The general event loop (engine.cpp) and its steps as templates, included
// by the two units that compile it: engine.cpp, without the critical
// path's hooks, and general_loop_recorded.cpp, with them (kRecord). Two
// units, as the compiler's decisions are a unit's: the hooks compile to
// nothing, but compiled beside the loop with them, the loop without ran
// 0.027% more instructions on bench_instructions' case (register
// allocation and layout); apart, 0.014%.
//
// Included only by those two files.
#pragma once

#include "engine.hpp"
#include "engine_steps.hpp"

#include <algorithm>

namespace cloudnoise {

// One dependency of op `succ` (global) of `host` is met; it becomes ready
// when all are. Inline, as every finished op releases its successors.
[[gnu::always_inline]] inline void Engine::release(uint32_t host, uint32_t succ) {
  const uint32_t t = sched_.template_begin(host) + (succ - sched_.rank_begin(host));
  const uint32_t need = sched_.stored_op(t).num_deps;
  if (need > 1 && ++met_[multi_base_[host] + multi_slot_[t]] < need) return;
  pending_.push(host, succ);
}

// `op` (the stored op, as template_op gives it) of `host` finished.
[[gnu::always_inline]] inline void Engine::release_done(const Op& op, uint32_t host) {
  for (const uint32_t succ : sched_.done_successors(op, sched_.rank_begin(host))) release(host, succ);
}

[[gnu::always_inline]] inline void Engine::release_done(uint32_t op, uint32_t host) {
  release_done(sched_.template_op(host, op), host);
}

// A rendezvous send completes when its message is matched: the sender's
// CPU and NIC are held until then (LogGOPSim charges no ack latency).
// Inline: every rendezvous message ends here, and the two calls it took
// were ~40 of its ~80 instructions (the ring under network noise).
template <bool kRecord>
[[gnu::always_inline]] inline void Engine::complete_rendezvous(uint32_t send_op, uint32_t sender, uint8_t cpu,
                                                                uint8_t nic, int64_t t) {
  release_done(send_op, sender);
  hold_until<kRecord>(sender, cpu, nic, t);
}

// A match at `here` (by an event owned by `owner`: the receive, or the
// message's sender) completing `sender`'s rendezvous send: at once in the
// global order or at the sender itself; in windows, as an event of the
// sender (windowed_events.hpp).
template <bool kWindowed, bool kRecord>
[[gnu::always_inline]] inline void Engine::complete_rendezvous_at(uint32_t send_op, uint32_t sender, uint8_t cpu,
                                                                   uint8_t nic, int64_t t, uint32_t here,
                                                                   uint32_t owner) {
  if (kWindowed) windows_.rendezvous_matched(sender, here);
  if (kWindowed && sender != here) {
    if constexpr (kRecord) path_.matched(send_op);
    windows_.complete_rendezvous(sender, send_op, nic, owner);
  } else {
    complete_rendezvous<kRecord>(send_op, sender, cpu, nic, t);
  }
}

// Op i of `host` is now executable: counted and marked ready, and the
// event that runs it, at the time its CPU (and, for a send, its NIC) is
// next free, with the next stamp.
template <bool kRecord>
[[gnu::always_inline]] inline Engine::ReadyEvent Engine::make_ready(uint32_t host, uint32_t i) {
  ++ready_count_;
  mark_ready(i);
  const Op& op = sched_.template_op(host, i);
  const int64_t o_free = next_o(host, op.cpu);
  const int64_t t = op.kind == OpKind::Send ? std::max(o_free, next_gs(host, op.nic)) : o_free;
  path_ready<kRecord>(i, t, next_o(host, op.cpu), op.kind == OpKind::Send ? &next_gs(host, op.nic) : nullptr);
  return {t, stamp_++, Event::pack(host, static_cast<EventKind>(op.kind))};
}

// Queues op i of `host`, now executable.
template <bool kWindowed, bool kRecord>
[[gnu::always_inline]] inline void Engine::enqueue_op(uint32_t host, uint32_t i) {
  const ReadyEvent r = make_ready<kRecord>(host, i);
  // In the global queue a send mostly waits for its NIC: its draws (keyed
  // by the op, as in process_event) read sample sets too large for the
  // cache, so their loads start now. (In windows it is mostly taken at once.)
  if (!kWindowed && switch_ && Event::kind_of(r.host_kind) == kEvSend) [[unlikely]] {
    const Op& op = sched_.template_op(host, i);
    switch_->prefetch(switch_->is_far(host, peer_of(host, op)), latency_rng_.bits(i), bandwidth_rng_.bits(i));
  }
  push_event<kWindowed>(r.time, r.ts, i, r.host_kind, host, 0);
}

template <bool kRecord>
void Engine::enqueue_host_ops(uint32_t host, std::vector<uint32_t>& ops) {
  order_ready(host, ops);
  for (const uint32_t i : ops) {
    if (windowed_)
      enqueue_op<true, kRecord>(host, i);
    else
      enqueue_op<false, kRecord>(host, i);
  }
}

// Inline, as it follows every event: most release nothing or one op (a
// collective's next step), with nothing to order.
template <bool kWindowed, bool kRecord>
[[gnu::always_inline]] inline void Engine::enqueue_ready() {
  if (pending_.empty()) return;
  if (pending_.size() == 1) {
    enqueue_op<kWindowed, kRecord>(pending_.front().host, pending_.front().op);
    pending_.clear();
    return;
  }
  enqueue_several<kRecord>();
}

// enqueue_ready in windows: a single op released for the current host that
// the windows would hand back next is not queued at all; it becomes the
// event (time, ts, op, host_kind) to process at once, and true is returned.
template <bool kRecord>
[[gnu::always_inline]] inline bool Engine::enqueue_ready_or_take(int64_t& time, uint32_t& ts, uint32_t& op_index,
                                                                 uint32_t& host_kind) {
  if (pending_.empty()) return false;
  if (pending_.size() != 1) {
    enqueue_several<kRecord>();
    return false;
  }
  const uint32_t host = pending_.front().host, i = pending_.front().op;
  pending_.clear();
  const ReadyEvent r = make_ready<kRecord>(host, i);
  if (!windows_.push_or_take(r.time, static_cast<uint32_t>(r.ts), i, r.host_kind, host)) return false;
  time = r.time;
  ts = static_cast<uint32_t>(r.ts);
  op_index = i;
  host_kind = r.host_kind;
  return true;
}

template <bool kRecord>
void Engine::enqueue_several() {
  // The reference visits the hosts that finished something in ascending
  // order; each host's ops keep the order in which they became ready.
  bool one_host = true;
  for (const ReleasedOps::Entry& p : pending_) one_host &= p.host == pending_.front().host;
  if (one_host) {
    host_ops_.clear();
    for (const ReleasedOps::Entry& p : pending_) host_ops_.push_back(p.op);
    enqueue_host_ops<kRecord>(pending_.front().host, host_ops_);
  } else {
    // A few entries: an insertion sort is stable and allocates nothing.
    for (size_t i = 1; i < pending_.size(); ++i) {
      const ReleasedOps::Entry p = pending_[i];
      size_t j = i;
      for (; j > 0 && pending_[j - 1].host > p.host; --j) pending_[j] = pending_[j - 1];
      pending_[j] = p;
    }
    size_t i = 0;
    while (i < pending_.size()) {
      const uint32_t host = pending_[i].host;
      host_ops_.clear();
      for (; i < pending_.size() && pending_[i].host == host; ++i) host_ops_.push_back(pending_[i].op);
      enqueue_host_ops<kRecord>(host, host_ops_);
    }
  }
  pending_.clear();
}

// The ops with no dependencies would all be queued at time 0 with the
// first stamps, so they are processed first and in stamp order whatever
// else is queued: they are processed straight from the per-template lists,
// which keeps the queue O(ranks) where a ring allreduce posts every
// receive at once. Receives posted already (reset) only take their stamps.
// None is marked in ready_bits_: an op without dependencies is ready at 0.
template <bool kRecord>
void Engine::process_initial() {
  stamp_ = initial_total_;
  ready_count_ = initial_total_;
  uint64_t stamp = 0;  // the first stamp of rank h's list
  for (uint32_t h = 0; h < ranks_; ++h) {
    const uint32_t* local = initial_ops_.data() + initial_begin_[h];
    const uint32_t* active = initial_active_.data() + initial_active_begin_[h];
    for (uint32_t j = 0; j < initial_active_count_[h]; ++j) {
      const uint32_t k = active[j];
      const uint32_t op = sched_.rank_begin(h) + local[k];
      const auto kind = static_cast<EventKind>(sched_.template_op(h, op).kind);
      if constexpr (kRecord) path_.queued(op, false, 0, CriticalPathRecorder::kStart);
      process<kRecord>(0, stamp + k, op, Event::pack(h, kind), 0);
      if (windowed_)
        enqueue_ready<true, kRecord>();
      else
        enqueue_ready<false, kRecord>();
    }
    stamp += initial_count_[h];
  }
}

// Host by host, window after window (windowed_events.hpp); false when two
// events' order could not be settled: the repetition must run again in
// the global order.
template <bool kRecord>
bool Engine::process_windowed(int64_t width) {
  windows_.reset(ranks_, width, rendezvous_);
  windowed_ = true;
  process_initial<kRecord>();
  if (rendezvous_)
    process_windows<true, kRecord>();
  else
    process_windows<false, kRecord>();
  windowed_ = false;
  return !windows_.ambiguous();
}

template <bool kRendezvous, bool kRecord>
void Engine::process_windows() {
  WindowedEvent e;
  int64_t time;
  while (windows_.next_window(static_cast<uint32_t>(stamp_))) {
    check_stop();
    while (kRendezvous ? windows_.next_host_tracked() : windows_.next_host()) {
      while (windows_.pop(e, time)) {
        // The event's fields as values: an op taken at once (below) is
        // processed from them, never stored as an event.
        uint32_t ts = e.ts, op = e.op, host_kind = e.host_kind, carried = e.carried;
        if (kRendezvous && Event::kind_of(host_kind) == kEvRendezvousDone) [[unlikely]] {
          // Another host's match completed this host's send (e.op); the
          // stamps it gives are the sender's part of that match's.
          windows_.mark_completion_part();
          if constexpr (kRecord) path_.begin_match(op);
          complete_rendezvous<kRecord>(op, e.host, 0, static_cast<uint8_t>(carried), time);
          if (!enqueue_ready_or_take<kRecord>(time, ts, op, host_kind)) continue;
          carried = 0;
        }
        for (;;) {
          process_event<true, kRendezvous, kRecord>(time, ts, op, host_kind, carried);
          if (!enqueue_ready_or_take<kRecord>(time, ts, op, host_kind)) break;
          carried = 0;
        }
      }
    }
    if (windows_.ambiguous()) break;
  }
}

template <bool kRecord>
RunResult Engine::simulate_loops(const NoiseModel& noise, uint64_t seed, uint64_t repetition) {
  // The recorder's setters start with every host's times (reset).
  auto start_path = [&] {
    if constexpr (kRecord)
      path_.start_run(host_state_.size(),
                      rendezvous_ && processing_ == Processing::WindowedRendezvous ? sched_.num_ops() : 0,
                      sched_.num_ops());
  };
  reset(noise, seed, repetition);
  start_path();
  loop_ = choose_loop();
  bool windowed = false;
  if (loop_ == Loop::Exchange) {
    process_exchange<kRecord>();
    return result(false);
  }
  post_initial_receives();
  const int64_t width = window_width();
  // Stop trying after the windows failed on a quarter of 8 or more tries.
  if (width != 0 && (window_tries_ < 8 || 4 * window_failures_ <= window_tries_)) {
    ++window_tries_;
    windowed = process_windowed<kRecord>(width);
    if (!windowed) {
      ++window_failures_;
      reset(noise, seed, repetition);
      start_path();
      post_initial_receives();
    }
  }
  if (!windowed) {
    process_initial<kRecord>();
    while (!queue_.empty()) {
      poll_stop();
      const Event e = queue_.pop();
      process_event<false, true, kRecord>(e.time, e.ts, e.op, e.host_kind, 0);
      enqueue_ready<false, kRecord>();
    }
  }
  return result(windowed);
}

// process_event out of line, for the time-0 ops (process_initial).
template <bool kRecord>
void Engine::process(int64_t t, uint64_t ts, uint32_t op_index, uint32_t host_kind,
                     uint32_t carried_G) {
  if (windowed_)
    process_event<true, true, kRecord>(t, ts, op_index, host_kind, carried_G);
  else
    process_event<false, true, kRecord>(t, ts, op_index, host_kind, carried_G);
}

// One event at its time `t`: an op of `h` to start, or a message of sender
// `h` to deliver. An op that cannot start yet (its CPU or NIC is busy) is
// queued again at the time it frees, keeping its stamp, as in LogGOPSim.
// Inline in both event loops: a call per event saved and restored a dozen
// registers. In windows a rendezvous completion at another host becomes
// that host's event (complete_rendezvous_at).
template <bool kWindowed, bool kRendezvous, bool kRecord>
[[gnu::always_inline]] inline void Engine::process_event(int64_t t, uint64_t ts, uint32_t op_index,
                                                         uint32_t host_kind, uint32_t carried_G) {
  const uint32_t h = Event::host_of(host_kind);  // the op's owner (for a message: its sender)
  const Op& op = sched_.template_op(h, op_index);
  switch (Event::kind_of(host_kind)) {
    case kEvCalc: {
      int64_t& o_free = next_o(h, op.cpu);
      if (o_free <= t) {
        path_begin<kRecord>(op_index, false);
        run_calc<kRecord>(t, h, op_index, static_cast<int64_t>(op.amount), o_free);
        if (op.start_count) release_started(op_index, h);
        release_done(op, h);
      } else {
        path_wait<kRecord>(op_index, false, o_free, o_free, nullptr);
        push_event<kWindowed>(o_free, ts, op_index, host_kind, h, 0);
      }
      break;
    }
    case kEvSend: {
      int64_t& o_free = next_o(h, op.cpu);
      int64_t& gs_free = next_gs(h, op.nic);
      const int64_t avail = std::max(o_free, gs_free);
      if (avail <= t) {
        path_begin<kRecord>(op_index, false);
        if (op.start_count) release_started(op_index, h);
        const uint32_t receiver = peer_of(h, op);
        const Departure d =
            depart<kRecord>(t, h, receiver, op_index, op.amount, p_.costs_for(op.amount), o_free, gs_free);
        const int64_t arrival =
            order_arrivals_ ? channel_order_.arrival(h, receiver, d.arrival) : d.arrival;
        if constexpr (kRecord)
          if (order_arrivals_) path_.channel(h, receiver, op_index, d.arrival, arrival);
        push_event<kWindowed>(arrival, stamp_++, op_index, Event::pack(h, kEvMsg), receiver, d.carried_G);
        if (!kRendezvous || op.amount <= p_.S)
          release_done(op, h);  // eager: the send is complete
        else if (kWindowed)
          windows_.rendezvous_sent(h, receiver, arrival);
      } else {
        path_wait<kRecord>(op_index, false, avail, o_free, &gs_free);
        push_event<kWindowed>(avail, ts, op_index, host_kind, h, 0);
      }
      break;
    }
    case kEvRecv: {
      path_begin<kRecord>(op_index, false);
      if (op.start_count) release_started(op_index, h);
      const uint32_t source = peer_of(h, op);
      const MatchEntry m = unexpected_[h].take(source, op.tag);
      if (m.op != kNoMatch) {
        // Rendezvous: the message's size decides, as it decided at the
        // sender (kEvSend), so a send completes exactly once whatever
        // receive takes it; the receive's cpu/nic indices address the
        // sender, as in the reference. (The reference decides by the
        // receive's size: where a receive is larger than the message it
        // takes, across the eager limit, it completes an eager send a
        // second time and runs its successors twice; where smaller, it
        // never completes a rendezvous send.)
        if (kRendezvous && sched_.template_op(m.src, m.op).amount > p_.S)
          complete_rendezvous_at<kWindowed, kRecord>(m.op, m.src, op.cpu, op.nic, t, h, h);
        release_done(op, h);
      } else {
        posted_.push(h, {source, op.tag, op_index - sched_.rank_begin(h)});
      }
      break;
    }
    case kEvMsg: {
      // h is the sender; the message is processed at the receiver with
      // the sender's cpu/nic indices, as in the reference.
      const uint32_t r = peer_of(h, op);
      int64_t& o_free = next_o(r, op.cpu);
      int64_t& gr_free = next_gr(r, op.nic);
      const int64_t avail = std::max(o_free, gr_free);
      if (avail <= t) {
        path_begin<kRecord>(op_index, true);
        arrive<kRecord>(t, h, r, op_index, op.amount, p_.costs_for(op.amount), carried_G, o_free, gr_free);
        const MatchEntry m = posted_.take(r, h, op.tag, [&](uint32_t local) { return posted_key(r, local); });
        if (m.op != kNoMatch) {
          if (kRendezvous && op.amount > p_.S)
            complete_rendezvous_at<kWindowed, kRecord>(op_index, h, op.cpu, op.nic, t, r, h);
          release_done(sched_.stored_op(sched_.template_begin(r) + m.op), r);
        } else {
          unexpected_[r].push({h, op.tag, op_index});
        }
      } else {
        path_wait<kRecord>(op_index, true, avail, o_free, &gr_free);
        push_event<kWindowed>(avail, ts, op_index, host_kind, r, carried_G);
      }
      break;
    }
    case kEvRendezvousDone:  // windows only, handled by process_windowed
      break;
  }
}

[[gnu::always_inline]] inline MatchEntry Engine::posted_key(uint32_t host, uint32_t local) const {
  const Op& recv = sched_.stored_op(sched_.template_begin(host) + local);
  return {peer_of(host, recv), recv.tag, local};
}

}  // namespace cloudnoise
