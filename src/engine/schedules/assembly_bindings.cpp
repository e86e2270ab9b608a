// nanobind glue for building schedules rank by rank from outside the
// engine (the trace converter): one rank of a Schedgen collective as plain
// lists, and two assemblers that take each rank's ops and edges as numpy
// arrays and build a Schedule or stream GOAL text (gzip for .gz). The
// converter decides what the ops are; these only store or print them, so
// a converted trace and a generated collective go through the same
// ScheduleBuilder and GoalTextWriter. Also the C++ converter of one
// liballprof rank (traces/liballprof_rank.hpp), with the Python converter's
// hooks as callables, and RankOps, where it puts a rank's ops (flat memory)
// for an assembler's add_rank_ops.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <span>

#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "goal_writer.hpp"
#include "patterns.hpp"
#include "schedule_errors.hpp"
#include "schedule.hpp"
#include "traces/liballprof_rank.hpp"
#include "traces/rank_op_store.hpp"

namespace nb = nanobind;
using namespace nb::literals;
using namespace cloudnoise;
using cloudnoise::bindings::checked;

namespace {

template <class T>
using Column = nb::ndarray<const T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

// One rank's ops of a collective, in emission order, with local handles.
class ListSink final : public OpSink {
 public:
  std::vector<uint8_t> kinds;
  std::vector<uint64_t> amounts;
  std::vector<uint32_t> peers, tags;
  std::vector<std::tuple<uint32_t, uint32_t, uint8_t>> edges;
  void begin_rank(uint32_t) override {}
  void end_rank() override {}
  uint32_t send(uint64_t bytes, uint32_t dest, uint32_t tag) override {
    return add(static_cast<uint8_t>(OpKind::Send), bytes, dest, tag);
  }
  uint32_t recv(uint64_t bytes, uint32_t src, uint32_t tag) override {
    return add(static_cast<uint8_t>(OpKind::Recv), bytes, src, tag);
  }
  uint32_t calc(uint64_t ps) override { return add(static_cast<uint8_t>(OpKind::Calc), ps, 0, 0); }
  void requires_done(uint32_t a, uint32_t b) override { edges.emplace_back(a, b, 0); }
  void requires_start(uint32_t a, uint32_t b) override { edges.emplace_back(a, b, 1); }

 private:
  uint32_t add(uint8_t k, uint64_t amount, uint32_t peer, uint32_t tag) {
    kinds.push_back(k);
    amounts.push_back(amount);
    peers.push_back(peer);
    tags.push_back(tag);
    return static_cast<uint32_t>(kinds.size() - 1);
  }
};

struct RankColumns {
  const uint8_t* kinds;
  const uint64_t* amounts;
  const uint32_t* peers;
  const uint32_t* tags;
  size_t ops;
  const uint32_t* edge_from;
  const uint32_t* edge_to;
  const uint8_t* edge_start;
  size_t edges;
};

RankColumns columns(const Column<uint8_t>& kinds, const Column<uint64_t>& amounts,
                    const Column<uint32_t>& peers, const Column<uint32_t>& tags,
                    const Column<uint32_t>& edge_from, const Column<uint32_t>& edge_to,
                    const Column<uint8_t>& edge_start) {
  const size_t n = kinds.shape(0);
  if (amounts.shape(0) != n || peers.shape(0) != n || tags.shape(0) != n)
    throw nb::value_error("kinds, amounts, peers and tags must have the same length");
  const size_t e = edge_from.shape(0);
  if (edge_to.shape(0) != e || edge_start.shape(0) != e)
    throw nb::value_error("edge_from, edge_to and edge_start must have the same length");
  return {kinds.data(), amounts.data(), peers.data(), tags.data(), n,
          edge_from.data(), edge_to.data(), edge_start.data(), e};
}

// Feeds one rank's columns to anything with ScheduleBuilder's op interface.
template <class Out>
void feed(Out& out, const RankColumns& c) {
  for (size_t i = 0; i < c.ops; ++i) {
    switch (static_cast<OpKind>(c.kinds[i])) {
      case OpKind::Send: out.send(c.amounts[i], c.peers[i], c.tags[i]); break;
      case OpKind::Recv: out.recv(c.amounts[i], c.peers[i], c.tags[i]); break;
      case OpKind::Calc: out.calc(c.amounts[i]); break;
      default: throw ScheduleError("op kind must be 1 (send), 2 (recv) or 3 (calc)", 0);
    }
  }
  for (size_t k = 0; k < c.edges; ++k) {
    if (c.edge_from[k] >= c.ops || c.edge_to[k] >= c.ops)
      throw ScheduleError("an edge names an op the rank does not have", 0);
    if (c.edge_start[k])
      out.requires_start(c.edge_from[k], c.edge_to[k]);
    else
      out.requires_done(c.edge_from[k], c.edge_to[k]);
  }
}

// Feeds a RankOps store (all its ops, then all its edges, as feed() does).
template <class Out>
void feed_store(Out& out, const traces::RankOpStore& s) {
  s.op_column().for_each_chunk([&](std::span<const traces::StoredOp> ops) {
    for (const traces::StoredOp& o : ops) {
      switch (static_cast<OpKind>(o.kind)) {
        case OpKind::Send: out.send(o.amount, o.peer, o.tag); break;
        case OpKind::Recv: out.recv(o.amount, o.peer, o.tag); break;
        case OpKind::Calc: out.calc(o.amount); break;
        default: throw ScheduleError("op kind must be 1 (send), 2 (recv) or 3 (calc)", 0);
      }
    }
  });
  const uint64_t n = s.ops();
  s.edge_column().for_each_chunk([&](std::span<const traces::StoredEdge> edges) {
    for (const traces::StoredEdge& e : edges) {
      if (e.from >= n || e.to >= n) throw ScheduleError("an edge names an op the rank does not have", 0);
      if (e.start)
        out.requires_start(e.from, e.to);
      else
        out.requires_done(e.from, e.to);
    }
  });
}

class ScheduleAssembler {
 public:
  explicit ScheduleAssembler(uint32_t ranks) : builder_(ranks) {}
  void add_rank(uint32_t rank, const RankColumns& c) {
    builder_.begin_rank(rank);
    feed(builder_, c);
  }
  void add_rank_ops(uint32_t rank, const traces::RankOpStore& s) {
    builder_.begin_rank(rank);
    feed_store(builder_, s);
  }
  Schedule finish() { return builder_.finish(); }

