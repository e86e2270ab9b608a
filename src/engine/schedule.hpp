// A GOAL schedule held in flat arrays: one compact record per operation and
// the dependency edges in compressed-sparse-row form. Reading a file and
// generating a collective both produce this type through ScheduleBuilder, so
// the engine never knows where a schedule came from.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace cloudnoise {

// Operation kinds, numbered as LogGOPSim numbers them: the reference sorts
// newly executable operations by this number, so the values are semantics.
enum class OpKind : uint8_t { Send = 1, Recv = 2, Calc = 3 };

// Wildcard source or tag (GOAL's -1).
inline constexpr uint32_t kAny = 0xFFFFFFFFu;

// 32 bytes, so an op and where its successors are share one cache line.
// `amount` is bytes for send/recv and picoseconds for calc. Inside a
// Schedule an Op belongs to a rank template (see Schedule): its `peer` is
// relative to the rank (kAny stays kAny) and its successors are local
// indices edges()[edge_begin, next op's edge_begin): first the
// `start_count` ops waiting for it to start, then those waiting for it to
// finish. `op()` hands out copies with absolute peers.
struct Op {
  uint64_t amount = 0;
  uint32_t peer = 0;  // destination of a send, source of a recv (or kAny)
  uint32_t tag = 0;   // or kAny on a recv
  uint32_t num_deps = 0;  // requires + irequires edges pointing at this op
  OpKind kind = OpKind::Calc;
  uint8_t cpu = 0;
  uint8_t nic = 0;
  uint8_t reserved = 0;
  uint32_t edge_begin = 0;
  uint32_t start_count = 0;
};
static_assert(sizeof(Op) == 32);

// Global indices of an op's successors: local template indices plus the
// rank's first global index.
class SuccessorRange {
 public:
  SuccessorRange(const uint32_t* begin, const uint32_t* end, uint32_t base)
      : begin_(begin), end_(end), base_(base) {}
  struct iterator {
    const uint32_t* p;
    uint32_t base;
    uint32_t operator*() const { return base + *p; }
    iterator& operator++() {
      ++p;
      return *this;
    }
    bool operator!=(const iterator& o) const { return p != o.p; }
  };
  iterator begin() const { return {begin_, base_}; }
  iterator end() const { return {end_, base_}; }
  size_t size() const { return static_cast<size_t>(end_ - begin_); }

 private:
  const uint32_t *begin_, *end_;
  uint32_t base_;
};

// Raised for schedules that are malformed; `line` is 0 when not from a file.
class ScheduleError : public std::runtime_error {
 public:
  ScheduleError(std::string msg, uint64_t line)
      : std::runtime_error(std::move(msg)), line_(line) {}
  uint64_t line() const { return line_; }

 private:
  uint64_t line_;
};

// A schedule: every rank's ops, numbered globally (rank r owns
// [rank_begin(r), rank_end(r))). Ranks whose op sequences are the same once
// peers are taken relative to the rank (a collective's ranks mostly are)
// share one *template*: its ops and edges are stored once, so a 16K-rank
// dissemination holds 28 op records, not 458,752, and the engine's working
// set stays in cache.
class Schedule {
 public:
  uint32_t num_ranks() const { return static_cast<uint32_t>(rank_begin_.size() - 1); }
  uint64_t num_ops() const { return rank_begin_.back(); }
  uint32_t num_cpus() const { return max_cpu_ + 1u; }
  uint32_t num_nics() const { return max_nic_ + 1u; }
  // How many distinct rank templates the ranks share.
  uint32_t num_templates() const { return num_templates_; }

  uint32_t rank_begin(uint32_t r) const { return rank_begin_[r]; }
  uint32_t rank_end(uint32_t r) const { return rank_begin_[r + 1]; }
  // The rank owning global op i.
  uint32_t rank_of(uint32_t i) const;

  // Where rank r's template starts among the stored ops; ranks sharing a
  // template share this index.
  uint32_t template_begin(uint32_t r) const { return rank_template_[r]; }
  // Stored (template) ops of all templates together.
  uint32_t num_template_ops() const { return static_cast<uint32_t>(ops_.size()); }
  const Op& stored_op(uint32_t t) const { return ops_[t]; }

  // Op i of rank r (i global), as stored: peer relative to r.
  const Op& template_op(uint32_t r, uint32_t i) const {
    return ops_[rank_template_[r] + (i - rank_begin_[r])];
  }
  // Absolute peer of a template op of rank r.
  uint32_t peer_of(uint32_t r, const Op& op) const { return absolute_peer(r, op.peer, num_ranks()); }
  // The same from the stored (relative) peer and the rank count: for the
  // engine's hot path, which keeps the count at hand.
  static uint32_t absolute_peer(uint32_t r, uint32_t relative, uint32_t ranks) {
    if (relative == kAny) return kAny;
    const uint32_t p = r + relative;
    return p >= ranks ? p - ranks : p;
  }
  // Op i (global) with its absolute peer.
  Op op(uint32_t i) const { return op(rank_of(i), i); }
  Op op(uint32_t r, uint32_t i) const {
    Op o = template_op(r, i);
    o.peer = peer_of(r, o);
    return o;
  }

