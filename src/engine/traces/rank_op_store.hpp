// One rank's ops and edges as a trace converter emits them, in program
// order, with flat memory: the newest chunk stays in memory, older chunks
// go to an unnamed temporary file. A GOAL rank block prints every op before
// any edge, so a rank's ops and edges are kept apart until the rank is
// complete and then read back in order (ScheduleAssembler/GoalAssembler).
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <stdexcept>
#include <vector>

namespace cloudnoise::traces {

// The temporary file a long rank's ops wait in could not be made, written
// or read back (a full or unwritable temporary folder): its own type, so
// the converter tells it apart from every other failure (SpillError in
// Python, a RuntimeError).
class SpillError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct StoredOp {
  uint64_t amount;  // bytes, or picoseconds for a calc
  uint32_t peer, tag;
  uint8_t kind;     // OpKind: 1 send, 2 recv, 3 calc
};

struct StoredEdge {
  uint32_t from, to;  // `from` waits for `to`
  uint8_t start;      // 1: for its start (irequires)
};

// A column of T: appended to, then read back chunk by chunk in order.
template <class T>
class SpillColumn {
 public:
  static constexpr size_t kChunk = 1 << 16;
  void push(const T& v) {
    if (tail_.size() == kChunk) spill();
    tail_.push_back(v);
  }
  uint64_t size() const { return spilled_ + tail_.size(); }
  void clear() {
    tail_.clear();
    file_.reset();
    spilled_ = 0;
  }
  // f(std::span<const T>) for each chunk, oldest first.
  template <class F>
  void for_each_chunk(F&& f) const {
    if (file_) {
      std::rewind(file_.get());
      std::vector<T> chunk(kChunk);
      for (uint64_t left = spilled_; left > 0;) {
        const size_t n = left < kChunk ? static_cast<size_t>(left) : kChunk;
        if (std::fread(chunk.data(), sizeof(T), n, file_.get()) != n) throw_read_error();
        f(std::span<const T>(chunk.data(), n));
        left -= n;
      }
    }
    if (!tail_.empty()) f(std::span<const T>(tail_.data(), tail_.size()));
  }

 private:
  void spill();
  [[noreturn]] static void throw_read_error();
  std::vector<T> tail_;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file_{nullptr, &std::fclose};
  uint64_t spilled_ = 0;
};

class RankOpStore {
 public:
  // The new op's index; throws std::length_error past 2^32-1 ops.
  uint32_t op(uint8_t kind, uint64_t amount, uint32_t peer, uint32_t tag);
  void edge(uint32_t from, uint32_t to, uint8_t start) { edges_.push({from, to, start}); }
  uint64_t ops() const { return ops_.size(); }
  uint64_t edges() const { return edges_.size(); }
  void clear() {
    ops_.clear();
    edges_.clear();
  }
  const SpillColumn<StoredOp>& op_column() const { return ops_; }
  const SpillColumn<StoredEdge>& edge_column() const { return edges_; }

 private:
  SpillColumn<StoredOp> ops_;
  SpillColumn<StoredEdge> edges_;
};

}  // namespace cloudnoise::traces
