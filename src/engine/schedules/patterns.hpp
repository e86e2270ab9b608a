// One function per Schedgen pattern, each emitting the ops of one rank into a
// sink in Schedgen's order: same ops, same edges, same interleaving. They are
// grouped by family: trees.cpp, dissemination.cpp, rings.cpp, linear.cpp,
// allreduce.cpp. Where the paper authors' Schedgen differs, its variant is a
// sibling of the public one (`*_paper`) in the same family file; rank_emitter
// picks by the spec's flavour. Root is always rank 0 (Schedgen's default --root).
#pragma once

#include <cstdint>
#include <limits>

#include "op_sink.hpp"
#include "pattern_spec.hpp"

namespace cloudnoise::patterns {

// Handle value meaning "no such op (yet)".
inline constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
// Schedgen's tag for plain collectives (its per-rank tag counter starts at 0).
inline constexpr uint32_t kTag = 0;

using RankEmitter = void (*)(const PatternSpec& spec, uint32_t rank, OpSink& out);

// trees.cpp
void binomial_tree_bcast(const PatternSpec& spec, uint32_t rank, OpSink& out);
void binomial_tree_bcast_paper(const PatternSpec& spec, uint32_t rank, OpSink& out);
void binomial_tree_reduce(const PatternSpec& spec, uint32_t rank, OpSink& out);
void binary_tree_bcast(const PatternSpec& spec, uint32_t rank, OpSink& out);
// dissemination.cpp
void dissemination(const PatternSpec& spec, uint32_t rank, OpSink& out);
void nway_dissemination(const PatternSpec& spec, uint32_t rank, OpSink& out);
void chained_dissem(const PatternSpec& spec, uint32_t rank, OpSink& out);
// rings.cpp
void pipelined_ring(const PatternSpec& spec, uint32_t rank, OpSink& out);
void pipelined_ring_paper(const PatternSpec& spec, uint32_t rank, OpSink& out);
void pipelined_ring_dep(const PatternSpec& spec, uint32_t rank, OpSink& out);
void double_ring(const PatternSpec& spec, uint32_t rank, OpSink& out);
// linear.cpp
void gather(const PatternSpec& spec, uint32_t rank, OpSink& out);
void scatter(const PatternSpec& spec, uint32_t rank, OpSink& out);
void lin_barrier(const PatternSpec& spec, uint32_t rank, OpSink& out);
void linear_alltoall(const PatternSpec& spec, uint32_t rank, OpSink& out);
// allreduce.cpp
void allreduce_recdoub(const PatternSpec& spec, uint32_t rank, OpSink& out);
void allreduce_ring(const PatternSpec& spec, uint32_t rank, OpSink& out);

// The generator of a spec's pattern in its Schedgen flavour (validate first:
// a flavour without the pattern throws).
RankEmitter rank_emitter(const PatternSpec& spec);

// Whether every rank emits the same ops with peers relative to itself
// (rank +- d mod P), so that rank 0 built once stands for all.
bool rank_symmetric(const PatternSpec& spec);

// Whether the pattern tags its messages by round (0, 1, ...), not with
// Schedgen's plain tag 0: the authors' pipelinedring.
bool round_tags(const PatternSpec& spec);

// (a - b) mod m for ranks, never negative.
inline uint32_t ring_sub(uint32_t a, uint64_t b, uint32_t m) {
  return static_cast<uint32_t>((a + m - (b % m)) % m);
}
inline uint32_t ring_add(uint32_t a, uint64_t b, uint32_t m) {
  return static_cast<uint32_t>((a + (b % m)) % m);
}

}  // namespace cloudnoise::patterns
