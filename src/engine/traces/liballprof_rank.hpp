// One rank of a liballprof trace converted to ops in C++: the bulk of a
// real trace (point-to-point calls, waits, calls that move no data) is read
// and converted here (about 0.9 us a call against the Python converter's ~6.4,
// GOAL writing included); what needs the run's other
// ranks (collectives, communicator constructors, communicators) is asked of
// the Python converter through hooks. The result is exactly the Python
// converter's (cloudnoise.trace.rank_converter, liballprof.py): the same ops, edges,
// counts and message matching.
//
// Whatever is unusual or wrong (a damaged line, a number Python would read
// differently, an MPI_ANY_TAG receive, a persistent request, a warning other
// than the one for MPI_ANY_SOURCE receives, which is the caller's) is not
// handled here: conversion stops with `converted = false` and a reason, and
// the caller converts the rank again with the Python converter, whose
// one-line errors and warnings are the reference.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rank_op_store.hpp"

namespace cloudnoise::traces {

// How a call name is read, as the Python reader's tables say (kinds below).
struct CallPlan {
  enum Class : uint8_t { Fallback = 0, P2P, Wait, Local, Unsupported, Collective, CommCreate };
  enum P2PKind : uint8_t { Send = 0, Recv, Isend, Irecv };
  enum WaitKind : uint8_t { All = 0, Any, Some, One };
  uint8_t cls = Fallback;
  uint8_t sub = 0;        // P2PKind or WaitKind
  uint32_t nfields = 0;   // fields of the line (name, start, arguments, end)
  // field positions (0: not used): count, datatype, peer, tag, communicator,
  // request (Isend/Irecv; Wait: the request or request array)
  uint32_t count = 0, type = 0, peer = 0, tag = 0, comm = 0, request = 0;
};

// A communicator as the converter uses it for point-to-point calls.
struct CommDesc {
  uint32_t size = 0;
  std::vector<uint32_t> members;  // world ranks; empty: ranks are world ranks
  uint32_t tag_base = 0;          // its code << 24 in a message tag
};

// Ops a hook adds (a collective): appended as they are, with its exit op.
struct HookOps {
  bool ok = false;    // false: convert the rank in Python
  int64_t exit = -1;  // the op that is `cur` after it (-1: none)
  std::vector<StoredOp> ops;
  std::vector<StoredEdge> edges;
};

// What the converter asks of its caller (the Python converter, through the
// bindings). A plain interface rather than std::function members: fewer
// templates to compile at install time.
class LiballprofHooks {
 public:
  virtual ~LiballprofHooks() = default;
  virtual CallPlan plan(std::string_view name) = 0;
  // The converter's id of a `HANDLE,RANK,SIZE` field (-1: an error; fall back).
  virtual int64_t comm_id(std::string_view text, std::string_view name) = 0;
  // Call `index` is next, and communicator bindings change there.
  virtual void comm_at(int64_t index) = 0;
  // The communicator `cid` as the converter knows it (false: unknown).
  virtual bool comm_desc(int64_t cid, CommDesc& out) = 0;
  // A communicator constructor at call `index` (false: fall back).
  virtual bool comm_create(std::string_view line, int64_t index, int64_t t0, int64_t t1) = 0;
  // A collective at call `index` after op `cur` (-1: none); its ops are
  // numbered from `base`.
  virtual HookOps collective(std::string_view line, int64_t index, int64_t t0, int64_t t1, int64_t cur,
                             uint64_t base) = 0;
};

struct LiballprofRankSetup {
  std::string path;
  uint32_t rank = 0;
  double offset_us = 0;       // subtracted from every time (clock alignment)
  double compute_scale = 1;
  bool mpich = false;         // MPICH's MPI_ANY_SOURCE/MPI_PROC_NULL values
  bool allow_unsupported = false;
  uint64_t max_bytes = 0;     // the largest byte count of one message
  std::vector<int64_t> bind_indices;  // calls where comm_at must be called, ascending
};

struct ChannelCount {  // one (sender, receiver, tag) of Matching.channels
  uint32_t src, dst, tag;
  int64_t balance = 0;
  int64_t send_index = -1, recv_index = -1;  // latest send/receive call of this rank
};

struct WildcardCount {  // this rank's receives from MPI_ANY_SOURCE with one GOAL tag (Matching.wild)
  uint32_t tag;
  int64_t count = 0;
  int64_t latest_index = -1;  // the call of the latest one
};

struct LiballprofRankResult {
  bool converted = false;
  std::string fallback;  // why not (for tests and debugging)
  int64_t calls = 0, finalize_ns = 0, compute_ns = 0, mpi_ns = 0;
  std::vector<std::pair<std::string, int64_t>> by_name, unsupported;  // first-seen order
  std::vector<ChannelCount> channels;                                 // first-touch order
  std::vector<WildcardCount> wildcards;                               // first-touch order
  int64_t first_wildcard = -1;  // the call of the rank's first any-source receive (its warning names it)
};

// Converts the rank into `ops` (cleared first).
LiballprofRankResult convert_liballprof_rank(const LiballprofRankSetup& setup, LiballprofHooks& hooks,
                                             RankOpStore& ops);

}  // namespace cloudnoise::traces
