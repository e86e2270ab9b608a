// The LogGOPS discrete-event engine. Semantics are LogGOPSim's, event for
// event (see engine.cpp for each rule); the data layout is ours: flat arrays
// indexed by op and host, a calendar queue of 24-byte events (event_queue.hpp),
// and state that is reset, not reallocated, between repetitions. Under
// noise a repetition is processed host by host in time windows instead
// (windowed_events.hpp), with the same results bit for bit.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "channel_order.hpp"
#include "critical_path.hpp"
#include "event_queue.hpp"
#include "exchange_plan.hpp"
#include "loggops_params.hpp"
#include "match_queue.hpp"
#include "noise/bandwidth_episodes.hpp"
#include "noise/counter_rng.hpp"
#include "noise/drawn_gap.hpp"
#include "noise/episode_process.hpp"
#include "noise/latency_levels.hpp"
#include "noise/latency_stalls.hpp"
#include "noise/os_noise_trace.hpp"
#include "noise/level_process.hpp"
#include "noise/quantile_table.hpp"
#include "noise/stall_process.hpp"
#include "noise/switch_draws.hpp"
#include "posted_receives.hpp"
#include "released_ops.hpp"
#include "schedule.hpp"
#include "windowed_events.hpp"

namespace cloudnoise {

// Noise applied to one run. Every part is optional.
// Which part of the per-message latency distribution a latency state moves
// (NoiseModel::latency_state_part).
enum class StatePart { All, Body, Tail, Both };

struct NoiseModel {
  // OS noise: a detour trace charged to CPU activities (o, O, calc).
  std::shared_ptr<const OsNoiseTrace> os;
  // All ranks read the trace from one offset (co-scheduled noise) instead of
  // independent offsets.
  bool os_cosched = false;
  // When >= 0, every rank reads the trace from this fixed offset (ps)
  // instead of a drawn one: a reproducible phase for what-if studies.
  int64_t os_phase_ps = -1;
  // Per-message latency excess in picoseconds, added to L.
  std::shared_ptr<const QuantileTable> latency_excess_ps;
  // Per-message bandwidth as a fraction of peak in (0, 1]; G is divided by it.
  std::shared_ptr<const QuantileTable> bandwidth_fraction;
  // Noise in time is read, in repetition r, from r's own realization: a
  // process (a model) draws r's table from (seed, r); a given table (data)
  // serves every repetition, read from offsets drawn from (seed, r). A part
  // takes a process or a table, not both.
  //
  // Drops that persist in time, per sending host; a message's fraction is
  // the lower of its draw and its sender's episode at the send.
  std::shared_ptr<const BandwidthEpisodes> bandwidth_episodes;
  std::shared_ptr<const EpisodeProcess> episode_process;
  // Latency stalls in time, per sending host: a message sent inside one of
  // its sender's stalls waits for the stall's end (added to its latency).
  std::shared_ptr<const LatencyStalls> latency_stalls;
  std::shared_ptr<const StallProcess> stall_process;
  // All hosts read the stalls from one offset (a system-wide state) instead
  // of independent offsets.
  bool latency_stalls_shared = false;
  // The share of hosts that stall at all (drawn per host and repetition); the
  // others never do: stalls a measurement saw on some pairs of hosts only.
  double latency_stalls_hosts = 1.0;
  // The largest message the stalls hold (all of them by default): stalls a
  // small-message series shows that its large transfers do not wait for.
  uint64_t latency_stalls_max_bytes = UINT64_MAX;
  // Latency levels in time, per sending host (noise/latency_levels.hpp): a
  // message gets its sender's level at the send added to its latency, which
  // stays at least -o (no message arrives before its send starts).
  std::shared_ptr<const LevelProcess> level_process;
  // Every host reads the levels from one offset: a level of the whole system
  // (or of the path a 2-host series runs on), which a message and its reply
  // share; otherwise each host from its own.
  bool latency_levels_shared = false;
  // A latency noise state per sending host (a Gaussian copula in time):
  // each host h has a standard normal state Z_h(t), piecewise constant, read
  // from a table this process draws per repetition (its values in micro
  // normal scores: Z = value * 1e-6, the level table being the standard
  // normal's quantiles times 10^6), and a message h sends at t draws its
  // latency excess from latency_excess_ps at u = Phi(sqrt(w) Z_h(t) +
  // sqrt(1 - w) Phi^-1(u0)), u0 its own uniform draw (Engine::
  // latency_draw_ps). Every message's excess keeps latency_excess_ps's
  // distribution; a host's messages are correlated while its state holds.
  // Applies only with latency_excess_ps and a weight w in (0, 1); weight 0:
  // no state (the process is not read).
  std::shared_ptr<const LevelProcess> latency_state_process;
  double latency_state_weight = 0.0;
  // Which part of the per-message distribution the state moves, split at
  // the quantile latency_state_split (q in (0, 1)), u0 the message's own
  // uniform and s = sqrt(w) Z + sqrt(1 - w) Phi^-1(.) as above:
  //   All:  u = Phi(s(u0)), the whole distribution (q not read);
  //   Body: the tail (u0 > q) drawn on its own, u = u0; the body moves with
  //         the state: u = q Phi(s(u0 / q));
  //   Tail: how often a message lands in the tail moves with the state:
  //         a = Phi((Phi^-1(q) - sqrt(w) Z) / sqrt(1 - w)), the body's share
  //         at that state; u = q u0 / a where u0 <= a, else
  //         q + (1 - q) (u0 - a) / (1 - a): where in the body or the tail,
  //         its own draw.
  //   Both: the tail's share moves with a second state Z_t of its own
  //         (latency_state_tail_process, weight latency_state_tail_weight)
  //         as for Tail, and where in the body with Z as for Body:
  //         u = q Phi(sqrt(w) Z + sqrt(1 - w) Phi^-1(u0 / a)) where u0 <= a.
  // Each keeps latency_excess_ps's distribution per message (E a(Z) = q).
  StatePart latency_state_part = StatePart::All;
  double latency_state_split = 0.9;
  std::shared_ptr<const LevelProcess> latency_state_tail_process;
  double latency_state_tail_weight = 0.0;
  // The paper authors' network semantics (noise/switch_draws.hpp): each
  // message's L and G picked from near or far sample sets, G charged per
  // 16 MiB block, rendezvous 2 L later. Replaces the parameters' L and G,
  // so it excludes latency_excess_ps, bandwidth_fraction, episodes, stalls,
  // levels and a latency state.
  std::shared_ptr<const SwitchDraws> switch_draws;
  // With switch_draws: the noiseless network (sets of one value), against
  // which a critical path splits each message's drawn L and G into the
  // network's and the noise's (critical_path.hpp). Not used otherwise.
  std::shared_ptr<const SwitchDraws> switch_nominal;