  // Ops that may start once op i has finished (`x requires i`), in file order.
  SuccessorRange done_successors(uint32_t i) const { return done_successors(rank_of(i), i); }
  SuccessorRange done_successors(uint32_t r, uint32_t i) const {
    const uint32_t t = rank_template_[r] + (i - rank_begin_[r]);
    return {edges_.data() + ops_[t].edge_begin + ops_[t].start_count, edges_.data() + edge_end(t),
            rank_begin_[r]};
  }
  // The same for `op`, a stored op (as template_op gives it) of a rank whose
  // first global op is `base`: no index arithmetic on the hot path.
  SuccessorRange done_successors(const Op& op, uint32_t base) const {
    const Op* next = &op + 1;
    const uint32_t end =
        next != ops_.data() + ops_.size() ? next->edge_begin : static_cast<uint32_t>(edges_.size());
    return {edges_.data() + op.edge_begin + op.start_count, edges_.data() + end, base};
  }
  // Ops that may start once op i has started (`x irequires i`), in file order.
  SuccessorRange start_successors(uint32_t i) const { return start_successors(rank_of(i), i); }
  SuccessorRange start_successors(uint32_t r, uint32_t i) const {
    const uint32_t t = rank_template_[r] + (i - rank_begin_[r]);
    return {edges_.data() + ops_[t].edge_begin,
            edges_.data() + ops_[t].edge_begin + ops_[t].start_count, rank_begin_[r]};
  }
  // One past the last edge of template op t (an index into the stored ops).
  uint32_t edge_end(uint32_t t) const {
    return t + 1 < ops_.size() ? ops_[t + 1].edge_begin : static_cast<uint32_t>(edges_.size());
  }
  const uint32_t* edges() const { return edges_.data(); }

  // Whether the messages of one channel (sender, receiver, tag) reach the
  // receiver in the order they were sent: MPI's non-overtaking rule, which
  // an application's messages rely on for their matching (a recorded
  // trace). Schedules that do not ask for it keep LogGOPSim's semantics,
  // where a message delayed by latency noise may be overtaken.
  bool in_order() const { return in_order_; }
  void set_in_order(bool on) { in_order_ = on; }

  // Source line of op i (0 when the schedule was generated).
  uint64_t line_of(uint32_t i) const { return lines_.empty() ? 0 : lines_[i]; }

  // Bytes held by the schedule's arrays.
  uint64_t memory_bytes() const;

  // Appends the ranks of `part`, built for the ranks right after this
  // schedule's last (see ScheduleBuilder's first_rank): how pieces of one
  // file parsed in parallel become one schedule.
  void append(Schedule&& part);

 private:
  friend class ScheduleBuilder;
  std::vector<Op> ops_;                    // the templates' ops, template after template
  std::vector<uint32_t> edges_;            // the templates' edges (local indices)
  std::vector<uint32_t> rank_begin_{0};    // global numbering
  std::vector<uint32_t> rank_template_;    // index in ops_ of each rank's template
  std::vector<uint32_t> lines_;            // per global op, files only
  uint32_t num_templates_ = 0;
  uint8_t max_cpu_ = 0, max_nic_ = 0;
  bool in_order_ = false;
};

// Builds a Schedule rank by rank, in rank order. Op handles are indices local
// to the current rank (0 for its first op), the same numbering LogGOPSim's
// binary schedule uses, so generators can mirror Schedgen's emission order.
class ScheduleBuilder {
 public:
  // Builds ranks first_rank, first_rank+1, ... of a num_ranks schedule.
  explicit ScheduleBuilder(uint32_t num_ranks, uint32_t first_rank = 0);

  // Starts the next rank; ranks must come as first_rank, first_rank+1, ...
  void begin_rank(uint32_t rank);
  uint32_t send(uint64_t bytes, uint32_t dest, uint32_t tag, uint8_t cpu = 0, uint8_t nic = 0);
  uint32_t recv(uint64_t bytes, uint32_t src, uint32_t tag, uint8_t cpu = 0, uint8_t nic = 0);
  uint32_t calc(uint64_t picoseconds, uint8_t cpu = 0, uint8_t nic = 0);
  // `a requires b`: a starts only after b has finished.
  void requires_done(uint32_t a, uint32_t b);
  // `a irequires b`: a starts only after b has started.
  void requires_start(uint32_t a, uint32_t b);
  // Adds rank `rank` (the next one) as a copy of the first rank built, with
  // peers taken relative to the rank: for collectives whose every rank
  // does the same relative to itself (dissemination, ring allreduce), so
  // a 16K-rank schedule is generated in the time of one rank.
  void repeat_first_rank(uint32_t rank);
  // Records the source line of the op just added (readers only).
  void set_line(uint64_t line);
  uint32_t ops_in_rank() const { return static_cast<uint32_t>(sched_.ops_.size() - cur_begin_); }
  uint32_t current_rank() const { return cur_rank_; }
  // The schedule; every rank of num_ranks must have been built.
  Schedule finish();
  // The ranks built so far, for Schedule::append.
  Schedule finish_part();

 private:
  uint32_t add(OpKind kind, uint64_t amount, uint32_t peer, uint32_t tag, uint8_t cpu,
               uint8_t nic);
  void end_rank();
  void check_local(uint32_t local) const;

  struct Edge {
    uint32_t from, to;  // local indices: `to` waits for `from`
  };
  Schedule sched_;
  uint32_t num_ranks_;
  uint32_t first_rank_ = 0;
  uint32_t cur_rank_ = 0;
  bool in_rank_ = false;
  uint32_t cur_begin_ = 0;
  std::vector<Edge> done_pending_, start_pending_;
  // Templates by content hash, to find a rank's twin.
  std::unordered_map<uint64_t, std::vector<uint32_t>> templates_by_hash_;
  uint32_t find_twin(uint32_t begin, uint32_t n, uint32_t edge_begin, uint64_t hash) const;
  // Scratch reused across ranks (cycle check, CSR building).
  std::vector<uint32_t> counts_, adj_begin_, adj_, fill_, stack_, scratch_;
};

}  // namespace cloudnoise
