// Dissemination family: the classic log2(P)-round dissemination, its n-way
// generalisation with explicit reduction work, and chained_dissem (several
// dissemination allreduces run back to back).
#include <vector>

#include "patterns.hpp"
#include "rounds.hpp"

namespace cloudnoise::patterns {

namespace {

// The ops one dissemination emits on a rank, in emission order.
struct DisseminationOps {
  std::vector<uint32_t> sends, recvs;  // sends[k], recvs[k] of round k
};

// Round k (distance 2^k): send to rank + 2^k, receive from rank - 2^k; each
// send after the first waits for the previous round's receive.
DisseminationOps emit_dissemination(uint64_t bytes, uint32_t tag, uint32_t rank, uint32_t ranks,
                                    OpSink& out) {
  DisseminationOps ops;
  uint32_t recv = kNone;
  for (uint64_t dist = 1; dist < ranks; dist <<= 1) {
    const uint32_t send = out.send(bytes, ring_add(rank, dist, ranks), tag);
    if (recv != kNone) out.requires_done(send, recv);
    recv = out.recv(bytes, ring_sub(rank, dist, ranks), tag);
    ops.sends.push_back(send);
    ops.recvs.push_back(recv);
  }
  return ops;
}

}  // namespace

void dissemination(const PatternSpec& spec, uint32_t rank, OpSink& out) {
  emit_dissemination(spec.size, kTag, rank, spec.ranks, out);
}

// Round r sends to rank + w*(n+1)^r and receives from rank - w*(n+1)^r for
// w = 1..n. From the second round on, before its receives, a round combines
// the previous round's n receives with a chain of n `calc size` reductions
// (Schedgen charges one ns per byte) and makes its sends wait for them:
// the last send on the second-to-last reduction, every send on the last.
void nway_dissemination(const PatternSpec& spec, uint32_t rank, OpSink& out) {
  const uint32_t n = spec.nway;
  const uint32_t rounds = schedgen_rounds::nway_rounds(spec.ranks, n);
  const uint64_t reduce_ps = spec.size * kPsPerNs;
  std::vector<uint32_t> recv(n, kNone), send(n, kNone);
  uint64_t dist = 1;  // (n+1)^r
  for (uint32_t r = 0; r < rounds; ++r, dist *= uint64_t{n} + 1) {
    for (uint32_t w = 1; w <= n; ++w)
      send[w - 1] = out.send(spec.size, ring_add(rank, w * dist, spec.ranks), kTag);
    if (r > 0) {
      uint32_t prev = recv[0];
      for (uint32_t w = 1; w < n; ++w) {
        const uint32_t red = out.calc(reduce_ps);
        out.requires_done(red, recv[w]);
        out.requires_done(red, prev);
        prev = red;
      }
      const uint32_t red = out.calc(reduce_ps);
      out.requires_done(red, recv[0]);
      out.requires_done(send[n - 1], prev);
      for (uint32_t w = 0; w < n; ++w) out.requires_done(send[w], red);
    }
    for (uint32_t w = 1; w <= n; ++w)
      recv[w - 1] = out.recv(spec.size, ring_sub(rank, w * dist, spec.ranks), kTag);
  }
}

// Schedgen runs 5 dissemination allreduces, run i with its own tag
// (communicator 1 in the top 8 bits, 100000 + i below), and separates runs
// with a marker op: the marker waits for every op of run i that nothing else
// in the run waits for, and every op of run i+1 that waits for nothing in
// its run waits for the marker. Schedgen's marker is a 0-byte send to rank
// 9999999, which does not exist and makes LogGOPSim fail; ours is a `calc 0`,
// a purely local op that orders the runs the same way. Schedgen also fixes
// the message size at 10000 bytes; we use the requested size.
void chained_dissem(const PatternSpec& spec, uint32_t rank, OpSink& out) {
  constexpr uint32_t kRuns = 5;
  constexpr uint32_t kComm = 1, kTagBase = 100000;
  uint32_t old_marker = kNone;
  for (uint32_t i = 0; i < kRuns; ++i) {
    const uint32_t tag = (kComm << 24) | (kTagBase + i);
    const DisseminationOps ops = emit_dissemination(spec.size, tag, rank, spec.ranks, out);
    const uint32_t marker = out.calc(0);
    const size_t k = ops.sends.size();
    if (old_marker != kNone && k > 0) {
      // Ops with no predecessor in the run, by emission order: the first
      // send, then every receive.
      out.requires_done(ops.sends[0], old_marker);
      for (uint32_t recv : ops.recvs) out.requires_done(recv, old_marker);
    }
    if (k > 0) {
      // Ops no other op of the run waits for: every send, then the last receive.
      for (uint32_t send : ops.sends) out.requires_done(marker, send);
      out.requires_done(marker, ops.recvs[k - 1]);
    }
    old_marker = marker;
  }
}

}  // namespace cloudnoise::patterns
