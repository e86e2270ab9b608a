// The training run of the engine's profile-guided build (CMakeLists.txt,
// CLOUDNOISE_PGO): an instrumented copy of the engine core runs the work
// cloudnoise spends its time on, and the compiler lays the real core out by
// the branch and call counts it recorded. Profile-guided optimisation
// changes code layout, inlining and branch order, never arithmetic: results
// stay bit for bit (the conformance tests run on the optimised build).
//
// What it runs, each small enough that the whole training takes a few
// seconds even instrumented:
//   * a 16384-rank 16 B dissemination with latency, bandwidth and OS noise
//     (processed in windows), with OS noise only, and without noise (the
//     global queue), in LogGOPSim's ready order;
//   * a ring allreduce with rendezvous messages, in program order, and
//     with size classes (measured profiles);
//   * trees, gathers and all-to-alls, for the matching paths;
//   * a GOAL file written and read back (the text reader).
// The noise is synthetic, shaped like a cloud profile's: the branches it
// exercises do not depend on the exact numbers.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "engine.hpp"
#include "goal_reader.hpp"
#include "goal_writer.hpp"
#include "schedules/generate.hpp"
#include "schedules/pattern_spec.hpp"

namespace {

using namespace cloudnoise;

// The probabilities of a model's quantile table (model/distributions.py's
// quantile_grid): steps of 1/4096, plus points dense in the upper tail.
std::vector<double> table_grid() {
  std::vector<double> p;
  for (int i = 0; i <= 4096; ++i) p.push_back(i / 4096.0);
  for (int i = 30; i <= 90; ++i) p.push_back(1.0 - std::pow(10.0, -i / 10.0));
  std::sort(p.begin(), p.end());
  p.erase(std::unique(p.begin(), p.end()), p.end());
  return p;
}

// A heavy-tailed latency excess: 0 to ~40 us, mostly under 2 us (ps).
std::shared_ptr<const QuantileTable> latency_excess() {
  std::vector<double> p = table_grid(), v;
  for (const double u : p) v.push_back(u < 1.0 ? -1.0e6 * std::log1p(-u * 0.999999) : 40.0e6);  // ends above 5.3e6
  return std::make_shared<const QuantileTable>(std::move(p), std::move(v));
}

// Bandwidth as a fraction of peak: within 1% of it, but for rare drops to
// 0.5-0.85 (the lowest 0.02% of draws), as the calibrated cloud fits.
std::shared_ptr<const QuantileTable> bandwidth_fraction() {
  std::vector<double> p = table_grid(), v;
  for (const double u : p) v.push_back(u < 2e-4 ? 0.5 + 0.35 * u / 2e-4 : 0.99 + 0.01 * u);
  return std::make_shared<const QuantileTable>(std::move(p), std::move(v));
}

// A periodic detour trace: 1000 detours per second of 5 us, over 1 s.
std::shared_ptr<const OsNoiseTrace> os_trace() {
  std::vector<int64_t> starts, durations;
  for (int64_t k = 0; k <= 1000; ++k) {
    starts.push_back(k * 1'000'000'000 + 137'000);
    durations.push_back(5'000'000);
  }
  return std::make_shared<const OsNoiseTrace>(std::move(starts), std::move(durations));
}

LogGOPSParams cloud_params() {
  LogGOPSParams p;
  p.L_ps = 1'800'000;
  p.o_ps = 1'200'000;
  p.g_ps = 200'000;
  p.G_fs = 80'000;
  p.S = 65536;
  return p;
}

uint64_t run(const Schedule& sched, const LogGOPSParams& params, const NoiseModel& noise,
             ReadyOrder order, uint64_t reps) {
  Engine engine(sched, params, order);
  uint64_t events = 0;
  for (uint64_t k = 0; k < reps; ++k) events += engine.run(noise, 1, k).events;
  return events;
}

Schedule generated(Pattern pattern, uint32_t ranks, uint64_t size) {
  PatternSpec spec;
  spec.pattern = pattern;
  spec.ranks = ranks;
  spec.size = size;
  return generate(spec);
}

void train() {
  const LogGOPSParams params = cloud_params();
  NoiseModel both, os_only, none;
  both.latency_excess_ps = latency_excess();
  both.bandwidth_fraction = bandwidth_fraction();
  both.os = os_trace();
  os_only.os = both.os;
  NoiseModel network = both;
  network.os = nullptr;

  uint64_t events = 0;
  const Schedule dissemination = generated(Pattern::Dissemination, 16384, 16);
  events += run(dissemination, params, both, ReadyOrder::LogGOPSim, 6);
  events += run(dissemination, params, os_only, ReadyOrder::LogGOPSim, 2);
  events += run(dissemination, params, none, ReadyOrder::LogGOPSim, 2);

  const Schedule ring = generated(Pattern::AllreduceRing, 128, 1 << 20);
  events += run(ring, params, network, ReadyOrder::Program, 1);
  LogGOPSParams classes = params;
  classes.classes = {{0, 1'500'000, 90'000, 0}, {4096, 2'500'000, 85'000, 1'000}, {65536, 4'000'000, 80'000, 0}};
  events += run(ring, classes, both, ReadyOrder::Program, 1);

  for (const Pattern pattern : {Pattern::BinomialTreeBcast, Pattern::Gather, Pattern::LinearAlltoall,
                                Pattern::AllreduceRecdoub})
    events += run(generated(pattern, 256, 4096), params, both, ReadyOrder::Program, 2);

  PatternSpec written;
  written.pattern = Pattern::AllreduceRing;
  written.ranks = 64;
  written.size = 1 << 16;
  std::string text;
  write_generated_goal(written, [&text](std::string_view chunk) { text.append(chunk); });
  events += run(read_goal_text(text, "training"), params, none, ReadyOrder::Program, 1);
  std::printf("cloudnoise profile training: %llu events\n", static_cast<unsigned long long>(events));
}

}  // namespace

int main() {
  try {
    train();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cloudnoise profile training failed: %s\n", e.what());
    return 1;
  }
  return 0;
}