  bool any() const {
    return os || latency_excess_ps || bandwidth_fraction || bandwidth_episodes || episode_process || latency_stalls ||
           stall_process || level_process || latency_state_process || switch_draws;
  }
};

struct RunResult {
  std::vector<int64_t> host_end_ps;  // per rank: when its last CPU activity ends
  int64_t max_end_ps = 0;
  uint64_t events = 0;  // ops executed + messages, as LogGOPSim counts them
  uint64_t messages = 0;
  bool windowed = false;  // processed host by host in windows (see windowed_events.hpp)
  const char* loop = "general";  // the event loop that ran it (Engine::choose_loop)
  // Its critical path, when the engine records it (Engine::set_critical_path).
  std::optional<CriticalPath> path;
};

// A schedule that cannot complete; the message names the stuck ranks and
// their first blocked operations.
class DeadlockError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A deadlock in a run where LogGOPSim's unstable sort posted some host's
// receives out of program order: the same schedule in program order
// (ReadyOrder::Program, MPI's posting order) may well complete.
class ReorderedDeadlockError : public DeadlockError {
 public:
  using DeadlockError::DeadlockError;
};

// A run stopped from outside (Ctrl-C): see Engine::set_stop.
class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("simulation interrupted") {}
};

// How ops that become executable at the same moment are ordered.
enum class ReadyOrder {
  // LogGOPSim's: by kind (sends, receives, calcs) with std::sort, which is
  // not stable: past 16 ready ops of one host their program order is
  // scrambled, and receives are posted out of order. LogGOPSim itself then
  // deadlocks on Schedgen's allreduce_ring beyond a few ranks; exact
  // reproduction keeps that.
  LogGOPSim,
  // By kind, keeping program order within a kind (a stable sort): receives
  // are posted in program order, as MPI posts them. Identical to LogGOPSim
  // whenever at most 16 ops become ready at once.
  Program,
};

