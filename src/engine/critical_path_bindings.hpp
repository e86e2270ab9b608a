// The critical path (critical_path.hpp) in Python: what `_engine.run`
// collects of every repetition's path, and `_engine.activities`.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "critical_path.hpp"

namespace cloudnoise::bindings {

namespace nb = nanobind;

// Every repetition's path summed up (its parts, its counts, the noise on
// it by host), and the segments of the repetitions asked for; filled by
// the worker threads.
class PathCollector {
 public:
  // For repetitions [first, first + count); `keep`: those whose segments are kept.
  PathCollector(uint64_t first, uint64_t count, const std::vector<uint64_t>& keep);
  // The path of repetition first + k; safe from any thread.
  void add(uint64_t k, const CriticalPath& path);
  // Into run()'s result: path_parts (count x PATH_PARTS, ps), path_counts
  // (count x PATH_COUNTS), path_last_host, path_noise (rows of repetition
  // index k, host, part, ps: each noise part on the path summed by the host
  // it came from) and paths (repetition -> its segments' table).
  void write(nb::dict& out);

 private:
  uint64_t first_, count_;
  std::vector<uint64_t> keep_;
  std::vector<int64_t> parts_, counts_, last_host_, noise_;
  std::map<uint64_t, std::vector<PathSegment>> kept_;
  std::mutex mutex_;
};

// Segments as columns (numpy arrays): op, message, link, kind, dependency,
// host, cpu, nic, peer, bytes, start_ps, end_ps, parts (n x PATH_PARTS).
nb::dict segments_table(const std::vector<PathSegment>& segments);

// PATH_PARTS, PATH_LINKS, PATH_COUNTS and activities().
void bind_critical_path(nb::module_& m);

}  // namespace cloudnoise::bindings
