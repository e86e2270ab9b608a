// Bandwidth drops as a process in time (cloudnoise/model/bandwidth_episodes.py
// states the model): each repetition draws its own table of episodes from
// (seed, repetition), as StallProcess draws stalls, so repetitions are
// independent draws of the drops and repetition r depends on (seed, r)
// alone.
//
// Episodes alternate with quiet times drawn exponential (mean
// `mean_quiet`); each lasts a drawn `duration` (at least 1 ns, at most the
// period) and holds a drawn `fraction` of the peak bandwidth (within
// [limits::kMinEpisodeFraction, 1]). A table spans the model's period (about
// 500 episodes) or longer, read by more hosts (table_period.hpp), which every
// host of the repetition reads from its own offset (Engine::reset). It holds at most
// kMaxEpisodes episodes: a draw that would hold more ends its table after
// the kMaxEpisodes-th.
#pragma once

#include <cstdint>
#include <memory>

#include "bandwidth_episodes.hpp"
#include "quantile_table.hpp"

namespace cloudnoise {

class EpisodeProcess {
 public:
  static constexpr size_t kMaxEpisodes = 4'000'000;

  // mean_cycle_ps: the mean quiet time plus the mean duration.
  EpisodeProcess(double mean_quiet_ps, double mean_cycle_ps, std::shared_ptr<const QuantileTable> duration_ps,
                 std::shared_ptr<const QuantileTable> fraction, int64_t period_ps);

  // Repetition `repetition`'s table, read by `hosts` hosts from their own
  // offsets: a function of (seed, repetition, hosts) alone.
  BandwidthEpisodes draw(uint64_t seed, uint64_t repetition, uint32_t hosts = 1) const;

  // The period of a table read by `hosts` hosts.
  int64_t period_ps(uint32_t hosts = 1) const;

 private:
  double mean_quiet_, mean_cycle_;
  std::shared_ptr<const QuantileTable> duration_, fraction_;
  int64_t period_;
};

}  // namespace cloudnoise
