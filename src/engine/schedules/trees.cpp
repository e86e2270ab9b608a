// Tree collectives rooted at rank 0: binomial broadcast (public Schedgen's
// and the paper authors' variant) and reduce, binary (heap-shaped) broadcast.
#include "patterns.hpp"
#include "rounds.hpp"

namespace cloudnoise::patterns {

// Round r: ranks below 2^r that have a partner 2^r above them send to it;
// ranks in [2^r, 2^(r+1)) receive from 2^r below. Every round after both a
// send and a receive exist re-declares "send requires receive" for the
// latest of each, as Schedgen does (so an edge may appear twice).
// With `serialise` (the authors' variant), each send to a child also waits
// for the rank's previous send, declared right after the send itself.
static void emit_binomial_bcast(const PatternSpec& spec, uint32_t rank, bool serialise, OpSink& out) {
  const uint64_t p = spec.ranks, v = rank;
  const uint32_t rounds = schedgen_rounds::ceil_log2(spec.ranks);
  uint32_t send = kNone, recv = kNone;
  for (uint32_t r = 0; r < rounds; ++r) {
    const uint64_t step = uint64_t{1} << r;
    if (v + step < p && v < step) {
      const uint32_t last_send = send;
      send = out.send(spec.size, static_cast<uint32_t>(v + step), kTag);
      if (serialise && last_send != kNone) out.requires_done(send, last_send);
    }
    if (send != kNone && recv != kNone) out.requires_done(send, recv);
    if (v >= step && v < 2 * step) recv = out.recv(spec.size, static_cast<uint32_t>(v - step), kTag);
  }
}

void binomial_tree_bcast(const PatternSpec& spec, uint32_t rank, OpSink& out) {
  emit_binomial_bcast(spec, rank, /*serialise=*/false, out);
}

void binomial_tree_bcast_paper(const PatternSpec& spec, uint32_t rank, OpSink& out) {
  emit_binomial_bcast(spec, rank, /*serialise=*/true, out);
}

// The mirror image: receives from the ranks a broadcast would send to, sends
// where a broadcast would receive. Schedgen keeps the broadcast's round order,
// so a rank's send to its parent may come before (and require) a later
// receive from its child, and the edge is re-declared every later round.
void binomial_tree_reduce(const PatternSpec& spec, uint32_t rank, OpSink& out) {
  const uint64_t p = spec.ranks, v = rank;
  const uint32_t rounds = schedgen_rounds::ceil_log2(spec.ranks);
  uint32_t send = kNone, recv = kNone;
  for (uint32_t r = 0; r < rounds; ++r) {
    const uint64_t step = uint64_t{1} << r;
    if (v + step < p && v < step)
      recv = out.recv(spec.size, static_cast<uint32_t>(v + step), kTag);
    if (send != kNone && recv != kNone) out.requires_done(send, recv);
    if (v >= step && v < 2 * step) send = out.send(spec.size, static_cast<uint32_t>(v - step), kTag);
  }
}

// Rank i's children are 2i+1 and 2i+2 (Schedgen assigns them breadth-first,
// which yields exactly this heap order). A rank receives from its parent,
// sends to its children, and only then declares the sends' dependencies.
void binary_tree_bcast(const PatternSpec& spec, uint32_t rank, OpSink& out) {
  const uint64_t p = spec.ranks;
  uint32_t recv = kNone;
  uint32_t sends[2] = {kNone, kNone};
  if (rank > 0) recv = out.recv(spec.size, (rank - 1) / 2, kTag);
  for (uint64_t c = 0; c < 2; ++c) {
    const uint64_t child = 2 * uint64_t{rank} + 1 + c;
    if (child < p) sends[c] = out.send(spec.size, static_cast<uint32_t>(child), kTag);
  }
  if (recv != kNone)
    for (uint32_t s : sends)
      if (s != kNone) out.requires_done(s, recv);
}

}  // namespace cloudnoise::patterns
