// nanobind glue for the schedule generators and the GOAL writer. Errors in
// the arguments (ScheduleError) surface in Python as ValueError with the
// generator's message.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <utility>
#include <vector>

#include "application.hpp"
#include "generate.hpp"
#include "goal_writer.hpp"
#include "schedule_errors.hpp"

namespace nb = nanobind;
using namespace nb::literals;
using namespace cloudnoise;
using cloudnoise::bindings::checked;

namespace {

PatternSpec make_spec(const std::string& pattern, uint32_t ranks, uint64_t size, uint32_t nway,
                      uint64_t segmentsize, std::optional<uint64_t> nb_ns, const std::string& schedgen) {
  PatternSpec spec;
  spec.pattern = parse_pattern(pattern);
  spec.schedgen = parse_flavour(schedgen);
  spec.ranks = ranks;
  spec.size = size;
  spec.nway = nway;
  spec.segmentsize = segmentsize;
  spec.nb_ns = nb_ns;
  validate(spec);
  return spec;
}

// One application phase from Python: ("compute", "", picoseconds, 0, 0, None, "")
// or ("collective", pattern, size, nway, segmentsize, nb_ns, schedgen flavour).
using PhaseTuple = std::tuple<std::string, std::string, uint64_t, uint32_t, uint64_t,
                              std::optional<uint64_t>, std::string>;

ApplicationSpec make_app(uint32_t ranks, uint64_t iterations, const std::vector<PhaseTuple>& phases) {
  ApplicationSpec app;
  app.ranks = ranks;
  app.iterations = iterations;
  for (const auto& [kind, pattern, amount, nway, segmentsize, nb_ns, schedgen] : phases) {
    PhaseSpec ph;
    if (kind == "compute") {
      ph.kind = PhaseSpec::Kind::Compute;
      ph.compute_ps = amount;
    } else if (kind == "collective") {
      ph.kind = PhaseSpec::Kind::Collective;
      ph.collective.pattern = parse_pattern(pattern);
      ph.collective.schedgen = parse_flavour(schedgen);
      ph.collective.ranks = ranks;
      ph.collective.size = amount;
      ph.collective.nway = nway;
      ph.collective.segmentsize = segmentsize;
      ph.collective.nb_ns = nb_ns;
    } else {
      throw ScheduleError("unknown phase kind '" + kind + "' (compute or collective)", 0);
    }
    app.phases.push_back(ph);
  }
  validate(app);
  return app;
}

nb::dict counts_dict(const ScheduleCounts& c) {
  nb::dict d;
  d["ranks"] = c.ranks;
  d["ops"] = c.ops();
  d["sends"] = c.sends;
  d["recvs"] = c.recvs;
  d["calcs"] = c.calcs;
  d["requires"] = c.requires_edges;
  d["irequires"] = c.irequires_edges;
  d["bytes_sent"] = c.bytes_sent;
  d["max_rank_ops"] = c.max_rank_ops;
  return d;
}

}  // namespace

