// nanobind glue: exposes the engine to Python as cloudnoise._engine.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>

#include "engine.hpp"
#include "goal_reader.hpp"
#include "critical_path_bindings.hpp"
#include "input_limits.hpp"
#include "noise/normal_scores.hpp"
#include "numpy_arrays.hpp"
#include "round_to_int.hpp"
#include "schedule.hpp"

namespace nb = nanobind;
using namespace cloudnoise;

namespace {

using bindings::to_numpy;

std::vector<int64_t> to_vector(nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig> a) {
  return std::vector<int64_t>(a.data(), a.data() + a.shape(0));
}

// An activity as the engine would hand it to an OS-noise trace: a start in
// the time range and a length no input can exceed.
void check_activity(int64_t start, int64_t len) {
  if (start < 0 || len < 0 || len > limits::kMaxTimePs)
    throw std::invalid_argument("an activity needs start >= 0 and 0 <= length <= 10^17 ps");
}

std::vector<double> to_dvector(nb::ndarray<const double, nb::ndim<1>, nb::c_contig> a) {
  return std::vector<double>(a.data(), a.data() + a.shape(0));
}

// Joins a set of worker threads when it goes out of scope, however that
// happens (an exception from a progress callback, Ctrl-C): a joinable
// std::thread destroyed would call std::terminate (SIGABRT).
class WorkerThreads {
 public:
  explicit WorkerThreads(std::atomic<bool>& stop) : stop_(stop) {}
  ~WorkerThreads() {
    stop_ = true;  // harmless after normal completion; stops the workers otherwise
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }
  template <class F>
  void start(F&& f) { threads_.emplace_back(std::forward<F>(f)); }

 private:
  std::atomic<bool>& stop_;
  std::vector<std::thread> threads_;
};

// Runs repetitions [first, first + count) on `threads` threads. Each
// repetition's result depends only on (seed, repetition), never on which
// thread ran it. The calling thread only waits: it reports progress and
// looks for Ctrl-C (Python's signal handlers run on it), and on either an
// exception or an interrupt it stops the workers (Engine::set_stop) and
// joins them before the error reaches Python.
nb::dict run_repetitions(const Schedule& sched, const LogGOPSParams& params,
                         const NoiseModel& noise, uint64_t seed, uint64_t first, uint64_t count,
                         unsigned threads, ReadyOrder order, Processing processing,
                         uint32_t stamp_record_bits, bool general_only,
                         const std::function<void(uint64_t)>* progress, bool departures, bool critical_path,
                         const std::vector<uint64_t>& path_reps) {
  if (count == 0) throw std::invalid_argument("repetitions must be at least 1");
  std::optional<bindings::PathCollector> paths;
  if (critical_path) paths.emplace(first, count, path_reps);
  threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(std::min<uint64_t>(count, 4096))));
  std::vector<int64_t> max_end(count);
  std::vector<int64_t> first_host_end;
  std::vector<int64_t> first_departures;
  uint64_t events = 0, messages = 0;
  std::atomic<uint64_t> next{0}, done{0}, windowed{0}, specialised{0};
  std::atomic<bool> failed{false}, stop{false};
  std::exception_ptr error;
  std::mutex mutex;  // guards error and finished_threads
  std::condition_variable finished;
  unsigned finished_threads = 0;

  auto worker = [&]() {
    try {
      Engine engine(sched, params, order, processing, stamp_record_bits, general_only);
      engine.set_stop(&stop);
      engine.set_critical_path(critical_path);
      for (;;) {
        if (failed.load(std::memory_order_relaxed) || stop.load(std::memory_order_relaxed)) break;
        const uint64_t k = next.fetch_add(1);
        if (k >= count) break;
        engine.record_departures(departures && k == 0 ? &first_departures : nullptr);
        RunResult r = engine.run(noise, seed, first + k);
        max_end[k] = r.max_end_ps;
        if (r.path) paths->add(k, *r.path);
        if (r.windowed) windowed.fetch_add(1, std::memory_order_relaxed);
        if (std::string_view(r.loop) != "general") specialised.fetch_add(1, std::memory_order_relaxed);
        if (k == 0) {
          first_host_end = std::move(r.host_end_ps);
          events = r.events;
          messages = r.messages;
        }
        done.fetch_add(1);
      }
    } catch (const Interrupted&) {
      // stopped from outside: the caller raises KeyboardInterrupt
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex);
      if (!error) error = std::current_exception();
      failed = true;
    }
    std::lock_guard<std::mutex> lock(mutex);
    ++finished_threads;
    finished.notify_all();
  };

  {
    nb::gil_scoped_release release;
    WorkerThreads pool(stop);
    for (unsigned t = 0; t < threads; ++t) pool.start(worker);
    uint64_t reported = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex);
        if (finished.wait_for(lock, std::chrono::milliseconds(50), [&] { return finished_threads == threads; }))
          break;
      }
      nb::gil_scoped_acquire acquire;
      // Ctrl-C: Python's handler sets KeyboardInterrupt here; the pool's
      // destructor stops and joins the workers as the error leaves.
      if (PyErr_CheckSignals() != 0) throw nb::python_error();
      const uint64_t now = done.load();
      if (progress && *progress && now != reported) {
        reported = now;
        (*progress)(now);
      }
    }
  }
  if (error) std::rethrow_exception(error);
  if (progress && *progress) (*progress)(count);

  nb::dict out;
  out["max_end_ps"] = to_numpy(std::move(max_end));
  out["host_end_ps"] = to_numpy(std::move(first_host_end));
  if (departures) out["departures_ps"] = to_numpy(std::move(first_departures));
  out["events"] = events;
  out["messages"] = messages;
  out["windowed"] = windowed.load();
  out["specialised"] = specialised.load();
  if (paths) paths->write(out);
  return out;
}

}  // namespace

