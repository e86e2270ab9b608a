// What the exchange loop (exchange_loop.cpp) needs to know of a schedule,
// and the test of whether a schedule is one it can run.
//
// An *exchange* is a schedule whose ranks all do the same relative to
// themselves (one template, one CPU and NIC) and which is made of sends and
// receives only, such that:
//  * every receive waits for nothing, names its source and tag, and no
//    other receive of the rank has the same source and tag: all are posted
//    at time 0, and each message finds its receive there;
//  * every send's message is matched by exactly one of those receives (its
//    receiver's receive from it with its tag), and every receive by one send;
//  * a send waits for nothing, or for one receive (its only dependency);
//    a finished receive releases at most that one send, a send nothing;
//  * nothing waits for an op to start (no irequires).
// The paper authors' pipelined ring and the dissemination are exchanges
// (every rank's round-k send to rank + d_k is taken by that rank's
// round-k receive, which releases its round-k+1 send). In an exchange an
// event releases at most one op, so the ready order never reorders
// anything after time 0, and the matching is known in advance: the loop
// walks neither the schedule's edges nor the posted receives.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "schedule.hpp"

namespace cloudnoise {

class ExchangePlan {
 public:
  static constexpr uint32_t kNone = 0xFFFFFFFFu;

  // One send of the template: its receiver relative to the sender, the op
  // (template index) its receiver's matching receive releases when it takes
  // the message (or kNone), and its size as an index into sizes() (a
  // collective sends a few sizes, whose costs the loop looks up once).
  struct Step {
    uint32_t to;
    uint32_t next;
    uint32_t size;
  };

  // The plan of `schedule`, or nothing when it is not an exchange.
  static std::optional<ExchangePlan> of(const Schedule& schedule);

  uint32_t ops_per_rank() const { return n_; }
  uint32_t sends_per_rank() const { return sends_; }
  // The step of the send at template index `local`.
  const Step& step(uint32_t local) const { return steps_[local]; }
  // The distinct message sizes, bytes.
  const std::vector<uint64_t>& sizes() const { return sizes_; }

 private:
  std::vector<Step> steps_;  // per template index (receives' entries unused)
  std::vector<uint64_t> sizes_;
  uint32_t n_ = 0;
  uint32_t sends_ = 0;
};

}  // namespace cloudnoise
