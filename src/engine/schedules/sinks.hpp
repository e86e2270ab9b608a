// The three places a generated schedule can go: a Schedule (through
// ScheduleBuilder), GOAL text (through GoalTextWriter, keeping Schedgen's
// exact line order), or nowhere but a tally of what it contains.
#pragma once

#include <cstdint>

#include "goal_writer.hpp"
#include "op_sink.hpp"
#include "schedule.hpp"

namespace cloudnoise {

class BuilderSink final : public OpSink {
 public:
  explicit BuilderSink(ScheduleBuilder& builder) : b_(builder) {}
  void begin_rank(uint32_t rank) override { b_.begin_rank(rank); }
  void end_rank() override {}
  uint32_t send(uint64_t bytes, uint32_t dest, uint32_t tag) override {
    return b_.send(bytes, dest, tag);
  }
  uint32_t recv(uint64_t bytes, uint32_t src, uint32_t tag) override {
    return b_.recv(bytes, src, tag);
  }
  uint32_t calc(uint64_t picoseconds) override { return b_.calc(picoseconds); }
  void requires_done(uint32_t a, uint32_t b) override { b_.requires_done(a, b); }
  void requires_start(uint32_t a, uint32_t b) override { b_.requires_start(a, b); }

 private:
  ScheduleBuilder& b_;
};

class TextSink final : public OpSink {
 public:
  explicit TextSink(GoalTextWriter& writer) : w_(writer) {}
  void begin_rank(uint32_t rank) override { w_.begin_rank(rank); }
  void end_rank() override { w_.end_rank(); }
  uint32_t send(uint64_t bytes, uint32_t dest, uint32_t tag) override {
    return w_.send(bytes, dest, tag);
  }
  uint32_t recv(uint64_t bytes, uint32_t src, uint32_t tag) override {
    return w_.recv(bytes, src, tag);
  }
  uint32_t calc(uint64_t picoseconds) override { return w_.calc(picoseconds); }
  void requires_done(uint32_t a, uint32_t b) override { w_.requires_done(a, b); }
  void requires_start(uint32_t a, uint32_t b) override { w_.requires_start(a, b); }

 private:
  GoalTextWriter& w_;
};

// What a schedule contains, counted without storing it.
struct ScheduleCounts {
  uint64_t ranks = 0;
  uint64_t sends = 0, recvs = 0, calcs = 0;
  uint64_t requires_edges = 0, irequires_edges = 0;
  uint64_t bytes_sent = 0;       // sum of send sizes
  uint64_t max_rank_ops = 0;     // ops of the largest rank
  uint64_t ops() const { return sends + recvs + calcs; }
};

class CountingSink final : public OpSink {
 public:
  void begin_rank(uint32_t) override {
    ++c_.ranks;
    in_rank_ = 0;
  }
  void end_rank() override {
    if (in_rank_ > c_.max_rank_ops) c_.max_rank_ops = in_rank_;
  }
  uint32_t send(uint64_t bytes, uint32_t, uint32_t) override {
    ++c_.sends;
    c_.bytes_sent += bytes;
    return in_rank_++;
  }
  uint32_t recv(uint64_t, uint32_t, uint32_t) override {
    ++c_.recvs;
    return in_rank_++;
  }
  uint32_t calc(uint64_t) override {
    ++c_.calcs;
    return in_rank_++;
  }
  void requires_done(uint32_t, uint32_t) override { ++c_.requires_edges; }
  void requires_start(uint32_t, uint32_t) override { ++c_.irequires_edges; }
  const ScheduleCounts& counts() const { return c_; }

 private:
  ScheduleCounts c_;
  uint32_t in_rank_ = 0;
};

}  // namespace cloudnoise