// How a run's events are processed. Both give the same results, bit for bit.
enum class Processing {
  // Host by host in time windows (windowed_events.hpp) where that is exact
  // and pays: one CPU per host, under some noise.
  // Otherwise, and for a repetition whose order the windows cannot settle,
  // as Sequential.
  Auto,
  // One global event queue in LogGOPSim's order.
  Sequential,
  // As Auto, and schedules with rendezvous messages in windows too (their
  // completions placed as events of the senders: windowed_events.hpp).
  // Measured slower than the global queue on the paper's 512 MiB ring
  // (~1.2-1.4x the CPU time at 1,024 ranks, where every host's state stays
  // in cache either way), and mostly unsettled on dissemination, whose last
  // round's pairs complete each other's sends: for tests and benchmarks.
  WindowedRendezvous,
};

// Which event loop runs a repetition (Engine::choose_loop). The general
// loop runs any schedule and is the reference; a specialised loop runs one
// family of generated collectives in the same event order with the same
// steps (engine_steps.hpp), without walking the schedule's edges or the
// posted receives, and gives the same results bit for bit.
enum class Loop : uint8_t {
  General,
  Exchange,  // exchange_loop.hpp: rings, chains, dissemination, trees (exchange_plan.hpp)
};

// One engine per thread; run() may be called many times (repetitions).
class Engine {
 public:
  // stamp_record_bits: how many stamps' pushers the windows remember to
  // order ties (2^bits; see stamp_order.hpp); fewer only for tests.
  // general_only: never a specialised loop (for tests and benchmarks).
  Engine(const Schedule& schedule, const LogGOPSParams& params,
         ReadyOrder order = ReadyOrder::LogGOPSim, Processing processing = Processing::Auto,
         uint32_t stamp_record_bits = StampOrder::kDefaultRecordBits, bool general_only = false);

  RunResult run(const NoiseModel& noise, uint64_t seed, uint64_t repetition);

  // Records each run's critical path (critical_path.hpp) into its result.
  // Off by default: the loops then compile without the recorder's hooks.
  void set_critical_path(bool on) { record_path_ = on; }
  // After a run that recorded its path: the activities of the ranks whose
  // `ranks` byte is set, each split as a path's segments are (a send's CPU
  // part, NIC gap and flight; a message's CPU part and NIC gap; a calc),
  // in op order.
  std::vector<PathSegment> activities(const std::vector<uint8_t>& ranks);

  // A flag another thread sets to stop the run: the engine looks at it every
  // kStopPoll events (and every window) and throws Interrupted. Null: never.
  void set_stop(const std::atomic<bool>* stop) { stop_ = stop; }

  // Where the next repetitions write each send's departure time (ps, the
  // moment its CPU and NIC take it; -1 for an op that is no send), indexed
  // by op: what a ping-pong benchmark's timer reads between iterations.
  // Null (the default): nothing is written. Every loop departs through
  // depart (engine_steps.hpp), so every loop records the same times.
  void record_departures(std::vector<int64_t>* out) { departures_ = out; }

