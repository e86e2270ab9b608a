// libFuzzer target: an OS-noise trace (detour starts and durations, as a
// trace file from someone else gives them) and activities charged to it. The
// trace is accepted or refused (std::invalid_argument); an accepted one
// charges every activity a noise >= 0, or refuses a sum beyond the int64
// picosecond range (std::overflow_error), and a lookup that continues from
// the previous one's cursor (how the engine walks a rank through the trace)
// gives exactly what a fresh lookup gives. Activities are what the engine
// hands the trace: start >= 0, 0 <= length <= 10^17 ps (input_limits.hpp).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#include "input_limits.hpp"
#include "noise/os_noise_trace.hpp"

namespace {

int64_t take(const uint8_t*& data, size_t& size) {
  int64_t v = 0;
  const size_t n = size < sizeof v ? size : sizeof v;
  std::memcpy(&v, data, n);
  data += n;
  size -= n;
  return v;
}

int64_t saturated_add(int64_t a, int64_t b) {  // b >= 0
  return a > INT64_MAX - b ? INT64_MAX : a + b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const size_t detours = 2 + data[0] % 62, queries = data[1] % 32;
  data += 2;
  size -= 2;
  std::vector<int64_t> starts, durations;
  int64_t t = 0;
  for (size_t i = 0; i < detours; ++i) {
    // Mostly small steps (a dense trace), sometimes any value at all.
    const int64_t step = take(data, size), len = take(data, size);
    t = (step & 1) ? step : saturated_add(t, (step >> 1) & 0xffffff);
    starts.push_back(t);
    durations.push_back((len & 1) ? len : (len >> 1) & 0xfffff);
  }
  std::unique_ptr<cloudnoise::OsNoiseTrace> trace;
  try {
    trace = std::make_unique<cloudnoise::OsNoiseTrace>(starts, durations);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  size_t cursor = 0;
  int64_t at = 0;
  for (size_t q = 0; q < queries; ++q) {
    const int64_t step = take(data, size), len = take(data, size);
    at = (step & 1) ? (step < 0 ? -(step + 1) : step) : saturated_add(at, (step >> 1) & 0xffffffff);
    // The engine's activities are at most one input time long (a calc, an o).
    int64_t l = (len & 1) ? (len < 0 ? -(len + 1) : len) : (len >> 1) & 0xffffffff;
    if (l > cloudnoise::limits::kMaxTimePs) l %= cloudnoise::limits::kMaxTimePs + 1;
    try {
      const int64_t walked = trace->noise(at, l, cursor);
      const int64_t fresh = trace->noise(at, l);
      if (walked < 0 || walked != fresh) {
        std::fprintf(stderr, "noise(%lld, %lld): walked %lld, fresh %lld\n", static_cast<long long>(at),
                     static_cast<long long>(l), static_cast<long long>(walked), static_cast<long long>(fresh));
        std::abort();
      }
    } catch (const std::overflow_error&) {
      cursor = 0;
    }
  }
  return 0;
}
