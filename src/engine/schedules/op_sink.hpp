// Where a pattern generator puts its operations. Generators describe one rank
// at a time as a sequence of ops and dependency edges, in exactly the order
// Schedgen emits them; a sink either builds a Schedule, writes GOAL text or
// just counts. Keeping the generators ignorant of the destination is what
// lets the text output be byte-identical to Schedgen's while the Schedule
// path stays compact.
#pragma once

#include <cstdint>

namespace cloudnoise {

class OpSink {
 public:
  virtual ~OpSink() = default;

  virtual void begin_rank(uint32_t rank) = 0;
  virtual void end_rank() = 0;
  // Each returns the op's index within the current rank (0 for the first).
  virtual uint32_t send(uint64_t bytes, uint32_t dest, uint32_t tag) = 0;
  virtual uint32_t recv(uint64_t bytes, uint32_t src, uint32_t tag) = 0;
  virtual uint32_t calc(uint64_t picoseconds) = 0;
  // `a requires b`: a may start once b has finished.
  virtual void requires_done(uint32_t a, uint32_t b) = 0;
  // `a irequires b`: a may start once b has started.
  virtual void requires_start(uint32_t a, uint32_t b) = 0;
};

// Schedgen's time unit in GOAL text is the nanosecond; schedules hold ps.
inline constexpr uint64_t kPsPerNs = 1000;

}  // namespace cloudnoise
