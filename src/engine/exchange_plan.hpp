// What the exchange loop (exchange_loop.cpp) needs to know of a schedule,
// and the test of whether a schedule is one it can run.
//
// An *exchange* is a schedule whose ranks all do the same relative to
// themselves (one template, one CPU and NIC) and which is made of sends,
// receives and calcs such that:
//  * every receive names its source and tag, and no other receive of the
//    rank has the same source and tag: each message has one receive, known
//    in advance;
//  * every send's message is matched by exactly one of those receives (its
//    receiver's receive from it with its tag), and every receive by one send;
//  * a receive waits for nothing (it is posted at time 0) or for one calc;
//    a send waits for nothing, for one receive or for one calc; a calc
//    waits for nothing. So a finished receive releases at most one send, a
//    send nothing, and a calc (a compute phase before the collective, or
//    Schedgen's --nb) any of the rank's sends and receives;
//  * nothing waits for an op to start (no irequires).
// The paper authors' pipelined ring and the dissemination are exchanges
// (every rank's round-k send to rank + d_k is taken by that rank's
// round-k receive, which releases its round-k+1 send), and so are they
// after a compute phase (the paper's Fig. 16 and 17 applications, one
// iteration). Only a calc releases several ops at once, always the same
// ones in the same order, so the ready order is settled once per run; the
// matching is known in advance, so the loop walks neither the schedule's
// edges nor the posted receives.
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
  // the message (or kNone), its size as an index into sizes() (a collective
  // sends a few sizes, whose costs the loop looks up once), and the
  // matching receive (template index). A receive's step: its source
  // relative to the rank, the send it releases (or kNone), its own size,
  // itself.
  struct Step {
    uint32_t to;
    uint32_t next;
    uint32_t size;
    uint32_t recv;
  };

  // The plan of `schedule`, or nothing when it is not an exchange.
  static std::optional<ExchangePlan> of(const Schedule& schedule);

  uint32_t ops_per_rank() const { return n_; }
  uint32_t sends_per_rank() const { return sends_; }
  // Whether some receive waits for a calc: it is posted when the calc
  // ends, and a message may arrive before it (exchange_loop.cpp keeps
  // each receive's state).
  bool late_receives() const { return late_; }
  // The step of the send or receive at template index `local`.
  const Step& step(uint32_t local) const { return steps_[local]; }
  // The distinct message sizes, bytes.
  const std::vector<uint64_t>& sizes() const { return sizes_; }

 private:
  std::vector<Step> steps_;  // per template index (receives' entries unused)
  std::vector<uint64_t> sizes_;
  uint32_t n_ = 0;
  uint32_t sends_ = 0;
  bool late_ = false;
};

}  // namespace cloudnoise
