// The ranges the engine's inputs are checked against where they enter (the
// GOAL reader, OS-noise traces, generated schedules). cloudnoise/limits.py
// holds the same numbers for the Python readers and the command line;
// tests/hostile/test_limits.py keeps the two equal.
//
// Time is int64 picoseconds: 2^63 ps is about 106 days. One input time (a
// calc, a detour, a parameter) of at most 10^5 s leaves room to add ninety
// of them; the engine's own sums are checked as well (sim_time.hpp).
#pragma once

#include <cstdint>

namespace cloudnoise::limits {

inline constexpr int64_t kMaxTimePs = 100'000'000'000'000'000;  // 10^17 ps = 10^5 s
inline constexpr int64_t kMaxTimeNs = kMaxTimePs / 1000;
inline constexpr uint64_t kMaxMessageBytes = uint64_t{1} << 53;
// The engine packs a host into the high bits of an event's 32-bit field.
inline constexpr uint32_t kMaxRanks = (1u << 29) - 1;
// The least fraction of the peak a bandwidth drop (episode) may hold: a
// thousandth is a link that is down; below it G / fraction grows unbounded.
inline constexpr double kMinEpisodeFraction = 1e-3;

}  // namespace cloudnoise::limits
