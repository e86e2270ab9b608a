// The paper authors' network semantics ("switch draws" mode): how their
// modified LogGOPSim (De Sensi et al., SC'22 artifact, simulations/LogGOPSim)
// charges a message, where it differs from the public LogGOPSim that the
// engine reproduces otherwise.
//
//  * Two sets of measured samples, "near" (same switch) and "far"
//    (different switches): a message from rank a to rank b is near when
//    a / nodes_per_switch == b / nodes_per_switch.
//  * L is not a parameter plus an excess: each message's L is one sample of
//    its set, picked uniformly (the authors scaled their samples so that the
//    set's median is L; a noiseless run is a set of one value, L itself).
//  * The (size - 1) bytes a message's G is charged for are cut into blocks
//    of 16 MiB, each charged at its own uniformly picked sample of G; the
//    sum replaces (size - 1) * G at the sender's NIC and at the receiver, as
//    one value both ends agree on.
//  * A rendezvous message (size > S) arrives 2 L later than an eager one
//    (o + 3 L after its send starts, the same drawn L thrice).
//
// Everything else (o, g, O, matching, OS noise read from a random offset
// per rank) is the engine's ordinary LogGOPS. The picks are keyed by the
// send op (latency: stream Latency at the op; block k: stream Bandwidth at
// op + k * 2^32), so sender and receiver draw the same values and a draw
// does not depend on processing order; the work is per block, never per
// byte.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "coded_samples.hpp"
#include "counter_rng.hpp"

namespace cloudnoise {

// One placement's samples: latency in ps, per-byte gap in fs (1000 fs = 1 ps).
struct SwitchSamples {
  std::vector<int64_t> L_ps;
  std::vector<int64_t> G_fs;
};

class SwitchDraws {
 public:
  static constexpr uint64_t kBlockBytes = uint64_t{1} << 24;  // 16 MiB, the authors' block
  static constexpr int64_t kRendezvousExtraL = 2;

  SwitchDraws(const SwitchSamples& near, const SwitchSamples& far, uint32_t nodes_per_switch)
      : per_switch_(nodes_per_switch) {
    if (per_switch_ == 0) throw std::invalid_argument("nodes_per_switch must be at least 1");
    reciprocal_ = per_switch_ == 1 ? 0 : ~uint64_t{0} / per_switch_ + 1;
    for (const SwitchSamples* s : {&near, &far}) {
      if (s->L_ps.empty() || s->G_fs.empty())
        throw std::invalid_argument("every switch-draws sample set needs at least one latency and one gap");
      for (const int64_t v : s->L_ps)
        if (v < 0 || v > kMaxValue) throw std::invalid_argument("switch-draws latencies must be in [0, 10^17] ps");
      for (const int64_t v : s->G_fs)
        if (v < 0 || v > kMaxValue) throw std::invalid_argument("switch-draws gaps must be in [0, 10^17] fs");
    }
    // Coded (coded_samples.hpp); a far set equal to the near one (systems
    // with one measured placement) is the same object, so the two share
    // their cache lines.
    L_[0] = std::make_shared<const CodedSamples>(near.L_ps);
    G_[0] = std::make_shared<const CodedSamples>(near.G_fs);
    L_[1] = far.L_ps == near.L_ps ? L_[0] : std::make_shared<const CodedSamples>(far.L_ps);
    G_[1] = far.G_fs == near.G_fs ? G_[0] : std::make_shared<const CodedSamples>(far.G_fs);
    min_L_ = std::min(L_[0]->min(), L_[1]->min());
    random_ = L_[0]->size() > 1 || G_[0]->size() > 1 || L_[1]->size() > 1 || G_[1]->size() > 1;
  }

  uint32_t nodes_per_switch() const { return per_switch_; }
  // The least latency a message can draw (the engine's lookahead).
  int64_t min_latency_ps() const { return min_L_; }
  // Whether any set has more than one value (else every run is the same).
  bool random() const { return random_; }

  // Up to three times per message (the send, its prefetch, the delivery):
  // with two divisions by a run-time divisor each, the 1,024-rank 512 MiB
  // ring took 0.21-0.25 s per repetition, with a multiply by the divisor's
  // reciprocal (switch_of, the same quotients) 0.17-0.21 s.
  bool is_far(uint32_t from, uint32_t to) const { return switch_of(from) != switch_of(to); }

