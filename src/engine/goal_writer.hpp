// GOAL text output, in the style Schedgen writes and LogGOPSim's txt2bin
// reads: `num_ranks N`, a blank line and `rank R {` per rank, one `lK: ...`
// line per op (K = local index + 1), `lA requires lB` / `lA irequires lB`
// lines, `}` to close. Two ways in:
//  - GoalTextWriter is fed op by op (a generator streams through it, so the
//    text keeps the generator's interleaving of ops and edges);
//  - write_goal(Schedule) prints a finished schedule: each rank's ops, then
//    its edges grouped by the op they wait for, in declaration order, which
//    reads back into the same Schedule.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "schedule.hpp"

namespace cloudnoise {

// Receives the text in chunks (about a MiB each) as it is produced.
using ChunkWriter = std::function<void(std::string_view)>;

class GoalTextWriter {
 public:
  explicit GoalTextWriter(ChunkWriter out);
  GoalTextWriter(const GoalTextWriter&) = delete;
  GoalTextWriter& operator=(const GoalTextWriter&) = delete;

  void num_ranks(uint32_t n);
  void begin_rank(uint32_t rank);
  void end_rank();
  // Each returns the op's local index; cpu/nic are printed only when nonzero.
  uint32_t send(uint64_t bytes, uint32_t dest, uint32_t tag, uint8_t cpu = 0, uint8_t nic = 0);
  uint32_t recv(uint64_t bytes, uint32_t src, uint32_t tag, uint8_t cpu = 0, uint8_t nic = 0);
  // GOAL's calc is in ns; throws ScheduleError if `picoseconds` is not whole ns.
  uint32_t calc(uint64_t picoseconds, uint8_t cpu = 0);
  void requires_done(uint32_t a, uint32_t b);
  void requires_start(uint32_t a, uint32_t b);
  // Hands everything buffered to the ChunkWriter; call once at the end.
  void flush();

 private:
  void put(std::string_view s);
  void put(uint64_t v);
  void put_peer(uint32_t v);  // kAny prints as -1
  void put_label(uint32_t local);
  void maybe_flush();
  uint32_t next_label();

  ChunkWriter out_;
  std::string buf_;
  uint32_t ops_in_rank_ = 0;
};

// Writes a whole schedule (see above for the edge order).
void write_goal(const Schedule& sched, const ChunkWriter& out);
std::string goal_text(const Schedule& sched);

// A GOAL output file; gzip-compressed when the path ends in ".gz" (needs the
// engine built with zlib, otherwise opening such a path throws).
class GoalFile {
 public:
  explicit GoalFile(const std::string& path);
  ~GoalFile();
  GoalFile(const GoalFile&) = delete;
  GoalFile& operator=(const GoalFile&) = delete;

  ChunkWriter writer();
  // Flushes and closes, throwing on a write error (the destructor only closes).
  void close();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cloudnoise
