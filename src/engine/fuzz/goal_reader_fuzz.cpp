// libFuzzer target: GOAL text from someone else, through the reader and, when
// it is small enough to run in a moment, through the engine with every kind
// of noise. A schedule is read or refused (GoalError, ScheduleError), a run
// ends or is refused (DeadlockError, a time beyond int64 picoseconds); any
// other exception, a sanitizer report, a crash or a hang is a defect.
// Built with -DCLOUDNOISE_FUZZERS=ON by clang (bench/bench_fuzz.py).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "engine.hpp"
#include "goal_reader.hpp"
#include "noise/os_noise_trace.hpp"
#include "noise/quantile_table.hpp"

namespace {

using namespace cloudnoise;

NoiseModel noisy() {
  NoiseModel noise;
  noise.os = std::make_shared<const OsNoiseTrace>(std::vector<int64_t>{0, 1'000'000, 5'000'000, 9'000'000},
                                                  std::vector<int64_t>{200'000, 50'000, 3'000'000, 10});
  noise.latency_excess_ps = std::make_shared<const QuantileTable>(std::vector<double>{0.0, 0.5, 0.99, 1.0},
                                                                  std::vector<double>{0.0, 100e3, 5e6, 2e7});
  noise.bandwidth_fraction = std::make_shared<const QuantileTable>(std::vector<double>{0.0, 0.01, 1.0},
                                                                   std::vector<double>{0.25, 0.9, 1.0});
  // Drops that persist: a node spends 40% of its time at a tenth of the peak.
  noise.bandwidth_episodes = std::make_shared<const BandwidthEpisodes>(
      std::vector<int64_t>{0, 6'000'000}, std::vector<int64_t>{2'000'000, 8'000'000}, std::vector<double>{0.1, 0.5},
      10'000'000);
  return noise;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Schedule sched;
  try {
    sched = read_goal_text(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.goal");
  } catch (const GoalError&) {
    return 0;
  } catch (const ScheduleError&) {
    return 0;
  }
  if (sched.num_ranks() > 64 || sched.num_ops() > 4096) return 0;
  LogGOPSParams p;
  p.L_ps = 2'500'000;
  p.o_ps = 1'500'000;
  p.g_ps = 1'000'000;
  p.G_fs = 6'000'000;
  p.S = 65535;
  static const NoiseModel quiet, noise = noisy();
  for (const NoiseModel* model : {&quiet, &noise}) {
    try {
      Engine engine(sched, p, ReadyOrder::Program, Processing::Auto);
      const RunResult r = engine.run(*model, 7, 0);
      if (r.max_end_ps < 0) {
        std::fprintf(stderr, "negative runtime %lld\n", static_cast<long long>(r.max_end_ps));
        std::abort();
      }
    } catch (const DeadlockError&) {
    } catch (const std::overflow_error&) {
    }
  }
  return 0;
}
