#include "application.hpp"

#include "../input_limits.hpp"

#include <limits>
#include <string>

#include "op_count.hpp"
#include "patterns.hpp"
#include "rounds.hpp"

namespace cloudnoise {

namespace {

// Tags stay below 2^31 so GOAL text written from an application still reads
// into tools that hold tags in a signed int (LogGOPSim).
constexpr uint64_t kMaxTag = std::numeric_limits<int32_t>::max();
constexpr uint32_t kNone = patterns::kNone;

using op_count::add_sat;
using op_count::kMaxOps;
using op_count::mul_sat;

// The pattern spec of a collective phase, sized to the application.
PatternSpec phase_pattern(const ApplicationSpec& app, const PhaseSpec& phase) {
  PatternSpec p = phase.collective;
  p.ranks = app.ranks;
  return p;
}

uint64_t collective_phases(const ApplicationSpec& spec) {
  uint64_t n = 0;
  for (const PhaseSpec& ph : spec.phases) n += ph.kind == PhaseSpec::Kind::Collective;
  return n;
}

// Schedgen's tags mapped to a slot below the stride: its plain tag 0, the
// authors' pipelinedring's round tags as they are (`rounds`: the stride
// covers them), and the five chained_dissem runs (communicator 1 in the top
// byte, 100000 + i).
uint32_t tag_slot(uint32_t tag, bool rounds) {
  if (tag == patterns::kTag || rounds) return tag;
  const uint32_t low = tag & 0xFFFFFFu;
  if ((tag >> 24) == 1 && low >= 100000 && low - 100000 < kAppTagStride - 1) return 1 + (low - 100000);
  throw ScheduleError("internal: a pattern used tag " + std::to_string(tag) +
                          ", which application phases cannot renumber",
                      0);
}

// Passes one phase instance's ops through to the real sink, renumbering tags
// and noting, per op, whether an op of the same instance points at it
// (`has_in`, any edge) and whether one waits for it to finish (`has_done_out`).
// Handles are the real sink's rank-local indices, contiguous from `first_`.
class PhaseSink final : public OpSink {
 public:
  explicit PhaseSink(OpSink& out) : out_(out) {}

  void start(uint64_t tag_base, bool round_tags) {
    tag_base_ = tag_base;
    round_tags_ = round_tags;
    first_ = kNone;
    has_in_.clear();
    has_done_out_.clear();
  }
  uint32_t count() const { return static_cast<uint32_t>(has_in_.size()); }
  uint32_t first() const { return first_; }
  bool is_entry(uint32_t i) const { return !has_in_[i]; }
  bool is_exit(uint32_t i) const { return !has_done_out_[i]; }

  void begin_rank(uint32_t) override { throw ScheduleError("internal: begin_rank inside a phase", 0); }
  void end_rank() override { throw ScheduleError("internal: end_rank inside a phase", 0); }
  uint32_t send(uint64_t bytes, uint32_t dest, uint32_t tag) override {
    return note(out_.send(bytes, dest, map(tag)));
  }
  uint32_t recv(uint64_t bytes, uint32_t src, uint32_t tag) override {
    return note(out_.recv(bytes, src, map(tag)));
  }
  uint32_t calc(uint64_t picoseconds) override { return note(out_.calc(picoseconds)); }
  void requires_done(uint32_t a, uint32_t b) override {
    out_.requires_done(a, b);
    has_in_.at(a - first_) = 1;
    has_done_out_.at(b - first_) = 1;
  }
  void requires_start(uint32_t a, uint32_t b) override {
    out_.requires_start(a, b);
    has_in_.at(a - first_) = 1;
  }

 private:
  uint32_t map(uint32_t tag) const {
    if (tag == kAny) return kAny;
    return static_cast<uint32_t>(tag_base_ + tag_slot(tag, round_tags_));
  }
  uint32_t note(uint32_t handle) {
    if (first_ == kNone) first_ = handle;
    has_in_.push_back(0);
    has_done_out_.push_back(0);
    return handle;
  }

