// The steps every event loop of the engine takes, inline: what a message
// costs its sender when it leaves (depart) and its receiver when it arrives
// (arrive), with every noise model, and how an event is queued. The general
// loop (engine.cpp) and the specialised loops (exchange_loop.hpp, ...) take
// these same steps, so a specialised loop differs from the general one only
// in how it finds an event's op, its peer and what the event releases:
// their results are the same bit for bit by construction, and the tests
// compare them (tests/test_specialised_loops.py).
//
// Included only by the engine's own source files.
#pragma once

#include <algorithm>

#include "engine.hpp"
#include "round_to_int.hpp"
#include "sim_time.hpp"

namespace cloudnoise {

// LogGOPSim computes (size-1)*G on unsigned 64-bit integers; for a 0-byte
// message the term wraps "negative" and wins an unsigned max. Comparing the
// signed picosecond values as unsigned reproduces that.
inline int64_t unsigned_max(int64_t a, int64_t b) {
  return static_cast<uint64_t>(a) > static_cast<uint64_t>(b) ? a : b;
}

[[noreturn, gnu::noinline, gnu::cold]] void throw_size_overflow(uint64_t bytes);

[[gnu::always_inline]] inline int64_t Engine::bytes_time(uint64_t bytes, int64_t per_byte_fs) const {
  // Most profiles charge no per-byte CPU overhead (O = 0): skip the
  // multiply and the division, whose result is 0 for every size.
  if (per_byte_fs == 0) return 0;
  // (size - 1) * per-byte cost, as the reference charges it.
  const int64_t n = static_cast<int64_t>(bytes) - 1;
  int64_t fs;
  if (__builtin_mul_overflow(n, per_byte_fs, &fs)) [[unlikely]]
    throw_size_overflow(bytes);
  return fs / 1000;
}

// Inline, as every send and receive asks: activities of length o mostly
// fall in the quiet span of the rank's last lookup, which needs no trace
// access at all.
[[gnu::always_inline]] inline int64_t Engine::os_noise(uint32_t host, int64_t start, int64_t len) {
  if (!os_) return 0;
  const int64_t at = time_add(start, os_offset(host));
  const int64_t* quiet = os_quiet(host);
  if (len == p_.o_ps && at >= quiet[0] && at <= quiet[1]) return quiet[2] > at ? quiet[2] - at : 0;
  return os_noise_lookup(host, at, len);
}

// The bandwidth drawn for one message, as the G it is sent with. The draw
// is keyed by the send op, so the sender and the receiver agree on it
// without storing it per op.
[[gnu::always_inline]] inline int64_t Engine::message_G_fs(uint32_t send_op, int64_t G_fs) const {
  const uint64_t bits = bandwidth_rng_.bits(send_op);
  for (const DrawnGapTable& t : gap_tables_)
    if (t.base_fs() == G_fs) return t.gap_fs(bits);
  return drawn_gap_fs(*bandwidth_, bits, G_fs);
}

// A message's latency excess: keyed by its send op, like the bandwidth (a
// draw must not depend on the order in which sends are processed), and
// under a latency state by its sender's state at the send, a state in the
// sender's time alone, like the levels. Without a state: the plain draw
// alone.
[[gnu::always_inline]] inline int64_t Engine::latency_draw_ps(uint32_t sender, int64_t t, uint32_t op) {
  const uint64_t bits = latency_rng_.bits(op);
  if (!state_) [[likely]]
    return round_to_int(latency_->quantile_of_bits(bits));
  return state_draw_ps(sender, t, bits);
}

// The critical path's hooks (critical_path.hpp); without kRecord they are
// nothing at all. An event queued at `time`: the later of its CPU's free
// time and `other` (its NIC's, for a send or a message; null: none), the
// CPU on a tie, set it, and its setter is why the event starts then.
template <bool kRecord>
[[gnu::always_inline]] inline void Engine::path_wait(uint32_t op, bool message, int64_t time,
                                                     const int64_t& o_free, const int64_t* other) {
  if constexpr (kRecord) {
    const int64_t& binding = other && *other > o_free ? *other : o_free;
    path_.queued(op, message, time, path_.setter(resource_index(binding)));
  }
}

// The event (op, message) now runs: what it releases, it releases.
template <bool kRecord>
[[gnu::always_inline]] inline void Engine::path_begin(uint32_t op, bool message) {
  if constexpr (kRecord) path_.begin(op, message);
}

template <bool kRecord>
[[gnu::always_inline]] inline void Engine::path_ready(uint32_t op, int64_t time, const int64_t& o_free,
                                                      const int64_t* other) {
  if constexpr (kRecord) {
    const int64_t& binding = other && *other > o_free ? *other : o_free;
    path_.ready(op, time, path_.setter(resource_index(binding)));
  }
}

// A rendezvous send's sender is held until its message is matched at t:
// its CPU and NIC (LogGOPSim charges no ack latency).
template <bool kRecord>
[[gnu::always_inline]] inline void Engine::hold_until(uint32_t sender, uint8_t cpu, uint8_t nic, int64_t t) {
  int64_t& o_free = next_o(sender, cpu);
  int64_t& gs_free = next_gs(sender, nic);
  if constexpr (kRecord) {
    // The match (the running event) holds them only if it comes later.
    if (t > o_free) path_.set(resource_index(o_free), path_.now(PathLink::Hold));
    if (t > gs_free) path_.set(resource_index(gs_free), path_.now(PathLink::Hold));
  }
  o_free = std::max(o_free, t);
  gs_free = std::max(gs_free, t);
}

// A calc of `len` ps (op `op_index` of h) starts at t, its CPU free (o_free: h's, updated here).
template <bool kRecord>
[[gnu::always_inline]] inline void Engine::run_calc(int64_t t, uint32_t h, uint32_t op_index, int64_t len,
                                                    int64_t& o_free) {
  o_free = time_add(t, len, os_noise(h, t, len));
  if constexpr (kRecord)
    path_.set(resource_index(o_free), CriticalPathRecorder::why(op_index, false, PathLink::Cpu));
}

// Send op `op_index` of `h` (`bytes` to `receiver`, whose L, G and O are
// `costs`: p_.costs_for(bytes)) starts at t, its CPU and NIC free (o_free,
// gs_free: h's, updated here): its draws, the sender's costs, and when the
// message reaches the receiver.
template <bool kRecord>
[[gnu::always_inline]] inline Engine::Departure Engine::depart(int64_t t, uint32_t h, uint32_t receiver,
                                                               uint32_t op_index, uint64_t bytes,
                                                               LogGOPSParams::Costs costs, int64_t& o_free,
                                                               int64_t& gs_free) {
  const int64_t G_base = costs.G_fs;
  int64_t G_drawn = G_base;
  int64_t latency = costs.L_ps;
  int64_t g_bytes;
  if (switch_) [[unlikely]] {
    // The authors' semantics (noise/switch_draws.hpp): L and the
    // blocks' G from the near or far set; rendezvous 2 L later.
    const bool far = switch_->is_far(h, receiver);
    latency = switch_->latency_ps(far, latency_rng_.bits(op_index));
    if (bytes > p_.S) latency = time_add(latency, SwitchDraws::kRendezvousExtraL * latency);
    g_bytes = switch_->gap_time_ps(far, bytes, bandwidth_rng_, op_index);
    G_drawn = 0;  // nothing carried: the receiver draws the same blocks
  } else {
    if (bandwidth_) G_drawn = message_G_fs(op_index, G_base);
    const int64_t G = episodes_ ? episode_G_fs(h, t, G_base, G_drawn) : G_drawn;
    if (latency_) latency = time_add(latency, latency_draw_ps(h, t, op_index));
    // The sender's level at t; no message arrives before its send starts.
    if (levels_) latency = std::max(time_add(latency, level_ps(h, t)), -p_.o_ps);
    if (stalls_ && bytes <= stall_max_bytes_) latency = time_add(latency, stall_delay_ps(h, t));
    g_bytes = bytes_time(bytes, G);
  }
  o_free = time_add(t, p_.o_ps, bytes_time(bytes, costs.O_fs), os_noise(h, t, p_.o_ps));
  gs_free = time_add(t, p_.g_ps, g_bytes);
  ++messages_;
  if (departures_) [[unlikely]]
    (*departures_)[op_index] = t;
  // The message's first byte reaches the receiver after o + L; G is
  // charged at the receiver.
  const bool carry = bandwidth_ && G_drawn > 0 && G_drawn <= int64_t{0xFFFFFFFF};
  if constexpr (kRecord) {
    using Rec = CriticalPathRecorder;
    const int64_t arrival = time_add(t, p_.o_ps, latency);
    path_.set(resource_index(o_free), Rec::why(op_index, false, PathLink::Cpu));
    path_.set(resource_index(gs_free), Rec::why(op_index, false, PathLink::NicSend));
    path_.queued(op_index, true, arrival, Rec::why(op_index, false, PathLink::Flight));
    return {arrival, carry ? static_cast<uint32_t>(G_drawn) : 0, g_bytes};
  } else {
    return {time_add(t, p_.o_ps, latency), carry ? static_cast<uint32_t>(G_drawn) : 0, g_bytes};
  }
}

// The message of send op `op_index` (`bytes` from `h`, its costs as in
// depart) is taken by its receiver r at t, r's CPU and NIC free (o_free,
// gr_free: r's, updated here); carried_G is the G its sender drew, or 0;
// under switch draws, switch_gap_ps is the gap its sender drew (depart's
// gap_ps), or -1: the receiver draws the same blocks.
template <bool kRecord>
[[gnu::always_inline]] inline void Engine::arrive(int64_t t, uint32_t h, uint32_t r, uint32_t op_index,
                                                  uint64_t bytes, LogGOPSParams::Costs costs,
                                                  uint32_t carried_G, int64_t& o_free, int64_t& gr_free,
                                                  int64_t switch_gap_ps) {
  int64_t g_bytes;
  if (switch_) [[unlikely]] {
    g_bytes = switch_gap_ps >= 0 ? switch_gap_ps
                                 : switch_->gap_time_ps(switch_->is_far(h, r), bytes, bandwidth_rng_, op_index);
  } else {
    const int64_t G_drawn = carried_G   ? carried_G
                            : bandwidth_ ? message_G_fs(op_index, costs.G_fs)
                                         : costs.G_fs;
    const int64_t G = episodes_ ? episode_G_fs(h, t, costs.G_fs, G_drawn) : G_drawn;
    g_bytes = bytes_time(bytes, G);
  }
  const int64_t o_r = p_.o_recv();
  const int64_t noise_ps = os_noise(r, t, o_r);
  o_free = time_add(t, o_r, noise_ps, unsigned_max(bytes_time(bytes, costs.O_fs), g_bytes));
  gr_free = time_add(t, p_.g_ps, g_bytes);
  if constexpr (kRecord) {
    using Rec = CriticalPathRecorder;
    path_.set(resource_index(o_free), Rec::why(op_index, true, PathLink::Cpu));
    path_.set(resource_index(gr_free), Rec::why(op_index, true, PathLink::NicRecv));
  }
}

// Queues an event for processing at `host` (a message's receiver); a
// message may carry the G its sender drew, so the receiver need not draw it
// again. Fields are passed one by one: an Event built on the stack and read
// back whole stalls on store forwarding.
template <bool kWindowed>
[[gnu::always_inline]] inline void Engine::push_event(int64_t time, uint64_t ts, uint32_t op,
                                                      uint32_t host_kind, uint32_t host,
                                                      uint32_t carried_G) {
  if constexpr (kWindowed)
    windows_.push(time, static_cast<uint32_t>(ts), op, host_kind, host, carried_G);
  else
    queue_.push({time, ts, op, host_kind});
}

}  // namespace cloudnoise