 private:
  ScheduleBuilder builder_;
};

class GoalAssembler {
 public:
  GoalAssembler(const std::string& path, uint32_t ranks)
      : file_(std::make_unique<GoalFile>(path)), writer_(std::make_unique<GoalTextWriter>(file_->writer())) {
    writer_->num_ranks(ranks);
  }
  void add_rank(uint32_t rank, const RankColumns& c) {
    writer_->begin_rank(rank);
    feed(*writer_, c);
    writer_->end_rank();
  }
  void add_rank_ops(uint32_t rank, const traces::RankOpStore& s) {
    writer_->begin_rank(rank);
    feed_store(*writer_, s);
    writer_->end_rank();
  }
  void close() {
    writer_->flush();
    file_->close();
  }

 private:
  std::unique_ptr<GoalFile> file_;
  std::unique_ptr<GoalTextWriter> writer_;
};

// A bytes object as a vector of T (the hooks hand arrays over as
// array.tobytes(): plain casts, cheaper to compile than typed containers).
template <class T>
std::vector<T> lap_from_bytes(const nb::handle& b) {
  const nb::bytes bytes = nb::borrow<nb::bytes>(b);
  if (bytes.size() % sizeof(T)) throw nb::value_error("a hook returned an array of the wrong item size");
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), bytes.c_str(), bytes.size());
  return out;
}

int64_t lap_int(const nb::handle& h) { return nb::cast<int64_t>(h); }

// The Python hooks object of convert_liballprof_rank (liballprof_native._Hooks)
// as the C++ converter calls it: methods by name, results as ints, tuples and bytes.
class PyLapHooks final : public traces::LiballprofHooks {
 public:
  explicit PyLapHooks(nb::object py) : py_(std::move(py)) {}

