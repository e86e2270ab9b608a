// A GOAL schedule held in flat arrays: one compact record per operation and
// the dependency edges in compressed-sparse-row form. Reading a file and
// generating a collective both produce this type through ScheduleBuilder, so
// the engine never knows where a schedule came from.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace cloudnoise {

// Operation kinds, numbered as LogGOPSim numbers them: the reference sorts
// newly executable operations by this number, so the values are semantics.
enum class OpKind : uint8_t { Send = 1, Recv = 2, Calc = 3 };

// Wildcard source or tag (GOAL's -1).
inline constexpr uint32_t kAny = 0xFFFFFFFFu;

// 32 bytes, so an op and where its successors are share one cache line.
// `amount` is bytes for send/recv and picoseconds for calc. The op's
// successors are edges()[edge_begin, next op's edge_begin): first the
// `start_count` ops waiting for it to start, then those waiting for it to
// finish.
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

// Raised for schedules that are malformed; `line` is 0 when not from a file.
class ScheduleError : public std::runtime_error {
 public:
  ScheduleError(std::string msg, uint64_t line)
      : std::runtime_error(std::move(msg)), line_(line) {}
  uint64_t line() const { return line_; }

 private:
  uint64_t line_;
};

class Schedule {
 public:
  uint32_t num_ranks() const { return static_cast<uint32_t>(rank_begin_.size() - 1); }
  uint64_t num_ops() const { return ops_.size(); }
  uint32_t num_cpus() const { return max_cpu_ + 1u; }
  uint32_t num_nics() const { return max_nic_ + 1u; }

  // Global index of a rank's first op; ops of rank r are [begin(r), begin(r+1)).
  uint32_t rank_begin(uint32_t r) const { return rank_begin_[r]; }
  uint32_t rank_end(uint32_t r) const { return rank_begin_[r + 1]; }

  const Op& op(uint32_t i) const { return ops_[i]; }
  std::span<const Op> ops() const { return ops_; }

  // Ops that may start once op i has finished (`x requires i`), in file order.
  std::span<const uint32_t> done_successors(uint32_t i) const {
    return {edges_.data() + ops_[i].edge_begin + ops_[i].start_count,
            edges_.data() + edge_end(i)};
  }
  // Ops that may start once op i has started (`x irequires i`), in file order.
  std::span<const uint32_t> start_successors(uint32_t i) const {
    return {edges_.data() + ops_[i].edge_begin,
            edges_.data() + ops_[i].edge_begin + ops_[i].start_count};
  }
  // One past op i's last successor edge.
  uint32_t edge_end(uint32_t i) const {
    return i + 1 < ops_.size() ? ops_[i + 1].edge_begin : static_cast<uint32_t>(edges_.size());
  }
  const uint32_t* edges() const { return edges_.data(); }

  // Source line of op i (0 when the schedule was generated).
  uint64_t line_of(uint32_t i) const { return lines_.empty() ? 0 : lines_[i]; }

  // Bytes held by the schedule's arrays.
  uint64_t memory_bytes() const;

 private:
  friend class ScheduleBuilder;
  std::vector<Op> ops_;
  std::vector<uint32_t> rank_begin_{0};
  std::vector<uint32_t> edges_;
  std::vector<uint32_t> lines_;
  uint8_t max_cpu_ = 0, max_nic_ = 0;
};

// Builds a Schedule rank by rank, in rank order. Op handles are indices local
// to the current rank (0 for its first op), the same numbering LogGOPSim's
// binary schedule uses, so generators can mirror Schedgen's emission order.
class ScheduleBuilder {
 public:
  explicit ScheduleBuilder(uint32_t num_ranks);

  // Starts the next rank; ranks must come as 0, 1, ..., num_ranks-1.
  void begin_rank(uint32_t rank);
  uint32_t send(uint64_t bytes, uint32_t dest, uint32_t tag, uint8_t cpu = 0, uint8_t nic = 0);
  uint32_t recv(uint64_t bytes, uint32_t src, uint32_t tag, uint8_t cpu = 0, uint8_t nic = 0);
  uint32_t calc(uint64_t picoseconds, uint8_t cpu = 0, uint8_t nic = 0);
  // `a requires b`: a starts only after b has finished.
  void requires_done(uint32_t a, uint32_t b);
  // `a irequires b`: a starts only after b has started.
  void requires_start(uint32_t a, uint32_t b);
  // Records the source line of the op just added (readers only).
  void set_line(uint64_t line);
  uint32_t ops_in_rank() const { return static_cast<uint32_t>(sched_.ops_.size() - cur_begin_); }
  uint32_t current_rank() const { return cur_rank_; }
  Schedule finish();

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
  uint32_t cur_rank_ = 0;
  bool in_rank_ = false;
  uint32_t cur_begin_ = 0;
  std::vector<Edge> done_pending_, start_pending_;
  // Scratch reused across ranks (cycle check, CSR building).
  std::vector<uint32_t> counts_, adj_begin_, adj_, fill_, stack_, scratch_;
};

}  // namespace cloudnoise
