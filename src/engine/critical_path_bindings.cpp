#include "critical_path_bindings.hpp"

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <utility>

#include "engine.hpp"
#include "numpy_arrays.hpp"

namespace cloudnoise::bindings {

namespace {

constexpr size_t kPathCounts = 8;

void append_counts(std::vector<int64_t>& out, size_t at, const PathCounts& c) {
  const uint64_t values[kPathCounts] = {c.L, c.o_send, c.o_recv, c.g, c.G_bytes, c.O_bytes, c.calcs, c.segments};
  for (size_t j = 0; j < kPathCounts; ++j) out[at + j] = static_cast<int64_t>(values[j]);
}

}  // namespace

PathCollector::PathCollector(uint64_t first, uint64_t count, const std::vector<uint64_t>& keep)
    : first_(first),
      count_(count),
      keep_(keep),
      parts_(count * kPathParts),
      counts_(count * kPathCounts),
      last_host_(count) {
  std::sort(keep_.begin(), keep_.end());
}

void PathCollector::add(uint64_t k, const CriticalPath& path) {
  std::copy(path.parts.begin(), path.parts.end(), parts_.begin() + static_cast<std::ptrdiff_t>(k * kPathParts));
  append_counts(counts_, k * kPathCounts, path.counts);
  last_host_[k] = path.last_host;
  // The noise on the path by (host, part): a few entries per repetition.
  std::vector<std::pair<uint64_t, int64_t>> noise;
  for (const PathSegment& s : path.segments)
    for (size_t part = static_cast<size_t>(PathPart::OsDetour); part < kPathParts; ++part)
      if (s.parts[part] != 0)
        noise.emplace_back(uint64_t{noise_host(s, static_cast<PathPart>(part))} << 8 | part, s.parts[part]);
  std::sort(noise.begin(), noise.end());
  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t i = 0; i < noise.size();) {
    int64_t sum = 0;
    size_t j = i;
    for (; j < noise.size() && noise[j].first == noise[i].first; ++j) sum += noise[j].second;
    for (const int64_t v : {static_cast<int64_t>(k), static_cast<int64_t>(noise[i].first >> 8),
                            static_cast<int64_t>(noise[i].first & 0xFF), sum})
      noise_.push_back(v);
    i = j;
  }
  if (std::binary_search(keep_.begin(), keep_.end(), first_ + k)) kept_[first_ + k] = path.segments;
}

void PathCollector::write(nb::dict& out) {
  out["path_parts"] = to_numpy(std::move(parts_), kPathParts);
  out["path_counts"] = to_numpy(std::move(counts_), kPathCounts);
  out["path_last_host"] = to_numpy(std::move(last_host_));
  out["path_noise"] = to_numpy(std::move(noise_), 4);
  nb::dict paths;
  for (auto& [rep, segments] : kept_) paths[nb::int_(rep)] = segments_table(segments);
  out["paths"] = paths;
}

nb::dict segments_table(const std::vector<PathSegment>& segments) {
  const size_t n = segments.size();
  std::vector<int64_t> op(n), host(n), peer(n), bytes(n), start(n), end(n), parts(n * kPathParts);
  std::vector<uint8_t> message(n), link(n), kind(n), dependency(n), cpu(n), nic(n);
  for (size_t i = 0; i < n; ++i) {
    const PathSegment& s = segments[i];
    op[i] = s.node.op;
    message[i] = s.node.message;
    link[i] = static_cast<uint8_t>(s.link);
    kind[i] = s.kind;
    dependency[i] = s.dependency;
    host[i] = s.host;
    cpu[i] = s.cpu;
    nic[i] = s.nic;
    peer[i] = s.peer;
    bytes[i] = static_cast<int64_t>(s.bytes);
    start[i] = s.start;
    end[i] = s.end;
    std::copy(s.parts.begin(), s.parts.end(), parts.begin() + static_cast<std::ptrdiff_t>(i * kPathParts));
  }
  nb::dict t;
  t["op"] = to_numpy(std::move(op));
  t["message"] = to_numpy(std::move(message));
  t["link"] = to_numpy(std::move(link));
  t["kind"] = to_numpy(std::move(kind));
  t["dependency"] = to_numpy(std::move(dependency));
  t["host"] = to_numpy(std::move(host));
  t["cpu"] = to_numpy(std::move(cpu));
  t["nic"] = to_numpy(std::move(nic));
  t["peer"] = to_numpy(std::move(peer));
  t["bytes"] = to_numpy(std::move(bytes));
  t["start_ps"] = to_numpy(std::move(start));
  t["end_ps"] = to_numpy(std::move(end));
  t["parts"] = to_numpy(std::move(parts), kPathParts);
  return t;
}

void bind_critical_path(nb::module_& m) {
  m.attr("PATH_PARTS") = nb::make_tuple("compute", "o", "g", "L", "G", "O", "os_detour", "latency_draw",
                                        "latency_stall", "bandwidth_draw", "bandwidth_episode");
  m.attr("PATH_LINKS") = nb::make_tuple("start", "cpu", "nic_send", "nic_recv", "flight", "hold");
  m.attr("PATH_COUNTS") = nb::make_tuple("L", "o_send", "o_recv", "g", "G_bytes", "O_bytes", "calcs", "segments");
  m.def(
      "activities",
      [](const Schedule& sched, const LogGOPSParams& params, const NoiseModel& noise, uint64_t seed,
         uint64_t repetition, nb::ndarray<const uint8_t, nb::ndim<1>, nb::c_contig> ranks, bool program_order,
         bool general) {
        std::vector<uint8_t> mask(ranks.data(), ranks.data() + ranks.shape(0));
        RunResult res;
        std::vector<PathSegment> acts;
        {
          nb::gil_scoped_release release;
          Engine engine(sched, params, program_order ? ReadyOrder::Program : ReadyOrder::LogGOPSim,
                        Processing::Auto, StampOrder::kDefaultRecordBits, general);
          engine.set_critical_path(true);
          res = engine.run(noise, seed, repetition);
          acts = engine.activities(mask);
        }
        nb::dict out;
        out["activities"] = segments_table(acts);
        out["path"] = segments_table(res.path->segments);
        out["max_end_ps"] = res.max_end_ps;
        out["host_end_ps"] = to_numpy(std::move(res.host_end_ps));
        out["loop"] = std::string(res.loop);
        return out;
      },
      nb::arg("schedule"), nb::arg("params"), nb::arg("noise"), nb::arg("seed"), nb::arg("repetition"),
      nb::arg("ranks"), nb::arg("program_order") = false, nb::arg("general") = false,
      "Runs one repetition recording its critical path: its segments (`path`) and every activity of the "
      "ranks whose byte in `ranks` is set (`activities`: a send's CPU part, NIC gap and flight, a message's "
      "CPU part and NIC gap at its receiver, a calc), each a table of columns (op, message, link, kind, "
      "dependency, host, cpu, nic, peer, bytes, start_ps, end_ps, parts: PATH_PARTS per row, in ps).");
}

}  // namespace cloudnoise::bindings