  OpSink& out_;
  uint64_t tag_base_ = 0;
  bool round_tags_ = false;
  uint32_t first_ = kNone;
  std::vector<uint8_t> has_in_, has_done_out_;
};

}  // namespace

uint64_t app_tag_stride(const ApplicationSpec& spec) {
  uint64_t stride = kAppTagStride;
  for (const PhaseSpec& ph : spec.phases) {
    if (ph.kind != PhaseSpec::Kind::Collective || !patterns::round_tags(ph.collective)) continue;
    const uint64_t rounds = schedgen_rounds::segments(ph.collective.size, ph.collective.segmentsize);
    if (rounds > stride) stride = rounds;
  }
  return stride;
}

uint64_t op_count_bound(const ApplicationSpec& spec) {
  uint64_t per_iteration = 0;
  for (const PhaseSpec& ph : spec.phases) {
    if (ph.kind == PhaseSpec::Kind::Compute) {
      per_iteration = add_sat(per_iteration, spec.ranks);
    } else {
      // the collective, plus at most one join per rank
      per_iteration = add_sat(per_iteration, op_count_bound(phase_pattern(spec, ph)));
      per_iteration = add_sat(per_iteration, spec.ranks);
    }
  }
  return mul_sat(per_iteration, spec.iterations);
}

void validate(const ApplicationSpec& spec) {
  auto fail = [](const std::string& msg) { throw ScheduleError(msg, 0); };
  if (spec.ranks < 1) fail("ranks must be at least 1");
  if (spec.ranks > static_cast<uint32_t>(std::numeric_limits<int32_t>::max()))
    fail("ranks must be at most 2147483647");
  if (spec.iterations < 1) fail("iterations must be at least 1");
  if (spec.phases.empty()) fail("an application needs at least one phase");
  for (const PhaseSpec& ph : spec.phases) {
    if (ph.kind == PhaseSpec::Kind::Collective) validate(phase_pattern(spec, ph));
    if (ph.kind == PhaseSpec::Kind::Compute && ph.compute_ps > static_cast<uint64_t>(limits::kMaxTimePs))
      fail("a compute phase of " + std::to_string(ph.compute_ps / 1000) +
           " ns is longer than 10^14 ns (10^5 s), the limit of one simulated time");
  }
  const uint64_t instances = mul_sat(collective_phases(spec), spec.iterations);
  const uint64_t stride = app_tag_stride(spec);
  if (stride > kMaxTag || (instances > 0 && mul_sat(instances - 1, stride) > kMaxTag - stride))
    fail("too many collective phases in total (" + std::to_string(instances) +
         ") for distinct message tags; use fewer iterations");
  const uint64_t ops = op_count_bound(spec);
  if (ops > kMaxOps)
    fail("this application needs about " + std::to_string(ops) +
         " operations, more than the engine's limit of " + std::to_string(kMaxOps) +
         "; use fewer iterations or ranks (the schedule is held in memory, so it grows with "
         "the iterations)");
}

void emit_application(const ApplicationSpec& spec, OpSink& out) {
  validate(spec);
  std::vector<PatternSpec> patterns(spec.phases.size());
  std::vector<patterns::RankEmitter> emitters(spec.phases.size(), nullptr);
  for (size_t i = 0; i < spec.phases.size(); ++i) {
    if (spec.phases[i].kind != PhaseSpec::Kind::Collective) continue;
    patterns[i] = phase_pattern(spec, spec.phases[i]);
    emitters[i] = patterns::rank_emitter(patterns[i]);
  }
  const uint64_t stride = app_tag_stride(spec);
  const uint64_t total_instances = mul_sat(spec.phases.size(), spec.iterations);
  PhaseSink phase(out);
  std::vector<uint32_t> exits;
  for (uint32_t rank = 0; rank < spec.ranks; ++rank) {
    out.begin_rank(rank);
    uint32_t prev = kNone;  // "the previous phase instance is done" on this rank
    uint64_t instance = 0, collective = 0;
    for (uint64_t it = 0; it < spec.iterations; ++it) {
      for (size_t i = 0; i < spec.phases.size(); ++i, ++instance) {
        const PhaseSpec& ph = spec.phases[i];
        if (ph.kind == PhaseSpec::Kind::Compute) {
          const uint32_t c = out.calc(ph.compute_ps);
          if (prev != kNone) out.requires_done(c, prev);
          prev = c;
          continue;
        }
        phase.start(collective++ * stride, patterns::round_tags(patterns[i]));
        if (patterns[i].nb_ns) phase.calc(*patterns[i].nb_ns * kPsPerNs);
        emitters[i](patterns[i], rank, phase);
        const uint32_t n = phase.count();
        if (n == 0) continue;
        const uint32_t first = phase.first();
        if (prev != kNone)
          for (uint32_t k = 0; k < n; ++k)
            if (phase.is_entry(k)) out.requires_done(first + k, prev);
        exits.clear();
        for (uint32_t k = 0; k < n; ++k)
          if (phase.is_exit(k)) exits.push_back(first + k);
        if (exits.size() == 1) {
          prev = exits[0];
        } else if (instance + 1 < total_instances) {
          prev = out.calc(0);
          for (uint32_t x : exits) out.requires_done(prev, x);
        }
      }
    }
    out.end_rank();
  }
}

Schedule generate_application(const ApplicationSpec& spec) {
  validate(spec);
  ScheduleBuilder builder(spec.ranks);
  BuilderSink sink(builder);
  emit_application(spec, sink);
  return builder.finish();
}

void write_application_goal(const ApplicationSpec& spec, const ChunkWriter& out) {
  validate(spec);
  GoalTextWriter writer(out);
  writer.num_ranks(spec.ranks);
  TextSink sink(writer);
  emit_application(spec, sink);
  writer.flush();
}

ScheduleCounts count_application(const ApplicationSpec& spec) {
  CountingSink sink;
  emit_application(spec, sink);
  return sink.counts();
}

}  // namespace cloudnoise