  traces::CallPlan plan(std::string_view name) override {
    nb::tuple t = nb::borrow<nb::tuple>(py_.attr("plan")(nb::str(name.data(), name.size())));
    if (t.size() != 9) throw nb::value_error("plan() must return 9 ints");
    traces::CallPlan p;
    p.cls = static_cast<uint8_t>(lap_int(t[0]));
    p.sub = static_cast<uint8_t>(lap_int(t[1]));
    const int64_t nfields = lap_int(t[2]);
    p.nfields = static_cast<uint32_t>(nfields);
    uint32_t* pos[] = {&p.count, &p.type, &p.peer, &p.tag, &p.comm, &p.request};
    for (size_t i = 0; i < 6; ++i) {
      const int64_t v = lap_int(t[3 + i]);
      if (v < 0 || (v > 0 && v >= nfields)) throw nb::value_error("plan(): a field position outside the line");
      *pos[i] = static_cast<uint32_t>(v);
    }
    return p;
  }
  int64_t comm_id(std::string_view text, std::string_view name) override {
    return lap_int(py_.attr("comm_id")(nb::str(text.data(), text.size()), nb::str(name.data(), name.size())));
  }
  void comm_at(int64_t index) override { py_.attr("comm_at")(index); }
  bool comm_desc(int64_t cid, traces::CommDesc& out) override {
    nb::object r = py_.attr("comm_desc")(cid);
    if (r.is_none()) return false;
    nb::tuple t = nb::borrow<nb::tuple>(r);
    out.size = static_cast<uint32_t>(lap_int(t[0]));
    out.members = lap_from_bytes<uint32_t>(t[1]);
    out.tag_base = static_cast<uint32_t>(lap_int(t[2]));
    if (!out.members.empty() && out.members.size() != out.size)
      throw nb::value_error("comm_desc(): members must list every rank");
    return true;
  }
  bool comm_create(std::string_view line, int64_t index, int64_t t0, int64_t t1) override {
    return nb::cast<bool>(py_.attr("comm_create")(nb::str(line.data(), line.size()), index, t0, t1));
  }
  traces::HookOps collective(std::string_view line, int64_t index, int64_t t0, int64_t t1, int64_t cur,
                             uint64_t base) override {
    traces::HookOps out;
    nb::object r = py_.attr("collective")(nb::str(line.data(), line.size()), index, t0, t1, cur, base);
    if (r.is_none()) return out;
    nb::tuple t = nb::borrow<nb::tuple>(r);
    const auto kinds = lap_from_bytes<uint8_t>(t[1]);
    const auto amounts = lap_from_bytes<uint64_t>(t[2]);
    const auto peers = lap_from_bytes<uint32_t>(t[3]);
    const auto tags = lap_from_bytes<uint32_t>(t[4]);
    const auto efrom = lap_from_bytes<uint32_t>(t[5]);
    const auto eto = lap_from_bytes<uint32_t>(t[6]);
    const auto estart = lap_from_bytes<uint8_t>(t[7]);
    if (amounts.size() != kinds.size() || peers.size() != kinds.size() || tags.size() != kinds.size() ||
        eto.size() != efrom.size() || estart.size() != efrom.size())
      throw nb::value_error("collective(): columns of different lengths");
    out.ok = true;
    out.exit = lap_int(t[0]);
    for (size_t i = 0; i < kinds.size(); ++i) out.ops.push_back({amounts[i], peers[i], tags[i], kinds[i]});
    for (size_t k = 0; k < efrom.size(); ++k) out.edges.push_back({efrom[k], eto[k], estart[k]});
    return out;
  }

 private:
  nb::object py_;
};

nb::list lap_counts(const std::vector<std::pair<std::string, int64_t>>& counts) {
  nb::list l;
  for (const auto& [name, n] : counts) l.append(nb::make_tuple(nb::str(name.data(), name.size()), n));
  return l;
}

}  // namespace

