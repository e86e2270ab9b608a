// Draws one after another from a counter-based stream: the k-th draw is a
// pure function of (seed, repetition, stream, k). The noise processes
// (stall_process.hpp, episode_process.hpp) expand one repetition's table
// with it, so a repetition's table depends on (seed, repetition) alone: not
// on the thread that draws it, nor on the repetitions drawn before.
#pragma once

#include <cmath>
#include <cstdint>

#include "counter_rng.hpp"
#include "quantile_table.hpp"

namespace cloudnoise {

class SequentialDraws {
 public:
  SequentialDraws(uint64_t seed, uint64_t repetition, RngStream stream) : rng_(seed, repetition, stream) {}

  // Uniform in [0, 1).
  double uniform() { return rng_.uniform(next_++); }
  // Exponential with the given mean (>= 0).
  double exponential(double mean) { return -mean * std::log1p(-uniform()); }
  // A draw from a distribution given by its inverse CDF.
  double from(const QuantileTable& table) { return table.quantile_of_bits(rng_.bits(next_++)); }

 private:
  CounterRng rng_;
  uint64_t next_ = 0;
};

}  // namespace cloudnoise