 private:
  static constexpr uint32_t kStopPoll = 1u << 16;
  [[gnu::always_inline]] void poll_stop() {
    if (--stop_countdown_ == 0) [[unlikely]]
      check_stop();
  }
  void check_stop();

  void reset(const NoiseModel& noise, uint64_t seed, uint64_t repetition);
  void post_initial_receives();
  Loop choose_loop() const;
  // The exchange loop (exchange_loop.hpp) and its events; kUniform: one
  // template for all ranks (ExchangePlan::uniform), whose ranks' places
  // need no lookup.
  // kRecord: with the critical path's hooks (critical_path.hpp).
  template <bool kRecord>
  void process_exchange();
  template <bool kPacked, bool kUniform, bool kRecord>
  void exchange_events();
  template <bool kUniform>
  [[gnu::always_inline]] ExchangePlan::RankInfo exchange_rank(uint32_t r) const;
  template <bool kPacked, bool kUniform, bool kRecord>
  void exchange_send(int64_t t, uint64_t ts, uint32_t op_index, uint32_t h);
  template <bool kPacked, bool kUniform, bool kRecord>
  void exchange_message(int64_t t, uint64_t ts, uint32_t op_index, uint32_t h);
  template <bool kPacked, bool kUniform, bool kRecord>
  void exchange_recv(int64_t t, uint64_t ts, uint32_t op_index, uint32_t h);
  template <bool kPacked, bool kUniform, bool kRecord>
  void exchange_calc(int64_t t, uint64_t ts, uint32_t op_index, uint32_t h);
  template <bool kPacked, bool kRecord>
  void exchange_release(uint32_t r, const ExchangePlan::RankInfo& at, uint32_t ready_op);
  // An op done whose release the exchange loop replays: of `host`, stored op `stored`.
  struct ExchangeDone {
    uint32_t host;
    ExchangePlan::RankInfo at;
    uint32_t stored;
  };
  template <bool kPacked, bool kRecord>
  void exchange_done(const ExchangeDone* done, uint32_t count);
  template <bool kPacked, bool kRecord>
  void exchange_sorted(const ExchangeDone& done);
  template <bool kPacked, bool kUniform, bool kRecord>
  void exchange_taken(uint32_t h, uint32_t send_stored, uint32_t r, uint32_t recv_stored, bool send_releases);
  void index_exchange_releases();
  RunResult simulate(const NoiseModel& noise, uint64_t seed, uint64_t repetition);
  template <bool kRecord>
  RunResult simulate_loops(const NoiseModel& noise, uint64_t seed, uint64_t repetition);
  RunResult result(bool windowed) const;
  template <bool kRecord>
  void process_initial();
  template <bool kRecord>
  bool process_windowed(int64_t width);
  template <bool kRendezvous, bool kRecord>
  void process_windows();
  int64_t window_width() const;
  template <bool kRecord>
  void process(int64_t time, uint64_t ts, uint32_t op, uint32_t host_kind, uint32_t carried_G);
  // The event loops' steps, compiled once per loop: the windowed loop knows
  // where its events go, and whether the schedule has rendezvous messages
  // (without, their paths drop out: bench_noise's case ran 3.7% more
  // instructions with them).
  template <bool kWindowed, bool kRendezvous, bool kRecord>
  [[gnu::always_inline]] void process_event(int64_t time, uint64_t ts, uint32_t op, uint32_t host_kind,
                                            uint32_t carried_G);
  template <bool kWindowed>
  [[gnu::always_inline]] void push_event(int64_t time, uint64_t ts, uint32_t op, uint32_t host_kind,
                                         uint32_t host, uint32_t carried_G);
  void release(uint32_t host, uint32_t succ);
  void release_done(uint32_t op, uint32_t host);
  void release_done(const Op& op, uint32_t host);
  void release_started(uint32_t op, uint32_t host);
  template <bool kRecord>
  void complete_rendezvous(uint32_t send_op, uint32_t sender, uint8_t cpu, uint8_t nic, int64_t t);
  template <bool kRecord>
  void hold_until(uint32_t sender, uint8_t cpu, uint8_t nic, int64_t t);
  // A message leaving its sender (engine_steps.hpp): when it arrives, the G
  // its sender drew for the receiver (0: none carried), and the time its
  // bytes took the sender's NIC (G's part of it, the receiver's too).
  struct Departure {
    int64_t arrival;
    uint32_t carried_G;
    int64_t gap_ps;
  };
  template <bool kRecord>
  Departure depart(int64_t t, uint32_t h, uint32_t receiver, uint32_t op_index, uint64_t bytes,
                   LogGOPSParams::Costs costs, int64_t& o_free, int64_t& gs_free);
  template <bool kRecord>
  void arrive(int64_t t, uint32_t h, uint32_t r, uint32_t op_index, uint64_t bytes, LogGOPSParams::Costs costs,
              uint32_t carried_G, int64_t& o_free, int64_t& gr_free, int64_t switch_gap_ps = -1);
  template <bool kRecord>
  void run_calc(int64_t t, uint32_t h, uint32_t op_index, int64_t len, int64_t& o_free);
  // The critical path's hooks (critical_path.hpp), nothing without kRecord:
  // the event (op, message) queued at `time`, the later of the resources
  // o_free and other (null: none) having set it; the event that now runs.
  template <bool kRecord>
  void path_wait(uint32_t op, bool message, int64_t time, const int64_t& o_free, const int64_t* other);
  template <bool kRecord>
  void path_begin(uint32_t op, bool message);
  // Op `op` of a host, released by the running event, queued at `time` (as path_wait).
  template <bool kRecord>
  void path_ready(uint32_t op, int64_t time, const int64_t& o_free, const int64_t* other);
  size_t resource_index(const int64_t& t) const { return static_cast<size_t>(&t - host_state_.data()); }
  template <bool kWindowed, bool kRecord>
  void complete_rendezvous_at(uint32_t send_op, uint32_t sender, uint8_t cpu, uint8_t nic, int64_t t,
                              uint32_t here, uint32_t owner);
  void order_ready(uint32_t host, std::vector<uint32_t>& ops);
  template <bool kWindowed, bool kRecord>
  [[gnu::always_inline]] void enqueue_ready();
  template <bool kRecord>
  bool enqueue_ready_or_take(int64_t& time, uint32_t& ts, uint32_t& op_index, uint32_t& host_kind);
  template <bool kRecord>
  void enqueue_several();
  struct ReadyEvent {
    int64_t time;
    uint64_t ts;
    uint32_t host_kind;
  };
  template <bool kRecord>
  ReadyEvent make_ready(uint32_t host, uint32_t i);
  template <bool kWindowed, bool kRecord>
  [[gnu::always_inline]] void enqueue_op(uint32_t host, uint32_t i);
  template <bool kRecord>
  void enqueue_host_ops(uint32_t host, std::vector<uint32_t>& ops);
  void mark_ready(uint32_t op);
  void index_templates();
  void check_posted_at_zero();
  void build_posted_at_zero();
  void index_initial_active();
  int64_t os_noise(uint32_t host, int64_t start, int64_t len);
  int64_t os_noise_lookup(uint32_t host, int64_t at, int64_t len);
  int64_t bytes_time(uint64_t bytes, int64_t per_byte_fs) const;
  int64_t message_G_fs(uint32_t send_op, int64_t G_fs) const;
  void tabulate_gaps(const std::shared_ptr<const QuantileTable>& fraction);
  int64_t episode_G_fs(uint32_t sender, int64_t t, int64_t G_base, int64_t G);
  int64_t stall_delay_ps(uint32_t sender, int64_t t);
  int64_t level_ps(uint32_t sender, int64_t t);
  // A message's latency excess (ps), drawn from latency_ by its send op's
  // bits and, under a latency state, its sender's state at the send t:
  // depart and the critical path both take it from here, so they agree bit
  // for bit. Needs latency_.
  int64_t latency_draw_ps(uint32_t sender, int64_t t, uint32_t op);
  // latency_draw_ps under a state, out of line (the common case inlines the
  // plain draw alone).
  int64_t state_draw_ps(uint32_t sender, int64_t t, uint64_t bits);
  // A node's activity on one link, its parts split as the steps charged
  // them (critical_path_parts.cpp), from its recorded start.
  PathSegment path_segment(PathNode node, PathLink link, int64_t start);
  // The recorded run's critical path, walked back from the last rank to finish.
  CriticalPath critical_path(const RunResult& res);
  [[noreturn]] void report_deadlock() const;
  std::string describe(uint32_t op) const;
  // A posted receive's {source, tag, local index}, from its rank's template.
  MatchEntry posted_key(uint32_t host, uint32_t local) const;
  // Schedule::peer_of with the rank count held here: the schedule's is a
  // vector's length, recomputed at every call (three per message).
  uint32_t peer_of(uint32_t r, const Op& op) const { return Schedule::absolute_peer(r, op.peer, ranks_); }

