// Random numbers as a pure function of (seed, repetition, stream, counter).
// Every draw is independent of thread scheduling and of how many
// repetitions run, so repetition r of a 1000-repetition run equals that
// repetition run alone.
#pragma once

#include <cstdint>

namespace cloudnoise {

enum class RngStream : uint64_t {
  OsOffsets = 1,
  Latency = 2,
  Bandwidth = 3,
  EpisodeOffsets = 4,
  StallOffsets = 5,
  EpisodeTables = 6,  // a repetition's bandwidth episodes (episode_process.hpp)
  StallTables = 7,    // a repetition's latency stalls (stall_process.hpp)
  LevelTables = 8,    // a repetition's latency levels (level_process.hpp)
  LevelOffsets = 9,   // each host's offset into them
  StateTables = 10,   // a repetition's latency states (NoiseModel::latency_state_process)
  StateOffsets = 11,  // each host's offset into them
  TailStateTables = 12,   // a repetition's tail states (NoiseModel::latency_state_tail_process)
  TailStateOffsets = 13,  // each host's offset into them
};

// SplitMix64's finaliser: a bijective 64-bit mix with good avalanche.
[[gnu::always_inline]] inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

class CounterRng {
 public:
  CounterRng(uint64_t seed, uint64_t repetition, RngStream stream)
      : key_(mix64(mix64(seed ^ 0x243F6A8885A308D3ull) + repetition * 0x9E3779B97F4A7C15ull +
                   static_cast<uint64_t>(stream) * 0xD1B54A32D192ED03ull)) {}

  // SplitMix64 at position `counter` of the stream keyed by key_: one
  // finaliser per draw (up to three draws per simulated message).
  [[gnu::always_inline]] uint64_t bits(uint64_t counter) const { return mix64(key_ + (counter + 1) * 0x9E3779B97F4A7C15ull); }

  // Uniform in [0, 1) with 53 random bits.
  double uniform(uint64_t counter) const {
    return static_cast<double>(bits(counter) >> 11) * 0x1.0p-53;
  }

 private:
  uint64_t key_;
};

}  // namespace cloudnoise
