// What collective to generate: a Schedgen pattern name and its arguments.
// Names, argument meanings and defaults follow Schedgen's command line, so a
// spec written for the reference generator reproduces the same schedule here.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace cloudnoise {

// The patterns Schedgen generates from parameters alone (its trace replay and
// randomised patterns are not collectives of this kind and are left out).
enum class Pattern : uint8_t {
  BinomialTreeBcast,
  BinaryTreeBcast,
  BinomialTreeReduce,
  NwayDissemination,
  Dissemination,
  PipelinedRing,
  PipelinedRingDep,
  DoubleRing,
  Gather,
  Scatter,
  LinBarrier,
  LinearAlltoall,
  AllreduceRecdoub,
  AllreduceRing,
  ChainedDissem,
};

// Which Schedgen a collective is generated as. Public: spcl's Schedgen (the
// default, byte-identical to it). Paper: the modified Schedgen of the paper
// authors' artifact (DanieleDeSensi/cloud_noise, simulations/schedgen), which
// generated the paper's simulations and its real benchmark programs; two of
// its patterns differ from public Schedgen's and three of ours it lacks.
enum class SchedgenFlavour : uint8_t { Public, Paper };

// How the authors' Schedgen generates a pattern, compared to public Schedgen.
enum class PaperVariant : uint8_t { Same, Differs, Absent };

struct PatternInfo {
  Pattern pattern;
  std::string_view name;         // as Schedgen spells it on its command line
  std::string_view description;  // one line, for listings
  PaperVariant paper = PaperVariant::Same;
  std::string_view paper_description = {};  // what the authors' variant does, where it differs
};

// Every supported pattern, in Schedgen's listing order.
std::span<const PatternInfo> all_patterns();
const PatternInfo& pattern_info(Pattern p);

// "public" / "paper", and back; parse_flavour throws ScheduleError naming
// the valid choices for an unknown name.
std::string_view flavour_name(SchedgenFlavour f);
SchedgenFlavour parse_flavour(std::string_view name);

// Schedgen's name of a pattern, and back; parse_pattern throws ScheduleError
// naming the valid choices for an unknown name.
std::string_view pattern_name(Pattern p);
Pattern parse_pattern(std::string_view name);

// Schedgen's defaults (its .ggo file): --nway 1, --segmentsize 1, no --nb.
inline constexpr uint32_t kDefaultNway = 1;
inline constexpr uint64_t kDefaultSegmentSize = 1;

struct PatternSpec {
  Pattern pattern = Pattern::BinomialTreeBcast;
  SchedgenFlavour schedgen = SchedgenFlavour::Public;  // whose Schedgen's variant
  uint32_t ranks = 8;
  uint64_t size = 1;  // bytes moved in one basic step (Schedgen's --datasize)
  uint32_t nway = kDefaultNway;                   // nwaydissemination fan-out
  uint64_t segmentsize = kDefaultSegmentSize;     // pipelined rings' segment, bytes
  // Schedgen's --nb T: when given (even as 0) every rank starts with an
  // independent `calc T` (ns), the local work overlapping the collective.
  std::optional<uint64_t> nb_ns;
};

// Upper bound on the ops a spec generates (exact for most patterns); cheap.
uint64_t op_count_bound(const PatternSpec& spec);

// Throws ScheduleError with a message saying what to change when a spec is
// out of range, names a pattern its Schedgen flavour does not have, or would
// not fit the engine's 32-bit op indices.
void validate(const PatternSpec& spec);

}  // namespace cloudnoise
