// Generating Schedgen's collectives: as a Schedule for the engine, as GOAL
// text identical to Schedgen's output, or as counts only.
#pragma once

#include "goal_writer.hpp"
#include "op_sink.hpp"
#include "pattern_spec.hpp"
#include "schedule.hpp"
#include "sinks.hpp"

namespace cloudnoise {

// Emits the whole schedule into `out`, rank by rank: begin_rank, then (with
// --nb) the rank's independent `calc nb`, then the pattern's ops, end_rank.
// Validates the spec first (ScheduleError on bad arguments).
void emit_schedule(const PatternSpec& spec, OpSink& out);

// The schedule in memory, ready to simulate.
Schedule generate(const PatternSpec& spec);

// The schedule as GOAL text, byte-identical to what Schedgen writes for the
// same pattern and arguments (where Schedgen's schedule is valid). Streams:
// memory stays O(one rank) whatever the schedule's size.
void write_generated_goal(const PatternSpec& spec, const ChunkWriter& out);

// Counts ops, edges and bytes without storing the schedule.
ScheduleCounts count_schedule(const PatternSpec& spec);

}  // namespace cloudnoise
