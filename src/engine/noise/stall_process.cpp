#include "stall_process.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "../input_limits.hpp"
#include "sequential_draws.hpp"
#include "table_period.hpp"

namespace cloudnoise {
namespace {

void check_period(int64_t period_ps) {
  if (period_ps <= 0 || period_ps > limits::kMaxTimePs)
    throw std::invalid_argument("latency stalls: the period must be in (0, 10^5 s]");
}

void check_lengths(const std::shared_ptr<const QuantileTable>& table, const char* what) {
  if (!table) throw std::invalid_argument(std::string("latency stalls: no ") + what + " distribution");
  if (!(table->min() >= 0.0)) throw std::invalid_argument(std::string("latency stalls: ") + what + " must be >= 0");
}

// A drawn length in whole ps within [lo, hi].
int64_t length_ps(double drawn, int64_t lo, int64_t hi) {
  return std::clamp(static_cast<int64_t>(std::llround(std::min(drawn, static_cast<double>(hi)))), lo, hi);
}

}  // namespace

StallProcess StallProcess::bursty(double mean_quiet_ps, double mean_cycle_ps,
                                  std::shared_ptr<const QuantileTable> duration_ps,
                                  std::shared_ptr<const QuantileTable> stall_ps,
                                  std::shared_ptr<const QuantileTable> gap_ps, int64_t period_ps) {
  check_period(period_ps);
  if (!(mean_quiet_ps > 0.0 && mean_quiet_ps <= static_cast<double>(limits::kMaxTimePs)))
    throw std::invalid_argument("latency stalls: the mean quiet time must be in (0, 10^5 s]");
  if (!(mean_cycle_ps >= mean_quiet_ps && mean_cycle_ps <= 2.0 * static_cast<double>(limits::kMaxTimePs)))
    throw std::invalid_argument("latency stalls: the mean cycle must be at least the mean quiet time");
  check_lengths(duration_ps, "duration");
  check_lengths(stall_ps, "stall");
  check_lengths(gap_ps, "gap");
  StallProcess p;
  p.mean_quiet_ = mean_quiet_ps;
  p.mean_cycle_ = mean_cycle_ps;
  p.duration_ = std::move(duration_ps);
  p.stall_ = std::move(stall_ps);
  p.gap_ = std::move(gap_ps);
  p.period_ = period_ps;
  return p;
}

StallProcess StallProcess::periodic(int64_t every_ps, std::shared_ptr<const QuantileTable> stall_ps,
                                    int64_t period_ps) {
  check_period(period_ps);
  if (every_ps <= 0 || every_ps > period_ps)
    throw std::invalid_argument("latency stalls: a periodic stall's period must be in (0, the table's period]");
  check_lengths(stall_ps, "stall");
  StallProcess p;
  p.every_ = every_ps;
  p.stall_ = std::move(stall_ps);
  p.period_ = period_ps;
  return p;
}

StallProcess StallProcess::recurring(double mean_cycle_ps, std::shared_ptr<const QuantileTable> stall_ps,
                                     std::shared_ptr<const QuantileTable> gap_ps, int64_t period_ps) {
  check_period(period_ps);
  if (!(mean_cycle_ps > 0.0 && mean_cycle_ps <= static_cast<double>(period_ps)))
    throw std::invalid_argument("latency stalls: recurring stalls' mean cycle must be in (0, the table's period]");
  check_lengths(stall_ps, "stall");
  check_lengths(gap_ps, "gap");
  StallProcess p;
  p.recurring_ = true;
  p.mean_cycle_ = mean_cycle_ps;
  p.stall_ = std::move(stall_ps);
  p.gap_ = std::move(gap_ps);
  p.period_ = period_ps;
  return p;
}

int64_t StallProcess::period_ps(uint32_t hosts) const {
  if (is_periodic()) return period_;
  return table_period_ps(period_, mean_cycle_, hosts);
}

LatencyStalls StallProcess::draw(uint64_t seed, uint64_t repetition, uint32_t hosts) const {
  if (is_periodic()) return draw_periodic(seed, repetition);
  if (recurring_) return draw_recurring(seed, repetition, period_ps(hosts));
  return draw_bursty(seed, repetition, period_ps(hosts));
}

LatencyStalls StallProcess::draw_bursty(uint64_t seed, uint64_t repetition, int64_t table_period) const {
  constexpr int64_t kNs = 1000;  // the least stall and gap, and the quiet time after an episode's last stall
  SequentialDraws draws(seed, repetition, RngStream::StallTables);
  std::vector<int64_t> starts, ends;
  const double period = static_cast<double>(table_period);
  double t = draws.exponential(mean_quiet_);
  while (t < period && starts.size() < kMaxStalls) {
    int64_t begin = std::llround(t), end = begin;
    const double last_start = static_cast<double>(begin) + std::max(0.0, draws.from(*duration_));
    for (;;) {
      const int64_t stall = length_ps(draws.from(*stall_), kNs, table_period);
      end = begin + stall;
      if (end > table_period || starts.size() == kMaxStalls) {
        // Past the period: every later stall starts later still.
        return LatencyStalls::drawn(std::move(starts), std::move(ends), table_period);
      }
      starts.push_back(begin);
      ends.push_back(end);
      const int64_t gap = length_ps(draws.from(*gap_), kNs, table_period);
      if (static_cast<double>(end + gap) > last_start) break;
      begin = end + gap;
    }
    t = static_cast<double>(end + kNs) + draws.exponential(mean_quiet_);
  }
  return LatencyStalls::drawn(std::move(starts), std::move(ends), table_period);
}

LatencyStalls StallProcess::draw_periodic(uint64_t seed, uint64_t repetition) const {
  SequentialDraws draws(seed, repetition, RngStream::StallTables);
  const int64_t count = std::max<int64_t>(1, std::min<int64_t>(period_ / every_, static_cast<int64_t>(kMaxStalls)));
  const double step = static_cast<double>(period_) / static_cast<double>(count);
  const int64_t longest = std::max<int64_t>(1, static_cast<int64_t>(step) - 1);
  std::vector<int64_t> starts(static_cast<size_t>(count)), ends(static_cast<size_t>(count));
  for (size_t k = 0; k < starts.size(); ++k) {
    starts[k] = std::llround(static_cast<double>(k) * step);
    ends[k] = starts[k] + length_ps(draws.from(*stall_), 1, longest);
  }
  return LatencyStalls::drawn(std::move(starts), std::move(ends), period_);
}

LatencyStalls StallProcess::draw_recurring(uint64_t seed, uint64_t repetition, int64_t table_period) const {
  constexpr int64_t kNs = 1000;  // the least stall and gap
  SequentialDraws draws(seed, repetition, RngStream::StallTables);
  std::vector<int64_t> starts, ends;
  int64_t t = 0;
  // the last stall starts before the period; the table runs to where the next one would start
  while (t < table_period && starts.size() < kMaxStalls) {
    const int64_t stall = length_ps(draws.from(*stall_), kNs, limits::kMaxTimePs);
    const int64_t gap = length_ps(draws.from(*gap_), kNs, limits::kMaxTimePs);
    if (t + stall + gap > limits::kMaxTimePs) break;
    starts.push_back(t);
    ends.push_back(t + stall);
    t += stall + gap;
  }
  if (starts.empty()) return LatencyStalls::drawn({}, {}, table_period);
  return LatencyStalls::drawn(std::move(starts), std::move(ends), t);
}

}  // namespace cloudnoise