  const Schedule& sched_;
  // The schedule as an exchange (exchange_plan.hpp), when it is one and
  // specialised loops are allowed.
  std::optional<ExchangePlan> exchange_;
  // Per size of the exchange's messages: its bytes and costs.
  struct SizeCosts {
    uint64_t bytes;
    LogGOPSParams::Costs costs;
  };
  std::vector<SizeCosts> exchange_sizes_;
  // Whether every stamp of a run fits 32 bits: the exchange loop then keeps
  // a stamp in an event's ts's high half and what the message carries to
  // its receiver in the low half (exchange_loop.hpp).
  bool exchange_packed_ = false;
  // A uniform exchange's places (exchange_rank): its ops per rank, its
  // template's first stored op, its counters per rank.
  uint32_t exchange_n_ = 0, exchange_tb_ = 0, exchange_counters_ = 0;
  // Per stored op of the exchange with a simple release (ExchangePlan::
  // Release): what it releases as ExchangePlan::ready_op, in the order the
  // general loop queues them (order_ready's, once), at the same places as
  // the plan's successors.
  std::vector<uint32_t> release_sorted_;
  // The channels' counters of messages taken (ExchangePlan::Channel), this run's.
  std::vector<uint32_t> channel_taken_;
  // With receives posted late (ExchangePlan::late_receives): per op of the
  // schedule, a receive's state in this run (exchange_loop.hpp), and per
  // template the row its ranks start from (recv_state_row_begin_).
  std::vector<uint8_t> recv_state_, recv_state_row_;
  std::vector<uint32_t> recv_state_row_begin_;
  Loop loop_ = Loop::General;  // this repetition's
  LogGOPSParams p_;
  ReadyOrder order_;
  Processing processing_;
  // Whether the schedule allows windows at all: one CPU per host,
  // provisional stamps within 32 bits; and whether it has rendezvous
  // messages, whose completions the windows must place.
  bool windows_allowed_ = false;
  bool rendezvous_ = false;
  uint32_t ranks_, ncpu_, nnic_;

