#include "pattern_spec.hpp"

#include <array>
#include <limits>
#include <utility>

#include "../input_limits.hpp"
#include "op_count.hpp"
#include "op_sink.hpp"
#include "rounds.hpp"
#include "schedule.hpp"

namespace cloudnoise {

namespace {

using enum PaperVariant;

// The authors' Schedgen (their artifact's simulations/schedgen) has every
// public pattern but the three allreduce ones of cloudnoise; its
// binomialtreebcast and pipelinedring differ from public Schedgen's.
constexpr std::array<PatternInfo, 15> kPatterns{{
    {Pattern::BinomialTreeReduce, "binomialtreereduce",
     "reduce to rank 0 along a binomial tree"},
    {Pattern::BinaryTreeBcast, "binarytreebcast", "broadcast from rank 0 along a binary tree"},
    {Pattern::BinomialTreeBcast, "binomialtreebcast",
     "broadcast from rank 0 along a binomial tree", Differs,
     "a rank's sends to its children are serialised: each waits for the one before"},
    {Pattern::NwayDissemination, "nwaydissemination",
     "n-way dissemination (--nway peers per round) with a reduction calc per peer"},
    {Pattern::PipelinedRing, "pipelinedring",
     "broadcast down a chain 0->1->...->P-1 in --segmentsize segments", Differs,
     "a closed ring (rank 0 receives from P-1), segment r tagged r; a rank's send of "
     "segment r waits for its receive of segment r-1, so every rank sends segment 0 at once"},
    {Pattern::PipelinedRingDep, "pipelinedringdep",
     "pipelinedring where segment r is received only after segment r-1 was sent on"},
    {Pattern::DoubleRing, "doublering",
     "one message around the ring each way (Schedgen ignores --segmentsize here)"},
    {Pattern::Gather, "gather", "every rank sends to rank 0"},
    {Pattern::Scatter, "scatter", "rank 0 sends to every rank"},
    {Pattern::LinBarrier, "linbarrier",
     "central-counter barrier through rank 0 with 1-byte messages (size is ignored)"},
    {Pattern::Dissemination, "dissemination", "dissemination barrier/allreduce, log2(P) rounds"},
    {Pattern::LinearAlltoall, "linear_alltoall", "alltoall in P-1 shifted send/recv steps"},
    {Pattern::AllreduceRecdoub, "allreduce_recdoub",
     "recursive-halving reduce-scatter + recursive-doubling allgather (any P)", Absent},
    {Pattern::AllreduceRing, "allreduce_ring",
     "ring reduce-scatter + ring allgather, size/P bytes per message", Absent},
    {Pattern::ChainedDissem, "chained_dissem",
     "5 dissemination allreduces, each starting after the previous one completes", Absent},
}};

constexpr std::array<std::pair<SchedgenFlavour, std::string_view>, 2> kFlavours{{
    {SchedgenFlavour::Public, "public"},
    {SchedgenFlavour::Paper, "paper"},
}};

using op_count::add_sat;
using op_count::kMaxOps;
using op_count::mul_sat;

// Sizes up to 2^50 bytes keep byte*1000 picosecond products within 64 bits.
constexpr uint64_t kMaxSize = uint64_t{1} << 50;
constexpr uint64_t kMaxNbNs = static_cast<uint64_t>(limits::kMaxTimeNs);

}  // namespace

std::span<const PatternInfo> all_patterns() { return kPatterns; }

const PatternInfo& pattern_info(Pattern p) {
  for (const auto& info : kPatterns)
    if (info.pattern == p) return info;
  throw ScheduleError("pattern has no entry in the table", 0);
}

std::string_view flavour_name(SchedgenFlavour f) {
  for (const auto& [flavour, name] : kFlavours)
    if (flavour == f) return name;
  return "unknown";
}

SchedgenFlavour parse_flavour(std::string_view name) {
  for (const auto& [flavour, known] : kFlavours)
    if (known == name) return flavour;
  throw ScheduleError("unknown Schedgen flavour '" + std::string(name) +
                          "'; choose public (spcl's Schedgen, the default) or paper (the paper "
                          "authors' modified Schedgen)",
                      0);
}

std::string_view pattern_name(Pattern p) {
  for (const auto& info : kPatterns)
    if (info.pattern == p) return info.name;
  return "unknown";
}

Pattern parse_pattern(std::string_view name) {
  for (const auto& info : kPatterns)
    if (info.name == name) return info.pattern;
  std::string valid;
  for (const auto& info : kPatterns) {
    if (!valid.empty()) valid += ", ";
    valid += info.name;
  }
  throw ScheduleError("unknown pattern '" + std::string(name) + "'; choose one of: " + valid, 0);
}

uint64_t op_count_bound(const PatternSpec& spec) {
  namespace rounds = schedgen_rounds;
  const uint64_t p = spec.ranks;
  uint64_t ops = 0;
  switch (spec.pattern) {
    case Pattern::BinomialTreeBcast:
    case Pattern::BinaryTreeBcast:
    case Pattern::BinomialTreeReduce:
    case Pattern::Gather:
    case Pattern::Scatter:
      ops = 2 * (p - 1);
      break;
    case Pattern::LinBarrier:
      ops = 2 * (p - 1) + 1;
      break;
    case Pattern::Dissemination:
      ops = 2 * p * rounds::ceil_log2(spec.ranks);
      break;
    case Pattern::NwayDissemination: {
      const uint64_t r = rounds::nway_rounds(spec.ranks, spec.nway);
      // 2n messages per round, n reduction calcs in every round but the first
      ops = mul_sat(p, mul_sat(spec.nway, 3 * r));
      break;
    }
    case Pattern::PipelinedRing:
    case Pattern::PipelinedRingDep:
      ops = mul_sat(2 * p, rounds::segments(spec.size, spec.segmentsize));
      break;
    case Pattern::DoubleRing:
      ops = 4 * p;
      break;
    case Pattern::LinearAlltoall:
      ops = 2 * p * (p - 1);
      break;
    case Pattern::AllreduceRecdoub:
      ops = 4 * p * rounds::floor_log2(spec.ranks) + 2 * p;
      break;
    case Pattern::AllreduceRing:
      ops = 4 * p * (p - 1);
      break;
    case Pattern::ChainedDissem:
      ops = 5 * (2 * p * rounds::ceil_log2(spec.ranks) + p);
      break;
  }
  if (spec.nb_ns) ops = add_sat(ops, p);
  return ops;
}

void validate(const PatternSpec& spec) {
  auto fail = [](const std::string& msg) { throw ScheduleError(msg, 0); };
  if (spec.ranks < 1) fail("ranks must be at least 1");
  if (spec.ranks > static_cast<uint32_t>(std::numeric_limits<int32_t>::max()))
    fail("ranks must be at most 2147483647");
  if (spec.nway < 1) fail("nway must be at least 1 (Schedgen's default is 1)");
  if (spec.segmentsize < 1) fail("segmentsize must be at least 1 byte (Schedgen's default is 1)");
  if (spec.size > kMaxSize) fail("size must be at most 2^50 bytes");
  if (spec.schedgen == SchedgenFlavour::Paper && pattern_info(spec.pattern).paper == Absent) {
    std::string have;
    for (const auto& info : kPatterns)
      if (info.paper != Absent) have += (have.empty() ? "" : ", ") + std::string(info.name);
    fail("the paper authors' Schedgen has no pattern '" + std::string(pattern_name(spec.pattern)) +
         "'; use schedgen public, or one of its patterns: " + have);
  }
  if (spec.nb_ns && *spec.nb_ns > kMaxNbNs) fail("nb is longer than 10^14 ns (10^5 s), the limit of one simulated time");
  const uint64_t ops = op_count_bound(spec);
  if (ops > kMaxOps)
    fail(std::string(pattern_name(spec.pattern)) + " with these arguments needs about " +
         std::to_string(ops) + " operations, more than the engine's limit of " +
         std::to_string(kMaxOps) + "; use fewer ranks" +
         (spec.pattern == Pattern::PipelinedRing || spec.pattern == Pattern::PipelinedRingDep
              ? " or a larger segmentsize"
              : ""));
}

}  // namespace cloudnoise
