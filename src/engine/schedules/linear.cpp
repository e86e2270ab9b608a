// Linear (flat) patterns: gather, scatter, the central-counter barrier and
// the shifted linear alltoall.
#include "patterns.hpp"

namespace cloudnoise::patterns {

// Every other rank sends to rank 0, which receives from 1, 2, ..., P-1.
void gather(const PatternSpec& spec, uint32_t rank, OpSink& out) {
  if (rank == 0) {
    for (uint32_t i = 1; i < spec.ranks; ++i) out.recv(spec.size, i, kTag);
  } else {
    out.send(spec.size, 0, kTag);
  }
}

// Rank 0 sends to 1, 2, ..., P-1; each of them receives once.
void scatter(const PatternSpec& spec, uint32_t rank, OpSink& out) {
  if (rank == 0) {
    for (uint32_t i = 1; i < spec.ranks; ++i) out.send(spec.size, i, kTag);
  } else {
    out.recv(spec.size, 0, kTag);
  }
}

// Rank 0 starts with a `calc 0` that waits for a 1-byte message from every
// rank and releases a 1-byte reply to each (P+P edges instead of P*P). The
// others send, then receive. Schedgen ignores --datasize here: always 1 byte.
void lin_barrier(const PatternSpec& spec, uint32_t rank, OpSink& out) {
  constexpr uint64_t kBytes = 1;
  if (rank == 0) {
    const uint32_t gate = out.calc(0);
    for (uint32_t i = 1; i < spec.ranks; ++i) {
      const uint32_t recv = out.recv(kBytes, i, kTag);
      const uint32_t send = out.send(kBytes, i, kTag);
      out.requires_done(gate, recv);
      out.requires_done(send, gate);
    }
  } else {
    out.send(kBytes, 0, kTag);
    out.recv(kBytes, 0, kTag);
  }
}

// Step s = 1..P-1: send to rank+s, receive from rank-s; no dependencies.
void linear_alltoall(const PatternSpec& spec, uint32_t rank, OpSink& out) {
  for (uint32_t step = 1; step < spec.ranks; ++step) {
    out.send(spec.size, ring_add(rank, step, spec.ranks), kTag);
    out.recv(spec.size, ring_sub(rank, step, spec.ranks), kTag);
  }
}

}  // namespace cloudnoise::patterns
