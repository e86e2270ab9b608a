// The event loop specialised for exchanges (exchange_plan.hpp): the rings
// and chains, the dissemination, the trees and the linear patterns,
// generated in the engine or read from a file of the same shape.
//
// It is the general loop (engine.cpp) with only what an exchange makes
// certain taken out, the event order kept exactly: the same queue, the same
// (time, stamp) keys, the same stamps taken in the same order, the same
// steps (engine_steps.hpp) for every message with every noise model. What
// it leaves out:
//  * the schedule walk: an event's op, bytes and peer come from the plan's
//    step of the op (one record per template op), not from the rank's
//    template, its size class and its edges;
//  * the matching: a message is taken by the receive the plan names, or by
//    the next of its channel's (a counter per rank and channel), so the
//    posted receives are never built, searched or copied (the 16K-rank
//    ring posts 268 million);
//  * mostly, the releases: an op whose successors wait for it alone queues
//    them in an order found once (order_ready's; Engine::
//    index_exchange_releases), a matched receive's single successor is in
//    the send's step. Otherwise the release is replayed as the general loop
//    makes it (exchange_done: the same counters, order_ready, and the hosts
//    of a rendezvous completion in ascending order).
// A receive that waits for other ops (the collective after a compute
// phase) is posted by its own event when they are done, as in the general
// loop; a message that arrives before it waits (the general loop's
// unexpected queue). Each such receive's state is one byte per op in this
// run: 0 not posted, 1 posted, 2 a message waiting, 3 matched.
// Receives posted at time 0 take their stamps and no events, as in the
// general loop with its receives posted in advance
// (Engine::build_posted_at_zero).
//
// When every stamp of a run fits 32 bits (kPacked; all but schedules of
// over 2^32 ops and messages), an event's 64-bit ts holds its stamp in the
// high half and, for a message, what its sender drew for the receiver in
// the low half: the gap of its bytes under switch draws (plus one; 0: not
// carried), else the G drawn (0: none). The queue orders by (time, ts), and
// stamps are distinct, so the order is the stamps' as in the general loop;
// the receiver reads the draw instead of drawing it again (a random read of
// a sample set that no cache holds, once per message at 16K ranks).
//
// The loop's steps as templates, included by the units that compile it:
// exchange_loop.cpp (the loop for one template, the rings' and the
// dissemination's) and exchange_loop_templates.cpp (for several). Two
// units, as the compiler's inlining budget is a unit's: the four loops in
// one unit left parts of the steps' draws out of line (7.5% more
// instructions on the paper's 1,024-node ring). The loops with the
// critical path's hooks (kRecord) are a third unit,
// exchange_loop_recorded.cpp, so that they leave the others' budgets alone.
//
// Included only by those two files.
#pragma once

#include "engine.hpp"
#include "engine_steps.hpp"

#include <cstddef>
#include <stdexcept>