  // rank / nodes_per_switch: for 32-bit ranks, the high half of rank times
  // ceil(2^64 / d) is the exact quotient for every d >= 2 (Lemire, Kaser and
  // Kurz, "Faster remainder by direct computation", 2019); d = 1 is the
  // rank itself.
  uint32_t switch_of(uint32_t rank) const {
    if (per_switch_ == 1) return rank;
    return static_cast<uint32_t>((static_cast<unsigned __int128>(reciprocal_) * rank) >> 64);
  }

  // The message's latency from its 64 random bits.
  [[gnu::always_inline]] int64_t latency_ps(bool far, uint64_t bits) const {
    const CodedSamples& v = *L_[far];
    return v[pick(bits, v.size())];
  }

  // The time G charges for a message of `bytes` bytes: (bytes - 1) bytes in
  // 16 MiB blocks, block k at the gap picked by rng.bits(op + k * 2^32);
  // summed in fs and truncated to ps once (exact for gaps in whole ps, as
  // the authors' are). A 0-byte message is charged nothing.
  // Inline for a message of one block (every message of the paper's
  // workloads below 16 MiB): twice per message, and out of line its call
  // was a fifth of its ~67 instructions.
  [[gnu::always_inline]] int64_t gap_time_ps(bool far, uint64_t bytes, const CounterRng& rng, uint32_t op) const {
    if (bytes <= 1) return 0;
    const CodedSamples& v = *G_[far];
    const uint64_t n = bytes - 1;
    if (v.size() == 1) return checked_mul(n, v[0]) / 1000;
    if (n <= kBlockBytes) return checked_mul(n, v[pick(rng.bits(op), v.size())]) / 1000;
    return blocks_time_ps(v, n, rng, op);
  }

  // A hint, changing nothing: loads the sample lines a message's draws
  // will read (its latency, its first block's gap) ahead of them. The sets
  // are the artifact's raw samples (Daint's: 325,028 latencies; GCP's 1.3
  // million), 1.3 MB a set even coded: more than the core's L1 holds.
  void prefetch(bool far, uint64_t latency_bits, uint64_t first_gap_bits) const {
    const CodedSamples& L = *L_[far];
    const CodedSamples& G = *G_[far];
    touch(L.address(pick(latency_bits, L.size())));
    touch(G.address(pick(first_gap_bits, G.size())));
  }

  // How many blocks (draws) a message of `bytes` bytes is charged in.
  static uint64_t blocks(uint64_t bytes) { return bytes <= 1 ? 0 : (bytes - 1 + kBlockBytes - 1) / kBlockBytes; }

 private:
  static constexpr int64_t kMaxValue = 100'000'000'000'000'000;

  // gap_time_ps past one block: block k at its own draw.
  [[gnu::noinline]] static int64_t blocks_time_ps(const CodedSamples& v, uint64_t n, const CounterRng& rng,
                                                  uint32_t op) {
    int64_t fs = 0;
    uint64_t k = 0;
    for (uint64_t left = n; left > 0; ++k) {
      const uint64_t block = std::min(kBlockBytes, left);
      const int64_t G = v[pick(rng.bits(uint64_t{op} + (k << 32)), v.size())];
      if (__builtin_add_overflow(fs, checked_mul(block, G), &fs)) throw_overflow();
      left -= block;
    }
    return fs / 1000;
  }

  // A prefetch GCC keeps: its __builtin_prefetch in Engine::make_ready
  // came out of the -O1..-O3 builds altogether.
  static void touch(const void* p) {
#if defined(__x86_64__) || defined(__i386__)
    asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
    __builtin_prefetch(p);
#endif
  }

  // Uniform index in [0, n) from 64 random bits (multiply-high: no division).
  static size_t pick(uint64_t bits, size_t n) {
    return static_cast<size_t>((static_cast<unsigned __int128>(bits) * n) >> 64);
  }
  [[noreturn]] static void throw_overflow() {
    throw std::overflow_error("a message's bytes times its gap overflow the simulated time range");
  }
  static int64_t checked_mul(uint64_t bytes, int64_t G_fs) {
    int64_t out;
    if (bytes > static_cast<uint64_t>(INT64_MAX) || __builtin_mul_overflow(static_cast<int64_t>(bytes), G_fs, &out))
      throw_overflow();
    return out;
  }

  // Per placement (0 near, 1 far): the latency and gap sets.
  std::shared_ptr<const CodedSamples> L_[2], G_[2];
  uint32_t per_switch_;
  uint64_t reciprocal_ = 0;  // ceil(2^64 / per_switch_), for switch_of
  int64_t min_L_ = 0;
  bool random_ = false;
};

}  // namespace cloudnoise