void bind_schedules(nb::module_& m) {
  m.def(
      "patterns",
      [] {
        std::vector<std::tuple<std::string, std::string, std::string, std::string>> out;
        for (const auto& info : all_patterns()) {
          const char* paper = info.paper == PaperVariant::Same      ? "same"
                              : info.paper == PaperVariant::Differs ? "differs"
                                                                    : "absent";
          out.emplace_back(std::string(info.name), std::string(info.description), paper,
                           std::string(info.paper_description));
        }
        return out;
      },
      "The Schedgen patterns this engine generates, as (name, description, paper, "
      "paper_description): paper is how the paper authors' Schedgen has the pattern "
      "('same' as public Schedgen, 'differs', or 'absent'), paper_description what its "
      "variant does where it differs.");

  m.def(
      "generate",
      [](const std::string& pattern, uint32_t ranks, uint64_t size, uint32_t nway,
         uint64_t segmentsize, std::optional<uint64_t> nb,
         const std::string& schedgen) {
        return checked([&] {
          const PatternSpec spec = make_spec(pattern, ranks, size, nway, segmentsize, nb, schedgen);
          nb::gil_scoped_release release;
          return generate(spec);
        });
      },
      "pattern"_a, "ranks"_a, "size"_a, "nway"_a = kDefaultNway,
      "segmentsize"_a = kDefaultSegmentSize, "nb"_a = nb::none(), "schedgen"_a = "public",
      "Generates a Schedgen collective as a Schedule (size in bytes, nb in ns).");

  m.def(
      "generate_goal",
      [](const std::string& pattern, uint32_t ranks, uint64_t size, const std::string& path,
         uint32_t nway, uint64_t segmentsize, std::optional<uint64_t> nb,
         const std::string& schedgen) {
        checked([&] {
          const PatternSpec spec = make_spec(pattern, ranks, size, nway, segmentsize, nb, schedgen);
          nb::gil_scoped_release release;
          GoalFile file(path);
          write_generated_goal(spec, file.writer());
          file.close();
        });
      },
      "pattern"_a, "ranks"_a, "size"_a, "path"_a, "nway"_a = kDefaultNway,
      "segmentsize"_a = kDefaultSegmentSize, "nb"_a = nb::none(), "schedgen"_a = "public",
      "Writes the collective as GOAL text identical to Schedgen's (gzip if path ends in .gz).");

  m.def(
      "generate_goal_text",
      [](const std::string& pattern, uint32_t ranks, uint64_t size, uint32_t nway,
         uint64_t segmentsize, std::optional<uint64_t> nb,
         const std::string& schedgen) {
        return checked([&] {
          const PatternSpec spec = make_spec(pattern, ranks, size, nway, segmentsize, nb, schedgen);
          std::string text;
          write_generated_goal(spec, [&text](std::string_view chunk) { text.append(chunk); });
          return text;
        });
      },
      "pattern"_a, "ranks"_a, "size"_a, "nway"_a = kDefaultNway,
      "segmentsize"_a = kDefaultSegmentSize, "nb"_a = nb::none(), "schedgen"_a = "public",
      "The collective as GOAL text identical to Schedgen's, as a string.");

  m.def(
      "count_schedule",
      [](const std::string& pattern, uint32_t ranks, uint64_t size, uint32_t nway,
         uint64_t segmentsize, std::optional<uint64_t> nb,
         const std::string& schedgen) {
        const ScheduleCounts c = checked([&] {
          const PatternSpec spec = make_spec(pattern, ranks, size, nway, segmentsize, nb, schedgen);
          nb::gil_scoped_release release;
          return count_schedule(spec);
        });
        nb::dict d;
        d["ranks"] = c.ranks;
        d["ops"] = c.ops();
        d["sends"] = c.sends;
        d["recvs"] = c.recvs;
        d["calcs"] = c.calcs;
        d["requires"] = c.requires_edges;
        d["irequires"] = c.irequires_edges;
        d["bytes_sent"] = c.bytes_sent;
        d["max_rank_ops"] = c.max_rank_ops;
        return d;
      },
      "pattern"_a, "ranks"_a, "size"_a, "nway"_a = kDefaultNway,
      "segmentsize"_a = kDefaultSegmentSize, "nb"_a = nb::none(), "schedgen"_a = "public",
      "Counts a collective's ops, edges and bytes without storing it.");

  m.def(
      "write_goal",
      [](const Schedule& sched, const std::string& path) {
        checked([&] {
          nb::gil_scoped_release release;
          GoalFile file(path);
          write_goal(sched, file.writer());
          file.close();
        });
      },
      "schedule"_a, "path"_a,
      "Writes a Schedule as GOAL text (gzip if path ends in .gz): each rank's ops, then its "
      "edges grouped by the op they wait for.");

  m.def(
      "goal_text",
      [](const Schedule& sched) { return checked([&] { return goal_text(sched); }); },
      "schedule"_a, "A Schedule as GOAL text (same layout as write_goal).");

  m.def(
      "generate_application",
      [](uint32_t ranks, uint64_t iterations, const std::vector<PhaseTuple>& phases) {
        return checked([&] {
          const ApplicationSpec app = make_app(ranks, iterations, phases);
          nb::gil_scoped_release release;
          return generate_application(app);
        });
      },
      "ranks"_a, "iterations"_a, "phases"_a,
      "An application (iterations x phases) as a Schedule. Each phase is a tuple "
      "(\"compute\", \"\", picoseconds, 0, 0, None) or (\"collective\", pattern, size, nway, "
      "segmentsize, nb_ns); see application.hpp for how phases are joined.");

  m.def(
      "application_goal_text",
      [](uint32_t ranks, uint64_t iterations, const std::vector<PhaseTuple>& phases) {
        return checked([&] {
          const ApplicationSpec app = make_app(ranks, iterations, phases);
          std::string text;
          write_application_goal(app, [&text](std::string_view chunk) { text.append(chunk); });
          return text;
        });
      },
      "ranks"_a, "iterations"_a, "phases"_a, "The application as GOAL text, as a string.");

  m.def(
      "write_application_goal",
      [](uint32_t ranks, uint64_t iterations, const std::vector<PhaseTuple>& phases,
         const std::string& path) {
        checked([&] {
          const ApplicationSpec app = make_app(ranks, iterations, phases);
          nb::gil_scoped_release release;
          GoalFile file(path);
          write_application_goal(app, file.writer());
          file.close();
        });
      },
      "ranks"_a, "iterations"_a, "phases"_a, "path"_a,
      "Writes the application as GOAL text (gzip if path ends in .gz).");

  m.def(
      "count_application",
      [](uint32_t ranks, uint64_t iterations, const std::vector<PhaseTuple>& phases) {
        const ScheduleCounts c = checked([&] {
          const ApplicationSpec app = make_app(ranks, iterations, phases);
          nb::gil_scoped_release release;
          return count_application(app);
        });
        return counts_dict(c);
      },
      "ranks"_a, "iterations"_a, "phases"_a,
      "Counts an application's ops, edges and bytes without storing it.");
}
