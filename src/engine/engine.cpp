#include "engine.hpp"
#include "engine_steps.hpp"
#include "general_loop.hpp"

#include "input_limits.hpp"
#include "noise/normal_scores.hpp"
#include "round_to_int.hpp"
#include "sim_time.hpp"

#include <algorithm>
#include <unordered_map>

namespace cloudnoise {

namespace {

uint32_t checked_record_bits(uint32_t bits) {
  if (bits < 1 || bits > 28) throw std::invalid_argument("stamp_record_bits must be in [1, 28]");
  return bits;
}

}  // namespace

[[noreturn, gnu::noinline, gnu::cold]] void throw_size_overflow(uint64_t bytes) {
  throw std::overflow_error("message of " + std::to_string(bytes) + " bytes overflows the simulated time range");
}

[[gnu::noinline, gnu::cold]] void throw_time_overflow() {
  throw std::overflow_error(
      "simulated time overflows its range (int64 picoseconds, about 106 days): the run is too long, "
      "or a time or noise value is out of range");
}

Engine::Engine(const Schedule& schedule, const LogGOPSParams& params, ReadyOrder order,
               Processing processing, uint32_t stamp_record_bits, bool general_only)
    : sched_(schedule),
      p_(params),
      order_(order),
      processing_(processing),
      ranks_(schedule.num_ranks()),
      ncpu_(schedule.num_cpus()),
      nnic_(schedule.num_nics()),
      windows_(checked_record_bits(stamp_record_bits)) {
  if (p_.L_ps < 0 || p_.o_ps < 0 || p_.g_ps < 0 || p_.G_fs < 0 || p_.O_fs < 0 || p_.O_rendezvous_fs < -1 ||
      p_.o_r_ps < -1)
    throw std::invalid_argument("LogGOPS parameters must not be negative");
  // An o or L is an activity's length: at most one input time (input_limits.hpp).
  if (p_.L_ps > limits::kMaxTimePs || p_.o_ps > limits::kMaxTimePs || p_.g_ps > limits::kMaxTimePs ||
      p_.o_r_ps > limits::kMaxTimePs)
    throw std::invalid_argument("LogGOPS times L, o, g must be at most 10^17 ps (10^5 s)");
  for (size_t k = 0; k < p_.classes.size(); ++k) {
    const SizeClass& c = p_.classes[k];
    if (c.L_ps < 0 || c.G_fs < 0 || c.O_fs < 0)
      throw std::invalid_argument("size class parameters must not be negative");
    if (k == 0 ? c.min_bytes != 0 : c.min_bytes <= p_.classes[k - 1].min_bytes)
      throw std::invalid_argument("size classes must start at 0 bytes and grow strictly");
  }
  if (ranks_ >= (1u << 29)) throw std::invalid_argument("at most 2^29 ranks are supported");
  posted_ = PostedReceives(ranks_);
  if (sched_.in_order()) channel_order_.resize(ranks_);
  unexpected_.resize(ranks_);
  index_templates();
  // The exchange plan needs the time-0 lists: its channels match in their
  // posting order.
  if (!general_only) exchange_ = ExchangePlan::of(sched_, initial_ops_, initial_begin_, initial_count_);
  if (exchange_) {
    for (const uint64_t bytes : exchange_->sizes()) exchange_sizes_.push_back({bytes, p_.costs_for(bytes)});
    exchange_packed_ = sched_.num_ops() + exchange_->total_sends() < (uint64_t{1} << 32);
    exchange_n_ = exchange_->templates().front().n;
    exchange_tb_ = exchange_->templates().front().tb;
    exchange_counters_ = exchange_->counters_per_rank();
    index_exchange_releases();
  }
  // Every pushed event takes a stamp: at most one per op and one per send.
  // With one CPU per host an op is never queued before the event that
  // released it; on an idle second CPU it can be (at that CPU's free time),
  // and its message could then reach another host inside the window.
  windows_allowed_ = ncpu_ == 1 && 2 * static_cast<uint64_t>(sched_.num_ops()) < (uint64_t{1} << 32);
  // Rendezvous completions cross hosts without lookahead: the windows then
  // track hosts' visits to place them (windowed_events.hpp).
  for (uint32_t t = 0; t < sched_.num_template_ops() && !rendezvous_; ++t) {
    const Op& op = sched_.stored_op(t);
    if (op.kind != OpKind::Calc && op.amount > p_.S) rendezvous_ = true;
  }
}

// Per template, once: counter slots for ops with several dependencies, and
// the ops ready at time 0 in the order they are queued (by kind, as
// order_ready sorts them; the order depends only on the template's kinds,
// so every rank of a template gets the same permutation).
void Engine::index_templates() {
  multi_slot_.assign(sched_.num_template_ops(), 0);
  multi_base_.resize(ranks_);
  initial_begin_.resize(ranks_);
  initial_count_.resize(ranks_);
  struct TemplateInfo {
    uint32_t multi, initial_begin, initial_count;
  };
  // Keyed by where a template starts and its length: an empty rank's
  // template starts where the next one does.
  std::unordered_map<uint64_t, TemplateInfo> seen;
  uint64_t base = 0;
  for (uint32_t r = 0; r < ranks_; ++r) {
    const uint32_t tb = sched_.template_begin(r);
    const uint32_t n = sched_.rank_end(r) - sched_.rank_begin(r);
    const uint64_t key = uint64_t{n} << 32 | tb;
    auto it = seen.find(key);
    if (it == seen.end()) {
      uint32_t multi = 0;
      host_ops_.clear();
      for (uint32_t k = 0; k < n; ++k) {
        const Op& op = sched_.stored_op(tb + k);
        if (op.num_deps > 1) multi_slot_[tb + k] = multi++;
        if (op.num_deps == 0) host_ops_.push_back(sched_.rank_begin(r) + k);
      }
      order_ready(r, host_ops_);
      initial_reordered_ |= reordered_;
      reordered_ = false;
      const auto begin = static_cast<uint32_t>(initial_ops_.size());
      for (const uint32_t i : host_ops_) initial_ops_.push_back(i - sched_.rank_begin(r));
      it = seen.emplace(key, TemplateInfo{multi, begin, static_cast<uint32_t>(host_ops_.size())}).first;
    }
    multi_base_[r] = base;
    base += it->second.multi;
    initial_begin_[r] = it->second.initial_begin;
    initial_count_[r] = it->second.initial_count;
    initial_total_ += it->second.initial_count;
  }
  multi_total_ = base;
  check_posted_at_zero();
  index_initial_active();
}

// Which of each initial list's ops process_initial runs: the posted
// receives need nothing more than their stamps, and visiting them was most
// of a 16K-rank dissemination's start.
void Engine::index_initial_active() {
  initial_active_.clear();
  initial_active_begin_.resize(ranks_);
  initial_active_count_.resize(ranks_);
  // Keyed by the list's start and length: an empty list starts where the
  // next one does.
  std::unordered_map<uint64_t, std::pair<uint32_t, uint32_t>> seen;
  for (uint32_t r = 0; r < ranks_; ++r) {
    const uint64_t key = uint64_t{initial_count_[r]} << 32 | initial_begin_[r];
    auto [it, fresh] = seen.try_emplace(key);
    if (fresh) {
      const auto begin = static_cast<uint32_t>(initial_active_.size());
      const uint32_t* local = initial_ops_.data() + initial_begin_[r];
      for (uint32_t k = 0; k < initial_count_[r]; ++k) {
        const Op& op = sched_.stored_op(sched_.template_begin(r) + local[k]);
        if (!(initial_recvs_posted_ && op.kind == OpKind::Recv)) initial_active_.push_back(k);
      }
      it->second = {begin, static_cast<uint32_t>(initial_active_.size()) - begin};
    }
    initial_active_begin_[r] = it->second.first;
    initial_active_count_[r] = it->second.second;
  }
}

// Every rank posts the receives it starts with at time 0, the same way in
// every repetition: unless one of them releases an op when it starts
// (irequires), whose timing then depends on the noise, they are posted once
// (build_posted_at_zero) and each repetition starts from a copy. Those
// receives were a third of the 16K-rank dissemination's events. Decided per
// initial list, as ranks share them.
void Engine::check_posted_at_zero() {
  initial_recvs_posted_ = true;
  std::vector<uint64_t> seen;
  for (uint32_t h = 0; h < ranks_ && initial_recvs_posted_; ++h) {
    const uint64_t key = uint64_t{initial_count_[h]} << 32 | initial_begin_[h];
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    if (seen.size() < 64) seen.push_back(key);
    const uint32_t* local = initial_ops_.data() + initial_begin_[h];
    for (uint32_t k = 0; k < initial_count_[h]; ++k) {
      const Op& op = sched_.stored_op(sched_.template_begin(h) + local[k]);
      if (op.kind == OpKind::Recv && op.start_count != 0) initial_recvs_posted_ = false;
    }
  }
}

// The general loop's copy to start from, built when it first runs: an
// exchange (exchange_loop.hpp) never needs it, and the 16K-rank ring's
// holds 268 million receives.
void Engine::build_posted_at_zero() {
  posted_at_zero_ = PostedReceives(ranks_);
  for (uint32_t h = 0; h < ranks_; ++h) {
    const uint32_t* local = initial_ops_.data() + initial_begin_[h];
    for (uint32_t k = 0; k < initial_count_[h]; ++k) {
      const Op& op = sched_.stored_op(sched_.template_begin(h) + local[k]);
      if (op.kind == OpKind::Recv) posted_at_zero_.push(h, {peer_of(h, op), op.tag, local[k]});
    }
  }
  posted_at_zero_built_ = true;
}

int64_t Engine::os_noise_lookup(uint32_t host, int64_t at, int64_t len) {
  size_t cursor = static_cast<size_t>(os_cursor(host));
  const int64_t noise = os_->noise(at, len, cursor);
  os_cursor(host) = static_cast<int64_t>(cursor);
  if (len == p_.o_ps) {
    const QuietSpan q = os_->quiet_span(at, len, cursor);
    int64_t* quiet = os_quiet(host);
    quiet[0] = q.lo;
    quiet[1] = q.hi;
    quiet[2] = q.end;
  }
  return noise;
}

void Engine::release_started(uint32_t op, uint32_t host) {
  for (const uint32_t succ : sched_.start_successors(host, op)) release(host, succ);
}

void Engine::mark_ready(uint32_t op) {
  if (track_ready_) [[unlikely]]
    ready_bits_[op >> 6] |= uint64_t{1} << (op & 63);
}

// The drawn G's tables for a fraction table, one per base G (a handful at
// most: the size classes'), built once and kept while the table is the
// same (held, so that its address cannot come back as another table's).
void Engine::tabulate_gaps(const std::shared_ptr<const QuantileTable>& fraction) {
  if (!fraction || fraction == gaps_for_) return;
  gaps_for_ = fraction;
  std::vector<int64_t> bases;
  if (p_.classes.empty()) bases.push_back(p_.G_fs);
  for (const SizeClass& c : p_.classes)
    if (std::find(bases.begin(), bases.end(), c.G_fs) == bases.end() && bases.size() < 8) bases.push_back(c.G_fs);
  gap_tables_.clear();
  for (const int64_t G_fs : bases) {
    DrawnGapTable table(fraction, G_fs);
    // A table of mostly formula buckets would only add a load to each draw:
    // a wide fraction range, or a large G, moves G by several steps across
    // a bucket (aws-hpc's fit: ~6 steps; azure-hpc's: at most 1).
    if (table.tabulated() >= 2048) gap_tables_.push_back(std::move(table));
  }
}

// Under persistent drops, a message's G at time `t`: the slower of its own
// draw (G) and its sender's episode at t. The sender looks it up when it
// sends (its NIC's gap) and the receiver when the bytes arrive (LogGOPS
// charges G there): the episode is a state of the sender in time, so a
// message that meets a drop's start or end between the two is charged at
// each end as the drop stood then. Neither needs the other's time, so
// nothing more travels with the message and both processing orders agree.
int64_t Engine::episode_G_fs(uint32_t sender, int64_t t, int64_t G_base, int64_t G) {
  const int64_t s = episodes_->wrap(time_add(t, episode_offset_[sender]));
  BandwidthEpisodes::Span& span = episode_span_[sender];
  if (!span.holds(s)) span = episodes_->span_at(s);
  const double f = span.fraction;
  return f >= 1.0 ? G : std::max(G, round_to_int(static_cast<double>(G_base) / f));
}

// Under latency stalls, what a message `sender` sends at `t` waits: the
// rest of the sender's stall at t, 0 outside one. Keyed by the sender's
// time alone, like the episodes, so both processing orders agree; it only
// adds to L, so the windows' lookahead (the least latency) still holds.
int64_t Engine::stall_delay_ps(uint32_t sender, int64_t t) {
  if (!stall_on_[sender]) return 0;
  const int64_t s = stalls_->wrap(time_add(t, stall_offset_[sender]));
  LatencyStalls::Span& span = stall_span_[sender];
  if (!span.holds(s)) span = stalls_->span_at(s);
  return span.delay(s);
}

// Each host's offset into a table of `period_ps` that every host of a
// repetition reads from its own drawn point (all from the first draw when
// `shared`): a noise in time per host, drawn per (seed, repetition).
static void host_offsets(std::vector<int64_t>& out, const CounterRng& rng, int64_t period_ps, uint32_t ranks,
                         bool shared = false) {
  const double period = static_cast<double>(period_ps);
  out.resize(ranks);
  for (uint32_t r = 0; r < ranks; ++r)
    out[r] = std::min(static_cast<int64_t>(rng.uniform(shared ? 0 : r) * period), period_ps - 1);
}

// A host's value of a levels table at its time t, read from its offset;
// `span` keeps its last lookup (a host's lookups move forward in time).
static int64_t value_at(const LatencyLevels& table, int64_t offset, LatencyLevels::Span& span, int64_t t) {
  const int64_t s = table.wrap(time_add(t, offset));
  if (!span.holds(s)) span = table.span_at(s);
  return span.value;
}

// Under latency levels, what is added to the latency of a message `sender`
// sends at `t`: the sender's level at t (may be negative). Keyed by the
// sender's time alone, like the stalls, so both processing orders agree; a
// negative level shortens the windows' lookahead (window_width).
int64_t Engine::level_ps(uint32_t sender, int64_t t) {
  return value_at(*levels_, level_offset_[sender], level_span_[sender], t);
}

// latency_draw_ps under a latency state: the message's own uniform u0 (the
// plain draw's, CounterRng::uniform's top 53 bits over 2^53; 0 moved to
// 2^-54 so that its normal score is finite, the largest, 1 - 2^-53, is
// below 1 already) as a normal score, mixed with the sender's state at t;
// the mix is a standard normal again, so its Phi is uniform and the excess
// keeps latency_'s distribution. The state is keyed by the sender's time
// alone, like the levels, so both processing orders agree.
int64_t Engine::state_draw_ps(uint32_t sender, int64_t t, uint64_t bits) {
  const uint64_t top53 = bits >> 11;
  const double u0 = top53 ? static_cast<double>(top53) * 0x1.0p-53 : 0x1.0p-54;
  const double z = static_cast<double>(value_at(*state_, state_offset_[sender], state_span_[sender], t)) * 1e-6;
  double u = u0;
  switch (state_part_) {
    case StatePart::All:
      u = normal_cdf(state_w_ * z + own_w_ * normal_quantile(u0));
      break;
    case StatePart::Body:
      // the tail as drawn; the body's own uniform u0 / q (at 1: an infinite score, u = q)
      if (u0 <= state_split_) u = state_split_ * normal_cdf(state_w_ * z + own_w_ * normal_quantile(u0 / state_split_));
      break;
    case StatePart::Tail: {
      const double a = normal_cdf((state_split_score_ - state_w_ * z) / own_w_);  // the body's share now
      if (u0 <= a)
        u = state_split_ * (u0 / a);
      else
        u = state_split_ + (1.0 - state_split_) * ((u0 - a) / (1.0 - a));
      break;
    }
    case StatePart::Both: {
      const double zt =
          static_cast<double>(value_at(*tail_state_, tail_offset_[sender], tail_span_[sender], t)) * 1e-6;
      const double a = normal_cdf((state_split_score_ - tail_w_ * zt) / tail_own_w_);
      if (u0 <= a)
        u = state_split_ * normal_cdf(state_w_ * z + own_w_ * normal_quantile(u0 / a));
      else
        u = state_split_ + (1.0 - state_split_) * ((u0 - a) / (1.0 - a));
      break;
    }
  }
  return round_to_int(latency_->quantile(u));
}

// Orders a host's newly executable ops as they are queued. LogGOPSim sorts
// them by kind with std::sort (not stable) before stamping them; sorting the
// same sequence with the same comparator yields the same order, so ties
// break alike. ReadyOrder::Program sorts stably instead.
void Engine::order_ready(uint32_t host, std::vector<uint32_t>& ops) {
  auto kind_before = [this, host](uint32_t a, uint32_t b) {
    return sched_.template_op(host, a).kind < sched_.template_op(host, b).kind;
  };
  if (ops.size() <= 16) {
    // libstdc++'s std::sort is a plain insertion sort up to 16 elements,
    // hence stable: the same order in both modes, without a call.
    for (size_t i = 1; i < ops.size(); ++i) {
      const uint32_t v = ops[i];
      size_t j = i;
      for (; j > 0 && kind_before(v, ops[j - 1]); --j) ops[j] = ops[j - 1];
      ops[j] = v;
    }
  } else if (order_ == ReadyOrder::LogGOPSim) {
    std::sort(ops.begin(), ops.end(), kind_before);
    uint32_t last_recv = 0;
    bool first = true;
    for (const uint32_t i : ops) {
      if (sched_.template_op(host, i).kind != OpKind::Recv) continue;
      if (!first && i < last_recv) reordered_ = true;
      last_recv = i;
      first = false;
    }
  } else {
    // Stable by kind: sends, then receives, then calcs, each in program order.
    sorted_.clear();
    for (const OpKind k : {OpKind::Send, OpKind::Recv, OpKind::Calc})
      for (const uint32_t i : ops)
        if (sched_.template_op(host, i).kind == k) sorted_.push_back(i);
    ops.swap(sorted_);
  }
}

void Engine::reset(const NoiseModel& noise, uint64_t seed, uint64_t repetition) {
  os_ = noise.os.get();
  latency_ = noise.latency_excess_ps.get();
  bandwidth_ = noise.bandwidth_fraction.get();
  tabulate_gaps(noise.bandwidth_fraction);
  if ((noise.bandwidth_episodes && noise.episode_process) || (noise.latency_stalls && noise.stall_process))
    throw std::invalid_argument("a noise part takes a table or a process that draws one, not both");
  // A drawn table is read by every host from its own offset, or by all
  // from one for stalls of the whole system.
  episodes_ = noise.episode_process ? drawn_episodes_.get(noise.episode_process, seed, repetition, ranks_)
                                    : noise.bandwidth_episodes.get();
  stalls_ = noise.stall_process ? drawn_stalls_.get(noise.stall_process, seed, repetition,
                                                    noise.latency_stalls_shared ? 1 : ranks_)
                                : noise.latency_stalls.get();
  levels_ = noise.level_process ? drawn_levels_.get(noise.level_process, seed, repetition,
                                                    noise.latency_levels_shared ? 1 : ranks_)
                                : nullptr;
  // The latency state: a weight in [0, 1) (0: none), and a per-message
  // excess to correlate.
  const double w = noise.latency_state_weight;
  if (!(w >= 0.0 && w < 1.0))
    throw std::invalid_argument("the latency state's weight must be in [0, 1) (0: no state), not " + std::to_string(w));
  const bool state = noise.latency_state_process && w > 0.0;
  if (state && !latency_)
    throw std::invalid_argument(
        "a latency state correlates the per-message latency excess: it needs latency_excess_ps");
  state_ = state ? drawn_state_.get(noise.latency_state_process, seed, repetition, ranks_, RngStream::StateTables)
                 : nullptr;
  state_w_ = state ? std::sqrt(w) : 0.0;
  own_w_ = state ? std::sqrt(1.0 - w) : 1.0;
  state_part_ = noise.latency_state_part;
  state_split_ = noise.latency_state_split;
  if (state && state_part_ != StatePart::All && !(state_split_ > 0.0 && state_split_ < 1.0))
    throw std::invalid_argument("the latency state's split between body and tail must be a quantile in (0, 1), not " +
                                std::to_string(state_split_));
  state_split_score_ =
      state && (state_part_ == StatePart::Tail || state_part_ == StatePart::Both) ? normal_quantile(state_split_) : 0.0;
  const double wt = noise.latency_state_tail_weight;
  const bool both = state && state_part_ == StatePart::Both;
  if (both && !(noise.latency_state_tail_process && wt > 0.0 && wt < 1.0))
    throw std::invalid_argument(
        "a latency state of the body and the tail needs the tail's own process and a tail weight in (0, 1), not " +
        std::to_string(wt));
  tail_state_ = both ? drawn_tail_state_.get(noise.latency_state_tail_process, seed, repetition, ranks_,
                                             RngStream::TailStateTables)
                     : nullptr;
  tail_w_ = both ? std::sqrt(wt) : 0.0;
  tail_own_w_ = both ? std::sqrt(1.0 - wt) : 1.0;
  switch_ = noise.switch_draws.get();
  switch_nominal_ = noise.switch_nominal.get();
  // Only a latency drawn per message can let one overtake another sent
  // earlier on its channel (the sender's sends start in time order).
  order_arrivals_ = sched_.in_order() && (latency_ || stalls_ || levels_ || switch_);
  if (order_arrivals_) channel_order_.clear();
  if (switch_ && (latency_ || bandwidth_ || episodes_ || stalls_ || levels_ || state_))
    throw std::invalid_argument(
        "switch draws replace L and G: they cannot be combined with latency excess, bandwidth fractions, episodes, "
        "a latency state, latency stalls or latency levels");
  seed_ = seed;
  rep_ = repetition;
  if (departures_) departures_->assign(sched_.num_ops(), -1);
  latency_rng_ = CounterRng(seed, repetition, RngStream::Latency);
  bandwidth_rng_ = CounterRng(seed, repetition, RngStream::Bandwidth);
  met_.assign(multi_total_, 0);
  if (track_ready_) ready_bits_.assign((sched_.num_ops() + 63) / 64, 0);
  ready_count_ = 0;
  // The OS-noise fields only under OS noise: without them a host's state
  // is 32 bytes (one CPU and NIC), and a 16K-rank run's is 512 KiB instead
  // of 1 MiB, more of it staying in the core's L2 between a host's events.
  const size_t times = ncpu_ + 2 * static_cast<size_t>(nnic_);
  stride_ = os_ ? times + 5 : (times + 3) / 4 * 4;
  host_state_.assign(static_cast<size_t>(ranks_) * stride_, 0);
  queue_.clear();
  windowed_ = false;
  pending_.clear();
  reordered_ = false;
  stamp_ = 0;
  messages_ = 0;
  if (episodes_) {
    // As the OS-noise trace: each host reads the episodes from its own offset.
    host_offsets(episode_offset_, CounterRng(seed, repetition, RngStream::EpisodeOffsets), episodes_->period_ps(),
                 ranks_);
    episode_span_.assign(ranks_, BandwidthEpisodes::Span{});
  }
  if (stalls_) {
    // Each host reads the stalls from its own offset; a system-wide state
    // puts every host at the first draw.
    const CounterRng rng(seed, repetition, RngStream::StallOffsets);
    stall_span_.assign(ranks_, LatencyStalls::Span{});
    // Which hosts stall at all: each, independently, with the given share (all of them at 1);
    // drawn from counters past the offsets' so that the offsets stay as they were.
    constexpr uint64_t kHostDraws = uint64_t{1} << 40;
    stall_on_.assign(ranks_, 1);
    if (noise.latency_stalls_hosts < 1.0)
      for (uint32_t r = 0; r < ranks_; ++r) stall_on_[r] = rng.uniform(kHostDraws + r) < noise.latency_stalls_hosts;
    host_offsets(stall_offset_, rng, stalls_->period_ps(), ranks_, noise.latency_stalls_shared);
    stall_max_bytes_ = noise.latency_stalls_max_bytes;
  }
  if (levels_) {
    // Each host reads the levels from its own offset, or all from one.
    host_offsets(level_offset_, CounterRng(seed, repetition, RngStream::LevelOffsets), levels_->period_ps(), ranks_,
                 noise.latency_levels_shared);
    level_span_.assign(ranks_, LatencyLevels::Span{});
  }
  if (state_) {
    // Each host reads the state from its own offset, as the levels.
    host_offsets(state_offset_, CounterRng(seed, repetition, RngStream::StateOffsets), state_->period_ps(), ranks_);
    state_span_.assign(ranks_, LatencyLevels::Span{});
  }
  if (tail_state_) {
    host_offsets(tail_offset_, CounterRng(seed, repetition, RngStream::TailStateOffsets), tail_state_->period_ps(),
                 ranks_);
    tail_span_.assign(ranks_, LatencyLevels::Span{});
  }
  if (noise.os) {
    // Each rank starts reading the trace at a uniformly drawn offset; with
    // co-scheduling all ranks share the first draw.
    const CounterRng rng(seed, repetition, RngStream::OsOffsets);
    const double span = static_cast<double>(noise.os->span_ps());
    for (uint32_t r = 0; r < ranks_; ++r) {
      os_offset(r) = noise.os_phase_ps >= 0
                         ? noise.os_phase_ps
                         : static_cast<int64_t>(rng.uniform(noise.os_cosched ? 0 : r) * span);
      // A rank's first activity is near its offset: start its cursor there.
      os_cursor(r) = static_cast<int64_t>(noise.os->locate(os_offset(r) % noise.os->span_ps()));
      int64_t* quiet = os_quiet(r);
      quiet[0] = 1;  // empty
      quiet[1] = 0;
    }
  }
}

// The general loop's receives posted at time 0, and no message waiting.
void Engine::post_initial_receives() {
  if (initial_recvs_posted_ && !posted_at_zero_built_) build_posted_at_zero();
  if (initial_recvs_posted_)
    posted_ = posted_at_zero_;
  else
    posted_.clear();
  for (auto& q : unexpected_) q.clear();
}

// For the exchange loop: what each simple release queues, in the order the
// general loop queues it (order_ready on a rank of the op's template gives
// the same order on every rank: it compares kinds only), and the late
// receives' state rows (1: posted at time 0).
void Engine::index_exchange_releases() {
  const std::vector<uint32_t>& succ = exchange_->successors();
  release_sorted_.assign(succ.size(), 0);
  std::vector<uint8_t> done(sched_.num_template_ops(), 0);
  for (const ExchangePlan::Template& t : exchange_->templates()) {
    const uint32_t base = sched_.rank_begin(t.rank);
    for (uint32_t k = 0; k < t.n; ++k) {
      if (done[t.tb + k]) continue;
      done[t.tb + k] = 1;
      const ExchangePlan::Release& rel = exchange_->release(t.tb + k);
      if (!rel.simple || rel.count == 0) continue;
      host_ops_.clear();
      for (uint32_t j = 0; j < rel.count; ++j) host_ops_.push_back(base + succ[rel.begin + j]);
      if (host_ops_.size() > 1) order_ready(t.rank, host_ops_);
      for (uint32_t j = 0; j < rel.count; ++j) {
        const uint32_t local = host_ops_[j] - base;
        release_sorted_[rel.begin + j] = ExchangePlan::ready_op(local, sched_.stored_op(t.tb + local).kind);
      }
    }
  }
  reordered_ = false;
  if (exchange_->late_receives()) {
    recv_state_row_.clear();
    recv_state_row_begin_.clear();
    for (const ExchangePlan::Template& t : exchange_->templates()) {
      recv_state_row_begin_.push_back(static_cast<uint32_t>(recv_state_row_.size()));
      for (uint32_t k = 0; k < t.n; ++k) {
        const Op& op = sched_.stored_op(t.tb + k);
        recv_state_row_.push_back(op.kind == OpKind::Recv && op.num_deps == 0 ? 1 : 0);
      }
    }
  }
}

// The one place that picks a repetition's event loop (after reset: it
// looks at the noise). A specialised loop where the schedule has its shape;
// the general loop where it is asked for (general_only: exchange_ is then
// never made), where windows are asked for (Processing::WindowedRendezvous),
// for a deadlocked repetition's second run (it names the stuck ops), and
// where the general loop's windows (Auto: eager messages under noise) beat
// the exchange loop: on exchanges of a few rounds. Measured (one thread):
// the 16K-rank 16 B dissemination (14 sends a rank) under
// azure-hpc's and OS noise ran 0.09 s a repetition in windows and 0.12 s in
// the exchange loop; the 4,096-rank 128 MiB paper ring (32 KiB segments,
// eager, 4,096 sends a rank) under aws-hpc-metal's network noise 32 s in
// windows and 4.9 s in the exchange loop. Counted by the rank that sends
// most (a tree's root, the chain's rank 0): the 16K-rank 8 B binomial
// broadcast under Daint's network noise ran 4-5 ms a repetition either way
// (windows or, sequential, the exchange loop).
Loop Engine::choose_loop() const {
  constexpr uint32_t kWindowsUpToSends = 64;
  if (!exchange_ || track_ready_ || processing_ == Processing::WindowedRendezvous || order_arrivals_)
    return Loop::General;
  if (processing_ == Processing::Auto && exchange_->max_sends_per_rank() <= kWindowsUpToSends && window_width() != 0)
    return Loop::General;
  return Loop::Exchange;
}

// Windows as wide as the lookahead: the least time from processing an
// event to a message reaching another host. 0 when there is none to use.
int64_t Engine::window_width() const {
  // Without noise every host runs in lockstep: ties everywhere, with
  // chains of pushers as long as the run (see stamp_order.hpp).
  const bool switch_random = switch_ && switch_->random();
  const bool wanted = processing_ == Processing::WindowedRendezvous ||
                      (processing_ == Processing::Auto && !rendezvous_);
  if (!windows_allowed_ || !wanted ||
      !(os_ || latency_ || bandwidth_ || episodes_ || stalls_ || levels_ || switch_random))
    return 0;
  // Each window keeps its pushers' times as 32-bit offsets. A latency state
  // draws its excess from latency_ too, so within latency_'s range.
  const int64_t least_excess = latency_ ? round_to_int(latency_->min()) : 0;
  int64_t least_L = switch_ ? switch_->min_latency_ps() : p_.min_L() + least_excess;
  // A negative level lowers it, but depart keeps every latency at -o or more.
  if (levels_) least_L = std::max(least_L + std::min<int64_t>(0, levels_->min_value_ps()), -p_.o_ps);
  const int64_t lookahead = std::min<int64_t>(p_.o_ps + least_L, int64_t{1} << 31);
  return lookahead < 2 ? 0 : lookahead;
}

// The loops with the critical path's hooks: compiled in general_loop_recorded.cpp.
extern template RunResult Engine::simulate_loops<true>(const NoiseModel&, uint64_t, uint64_t);

RunResult Engine::simulate(const NoiseModel& noise, uint64_t seed, uint64_t repetition) {
  return record_path_ ? simulate_loops<true>(noise, seed, repetition) : simulate_loops<false>(noise, seed, repetition);
}

RunResult Engine::result(bool windowed) const {
  RunResult res;
  res.host_end_ps.resize(ranks_);
  for (uint32_t r = 0; r < ranks_; ++r) {
    const auto first = host_state_.begin() + static_cast<std::ptrdiff_t>(r * stride_);
    res.host_end_ps[r] = *std::max_element(first, first + ncpu_);
    res.max_end_ps = std::max(res.max_end_ps, res.host_end_ps[r]);
  }
  res.events = stamp_;
  res.messages = messages_;
  res.windowed = windowed;
  res.loop = loop_ == Loop::Exchange ? "exchange" : "general";
  return res;
}

void Engine::check_stop() {
  stop_countdown_ = kStopPoll;
  if (stop_ && stop_->load(std::memory_order_relaxed)) throw Interrupted();
}

RunResult Engine::run(const NoiseModel& noise, uint64_t seed, uint64_t repetition) {
  RunResult res = simulate(noise, seed, repetition);
  // An exchange that ran every op took every message (exchange_plan.hpp).
  bool complete = ready_count_ == sched_.num_ops();
  for (uint32_t r = 0; r < ranks_ && complete && loop_ == Loop::General; ++r)
    complete = posted_.empty(r) && unexpected_[r].empty();
  if (!complete) {
    // The same repetition again, deterministic, now marking which ops
    // became ready: the report names each stuck rank's first waiting op.
    // (Marked on every run, the bits cost a scattered load and store per
    // op and a clear per repetition: 4.6% of the samples of a 1,024-rank
    // ring's event loop fell on that load; timings on the shared 2-core
    // machine could not resolve the difference, within +-10%.)
    track_ready_ = true;
    try {
      simulate(noise, seed, repetition);
    } catch (...) {
      track_ready_ = false;
      throw;
    }
    track_ready_ = false;
    report_deadlock();
  }
  if (record_path_) res.path = critical_path(res);
  return res;
}

std::string Engine::describe(uint32_t i) const {
  const Op op = sched_.op(i);
  auto who = [](uint32_t r) { return r == kAny ? std::string("-1") : std::to_string(r); };
  std::string s;
  switch (op.kind) {
    case OpKind::Send:
      s = "send " + std::to_string(op.amount) + "b to " + who(op.peer) + " tag " + who(op.tag);
      break;
    case OpKind::Recv:
      s = "recv " + std::to_string(op.amount) + "b from " + who(op.peer) + " tag " + who(op.tag);
      break;
    case OpKind::Calc:
      s = "calc " + std::to_string(op.amount / 1000);
      break;
  }
  const uint64_t line = sched_.line_of(i);
  s += line ? " (line " + std::to_string(line) + ")" : " (op " + std::to_string(i - sched_.rank_begin(sched_.rank_of(i))) + ")";
  return s;
}

void Engine::report_deadlock() const {
  std::vector<std::string> stuck;
  uint32_t count = 0;
  for (uint32_t r = 0; r < ranks_; ++r) {
    std::string why;
    uint32_t first_posted = kNoMatch;
    for (const MatchEntry& m : posted_.snapshot(r, [&](uint32_t local) { return posted_key(r, local); }))
      first_posted = std::min(first_posted, m.op + sched_.rank_begin(r));
    const std::vector<MatchEntry> unexpected = unexpected_[r].snapshot();
    uint32_t first_waiting = kNoMatch;
    for (uint32_t i = sched_.rank_begin(r); i < sched_.rank_end(r); ++i)
      if (sched_.template_op(r, i).num_deps != 0 && !(ready_bits_[i >> 6] >> (i & 63) & 1)) {
        first_waiting = i;
        break;
      }
    if (first_posted != kNoMatch)
      why = describe(first_posted) + " never matched";
    else if (!unexpected.empty())
      why = "message from rank " + std::to_string(unexpected.front().src) + " (" +
            describe(unexpected.front().op) + ") never received";
    else if (first_waiting != kNoMatch)
      why = describe(first_waiting) + " waits on operations that never finish";
    if (why.empty()) continue;
    ++count;
    if (stuck.size() < 6) stuck.push_back("rank " + std::to_string(r) + ": " + why);
  }
  std::string msg = "schedule cannot complete (stopped after " + std::to_string(stamp_) +
                    " events): " + std::to_string(count) + " rank" + (count == 1 ? "" : "s") +
                    " stuck; ";
  for (size_t i = 0; i < stuck.size(); ++i) msg += (i ? "; " : "") + stuck[i];
  if (count > stuck.size()) msg += "; ...";
  if (initial_reordered_ || reordered_) throw ReorderedDeadlockError(msg);
  throw DeadlockError(msg);
}

}  // namespace cloudnoise
