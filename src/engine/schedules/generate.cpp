#include "generate.hpp"

#include "patterns.hpp"

namespace cloudnoise {

namespace patterns {

RankEmitter rank_emitter(const PatternSpec& spec) {
  const bool paper = spec.schedgen == SchedgenFlavour::Paper;
  if (paper && pattern_info(spec.pattern).paper == PaperVariant::Absent)
    throw ScheduleError("the paper authors' Schedgen has no " + std::string(pattern_name(spec.pattern)), 0);
  switch (spec.pattern) {
    case Pattern::BinomialTreeBcast: return paper ? binomial_tree_bcast_paper : binomial_tree_bcast;
    case Pattern::BinaryTreeBcast: return binary_tree_bcast;
    case Pattern::BinomialTreeReduce: return binomial_tree_reduce;
    case Pattern::NwayDissemination: return nway_dissemination;
    case Pattern::Dissemination: return dissemination;
    case Pattern::PipelinedRing: return paper ? pipelined_ring_paper : pipelined_ring;
    case Pattern::PipelinedRingDep: return pipelined_ring_dep;
    case Pattern::DoubleRing: return double_ring;
    case Pattern::Gather: return gather;
    case Pattern::Scatter: return scatter;
    case Pattern::LinBarrier: return lin_barrier;
    case Pattern::LinearAlltoall: return linear_alltoall;
    case Pattern::AllreduceRecdoub: return allreduce_recdoub;
    case Pattern::AllreduceRing: return allreduce_ring;
    case Pattern::ChainedDissem: return chained_dissem;
  }
  throw ScheduleError("pattern has no generator", 0);
}

bool rank_symmetric(const PatternSpec& spec) {
  const Pattern p = spec.pattern;
  return p == Pattern::Dissemination || p == Pattern::NwayDissemination || p == Pattern::AllreduceRing ||
         (p == Pattern::PipelinedRing && spec.schedgen == SchedgenFlavour::Paper);
}

bool round_tags(const PatternSpec& spec) {
  return spec.pattern == Pattern::PipelinedRing && spec.schedgen == SchedgenFlavour::Paper;
}

}  // namespace patterns

void emit_schedule(const PatternSpec& spec, OpSink& out) {
  validate(spec);
  const patterns::RankEmitter emit_rank = patterns::rank_emitter(spec);
  for (uint32_t rank = 0; rank < spec.ranks; ++rank) {
    out.begin_rank(rank);
    // Schedgen's --nb: the rank's first op, a calc nothing depends on. It
    // only occupies the CPU, so the collective's ops overlap with it.
    if (spec.nb_ns) out.calc(*spec.nb_ns * kPsPerNs);
    emit_rank(spec, rank, out);
    out.end_rank();
  }
}

Schedule generate(const PatternSpec& spec) {
  validate(spec);
  ScheduleBuilder builder(spec.ranks);
  BuilderSink sink(builder);
  if (!patterns::rank_symmetric(spec)) {
    emit_schedule(spec, sink);
    return builder.finish();
  }
  const patterns::RankEmitter emit_rank = patterns::rank_emitter(spec);
  sink.begin_rank(0);
  if (spec.nb_ns) sink.calc(*spec.nb_ns * kPsPerNs);
  emit_rank(spec, 0, sink);
  sink.end_rank();
  for (uint32_t rank = 1; rank < spec.ranks; ++rank) builder.repeat_first_rank(rank);
  return builder.finish();
}

void write_generated_goal(const PatternSpec& spec, const ChunkWriter& out) {
  validate(spec);
  GoalTextWriter writer(out);
  writer.num_ranks(spec.ranks);
  TextSink sink(writer);
  emit_schedule(spec, sink);
  writer.flush();
}

ScheduleCounts count_schedule(const PatternSpec& spec) {
  CountingSink sink;
  emit_schedule(spec, sink);
  return sink.counts();
}

}  // namespace cloudnoise