void bind_assembly(nb::module_& m) {
  static nb::exception<traces::SpillError> spill_error(m, "SpillError", PyExc_RuntimeError);
  m.def(
      "collective_rank_ops",
      [](const std::string& pattern, uint32_t ranks, uint64_t size, uint32_t rank, uint32_t nway,
         uint64_t segmentsize) {
        return checked([&] {
          PatternSpec spec;
          spec.pattern = parse_pattern(pattern);
          spec.ranks = ranks;
          spec.size = size;
          spec.nway = nway;
          spec.segmentsize = segmentsize;
          validate(spec);
          if (rank >= ranks) throw ScheduleError("rank must be below ranks", 0);
          ListSink sink;
          patterns::rank_emitter(spec)(spec, rank, sink);
          return std::make_tuple(sink.kinds, sink.amounts, sink.peers, sink.tags, sink.edges);
        });
      },
      "pattern"_a, "ranks"_a, "size"_a, "rank"_a, "nway"_a = kDefaultNway,
      "segmentsize"_a = kDefaultSegmentSize,
      "One rank's ops of a Schedgen collective, exactly as generate() emits them: (kinds, "
      "amounts, peers, tags, edges), kinds 1 send / 2 recv / 3 calc, peers absolute in "
      "0..ranks-1, edges (a, b, start): op a waits for op b to finish (start=0) or start (1).");

  nb::class_<traces::RankOpStore>(m, "RankOps",
                                  "One rank's ops and edges from convert_liballprof_rank; older chunks "
                                  "wait in a temporary file, so memory stays flat in the rank's length.")
      .def(nb::init<>())
      .def_prop_ro("ops", &traces::RankOpStore::ops, "Ops stored.")
      .def_prop_ro("edges", &traces::RankOpStore::edges, "Edges stored.");

  m.def(
      "convert_liballprof_rank",
      [](traces::RankOpStore& ops, const std::string& path, uint32_t rank, double offset_us, double compute_scale,
         bool mpich, bool allow_unsupported, uint64_t max_bytes, std::vector<int64_t> bind_indices,
         nb::object hooks) {
        traces::LiballprofRankSetup setup;
        setup.path = path;
        setup.rank = rank;
        setup.offset_us = offset_us;
        setup.compute_scale = compute_scale;
        setup.mpich = mpich;
        setup.allow_unsupported = allow_unsupported;
        setup.max_bytes = max_bytes;
        setup.bind_indices = std::move(bind_indices);
        PyLapHooks h(std::move(hooks));
        const traces::LiballprofRankResult r = traces::convert_liballprof_rank(setup, h, ops);
        nb::list channels;
        for (const traces::ChannelCount& c : r.channels)
          channels.append(nb::make_tuple(c.src, c.dst, c.tag, c.balance, c.send_index, c.recv_index));
        nb::list wildcards;
        for (const traces::WildcardCount& w : r.wildcards)
          wildcards.append(nb::make_tuple(w.tag, w.count, w.latest_index));
        return nb::make_tuple(r.converted, nb::str(r.fallback.c_str()), r.calls, r.finalize_ns, r.compute_ns,
                              r.mpi_ns, lap_counts(r.by_name), lap_counts(r.unsupported), channels, wildcards,
                              r.first_wildcard);
      },
      "ops"_a, "path"_a, "rank"_a, "offset_us"_a, "compute_scale"_a, "mpich"_a, "allow_unsupported"_a,
      "max_bytes"_a, "bind_indices"_a, "hooks"_a,
      "Converts one liballprof rank file into `ops` (cleared first), as the Python converter does, "
      "calling `hooks` (methods plan, comm_id, comm_at, comm_desc, comm_create, collective: "
      "liballprof_native._Hooks) for what needs the other ranks. Returns (converted, why_not, calls, "
      "finalize_ns, compute_ns, mpi_ns, [(name, count)], [(unsupported name, count)], [(src, dst, "
      "tag, balance, latest send call or -1, latest receive call or -1)], [(tag, MPI_ANY_SOURCE "
      "receives, latest call)], the call of the first such receive or -1); converted is False "
      "(and `ops` empty) for anything it leaves to the Python converter: damage, warnings, rare calls.");

  nb::class_<ScheduleAssembler>(m, "ScheduleAssembler")
      .def(nb::init<uint32_t>(), "ranks"_a)
      .def(
          "add_rank",
          [](ScheduleAssembler& a, uint32_t rank, Column<uint8_t> kinds, Column<uint64_t> amounts,
             Column<uint32_t> peers, Column<uint32_t> tags, Column<uint32_t> edge_from,
             Column<uint32_t> edge_to, Column<uint8_t> edge_start) {
            checked([&] {
              a.add_rank(rank, columns(kinds, amounts, peers, tags, edge_from, edge_to, edge_start));
            });
          },
          "rank"_a, "kinds"_a, "amounts"_a, "peers"_a, "tags"_a, "edge_from"_a, "edge_to"_a,
          "edge_start"_a,
          "Adds the next rank: its ops (kind 1/2/3, bytes or picoseconds, absolute peer, tag) "
          "and edges (edge_from waits for edge_to; start=1 for irequires).")
      .def(
          "add_rank_ops",
          [](ScheduleAssembler& a, uint32_t rank, const traces::RankOpStore& ops) {
            checked([&] { a.add_rank_ops(rank, ops); });
          },
          "rank"_a, "ops"_a, "Adds the next rank from a RankOps store.")
      .def("finish", [](ScheduleAssembler& a) { return checked([&] { return a.finish(); }); },
           "The Schedule (every rank must have been added).");

  nb::class_<GoalAssembler>(m, "GoalAssembler")
      .def(nb::init<const std::string&, uint32_t>(), "path"_a, "ranks"_a)
      .def(
          "add_rank",
          [](GoalAssembler& a, uint32_t rank, Column<uint8_t> kinds, Column<uint64_t> amounts,
             Column<uint32_t> peers, Column<uint32_t> tags, Column<uint32_t> edge_from,
             Column<uint32_t> edge_to, Column<uint8_t> edge_start) {
            checked([&] {
              nb::gil_scoped_release release;
              a.add_rank(rank, columns(kinds, amounts, peers, tags, edge_from, edge_to, edge_start));
            });
          },
          "rank"_a, "kinds"_a, "amounts"_a, "peers"_a, "tags"_a, "edge_from"_a, "edge_to"_a,
          "edge_start"_a, "Writes the next rank's block of GOAL text.")
      .def(
          "add_rank_ops",
          [](GoalAssembler& a, uint32_t rank, const traces::RankOpStore& ops) {
            checked([&] {
              nb::gil_scoped_release release;
              a.add_rank_ops(rank, ops);
            });
          },
          "rank"_a, "ops"_a, "Writes the next rank's block of GOAL text from a RankOps store.")
      .def("close", [](GoalAssembler& a) { checked([&] { a.close(); }); },
           "Flushes and closes the file (raises on a write error).");
}
