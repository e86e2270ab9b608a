// nanobind glue for building schedules rank by rank from outside the
// engine (the trace converter): one rank of a Schedgen collective as plain
// lists, and two assemblers that take each rank's ops and edges as numpy
// arrays and build a Schedule or stream GOAL text (gzip for .gz). The
// converter decides what the ops are; these only store or print them, so
// a converted trace and a generated collective go through the same
// ScheduleBuilder and GoalTextWriter.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "goal_writer.hpp"
#include "patterns.hpp"
#include "schedule_errors.hpp"
#include "schedule.hpp"

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

class ScheduleAssembler {
 public:
  explicit ScheduleAssembler(uint32_t ranks) : builder_(ranks) {}
  void add_rank(uint32_t rank, const RankColumns& c) {
    builder_.begin_rank(rank);
    feed(builder_, c);
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
  void close() {
    writer_->flush();
    file_->close();
  }

 private:
  std::unique_ptr<GoalFile> file_;
  std::unique_ptr<GoalTextWriter> writer_;
};

}  // namespace

void bind_assembly(nb::module_& m) {
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
          patterns::rank_emitter(spec.pattern)(spec, rank, sink);
          return std::make_tuple(sink.kinds, sink.amounts, sink.peers, sink.tags, sink.edges);
        });
      },
      "pattern"_a, "ranks"_a, "size"_a, "rank"_a, "nway"_a = kDefaultNway,
      "segmentsize"_a = kDefaultSegmentSize,
      "One rank's ops of a Schedgen collective, exactly as generate() emits them: (kinds, "
      "amounts, peers, tags, edges), kinds 1 send / 2 recv / 3 calc, peers absolute in "
      "0..ranks-1, edges (a, b, start): op a waits for op b to finish (start=0) or start (1).");

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
      .def("close", [](GoalAssembler& a) { checked([&] { a.close(); }); },
           "Flushes and closes the file (raises on a write error).");
}
