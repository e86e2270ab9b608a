// Applications: K iterations of a sequence of phases, each phase either a
// compute phase (one `calc` of a given length on every rank) or a Schedgen
// collective (any pattern with its arguments). Generated rank by rank by
// reusing the pattern generators, so the collective phases are exactly the
// schedules `generate()` makes on their own, chained together.
//
// Joining rule (per rank; a "phase instance" is one phase in one iteration):
//  - entry ops of an instance: its ops that wait for no other op of the same
//    instance (no `requires` or `irequires` edge into them);
//  - exit ops of an instance: its ops that no other op of the same instance
//    waits to *finish* (`requires`). An op only `irequires`d by others is
//    still an exit: its successors starting says nothing about it finishing.
//  Every op of an instance finishes no later than some exit op does (follow
//  `requires` edges forward), so "all exits done" = "the instance is done".
//  - The rank's handle for "previous instance done" is its single exit op
//    when it has exactly one (a compute phase's calc, a ring's last receive),
//    otherwise a `calc 0` join op emitted right after the instance that
//    `requires` every exit. Every entry op of the next instance `requires`
//    that handle. An instance with no ops on a rank (e.g. a collective on 1
//    rank) passes the previous handle on. No join follows the last instance.
//  So each rank starts a phase as soon as it has itself finished the previous
//  one: phases are not global barriers, exactly as in an MPI program where
//  one collective call returns and the next is entered.
//
// Tags: collective instance j (counting only collective phases, over all
// iterations, from 0) uses tag j * stride + slot, where slot is the
// pattern's own tag mapped to a small index (Schedgen's tag 0 -> 0, the five
// chained_dissem runs -> 1..5, the authors' pipelinedring's round r -> r).
// The stride is kAppTagStride, or the most rounds of an authors'
// pipelinedring phase where that is more (app_tag_stride). The first
// collective keeps Schedgen's tags;
// messages of different instances can never match each other, even when a
// noisy network reorders them between a pair of ranks.
//
// Memory: the whole schedule is built (O(K x ops per iteration)); the op
// count is checked up front against the engine's 32-bit op indices.
#pragma once

#include <cstdint>
#include <vector>

#include "generate.hpp"
#include "op_sink.hpp"
#include "pattern_spec.hpp"
#include "schedule.hpp"
#include "sinks.hpp"

namespace cloudnoise {

struct PhaseSpec {
  enum class Kind : uint8_t { Compute, Collective };
  Kind kind = Kind::Compute;
  uint64_t compute_ps = 0;  // Compute: the calc's length on every rank
  PatternSpec collective;   // Collective: its `ranks` is the application's
};

struct ApplicationSpec {
  uint32_t ranks = 8;
  uint64_t iterations = 1;
  std::vector<PhaseSpec> phases;
};

// Tags reserved per collective instance (see above), at least.
inline constexpr uint32_t kAppTagStride = 8;

// Tags reserved per collective instance of this application.
uint64_t app_tag_stride(const ApplicationSpec& spec);

// Upper bound on the ops the application generates, joins included.
uint64_t op_count_bound(const ApplicationSpec& spec);

// Throws ScheduleError (saying what to change) for an empty application, bad
// phase arguments, too many ops for the engine or too many collective
// instances for the tag space.
void validate(const ApplicationSpec& spec);

// Emits the application into `out`, rank by rank (validates first).
void emit_application(const ApplicationSpec& spec, OpSink& out);

Schedule generate_application(const ApplicationSpec& spec);
void write_application_goal(const ApplicationSpec& spec, const ChunkWriter& out);
ScheduleCounts count_application(const ApplicationSpec& spec);

}  // namespace cloudnoise
