// What the exchange loop (exchange_loop.hpp) needs to know of a schedule,
// and the test of whether a schedule is one it can run.
//
// An *exchange* is a schedule of sends, receives and calcs on one CPU and
// NIC per rank whose every message is taken by a receive known in advance:
//  * every receive names its source and tag, and every send its receiver;
//  * a rank's receives with the same source and tag form a *channel*; the
//    messages a rank's channel takes are exactly those its source sends
//    with that tag, as many as it has receives (checked for every rank);
//  * a channel of several receives has them all posted at time 0: the
//    k-th message it takes is matched by its k-th receive in posting order
//    (the general loop's posted receives, in the order its time-0 lists
//    post them), whatever the order the messages arrive in. A channel of
//    one receive may wait for other ops (posted late: a message may arrive
//    before it), unless some send releases ops (the late match would have
//    to find the send);
//  * nothing waits for an op to start (no irequires).
// Ops may wait for any number of others and release any number: a release
// is replayed as the general loop makes it (Engine::release's counters,
// order_ready's order, hosts in ascending order), only without walking the
// schedule's edges where every successor waits for nothing else.
// The paper authors' pipelined ring and the dissemination (one template
// for all ranks), public Schedgen's pipelined chain (rank 0, the middle
// ranks and the last differ), the binomial and binary trees are exchanges,
// and so are they after a compute phase.
//
// Ranks share templates (schedule.hpp): everything here is per template op
// or per template, plus one record per rank (RankInfo), never per op of
// the whole schedule.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "schedule.hpp"

namespace cloudnoise {

class ExchangePlan {
 public:
  static constexpr uint32_t kNone = 0xFFFFFFFFu;

  // An op to queue: its index within its rank and its kind, as local << 2 | kind.
  static uint32_t ready_op(uint32_t local, OpKind kind) { return local << 2 | static_cast<uint32_t>(kind); }
  static uint32_t ready_local(uint32_t op) { return op >> 2; }
  static OpKind ready_kind(uint32_t op) { return static_cast<OpKind>(op & 3u); }

  // One send or receive (by stored op), in 16 bytes: its peer relative to
  // the rank (a send's receiver, a receive's source) and its size as an
  // index into sizes() (size_of; with kReleases set when the op itself
  // releases ops when it is done). A send also has, where every rank with
  // this op sends to a rank of one template whose channel for it is one
  // receive, that receive (`recv`, kNone otherwise; else key() finds its
  // channel); and then, when that receive releases at most one op that
  // waits for nothing else, that op (`next`, a ready_op, kNone for none;
  // kUnknown when it releases otherwise).
  static constexpr uint32_t kUnknown = 0xFFFFFFFEu;
  static constexpr uint32_t kReleases = 0x80000000u;
  struct Step {
    uint32_t to = 0;
    uint32_t size = 0;
    uint32_t recv = kNone;
    uint32_t next = kUnknown;
  };
  static uint32_t size_of(const Step& s) { return s.size & ~kReleases; }
  static bool releases(const Step& s) { return (s.size & kReleases) != 0; }

  // What an op (by stored op) releases when it is done: successors()
  // [begin, begin + count), local indices in the schedule's edge order.
  // `simple`: each of them waits for this op alone.
  struct Release {
    uint32_t begin = 0;
    uint32_t count = 0;
    bool simple = true;
  };

  // A rank's channel: its receives, recv_order()[first, first + count),
  // local indices in posting order; with several, the rank's counter of
  // messages taken is its counter base + slot.
  struct Channel {
    uint32_t first = 0;
    uint32_t count = 0;
    uint32_t slot = 0;
  };

  // Per rank: its first global op, its template's first stored op, its
  // template's number, its first channel counter.
  struct RankInfo {
    uint32_t begin;
    uint32_t tb;
    uint32_t tid;
    uint32_t counters;
  };

  // The plan of `schedule`, or nothing when it is not an exchange.
  // initial_ops, initial_begin, initial_count: the engine's time-0 lists
  // (per rank, local indices, in the order they are queued and receives
  // posted).
  static std::optional<ExchangePlan> of(const Schedule& schedule, std::span<const uint32_t> initial_ops,
                                        std::span<const uint32_t> initial_begin,
                                        std::span<const uint32_t> initial_count);

  // Whether all ranks share one template, rank r's ops at [r n, (r + 1) n).
  bool uniform() const { return templates_.size() == 1; }
  uint32_t ops_per_rank() const { return n_; }  // uniform only
  // The most sends any rank makes, and all ranks' together.
  uint32_t max_sends_per_rank() const { return max_sends_; }
  uint64_t total_sends() const { return total_sends_; }
  // Whether some receive waits for other ops: it is posted when they are
  // done, and a message may arrive before it (exchange_loop.hpp keeps
  // each such receive's state).
  bool late_receives() const { return late_; }
  const Step& step(uint32_t stored) const { return steps_[stored]; }
  // A send's key of its receiver's channel (channel()).
  uint32_t key(uint32_t stored) const { return send_keys_[stored]; }
  const Release& release(uint32_t stored) const { return releases_[stored]; }
  const std::vector<uint32_t>& successors() const { return successors_; }
  // The channel of template `tid` with key `key`.
  const Channel& channel(uint32_t tid, uint32_t key) const {
    return channels_[channel_index_[static_cast<size_t>(tid) * keys_ + key]];
  }
  const uint32_t* recv_order() const { return recv_order_.data(); }
  const RankInfo& rank(uint32_t r) const { return ranks_[r]; }
  uint32_t counters() const { return counters_; }
  // Uniform only: each rank's counters (rank r's from r times this).
  uint32_t counters_per_rank() const { return counters_per_rank_; }
  // The distinct message sizes, bytes.
  const std::vector<uint64_t>& sizes() const { return sizes_; }
  // Per template: its first stored op, its length and a rank of it.
  struct Template {
    uint32_t tb, n, rank;
  };
  const std::vector<Template>& templates() const { return templates_; }

 private:
  std::vector<Step> steps_;         // per stored op
  std::vector<uint32_t> send_keys_;  // per stored op
  std::vector<Release> releases_;   // per stored op
  std::vector<uint32_t> successors_;
  std::vector<Channel> channels_;
  std::vector<uint32_t> channel_index_;  // per template and key
  std::vector<uint32_t> recv_order_;
  std::vector<RankInfo> ranks_;
  std::vector<Template> templates_;
  std::vector<uint64_t> sizes_;
  uint32_t keys_ = 0;
  uint32_t counters_ = 0;
  uint32_t counters_per_rank_ = 0;
  uint32_t n_ = 0;
  uint32_t max_sends_ = 0;
  uint64_t total_sends_ = 0;
  bool late_ = false;
};

}  // namespace cloudnoise