// Defined in schedules/schedules_bindings.cpp: the schedule generators.
void bind_schedules(nb::module_& m);
void bind_assembly(nb::module_& m);

NB_MODULE(_engine, m) {
  m.doc() = "cloudnoise's C++ LogGOPS engine";

  static nb::exception<GoalError> goal_error(m, "GoalError", PyExc_ValueError);
  static nb::exception<DeadlockError> deadlock_error(m, "DeadlockError", PyExc_RuntimeError);
  // Registered after its base, so it is tried first.
  static nb::exception<ReorderedDeadlockError> reordered_deadlock_error(m, "ReorderedDeadlockError",
                                                                        deadlock_error);
  static nb::exception<ScheduleError> schedule_error(m, "ScheduleError", PyExc_ValueError);

  nb::class_<Schedule>(m, "Schedule")
      .def_prop_ro("num_ranks", &Schedule::num_ranks)
      .def_prop_ro("num_ops", &Schedule::num_ops)
      .def_prop_ro("num_cpus", &Schedule::num_cpus)
      .def_prop_ro("num_nics", &Schedule::num_nics)
      .def_prop_ro("num_templates", &Schedule::num_templates)
      .def_prop_ro("memory_bytes", &Schedule::memory_bytes)
      .def_prop_rw("in_order", &Schedule::in_order, &Schedule::set_in_order,
                   "Messages from one rank to another arrive in the order they were sent (an in-order "
                   "connection; MPI's non-overtaking rule follows; set for recorded traces). False: "
                   "LogGOPSim's semantics, where latency noise may reorder them.");

  m.def(
      "read_goal",
      [](const std::string& path) {
        nb::gil_scoped_release release;
        return read_goal_file(path);
      },
      nb::arg("path"), "Read a GOAL text file (.gz inflated) into a Schedule.");
  m.def(
      "parse_goal",
      [](nb::bytes text, const std::string& name) {
        std::string_view view(text.c_str(), text.size());
        nb::gil_scoped_release release;
        return read_goal_text(view, name);
      },
      nb::arg("text"), nb::arg("name") = "<text>", "Parse GOAL text (bytes) into a Schedule.");
  m.def("reader_has_gzip", &goal_reader_has_gzip);
  // The engine's input limits (input_limits.hpp), for cloudnoise.limits to agree with.
  m.attr("MAX_TIME_PS") = limits::kMaxTimePs;
  m.attr("MAX_MESSAGE_BYTES") = limits::kMaxMessageBytes;
  m.attr("MAX_RANKS") = limits::kMaxRanks;
  m.attr("MIN_EPISODE_FRACTION") = limits::kMinEpisodeFraction;

  nb::class_<LogGOPSParams>(m, "LogGOPSParams")
      .def(
          "__init__",
          [](LogGOPSParams* p, int64_t L_ps, int64_t o_ps, int64_t g_ps, int64_t G_fs,
             int64_t O_fs, uint64_t S, int64_t O_rendezvous_fs,
             const std::vector<std::tuple<uint64_t, int64_t, int64_t, int64_t>>& classes,
             int64_t o_r_ps) {
            new (p) LogGOPSParams{L_ps, o_ps, g_ps, G_fs, O_fs, S, O_rendezvous_fs, o_r_ps, {}};
            for (const auto& [min_bytes, L, G, O] : classes) p->classes.push_back({min_bytes, L, G, O});
          },
          nb::arg("L_ps"), nb::arg("o_ps"), nb::arg("g_ps"), nb::arg("G_fs"), nb::arg("O_fs"),
          nb::arg("S"), nb::arg("O_rendezvous_fs") = -1,
          nb::arg("classes") = std::vector<std::tuple<uint64_t, int64_t, int64_t, int64_t>>{},
          nb::arg("o_r_ps") = -1,
          "LogGOPS parameters. cloudnoise's extensions: `classes`, (min_bytes, L_ps, G_fs, O_fs) "
          "per size class (empty: LogGOPSim); `o_r_ps`, the receive overhead when it differs "
          "from the send overhead o_ps (-1: o for both)")
      .def_ro("L_ps", &LogGOPSParams::L_ps)
      .def_ro("o_ps", &LogGOPSParams::o_ps)
      .def_ro("g_ps", &LogGOPSParams::g_ps)
      .def_ro("G_fs", &LogGOPSParams::G_fs)
      .def_ro("O_fs", &LogGOPSParams::O_fs)
      .def_ro("S", &LogGOPSParams::S)
      .def_ro("O_rendezvous_fs", &LogGOPSParams::O_rendezvous_fs)
      .def_ro("o_r_ps", &LogGOPSParams::o_r_ps)
      .def_prop_ro("classes", [](const LogGOPSParams& p) {
        std::vector<std::tuple<uint64_t, int64_t, int64_t, int64_t>> out;
        for (const SizeClass& c : p.classes) out.emplace_back(c.min_bytes, c.L_ps, c.G_fs, c.O_fs);
        return out;
      });

  nb::class_<OsNoiseTrace>(m, "OsNoiseTrace")
      .def(
          "__init__",
          [](OsNoiseTrace* t, nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig> starts,
             nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig> durations) {
            new (t) OsNoiseTrace(to_vector(starts), to_vector(durations));
          },
          nb::arg("starts_ps"), nb::arg("durations_ps"))
      .def(
          "noise",
          [](const OsNoiseTrace& t, int64_t start, int64_t len) {
            check_activity(start, len);
            return t.noise(start, len);
          },
          nb::arg("start_ps"), nb::arg("len_ps"), "Noise charged to one activity.")
      .def(
          "noise_many",
          [](const OsNoiseTrace& t, nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig> starts,
             nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig> lens) {
            if (starts.shape(0) != lens.shape(0))
              throw std::invalid_argument("starts and lens differ in length");
            std::vector<int64_t> out(starts.shape(0));
            for (size_t i = 0; i < out.size(); ++i) check_activity(starts.data()[i], lens.data()[i]);
            size_t cursor = 0;  // one rank's successive activities share a cursor
            for (size_t i = 0; i < out.size(); ++i) out[i] = t.noise(starts.data()[i], lens.data()[i], cursor);
            return to_numpy(std::move(out));
          },
          nb::arg("starts_ps"), nb::arg("lens_ps"),
          "Noise of successive activities of one rank (as the engine charges them).")
      .def(
          "quiet_span",
          [](const OsNoiseTrace& t, int64_t start, int64_t len) {
            check_activity(start, len);
            size_t cursor = 0;
            t.noise(start, len, cursor);
            const QuietSpan q = t.quiet_span(start, len, cursor);
            return nb::make_tuple(q.lo, q.hi, q.end);
          },
          nb::arg("start_ps"), nb::arg("len_ps"),
          "(lo, hi, end): the starts that the engine charges max(0, end - start) without "
          "a lookup, for activities of this length, after one at `start` (lo > hi: none).")
      .def_prop_ro("span_ps", &OsNoiseTrace::span_ps)
      .def("__len__", &OsNoiseTrace::size);

  nb::class_<QuantileTable>(m, "QuantileTable")
      .def(
          "__init__",
          [](QuantileTable* q, nb::ndarray<const double, nb::ndim<1>, nb::c_contig> p,
             nb::ndarray<const double, nb::ndim<1>, nb::c_contig> v) {
            new (q) QuantileTable(to_dvector(p), to_dvector(v));
          },
          nb::arg("probabilities"), nb::arg("values"))
      .def("quantile", &QuantileTable::quantile, nb::arg("u"))
      .def(
          "quantile_of_bits", &QuantileTable::quantile_of_bits, nb::arg("bits"),
          "quantile(u) for the uniform u that 64 random bits give (their top 53 over 2^53), "
          "as the engine draws it.")
      .def("__len__", &QuantileTable::size);

  nb::class_<BandwidthEpisodes>(m, "BandwidthEpisodes")
      .def(
          "__init__",
          [](BandwidthEpisodes* e, nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig> starts,
             nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig> ends,
             nb::ndarray<const double, nb::ndim<1>, nb::c_contig> fractions, int64_t period_ps) {
            new (e) BandwidthEpisodes(to_vector(starts), to_vector(ends), to_dvector(fractions), period_ps);
          },
          nb::arg("starts_ps"), nb::arg("ends_ps"), nb::arg("fractions"), nb::arg("period_ps"))
      .def(
          "fraction_at",
          [](const BandwidthEpisodes& e, int64_t at) {
            if (at < 0) throw std::invalid_argument("a position in the episodes must be >= 0");
            return e.fraction_at(at);
          },
          nb::arg("at_ps"), "The bandwidth fraction at a position (wrapped by the period): 1 outside an episode.")
      .def_prop_ro("period_ps", &BandwidthEpisodes::period_ps)
      .def_prop_ro(
          "starts_ps", [](const BandwidthEpisodes& e) { return to_numpy(e.starts_ps()); }, nb::rv_policy::automatic)
      .def_prop_ro(
          "ends_ps", [](const BandwidthEpisodes& e) { return to_numpy(e.ends_ps()); }, nb::rv_policy::automatic)
      .def_prop_ro(
          "fractions", [](const BandwidthEpisodes& e) { return to_numpy(e.fractions()); },
          nb::rv_policy::automatic)
      .def("__len__", &BandwidthEpisodes::size);

  nb::class_<EpisodeProcess>(m, "EpisodeProcess")
      .def(nb::init<double, double, std::shared_ptr<const QuantileTable>, std::shared_ptr<const QuantileTable>,
                    int64_t>(),
           nb::arg("mean_quiet_ps"), nb::arg("mean_cycle_ps"), nb::arg("duration_ps"), nb::arg("fraction"),
           nb::arg("period_ps"),
           "Bandwidth drops in time: quiet times exponential with mean `mean_quiet_ps`, episodes of a drawn "
           "duration (ps) at a drawn fraction of the peak, over a table of `period_ps` or, read by more hosts, "
           "4 mean cycles (`mean_cycle_ps`) per host; each repetition draws its own table.")
      .def("draw", &EpisodeProcess::draw, nb::arg("seed"), nb::arg("repetition"), nb::arg("hosts") = 1,
           "The table repetition `repetition` of a run seeded `seed` reads, `hosts` hosts reading it "
           "(a function of the three alone).")
      .def("period_ps", &EpisodeProcess::period_ps, nb::arg("hosts") = 1, "A table's period when `hosts` read it.");

  nb::class_<LatencyStalls>(m, "LatencyStalls")
      .def(
          "__init__",
          [](LatencyStalls* e, nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig> starts,
             nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig> ends, int64_t period_ps) {
            new (e) LatencyStalls(to_vector(starts), to_vector(ends), period_ps);
          },
          nb::arg("starts_ps"), nb::arg("ends_ps"), nb::arg("period_ps"))
      .def(
          "delay_at",
          [](const LatencyStalls& e, int64_t at) {
            if (at < 0) throw std::invalid_argument("a position in the stalls must be >= 0");
            return e.delay_at(at);
          },
          nb::arg("at_ps"), "What a message sent at a position (wrapped by the period) waits: the rest of its stall.")
      .def_prop_ro("period_ps", &LatencyStalls::period_ps)
      .def_prop_ro(
          "starts_ps", [](const LatencyStalls& e) { return to_numpy(e.starts_ps()); }, nb::rv_policy::automatic)
      .def_prop_ro(
          "ends_ps", [](const LatencyStalls& e) { return to_numpy(e.ends_ps()); }, nb::rv_policy::automatic)
      .def("__len__", &LatencyStalls::size);

  nb::class_<StallProcess>(m, "StallProcess")
      .def_static("bursty", &StallProcess::bursty, nb::arg("mean_quiet_ps"), nb::arg("mean_cycle_ps"),
                  nb::arg("duration_ps"), nb::arg("stall_ps"), nb::arg("gap_ps"), nb::arg("period_ps"),
                  "Episodes after quiet times exponential with mean `mean_quiet_ps`, each a train of stalls "
                  "(stall, gap, stall, ...) while a stall starts within its drawn duration, over a table of "
                  "`period_ps` or, read by more hosts, 4 mean cycles (`mean_cycle_ps`: quiet time and episode) "
                  "per host; each repetition draws its own table.")
      .def_static("periodic", &StallProcess::periodic, nb::arg("every_ps"), nb::arg("stall_ps"), nb::arg("period_ps"),
                  "A stall of a drawn length every `every_ps`, over a table of `period_ps`.")
      .def_static("recurring", &StallProcess::recurring, nb::arg("mean_cycle_ps"), nb::arg("stall_ps"),
                  nb::arg("gap_ps"), nb::arg("period_ps"),
                  "Stalls that never stop coming: each a drawn `stall_ps` long, the next a drawn `gap_ps` after "
                  "it, over a table of at least `period_ps` (or, read by more hosts, 4 mean cycles per host) that "
                  "ends where its next stall would start; each repetition draws its own table.")
      .def("draw", &StallProcess::draw, nb::arg("seed"), nb::arg("repetition"), nb::arg("hosts") = 1,
           "The table repetition `repetition` of a run seeded `seed` reads, `hosts` hosts reading it "
           "(a function of the three alone).")
      .def("period_ps", &StallProcess::period_ps, nb::arg("hosts") = 1, "A table's period when `hosts` read it.");

  nb::class_<LatencyLevels>(m, "LatencyLevels")
      .def(
          "__init__",
          [](LatencyLevels* e, nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig> starts,
             nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig> values, int64_t period_ps) {
            new (e) LatencyLevels(to_vector(starts), to_vector(values), period_ps);
          },
          nb::arg("starts_ps"), nb::arg("values_ps"), nb::arg("period_ps"),
          "Latency levels over a period: level k (ps, may be negative) holds from starts_ps[k] (strictly "
          "ascending, the first 0) to the next start, the last to the period.")
      .def(
          "value_at",
          [](const LatencyLevels& e, int64_t at) {
            if (at < 0) throw std::invalid_argument("a position in the levels must be >= 0");
            return e.value_at(at);
          },
          nb::arg("at_ps"), "The level (ps) at a position (wrapped by the period).")
      .def_prop_ro("period_ps", &LatencyLevels::period_ps)
      .def_prop_ro(
          "starts_ps", [](const LatencyLevels& e) { return to_numpy(e.starts_ps()); }, nb::rv_policy::automatic)
      .def_prop_ro(
          "values_ps", [](const LatencyLevels& e) { return to_numpy(e.values_ps()); }, nb::rv_policy::automatic)
      .def("__len__", &LatencyLevels::size);

  nb::class_<LevelProcess>(m, "LevelProcess")
      .def(nb::init<double, std::shared_ptr<const QuantileTable>, int64_t>(), nb::arg("mean_hold_ps"),
           nb::arg("level_ps"), nb::arg("period_ps"),
           "Latency levels in time: each level drawn from `level_ps` (ps, may be negative) holds for a time "
           "exponential with mean `mean_hold_ps`, then the next is drawn, over a table of `period_ps` or, read "
           "by more hosts, 4 mean holds per host; each repetition draws its own table.")
      .def(
          "draw", [](const LevelProcess& p, uint64_t seed, uint64_t rep, uint32_t hosts) { return p.draw(seed, rep, hosts); },
          nb::arg("seed"), nb::arg("repetition"), nb::arg("hosts") = 1,
           "The table repetition `repetition` of a run seeded `seed` reads, `hosts` hosts reading it "
           "(a function of the three alone).")
      .def("period_ps", &LevelProcess::period_ps, nb::arg("hosts") = 1, "A table's period when `hosts` read it.")
      .def_prop_ro("min_level_ps", &LevelProcess::min_level_ps, "The least level a table can hold (ps).")
      .def_prop_ro("max_level_ps", &LevelProcess::max_level_ps, "The largest level a table can hold (ps).");

  nb::class_<SwitchDraws>(m, "SwitchDraws")
      .def(
          "__init__",
          [](SwitchDraws* d, nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig> near_L_ps,
             nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig> near_G_fs,
             nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig> far_L_ps,
             nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig> far_G_fs, uint32_t nodes_per_switch) {
            new (d) SwitchDraws({to_vector(near_L_ps), to_vector(near_G_fs)}, {to_vector(far_L_ps), to_vector(far_G_fs)},
                                nodes_per_switch);
          },
          nb::arg("near_L_ps"), nb::arg("near_G_fs"), nb::arg("far_L_ps"), nb::arg("far_G_fs"),
          nb::arg("nodes_per_switch"),
          "The paper authors' network semantics: per-message L and per-16-MiB-block G picked from the "
          "near or far samples (rank / nodes_per_switch), rendezvous 2 L later.")
      .def_prop_ro("nodes_per_switch", &SwitchDraws::nodes_per_switch)
      .def_prop_ro("min_latency_ps", &SwitchDraws::min_latency_ps)
      .def_prop_ro("random", &SwitchDraws::random)
      .def("is_far", &SwitchDraws::is_far, nb::arg("from_rank"), nb::arg("to_rank"))
      .def_static("blocks", &SwitchDraws::blocks, nb::arg("bytes"),
                  "How many 16 MiB blocks (each its own G draw) a message's bytes are charged in.");

  nb::class_<NoiseModel>(m, "NoiseModel")
      .def(nb::init<>())
      .def_rw("os", &NoiseModel::os)
      .def_rw("os_cosched", &NoiseModel::os_cosched)
      .def_rw("os_phase_ps", &NoiseModel::os_phase_ps)
      .def_rw("latency_excess_ps", &NoiseModel::latency_excess_ps)
      .def_rw("bandwidth_fraction", &NoiseModel::bandwidth_fraction)
      .def_rw("bandwidth_episodes", &NoiseModel::bandwidth_episodes)
      .def_rw("latency_stalls", &NoiseModel::latency_stalls)
      .def_rw("episode_process", &NoiseModel::episode_process)
      .def_rw("stall_process", &NoiseModel::stall_process)
      .def_rw("latency_stalls_shared", &NoiseModel::latency_stalls_shared)
      .def_rw("latency_stalls_hosts", &NoiseModel::latency_stalls_hosts,
              "The share of hosts that stall at all, drawn per host and repetition (1: every host)")
      .def_rw("latency_stalls_max_bytes", &NoiseModel::latency_stalls_max_bytes,
              "The largest message (bytes) the stalls hold; larger ones never wait for a stall")
      .def_rw("level_process", &NoiseModel::level_process,
              "Latency levels in time: each message gets its sender's level at the send added to its latency "
              "(which stays at least -o).")
      .def_rw("latency_levels_shared", &NoiseModel::latency_levels_shared,
              "Every host reads the levels from one offset (a level of the whole system), not each from its own")
      .def_rw("latency_state_process", &NoiseModel::latency_state_process,
              "A latency noise state per sending host: a LevelProcess of micro normal scores (the standard "
              "normal's quantiles times 10^6) that each host reads from its own offset; with "
              "latency_state_weight w in (0, 1), a message sent at t draws its latency excess at "
              "Phi(sqrt(w) Z(t) + sqrt(1 - w) Phi^-1(u0)), u0 its own uniform: the same distribution per "
              "message, correlated while the state holds. Needs latency_excess_ps.")
      .def_rw("latency_state_weight", &NoiseModel::latency_state_weight,
              "The latency state's weight w in [0, 1) (0, the default: no state).")
      .def_prop_rw(
          "latency_state_part",
          [](const NoiseModel& m) -> std::string {
            return m.latency_state_part == StatePart::Body   ? "body"
                   : m.latency_state_part == StatePart::Tail ? "tail"
                   : m.latency_state_part == StatePart::Both ? "both"
                                                             : "all";
          },
          [](NoiseModel& m, const std::string& part) {
            if (part == "all")
              m.latency_state_part = StatePart::All;
            else if (part == "body")
              m.latency_state_part = StatePart::Body;
            else if (part == "tail")
              m.latency_state_part = StatePart::Tail;
            else if (part == "both")
              m.latency_state_part = StatePart::Both;
            else
              throw std::invalid_argument("latency_state_part is all, body, tail or both, not '" + part + "'");
          },
          "Which part of the per-message distribution the latency state moves: 'all' (the default: "
          "Phi(sqrt(w) Z + sqrt(1 - w) Phi^-1(u0))), 'body' (below the quantile latency_state_split; the tail "
          "drawn on its own) or 'tail' (how often a message lands above latency_state_split; where, its own "
          "draw), or 'both' (the body as 'body', the tail's share with a state of its own: "
          "latency_state_tail_process). Each keeps the per-message distribution.")
      .def_rw("latency_state_tail_process", &NoiseModel::latency_state_tail_process,
              "With latency_state_part 'both': the tail's own state (a LevelProcess of micro normal scores, as "
              "latency_state_process), which moves how often a message lands above latency_state_split, while "
              "latency_state_process moves where in the body.")
      .def_rw("latency_state_tail_weight", &NoiseModel::latency_state_tail_weight,
              "With latency_state_part 'both': the tail state's weight in (0, 1).")
      .def_rw("latency_state_split", &NoiseModel::latency_state_split,
              "The quantile q in (0, 1) between the body and the tail, for latency_state_part 'body' or 'tail' "
              "(default 0.9).")
      .def_rw("switch_draws", &NoiseModel::switch_draws)
      .def_rw("switch_nominal", &NoiseModel::switch_nominal,
              "With switch_draws: the noiseless network (sets of one value) against which a critical path "
              "splits each message's drawn L and G into the network's and the noise's.");

  m.def(
      "drawn_gaps",
      [](std::shared_ptr<const QuantileTable> fraction, int64_t G_fs,
         nb::ndarray<const uint64_t, nb::ndim<1>, nb::c_contig> bits) {
        if (!fraction) throw std::invalid_argument("drawn_gaps needs a fraction table");
        const DrawnGapTable table(fraction, G_fs);
        std::vector<int64_t> tabulated(bits.shape(0)), formula(bits.shape(0));
        for (size_t i = 0; i < tabulated.size(); ++i) {
          tabulated[i] = table.gap_fs(bits.data()[i]);
          formula[i] = drawn_gap_fs(*fraction, bits.data()[i], G_fs);
        }
        return nb::make_tuple(to_numpy(std::move(tabulated)), to_numpy(std::move(formula)), table.tabulated());
      },
      nb::arg("fraction"), nb::arg("G_fs"), nb::arg("bits"),
      "For tests: the G (fs/B) that bandwidth draws of these random bits give, from the engine's "
      "per-bucket table and from the formula, and how many of the 4096 buckets the table holds.");

  m.def(
      "normal_cdf",
      [](nb::ndarray<const double, nb::ndim<1>, nb::c_contig> z) {
        std::vector<double> out(z.shape(0));
        for (size_t i = 0; i < out.size(); ++i) out[i] = normal_cdf(z.data()[i]);
        return to_numpy(std::move(out));
      },
      nb::arg("z"), "For tests: the engine's standard normal CDF Phi (noise/normal_scores.hpp) at each z.");
  m.def(
      "normal_quantile",
      [](nb::ndarray<const double, nb::ndim<1>, nb::c_contig> p) {
        std::vector<double> out(p.shape(0));
        for (size_t i = 0; i < out.size(); ++i) out[i] = normal_quantile(p.data()[i]);
        return to_numpy(std::move(out));
      },
      nb::arg("p"),
      "For tests: the engine's standard normal quantile Phi^-1 (noise/normal_scores.hpp) at each p "
      "(-inf at 0, inf at 1, nan outside [0, 1]).");
  m.def(
      "round_to_int",
      [](nb::ndarray<const double, nb::ndim<1>, nb::c_contig> values) {
        std::vector<int64_t> out(values.shape(0));
        for (size_t i = 0; i < out.size(); ++i) out[i] = round_to_int(values.data()[i]);
        return to_numpy(std::move(out));
      },
      nb::arg("values"),
      "For tests: the engine's rounding of drawn values to integer time units "
      "(half away from zero, as llround); OverflowError beyond int64.");
  m.def(
      "replay_event_queue",
      [](nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig> times,
         nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig> stamps, unsigned passes) {
        if (times.shape(0) != stamps.shape(0))
          throw std::invalid_argument("times and stamps differ in length");
        std::vector<int64_t> popped;
        EventQueue queue;
        for (unsigned pass = 0; pass < passes; ++pass) {
          queue.clear();
          popped.clear();
          for (size_t i = 0; i < times.shape(0); ++i) {
            if (times.data()[i] >= 0) {
              queue.push({times.data()[i], static_cast<uint64_t>(stamps.data()[i]), 0, 0});
            } else {
              if (queue.empty()) throw std::invalid_argument("pop from an empty queue");
              popped.push_back(static_cast<int64_t>(queue.pop().ts));
            }
          }
        }
        return to_numpy(std::move(popped));
      },
      nb::arg("times"), nb::arg("stamps"), nb::arg("passes") = 1,
      "For tests: push (time, stamp) where time >= 0, pop where time is -1, on the "
      "engine's event queue (cleared and replayed `passes` times, as an engine's "
      "repetitions reuse it); returns the stamps popped.");
  m.def(
      "run",
      [](const Schedule& sched, const LogGOPSParams& params, const NoiseModel& noise,
         uint64_t seed, uint64_t first, uint64_t count, unsigned threads, bool program_order,
         bool sequential, bool rendezvous_windows, std::function<void(uint64_t)> progress,
         uint32_t stamp_record_bits, bool general, bool departures, bool critical_path,
         const std::vector<uint64_t>& path_reps) {
        return run_repetitions(sched, params, noise, seed, first, count, threads,
                               program_order ? ReadyOrder::Program : ReadyOrder::LogGOPSim,
                               sequential           ? Processing::Sequential
                               : rendezvous_windows ? Processing::WindowedRendezvous
                                                    : Processing::Auto,
                               stamp_record_bits, general, &progress, departures, critical_path, path_reps);
      },
      nb::arg("schedule"), nb::arg("params"), nb::arg("noise"), nb::arg("seed") = 0,
      nb::arg("first") = 0, nb::arg("count") = 1, nb::arg("threads") = 1,
      nb::arg("program_order") = false, nb::arg("sequential") = false,
      nb::arg("rendezvous_windows") = false, nb::arg("progress") = nb::none(),
      nb::arg("stamp_record_bits") = StampOrder::kDefaultRecordBits, nb::arg("general") = false,
      nb::arg("departures") = false, nb::arg("critical_path") = false,
      nb::arg("path_reps") = std::vector<uint64_t>{},
      "Simulate repetitions [first, first+count); returns max_end_ps per repetition, "
      "host_end_ps of the first, events, messages, and how many repetitions were "
      "processed host by host in windows (`windowed`). `sequential` forces one global "
      "event queue throughout; `rendezvous_windows` takes schedules with rendezvous "
      "messages into windows too (slower on the cases measured; for tests and benchmarks). "
      "The results are the same bit for bit either way. "
      "`stamp_record_bits` is for tests: fewer remembered stamps make the windows give up "
      "(and the repetition run again in the global order) more often. "
      "`general` forces the general event loop, never a specialised one (engine.hpp, Loop); "
      "`specialised` in the result counts the repetitions a specialised loop ran, with the "
      "same results bit for bit. `departures`: also `departures_ps` of the first repetition, "
      "each send's departure time by op index (-1 for other ops), as a ping-pong's timer reads it. "
      "`critical_path` records every repetition's critical path (off: the loops run without its hooks): "
      "the result gains path_parts (reps x PATH_PARTS, ps, each row adding up to the runtime), "
      "path_counts (reps x PATH_COUNTS), path_last_host, path_noise (rows of repetition index, host, "
      "part, ps: the noise on the path by the host it came from) and paths (the segments of the "
      "repetitions in `path_reps`, as activities() gives them).");

  bind_schedules(m);
  bind_assembly(m);
  bindings::bind_critical_path(m);
}
