// The event loop specialised for exchanges (exchange_plan.hpp): the paper
// authors' pipelined ring and the dissemination, generated in the engine.
//
// It is the general loop (engine.cpp) with only what an exchange makes
// certain taken out, the event order kept exactly: the same queue, the same
// (time, stamp) keys, the same stamps taken in the same order, the same
// steps (engine_steps.hpp) for every message with every noise model. What
// it leaves out:
//  * the schedule walk: an event's op, bytes and peer come from the plan's
//    step of the send (one record per template op), not from the rank's
//    template, its size class and its edges;
//  * the matching: every receive is posted at time 0 and the message of a
//    send is taken by one known receive, so the posted receives are never
//    built, searched or copied (the 16K-rank ring posts 268 million);
//  * the releases: a send releases nothing and a matched receive at most
//    one send, queued at once (no release list, no ordering of ready ops);
//    a calc its list, in the order the general loop's order_ready gives it
//    (Engine::index_exchange_calcs, once).
// A receive that waits for a calc (the collective after a compute phase) is
// posted by its own event when the calc has ended, as in the general loop;
// a message that arrives before it waits (the general loop's unexpected
// queue). Each receive's state is one byte per rank in this run: 0 not
// posted, 1 posted, 2 a message waiting, 3 matched.
// Receives take their stamps at time 0 and no events, as in the general
// loop with its receives posted in advance (Engine::build_posted_at_zero).
//
// When every stamp of a run fits 32 bits (kPacked; all but schedules of
// over 2^32 ops and messages), an event's 64-bit ts holds its stamp in the
// high half and, for a message, what its sender drew for the receiver in
// the low half: the gap of its bytes under switch draws (plus one; 0: not
// carried), else the G drawn (0: none). The queue orders by (time, ts), and
// stamps are distinct, so the order is the stamps' as in the general loop;
// the receiver reads the draw instead of drawing it again (a random read of
// a sample set that no cache holds, once per message at 16K ranks).
#include "engine.hpp"
#include "engine_steps.hpp"

#include <cstddef>