namespace cloudnoise {

namespace exchange_detail {

constexpr uint64_t kLow = 0xFFFFFFFFu;

// An event's ts from its stamp and what it carries.
template <bool kPacked>
inline uint64_t pack_ts(uint64_t stamp, uint32_t carried) {
  return kPacked ? stamp << 32 | carried : stamp;
}

}  // namespace exchange_detail

using exchange_detail::kLow;
using exchange_detail::pack_ts;

// Rank r's places: its first op, its template, its counters.
template <bool kUniform>
[[gnu::always_inline]] inline ExchangePlan::RankInfo Engine::exchange_rank(uint32_t r) const {
  if constexpr (kUniform) {
    return {r * exchange_n_, exchange_tb_, 0, r * exchange_counters_};
  } else {
    return exchange_->rank(r);
  }
}

// A send event: the send starts when its host's CPU and NIC are free, else
// it waits for them, keeping its stamp (as in Engine::process_event). An
// eager send is then complete and releases its successors; a rendezvous
// send completes when its message is taken (exchange_message).
template <bool kPacked, bool kUniform, bool kRecord>
[[gnu::always_inline]] inline void Engine::exchange_send(int64_t t, uint64_t ts, uint32_t op_index, uint32_t h) {
  int64_t& o_free = next_o(h, 0);
  int64_t& gs_free = next_gs(h, 0);
  const int64_t avail = std::max(o_free, gs_free);
  if (avail > t) {
    path_wait<kRecord>(op_index, false, avail, o_free, &gs_free);
    queue_.push({avail, ts, op_index, Event::pack(h, kEvSend)});
    return;
  }
  path_begin<kRecord>(op_index, false);
  const ExchangePlan::RankInfo at = exchange_rank<kUniform>(h);
  const uint32_t stored = at.tb + (op_index - at.begin);
  const ExchangePlan::Step& step = exchange_->step(stored);
  const SizeCosts& size = exchange_sizes_[ExchangePlan::size_of(step)];
  const uint32_t receiver = Schedule::absolute_peer(h, step.to, ranks_);
  const Departure d = depart<kRecord>(t, h, receiver, op_index, size.bytes, size.costs, o_free, gs_free);
  uint32_t carried = d.carried_G;
  if (switch_) carried = d.gap_ps >= 0 && d.gap_ps < static_cast<int64_t>(kLow) ? static_cast<uint32_t>(d.gap_ps + 1) : 0;
  queue_.push({d.arrival, pack_ts<kPacked>(stamp_++, carried), op_index, Event::pack(h, kEvMsg)});
  if (ExchangePlan::releases(step) && size.bytes <= p_.S)
    exchange_taken<kPacked, kUniform, kRecord>(h, stored, h, stored, false);
}

// A message event of sender h: taken when its receiver's CPU and NIC are
// free (else it waits, keeping its stamp), by the receive the plan names
// (or the next of its channel's), which completes a rendezvous send and
// releases what the receive (and such a send) release.
template <bool kPacked, bool kUniform, bool kRecord>
[[gnu::always_inline]] inline void Engine::exchange_message(int64_t t, uint64_t ts, uint32_t op_index, uint32_t h) {
  const ExchangePlan::RankInfo from = exchange_rank<kUniform>(h);
  const uint32_t stored = from.tb + (op_index - from.begin);
  const ExchangePlan::Step& step = exchange_->step(stored);
  const uint32_t r = Schedule::absolute_peer(h, step.to, ranks_);
  int64_t& o_free = next_o(r, 0);
  int64_t& gr_free = next_gr(r, 0);
  const int64_t avail = std::max(o_free, gr_free);
  if (avail > t) {
    path_wait<kRecord>(op_index, true, avail, o_free, &gr_free);
    queue_.push({avail, ts, op_index, Event::pack(h, kEvMsg)});
    return;
  }
  path_begin<kRecord>(op_index, true);
  const SizeCosts& size = exchange_sizes_[ExchangePlan::size_of(step)];
  const auto carried = kPacked ? static_cast<uint32_t>(ts & kLow) : 0u;
  if (switch_)
    arrive<kRecord>(t, h, r, op_index, size.bytes, size.costs, 0, o_free, gr_free, int64_t{carried} - 1);
  else
    arrive<kRecord>(t, h, r, op_index, size.bytes, size.costs, carried, o_free, gr_free);
  const ExchangePlan::RankInfo at = exchange_rank<kUniform>(r);
  uint32_t recv = step.recv;
  if (recv == ExchangePlan::kNone) {
    const ExchangePlan::Channel& c = exchange_->channel(at.tid, exchange_->key(stored));
    const uint32_t k = c.count == 1 ? 0 : channel_taken_[at.counters + c.slot]++;
    recv = exchange_->recv_order()[c.first + k];
  }
  if (!recv_state_.empty()) [[unlikely]] {
    uint8_t& state = recv_state_[at.begin + recv];
    if (state != 1) {  // its receive is not posted yet: the message waits
      state = 2;
      return;
    }
    state = 3;
  }
  const bool rendezvous = size.bytes > p_.S;
  if (rendezvous) hold_until<kRecord>(h, 0, 0, t);
  const bool send_releases = rendezvous && ExchangePlan::releases(step);
  if (!send_releases) {
    // The receive alone releases: mostly one op or none, known in advance.
    uint32_t next = step.next;
    if (next == ExchangePlan::kUnknown) {
      const ExchangePlan::Release& rel = exchange_->release(at.tb + recv);
      next = rel.count == 0 ? ExchangePlan::kNone
             : rel.count == 1 && rel.simple ? release_sorted_[rel.begin]
                                            : ExchangePlan::kUnknown;
    }
    if (next != ExchangePlan::kUnknown) {
      if (next != ExchangePlan::kNone) exchange_release<kPacked, kRecord>(r, at, next);
      return;
    }
  }
  exchange_taken<kPacked, kUniform, kRecord>(h, stored, r, at.tb + recv, send_releases);
}

// What is left of an event, out of its way: as Engine::process_event, a
// rendezvous send's completion (when send_releases), then op `stored` of
// rank r's (a receive's, or any op done).
template <bool kPacked, bool kUniform, bool kRecord>
[[gnu::noinline]] void Engine::exchange_taken(uint32_t h, uint32_t send_stored, uint32_t r, uint32_t stored,
                                              bool send_releases) {
  const ExchangePlan::RankInfo from = exchange_rank<kUniform>(h), at = exchange_rank<kUniform>(r);
  ExchangeDone done[2];
  uint32_t count = 0;
  if (send_releases) done[count++] = {h, from, send_stored};
  if (exchange_->release(stored).count != 0) done[count++] = {r, at, stored};
  if (count != 0) exchange_done<kPacked, kRecord>(done, count);
}

// An op of rank r (a ready_op of its template; `at`: r's places) becomes
// executable, queued as Engine::enqueue_op queues it: at its CPU's (for a
// send, and NIC's) free time, with the next stamp. (No ready bits: they
// are kept only in a deadlocked repetition's second run, which the general
// loop runs.)
template <bool kPacked, bool kRecord>
[[gnu::always_inline]] inline void Engine::exchange_release(uint32_t r, const ExchangePlan::RankInfo& at,
                                                            uint32_t ready_op) {
  const uint32_t local = ExchangePlan::ready_local(ready_op);
  const OpKind kind = ExchangePlan::ready_kind(ready_op);
  const uint32_t op = at.begin + local;
  ++ready_count_;
  if (kind != OpKind::Send) {
    path_ready<kRecord>(op, next_o(r, 0), next_o(r, 0), nullptr);
    queue_.push({next_o(r, 0), pack_ts<kPacked>(stamp_++, 0), op,
                 Event::pack(r, kind == OpKind::Recv ? kEvRecv : kEvCalc)});
    return;
  }
  const int64_t when = std::max(next_o(r, 0), next_gs(r, 0));
  path_ready<kRecord>(op, when, next_o(r, 0), &next_gs(r, 0));
  if (switch_) [[unlikely]] {
    const ExchangePlan::Step& s = exchange_->step(at.tb + local);
    switch_->prefetch(switch_->is_far(r, Schedule::absolute_peer(r, s.to, ranks_)), latency_rng_.bits(op),
                      bandwidth_rng_.bits(op));
  }
  queue_.push({when, pack_ts<kPacked>(stamp_++, 0), op, Event::pack(r, kEvSend)});
}

// A simple release (each successor waits for this op alone), queued in
// the order found once (Engine::index_exchange_releases).
template <bool kPacked, bool kRecord>
[[gnu::always_inline]] inline void Engine::exchange_sorted(const ExchangeDone& done) {
  const ExchangePlan::Release& rel = exchange_->release(done.stored);
  for (uint32_t j = rel.begin; j < rel.begin + rel.count; ++j)
    exchange_release<kPacked, kRecord>(done.host, done.at, release_sorted_[j]);
}

// One event's ops done (one, or a rendezvous send's and its receive's, in
// that order), their successors released and queued as the general loop
// does it (Engine::release, enqueue_ready): a successor waiting for
// several ops counts them; one host's ops are queued in order_ready's
// order, several hosts' in ascending host order.
template <bool kPacked, bool kRecord>
[[gnu::noinline]] void Engine::exchange_done(const ExchangeDone* done, uint32_t count) {
  const bool simple0 = exchange_->release(done[0].stored).simple;
  if (count == 1 && simple0) return exchange_sorted<kPacked, kRecord>(done[0]);
  if (count == 2 && simple0 && exchange_->release(done[1].stored).simple && done[0].host != done[1].host) {
    const bool low_first = done[0].host < done[1].host;
    exchange_sorted<kPacked, kRecord>(done[low_first ? 0 : 1]);
    exchange_sorted<kPacked, kRecord>(done[low_first ? 1 : 0]);
    return;
  }
  pending_.clear();
  const std::vector<uint32_t>& succ = exchange_->successors();
  for (uint32_t i = 0; i < count; ++i) {
    const ExchangeDone& d = done[i];
    const ExchangePlan::Release& rel = exchange_->release(d.stored);
    for (uint32_t j = rel.begin; j < rel.begin + rel.count; ++j) {
      const uint32_t t = d.at.tb + succ[j];
      const uint32_t need = sched_.stored_op(t).num_deps;
      if (need > 1 && ++met_[multi_base_[d.host] + multi_slot_[t]] < need) continue;
      pending_.push(d.host, d.at.begin + succ[j]);
    }
  }
  if (pending_.empty()) return;
  auto queue_host = [&](uint32_t host, std::vector<uint32_t>& ops) {
    const ExchangeDone& d = done[0].host == host ? done[0] : done[1];
    if (ops.size() > 1) order_ready(host, ops);
    for (const uint32_t i : ops)
      exchange_release<kPacked, kRecord>(
          host, d.at, ExchangePlan::ready_op(i - d.at.begin, sched_.stored_op(d.at.tb + i - d.at.begin).kind));
  };
  // Engine::enqueue_several: hosts in ascending order, each host's ops in
  // the order they became ready, then ordered.
  if (count == 2 && done[0].host != done[1].host) {
    const uint32_t low = std::min(done[0].host, done[1].host);
    for (const uint32_t host : {low, low == done[0].host ? done[1].host : done[0].host}) {
      host_ops_.clear();
      for (const ReleasedOps::Entry& p : pending_)
        if (p.host == host) host_ops_.push_back(p.op);
      if (!host_ops_.empty()) queue_host(host, host_ops_);
    }
  } else {
    host_ops_.clear();
    for (const ReleasedOps::Entry& p : pending_) host_ops_.push_back(p.op);
    queue_host(done[0].host, host_ops_);
  }
  pending_.clear();
}

// A receive posted late (it waited for other ops): it takes a message
// waiting for it, completing a rendezvous send (the receive's size
// decides: the plan takes a late receive only of its message's size, so
// this is the message's, as in Engine::process_event; such a send releases
// nothing: ExchangePlan) and releasing its successors; else it is posted. A
// receive takes no CPU time: it is never queued again.
template <bool kPacked, bool kUniform, bool kRecord>
[[gnu::noinline]] void Engine::exchange_recv(int64_t t, uint64_t, uint32_t op_index, uint32_t h) {
  uint8_t& state = recv_state_[op_index];
  if (state != 2) {
    state = 1;
    return;
  }
  state = 3;
  path_begin<kRecord>(op_index, false);
  const ExchangePlan::RankInfo at = exchange_rank<kUniform>(h);
  const uint32_t stored = at.tb + (op_index - at.begin);
  const ExchangePlan::Step& step = exchange_->step(stored);
  if (exchange_sizes_[ExchangePlan::size_of(step)].bytes > p_.S)
    hold_until<kRecord>(Schedule::absolute_peer(h, step.to, ranks_), 0, 0, t);
  if (exchange_->release(stored).count != 0) exchange_taken<kPacked, kUniform, kRecord>(h, stored, h, stored, false);
}

// A calc: it runs when its CPU is free (else it waits, keeping its stamp),
// then releases its successors.
template <bool kPacked, bool kUniform, bool kRecord>
[[gnu::noinline]] void Engine::exchange_calc(int64_t t, uint64_t ts, uint32_t op_index, uint32_t h) {
  int64_t& o_free = next_o(h, 0);
  if (o_free > t) {
    path_wait<kRecord>(op_index, false, o_free, o_free, nullptr);
    queue_.push({o_free, ts, op_index, Event::pack(h, kEvCalc)});
    return;
  }
  path_begin<kRecord>(op_index, false);
  const ExchangePlan::RankInfo at = exchange_rank<kUniform>(h);
  const uint32_t stored = at.tb + (op_index - at.begin);
  run_calc<kRecord>(t, h, op_index, static_cast<int64_t>(sched_.stored_op(stored).amount), o_free);
  if (exchange_->release(stored).count != 0) exchange_taken<kPacked, kUniform, kRecord>(h, stored, h, stored, false);
}

template <bool kPacked, bool kUniform, bool kRecord>
void Engine::exchange_events() {
  // Time 0: the sends and calcs that wait for nothing, in the general
  // loop's order and with its stamps (Engine::process_initial); the
  // receives only take their stamps.
  stamp_ = initial_total_;
  ready_count_ = initial_total_;
  uint64_t stamp = 0;
  channel_taken_.assign(exchange_->counters(), 0);
  if (exchange_->late_receives()) {
    recv_state_.resize(sched_.num_ops());
    for (uint32_t h = 0; h < ranks_; ++h) {
      const ExchangePlan::RankInfo at = exchange_rank<kUniform>(h);
      const ExchangePlan::Template& t = exchange_->templates()[at.tid];
      const auto row = recv_state_row_.begin() + recv_state_row_begin_[at.tid];
      std::copy(row, row + t.n, recv_state_.begin() + at.begin);
    }
  }
  for (uint32_t h = 0; h < ranks_; ++h) {
    const ExchangePlan::RankInfo at = exchange_rank<kUniform>(h);
    const uint32_t* local = initial_ops_.data() + initial_begin_[h];
    const uint32_t* active = initial_active_.data() + initial_active_begin_[h];
    for (uint32_t j = 0; j < initial_active_count_[h]; ++j) {
      const uint32_t k = active[j];
      const uint64_t ts = pack_ts<kPacked>(stamp + k, 0);
      if constexpr (kRecord) path_.queued(at.begin + local[k], false, 0, CriticalPathRecorder::kStart);
      if (sched_.stored_op(at.tb + local[k]).kind == OpKind::Calc)
        exchange_calc<kPacked, kUniform, kRecord>(0, ts, at.begin + local[k], h);
      else
        exchange_send<kPacked, kUniform, kRecord>(0, ts, at.begin + local[k], h);
    }
    stamp += initial_count_[h];
  }
  while (!queue_.empty()) {
    if (--stop_countdown_ == 0) [[unlikely]] {
      check_stop();
      // A plan that let an op be released twice would run forever: stop.
      if (ready_count_ > sched_.num_ops())
        throw std::logic_error("internal error: the exchange loop released an operation twice; "
                               "run with the general loop (general=True) and report the schedule");
    }
    const Event e = queue_.pop();
    const uint32_t h = Event::host_of(e.host_kind);
    switch (Event::kind_of(e.host_kind)) {
      case kEvSend:
        exchange_send<kPacked, kUniform, kRecord>(e.time, e.ts, e.op, h);
        break;
      case kEvMsg:
        exchange_message<kPacked, kUniform, kRecord>(e.time, e.ts, e.op, h);
        break;
      case kEvRecv:
        exchange_recv<kPacked, kUniform, kRecord>(e.time, e.ts, e.op, h);
        break;
      default:
        exchange_calc<kPacked, kUniform, kRecord>(e.time, e.ts, e.op, h);
        break;
    }
  }
  recv_state_.clear();
}

}  // namespace cloudnoise
