// Allreduce algorithms: recursive halving/doubling and the ring.
#include "patterns.hpp"
#include "rounds.hpp"

namespace cloudnoise::patterns {

// Recursive halving reduce-scatter then recursive doubling allgather among
// 2^k ranks: in step j of the first phase a rank exchanges size/2^(j+1)
// bytes with rank ^ 2^j; the second phase walks the masks back down with
// the sizes doubling again. Every send waits for the previous receive.
//
// Schedgen only handles P = 2^k: for other P it pairs ranks with
// nonexistent partners (rank ^ mask >= P) and the schedule cannot run. We
// fold the extra ranks in first, as MPI libraries do: with q = P - 2^k, each
// even rank 2i < 2q hands its full buffer to 2i+1 and later gets the result
// back from it; the 2^k remaining ranks (odd ranks below 2q, then every rank
// from 2q) run the power-of-two algorithm. For P = 2^k nothing is added and
// the schedule is op-for-op Schedgen's.
void allreduce_recdoub(const PatternSpec& spec, uint32_t rank, OpSink& out) {
  const uint32_t k = schedgen_rounds::floor_log2(spec.ranks);
  const uint32_t core = uint32_t{1} << k;
  const uint32_t extra = spec.ranks - core;
  const bool folded = rank < 2 * extra;
  if (folded && rank % 2 == 0) {
    out.send(spec.size, rank + 1, kTag);
    out.recv(spec.size, rank + 1, kTag);
    return;
  }
  uint32_t last_recv = kNone;
  if (folded) last_recv = out.recv(spec.size, rank - 1, kTag);
  const uint32_t vrank = folded ? rank / 2 : rank - extra;
  auto real_rank = [extra](uint32_t v) { return v < extra ? 2 * v + 1 : v + extra; };
  auto exchange = [&](uint64_t bytes, uint32_t mask) {
    const uint32_t peer = real_rank(vrank ^ mask);
    const uint32_t send = out.send(bytes, peer, kTag);
    if (last_recv != kNone) out.requires_done(send, last_recv);
    last_recv = out.recv(bytes, peer, kTag);
  };
  uint64_t bytes = spec.size;
  uint32_t mask = 1;
  for (uint32_t step = 0; step < k; ++step, mask <<= 1) {
    bytes /= 2;
    exchange(bytes, mask);
  }
  mask >>= 1;
  for (uint32_t step = 0; step < k; ++step, mask >>= 1) {
    exchange(bytes, mask);
    bytes *= 2;
  }
  if (folded) {
    const uint32_t send = out.send(spec.size, rank - 1, kTag);
    if (last_recv != kNone) out.requires_done(send, last_recv);
  }
}

// 2(P-1) steps around the ring (reduce-scatter, then allgather), each
// sending size/P bytes (integer division, as Schedgen) to rank+1 and
// receiving from rank-1; every send waits for the previous receive.
void allreduce_ring(const PatternSpec& spec, uint32_t rank, OpSink& out) {
  const uint32_t p = spec.ranks;
  const uint64_t chunk = spec.size / p;
  const uint32_t next = ring_add(rank, 1, p), prev = ring_sub(rank, 1, p);
  uint32_t last_recv = kNone;
  for (uint32_t phase = 0; phase < 2; ++phase) {
    for (uint32_t step = 0; step + 1 < p; ++step) {
      const uint32_t send = out.send(chunk, next, kTag);
      if (last_recv != kNone) out.requires_done(send, last_recv);
      last_recv = out.recv(chunk, prev, kTag);
    }
  }
}

}  // namespace cloudnoise::patterns