  // Per-host state in one block per host, so an event touches one cache
  // line of it (64 bytes with one CPU and NIC under OS noise, else 32):
  // when each CPU is free (o), when each NIC may receive (gr) and send (gs)
  // next; under OS noise also the host's offset into the trace, where its
  // last trace lookup ended, and the quiet span that lookup found.
  int64_t& next_o(uint32_t h, uint32_t cpu) { return host_state_[h * stride_ + cpu]; }
  int64_t& next_gr(uint32_t h, uint32_t nic) { return host_state_[h * stride_ + ncpu_ + nic]; }
  int64_t& next_gs(uint32_t h, uint32_t nic) { return host_state_[h * stride_ + ncpu_ + nnic_ + nic]; }
  int64_t& os_offset(uint32_t h) { return host_state_[h * stride_ + ncpu_ + 2 * nnic_]; }
  int64_t& os_cursor(uint32_t h) { return host_state_[h * stride_ + ncpu_ + 2 * nnic_ + 1]; }
  // Its last quiet span for activities of length o (lo, hi, end: QuietSpan).
  int64_t* os_quiet(uint32_t h) { return &host_state_[h * stride_ + ncpu_ + 2 * nnic_ + 2]; }

  // Dependency bookkeeping in O(ranks + template ops), not O(ops), so a
  // 16K-rank ring allreduce (a billion ops) fits in memory. An op with one
  // dependency is ready the moment it is released and needs no counter;
  // ops with more get a counter slot, numbered within their template
  // (multi_slot_, per stored op) from their rank's base (multi_base_).
  std::vector<uint32_t> multi_slot_;
  std::vector<uint64_t> multi_base_;
  // Ops without dependencies, per template in the order they are queued at
  // time 0 (local indices): ranks sharing a template share the list.
  std::vector<uint32_t> initial_ops_;
  std::vector<uint32_t> initial_begin_, initial_count_;  // per rank
  // Positions in those lists of the ops processed at time 0 (all but the
  // receives posted already), per list; ranks sharing a list share these.
  std::vector<uint32_t> initial_active_;
  std::vector<uint32_t> initial_active_begin_, initial_active_count_;  // per rank
  uint64_t initial_total_ = 0;
  // The time-0 receives, posted: every repetition starts from this copy
  // (when initial_recvs_posted_; see build_posted_at_zero).
  PostedReceives posted_at_zero_;
  bool initial_recvs_posted_ = false;
  bool posted_at_zero_built_ = false;
  uint64_t multi_total_ = 0;