namespace cloudnoise {

namespace {

constexpr uint64_t kLow = 0xFFFFFFFFu;

// An event's ts from its stamp and what it carries.
template <bool kPacked>
uint64_t pack_ts(uint64_t stamp, uint32_t carried) {
  return kPacked ? stamp << 32 | carried : stamp;
}

}  // namespace

// A send event: the send starts when its host's CPU and NIC are free, else
// it waits for them, keeping its stamp (as in Engine::process_event).
template <bool kPacked>
[[gnu::always_inline]] inline void Engine::exchange_send(int64_t t, uint64_t ts, uint32_t op_index, uint32_t h) {
  int64_t& o_free = next_o(h, 0);
  int64_t& gs_free = next_gs(h, 0);
  const int64_t avail = std::max(o_free, gs_free);
  if (avail > t) {
    queue_.push({avail, ts, op_index, Event::pack(h, kEvSend)});
    return;
  }
  const ExchangePlan::Step& step = exchange_->step(op_index - h * exchange_->ops_per_rank());
  const SizeCosts& size = exchange_sizes_[step.size];
  const uint32_t receiver = Schedule::absolute_peer(h, step.to, ranks_);
  const Departure d = depart(t, h, receiver, op_index, size.bytes, size.costs, o_free, gs_free);
  uint32_t carried = d.carried_G;
  if (switch_) carried = d.gap_ps >= 0 && d.gap_ps < static_cast<int64_t>(kLow) ? static_cast<uint32_t>(d.gap_ps + 1) : 0;
  queue_.push({d.arrival, pack_ts<kPacked>(stamp_++, carried), op_index, Event::pack(h, kEvMsg)});
  // An eager send is complete and releases nothing; a rendezvous send
  // completes when its message is taken (exchange_message).
}

// A message event of sender h: taken when its receiver's CPU and NIC are
// free (else it waits, keeping its stamp), by the receive posted for it,
// which completes a rendezvous send and releases the receiver's next send.
template <bool kPacked>
[[gnu::always_inline]] inline void Engine::exchange_message(int64_t t, uint64_t ts, uint32_t op_index, uint32_t h) {
  const uint32_t n = exchange_->ops_per_rank();
  const ExchangePlan::Step& step = exchange_->step(op_index - h * n);
  const uint32_t r = Schedule::absolute_peer(h, step.to, ranks_);
  int64_t& o_free = next_o(r, 0);
  int64_t& gr_free = next_gr(r, 0);
  const int64_t avail = std::max(o_free, gr_free);
  if (avail > t) {
    queue_.push({avail, ts, op_index, Event::pack(h, kEvMsg)});
    return;
  }
  const SizeCosts& size = exchange_sizes_[step.size];
  const auto carried = kPacked ? static_cast<uint32_t>(ts & kLow) : 0u;
  if (switch_)
    arrive(t, h, r, op_index, size.bytes, size.costs, 0, o_free, gr_free, int64_t{carried} - 1);
  else
    arrive(t, h, r, op_index, size.bytes, size.costs, carried, o_free, gr_free);
  if (!recv_state_.empty()) [[unlikely]] {
    uint8_t& state = recv_state_[static_cast<size_t>(r) * n + step.recv];
    if (state != 1) {  // its receive is not posted yet: the message waits
      state = 2;
      return;
    }
    state = 3;
  }
  if (size.bytes > p_.S) hold_until(h, 0, 0, t);
  if (step.next != ExchangePlan::kNone) exchange_release<kPacked>(r, step.next, OpKind::Send);
}

// An op of rank r (template index `local`) becomes executable, queued as
// Engine::enqueue_op queues it: at its CPU's (for a send, and NIC's) free
// time, with the next stamp. (No ready bits: they are kept only in a
// deadlocked repetition's second run, which the general loop runs.)
template <bool kPacked>
[[gnu::always_inline]] inline void Engine::exchange_release(uint32_t r, uint32_t local, OpKind kind) {
  const uint32_t op = r * exchange_->ops_per_rank() + local;
  ++ready_count_;
  if (kind != OpKind::Send) {
    queue_.push({next_o(r, 0), pack_ts<kPacked>(stamp_++, 0), op,
                 Event::pack(r, kind == OpKind::Recv ? kEvRecv : kEvCalc)});
    return;
  }
  const int64_t at = std::max(next_o(r, 0), next_gs(r, 0));
  if (switch_) [[unlikely]] {
    const ExchangePlan::Step& s = exchange_->step(local);
    switch_->prefetch(switch_->is_far(r, Schedule::absolute_peer(r, s.to, ranks_)), latency_rng_.bits(op),
                      bandwidth_rng_.bits(op));
  }
  queue_.push({at, pack_ts<kPacked>(stamp_++, 0), op, Event::pack(r, kEvSend)});
}

// A receive posted late (it waited for a calc): it takes a message waiting
// for it, completing a rendezvous send (the receive's own size decides, as
// in Engine::process_event) and releasing its successor; else it is posted.
// A receive takes no CPU time: it is never queued again.
template <bool kPacked>
void Engine::exchange_recv(int64_t t, uint64_t, uint32_t op_index, uint32_t h) {
  const uint32_t n = exchange_->ops_per_rank();
  const uint32_t local = op_index - h * n;
  uint8_t& state = recv_state_[static_cast<size_t>(h) * n + local];
  if (state != 2) {
    state = 1;
    return;
  }
  state = 3;
  const ExchangePlan::Step& step = exchange_->step(local);
  if (exchange_sizes_[step.size].bytes > p_.S) hold_until(Schedule::absolute_peer(h, step.to, ranks_), 0, 0, t);
  if (step.next != ExchangePlan::kNone) exchange_release<kPacked>(h, step.next, OpKind::Send);
}

// A calc: it runs when its CPU is free (else it waits, keeping its stamp),
// then releases its list (Engine::index_exchange_calcs).
template <bool kPacked>
void Engine::exchange_calc(int64_t t, uint64_t ts, uint32_t op_index, uint32_t h) {
  int64_t& o_free = next_o(h, 0);
  if (o_free > t) {
    queue_.push({o_free, ts, op_index, Event::pack(h, kEvCalc)});
    return;
  }
  const uint32_t local = op_index - h * exchange_->ops_per_rank();
  const auto len = static_cast<int64_t>(sched_.stored_op(sched_.template_begin(h) + local).amount);
  o_free = time_add(t, len, os_noise(h, t, len));
  for (const CalcRelease& c : calc_release_) {
    if (c.calc != local) continue;
    const uint32_t tb = sched_.template_begin(h);
    for (uint32_t j = c.begin; j < c.begin + c.count; ++j) {
      const uint32_t k = calc_release_ops_[j];
      exchange_release<kPacked>(h, k, sched_.stored_op(tb + k).kind);
    }
    break;
  }
}

void Engine::process_exchange() {
  if (exchange_packed_)
    exchange_events<true>();
  else
    exchange_events<false>();
}

template <bool kPacked>
void Engine::exchange_events() {
  // Time 0: the sends that wait for nothing, in the general loop's order
  // and with its stamps (Engine::process_initial); the receives only take
  // their stamps.
  stamp_ = initial_total_;
  ready_count_ = initial_total_;
  uint64_t stamp = 0;
  const uint32_t n = exchange_->ops_per_rank();
  if (exchange_->late_receives()) {
    recv_state_.resize(static_cast<size_t>(ranks_) * n);
    for (uint32_t h = 0; h < ranks_; ++h)
      std::copy(recv_state_row_.begin(), recv_state_row_.end(), recv_state_.begin() + static_cast<std::ptrdiff_t>(h) * n);
  }
  const uint32_t tb = sched_.template_begin(0);
  for (uint32_t h = 0; h < ranks_; ++h) {
    const uint32_t* local = initial_ops_.data() + initial_begin_[h];
    const uint32_t* active = initial_active_.data() + initial_active_begin_[h];
    for (uint32_t j = 0; j < initial_active_count_[h]; ++j) {
      const uint32_t k = active[j];
      const uint64_t ts = pack_ts<kPacked>(stamp + k, 0);
      if (sched_.stored_op(tb + local[k]).kind == OpKind::Calc)
        exchange_calc<kPacked>(0, ts, h * n + local[k], h);
      else
        exchange_send<kPacked>(0, ts, h * n + local[k], h);
    }
    stamp += initial_count_[h];
  }
  while (!queue_.empty()) {
    poll_stop();
    const Event e = queue_.pop();
    const uint32_t h = Event::host_of(e.host_kind);
    switch (Event::kind_of(e.host_kind)) {
      case kEvSend:
        exchange_send<kPacked>(e.time, e.ts, e.op, h);
        break;
      case kEvMsg:
        exchange_message<kPacked>(e.time, e.ts, e.op, h);
        break;
      case kEvRecv:
        exchange_recv<kPacked>(e.time, e.ts, e.op, h);
        break;
      default:
        exchange_calc<kPacked>(e.time, e.ts, e.op, h);
        break;
    }
  }
  recv_state_.clear();
}

}  // namespace cloudnoise
