// Ring family: the pipelined chain broadcasts (0 -> 1 -> ... -> P-1, in
// segments), the paper authors' closed pipelined ring, and the double ring
// (one message each way around the ring).
#include "patterns.hpp"
#include "rounds.hpp"

namespace cloudnoise::patterns {

namespace {

// Segment r carries segmentsize bytes, the last one what is left. A rank
// receives segment r from rank-1 (if any), forwards it to rank+1 (if any),
// and the forward waits for the receive. With `pace`, receiving segment r
// also waits until segment r-1 has been forwarded.
void emit_pipelined_chain(const PatternSpec& spec, uint32_t rank, bool pace, OpSink& out) {
  const uint64_t segments = schedgen_rounds::segments(spec.size, spec.segmentsize);
  const bool has_prev = rank > 0;
  const bool has_next = uint64_t{rank} + 1 < spec.ranks;
  uint32_t prev_send = kNone;
  for (uint64_t r = 0; r < segments; ++r) {
    const uint64_t bytes = r + 1 == segments ? spec.size - spec.segmentsize * r : spec.segmentsize;
    const uint32_t recv = has_prev ? out.recv(bytes, rank - 1, kTag) : kNone;
    const uint32_t send = has_next ? out.send(bytes, rank + 1, kTag) : kNone;
    if (send != kNone && recv != kNone) out.requires_done(send, recv);
    if (pace && prev_send != kNone && recv != kNone) out.requires_done(recv, prev_send);
    prev_send = send;
  }
}

}  // namespace

void pipelined_ring(const PatternSpec& spec, uint32_t rank, OpSink& out) {
  emit_pipelined_chain(spec, rank, /*pace=*/false, out);
}

void pipelined_ring_dep(const PatternSpec& spec, uint32_t rank, OpSink& out) {
  emit_pipelined_chain(spec, rank, /*pace=*/true, out);
}

// The authors' pipelinedring (their artifact's Schedgen): the ring is closed,
// rank r receiving from r-1 and sending to r+1 (mod P), and segment r of
// every rank is tagged r. Nothing waits in round 0, so every rank sends its
// first segment at once; from round 1 on, a rank's send of segment r waits
// for its receive of segment r-1 (not r, as public Schedgen's chain does).
// Every rank emits the same ops relative to itself.
void pipelined_ring_paper(const PatternSpec& spec, uint32_t rank, OpSink& out) {
  const uint64_t segments = schedgen_rounds::segments(spec.size, spec.segmentsize);
  const uint32_t prev = ring_sub(rank, 1, spec.ranks), next = ring_add(rank, 1, spec.ranks);
  uint32_t prev_recv = kNone;
  for (uint64_t r = 0; r < segments; ++r) {
    const uint64_t bytes = r + 1 == segments ? spec.size - spec.segmentsize * r : spec.segmentsize;
    const auto tag = static_cast<uint32_t>(r);
    const uint32_t recv = out.recv(bytes, prev, tag);
    const uint32_t send = out.send(bytes, next, tag);
    if (prev_recv != kNone) out.requires_done(send, prev_recv);
    prev_recv = recv;
  }
}

// Forward ring then backward ring. Rank 0 starts both rings, so only the
// other ranks make their send wait for the receive. Schedgen offers
// --segmentsize for this pattern but does not use it.
void double_ring(const PatternSpec& spec, uint32_t rank, OpSink& out) {
  const uint32_t p = spec.ranks;
  const uint32_t next = ring_add(rank, 1, p), prev = ring_sub(rank, 1, p);
  uint32_t send = out.send(spec.size, next, kTag);
  uint32_t recv = out.recv(spec.size, prev, kTag);
  if (rank > 0) out.requires_done(send, recv);
  send = out.send(spec.size, prev, kTag);
  recv = out.recv(spec.size, next, kTag);
  if (rank > 0) out.requires_done(send, recv);
}

}  // namespace cloudnoise::patterns