  // Per-run state.
  std::vector<uint32_t> met_;  // satisfied dependencies per counter slot
  uint64_t ready_count_ = 0;   // ops that became executable
  // One bit per op with dependencies: it became ready (ops without are
  // ready at time 0). Names the first blocked op of each rank when a run
  // deadlocks (1/32 of a counter per op); kept only while track_ready_,
  // in a deadlocked repetition's second run (run()).
  std::vector<uint64_t> ready_bits_;
  bool track_ready_ = false;
  // Whether the unstable sort put a host's receives out of program order:
  // in the time-0 lists (fixed per schedule) or during this run.
  bool initial_reordered_ = false, reordered_ = false;
  std::vector<int64_t> host_state_;
  size_t stride_ = 0;  // int64s per host, set per run (reset)
  PostedReceives posted_;  // entries: op index within the rank
  std::vector<UnexpectedQueue> unexpected_;
  EventQueue queue_;
  WindowedEvents windows_;
  bool windowed_ = false;  // this repetition is being processed in windows
  // Repetitions tried in windows, and those the windows could not settle;
  // too many of these and the engine stops trying (the results are the
  // same either way, only slower).
  uint64_t window_tries_ = 0, window_failures_ = 0;
  ReleasedOps pending_;
  std::vector<uint32_t> host_ops_, sorted_;
  uint64_t stamp_ = 0;
  uint64_t messages_ = 0;
  // In-order delivery between two ranks (channel_order.hpp): on for a
  // repetition of a schedule that asks for it (Schedule::in_order) when
  // latency varies per message; otherwise messages arrive in order already.
  bool order_arrivals_ = false;
  ChannelOrder channel_order_;
  // The run's noise parts (null when absent), read on every message.
  const OsNoiseTrace* os_ = nullptr;
  const QuantileTable* latency_ = nullptr;
  const QuantileTable* bandwidth_ = nullptr;
  const BandwidthEpisodes* episodes_ = nullptr;
  const LatencyStalls* stalls_ = nullptr;
  const LatencyLevels* levels_ = nullptr;
  // The latency state's table (micro normal scores), with latency_ and a
  // weight in (0, 1) only; the weights of the state and of the message's own
  // score: sqrt(w) and sqrt(1 - w).
  const LatencyLevels* state_ = nullptr;
  double state_w_ = 0.0, own_w_ = 1.0;
  // The part it moves and where the body ends (q, and Phi^-1(q) for Tail).
  StatePart state_part_ = StatePart::All;
  double state_split_ = 1.0, state_split_score_ = 0.0;
  // With StatePart::Both: the tail's own state, its weights and offsets.
  const LatencyLevels* tail_state_ = nullptr;
  double tail_w_ = 0.0, tail_own_w_ = 1.0;
  std::vector<int64_t> tail_offset_;
  std::vector<LatencyLevels::Span> tail_span_;
  const SwitchDraws* switch_ = nullptr;
  // With bandwidth_: the drawn G tabulated for each base G a message can
  // have (the parameters' or each size class's), kept across repetitions
  // while the fraction table stays the same.
  std::vector<DrawnGapTable> gap_tables_;
  std::shared_ptr<const QuantileTable> gaps_for_;  // the fraction table gap_tables_ are of
  // This repetition's tables drawn by the noise's processes, and what they
  // were drawn for (a failed windowed try resets the same repetition). The
  // process is held, so that no other can take its address.
  template <class Process, class Table>
  struct Drawn {
    std::optional<Table> table;
    std::shared_ptr<const Process> process;
    uint64_t seed = 0, repetition = 0;
    uint32_t hosts = 0;
    // extra: what else the draw takes (the same for every call on one Drawn).
    template <class... Extra>
    const Table* get(const std::shared_ptr<const Process>& p, uint64_t s, uint64_t r, uint32_t h, Extra... extra) {
      if (!table || process != p || seed != s || repetition != r || hosts != h) {
        table.emplace(p->draw(s, r, h, extra...));
        process = p;
        seed = s;
        repetition = r;
        hosts = h;
      }
      return &*table;
    }
  };
  Drawn<EpisodeProcess, BandwidthEpisodes> drawn_episodes_;
  Drawn<StallProcess, LatencyStalls> drawn_stalls_;
  Drawn<LevelProcess, LatencyLevels> drawn_levels_;
  Drawn<LevelProcess, LatencyLevels> drawn_state_;  // from RngStream::StateTables
  Drawn<LevelProcess, LatencyLevels> drawn_tail_state_;  // from RngStream::TailStateTables
  std::vector<int64_t> episode_offset_;  // per host, this repetition's (with episodes_)
  std::vector<BandwidthEpisodes::Span> episode_span_;  // per host, its last lookup's span
  std::vector<int64_t> stall_offset_;  // per host, this repetition's (with stalls_)
  std::vector<LatencyStalls::Span> stall_span_;  // per host, its last lookup's span
  std::vector<uint8_t> stall_on_;  // per host, whether it stalls this repetition (with stalls_)
  uint64_t stall_max_bytes_ = UINT64_MAX;  // the largest message the stalls hold (with stalls_)
  std::vector<int64_t> level_offset_;  // per host, this repetition's (with levels_)
  std::vector<LatencyLevels::Span> level_span_;  // per host, its last lookup's span
  std::vector<int64_t> state_offset_;  // per host, this repetition's (with state_)
  std::vector<LatencyLevels::Span> state_span_;  // per host, its last lookup's span
  uint64_t seed_ = 0, rep_ = 0;
  const std::atomic<bool>* stop_ = nullptr;
  std::vector<int64_t>* departures_ = nullptr;
  uint32_t stop_countdown_ = kStopPoll;
  CounterRng latency_rng_{0, 0, RngStream::Latency};
  CounterRng bandwidth_rng_{0, 0, RngStream::Bandwidth};
  // The critical path's recorder, while record_path_ (after the loops'
  // state, which keeps its place).
  bool record_path_ = false;
  CriticalPathRecorder path_;
  const SwitchDraws* switch_nominal_ = nullptr;
};

}  // namespace cloudnoise
