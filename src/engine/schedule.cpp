#include "schedule.hpp"

#include <algorithm>
#include <limits>
#include <string>

namespace cloudnoise {

uint64_t Schedule::memory_bytes() const {
  return ops_.capacity() * sizeof(Op) +
         (rank_begin_.capacity() + rank_template_.capacity() + edges_.capacity() +
          lines_.capacity()) *
             sizeof(uint32_t);
}

uint32_t Schedule::rank_of(uint32_t i) const {
  const auto it = std::upper_bound(rank_begin_.begin(), rank_begin_.end(), i);
  return static_cast<uint32_t>(it - rank_begin_.begin()) - 1;
}

ScheduleBuilder::ScheduleBuilder(uint32_t num_ranks, uint32_t first_rank)
    : num_ranks_(num_ranks), first_rank_(first_rank) {
  if (num_ranks == 0) throw ScheduleError("num_ranks must be at least 1", 0);
  sched_.rank_begin_.reserve(static_cast<size_t>(num_ranks) + 1);
}

void ScheduleBuilder::begin_rank(uint32_t rank) {
  if (in_rank_) end_rank();
  const uint32_t expected = first_rank_ + static_cast<uint32_t>(sched_.rank_begin_.size() - 1);
  if (rank >= num_ranks_)
    throw ScheduleError("rank " + std::to_string(rank) + " out of range (num_ranks " +
                            std::to_string(num_ranks_) + ")",
                        0);
  if (rank != expected)
    throw ScheduleError("rank " + std::to_string(rank) + " out of order (expected rank " +
                            std::to_string(expected) + ")",
                        0);
  cur_rank_ = rank;
  in_rank_ = true;
  cur_begin_ = static_cast<uint32_t>(sched_.ops_.size());
}

uint32_t ScheduleBuilder::add(OpKind kind, uint64_t amount, uint32_t peer, uint32_t tag,
                              uint8_t cpu, uint8_t nic) {
  if (!in_rank_) throw ScheduleError("operation outside of a rank block", 0);
  if (static_cast<uint64_t>(sched_.rank_begin_.back()) + ops_in_rank() >=
      std::numeric_limits<uint32_t>::max() - 1)
    throw ScheduleError("schedule has more than 4294967294 operations", 0);
  Op op;
  op.amount = amount;
  op.peer = peer;
  op.tag = tag;
  op.kind = kind;
  op.cpu = cpu;
  op.nic = nic;
  sched_.ops_.push_back(op);
  sched_.max_cpu_ = std::max(sched_.max_cpu_, cpu);
  sched_.max_nic_ = std::max(sched_.max_nic_, nic);
  return static_cast<uint32_t>(sched_.ops_.size() - 1 - cur_begin_);
}

uint32_t ScheduleBuilder::send(uint64_t bytes, uint32_t dest, uint32_t tag, uint8_t cpu,
                               uint8_t nic) {
  if (dest >= num_ranks_)
    throw ScheduleError("send to rank " + std::to_string(dest) + " out of range (num_ranks " +
                            std::to_string(num_ranks_) + ")",
                        0);
  if (tag == kAny) throw ScheduleError("a send cannot use the wildcard tag -1", 0);
  return add(OpKind::Send, bytes, dest, tag, cpu, nic);
}

uint32_t ScheduleBuilder::recv(uint64_t bytes, uint32_t src, uint32_t tag, uint8_t cpu,
                               uint8_t nic) {
  if (src != kAny && src >= num_ranks_)
    throw ScheduleError("recv from rank " + std::to_string(src) +
                            " out of range (num_ranks " + std::to_string(num_ranks_) + ")",
                        0);
  return add(OpKind::Recv, bytes, src, tag, cpu, nic);
}

uint32_t ScheduleBuilder::calc(uint64_t picoseconds, uint8_t cpu, uint8_t nic) {
  return add(OpKind::Calc, picoseconds, 0, 0, cpu, nic);
}

void ScheduleBuilder::check_local(uint32_t local) const {
  if (local >= ops_in_rank())
    throw ScheduleError("dependency on operation " + std::to_string(local) +
                            " which does not exist in rank " + std::to_string(cur_rank_),
                        0);
}

void ScheduleBuilder::requires_done(uint32_t a, uint32_t b) {
  check_local(a);
  check_local(b);
  done_pending_.push_back({b, a});
}

void ScheduleBuilder::requires_start(uint32_t a, uint32_t b) {
  check_local(a);
  check_local(b);
  start_pending_.push_back({b, a});
}

void ScheduleBuilder::set_line(uint64_t line) {
  auto& lines = sched_.lines_;
  const size_t global = sched_.rank_begin_.back() + ops_in_rank();  // one past the op just added
  const auto value = static_cast<uint32_t>(std::min<uint64_t>(line, 0xFFFFFFFFu));
  if (lines.size() + 1 == global) {
    lines.push_back(value);  // a reader sets every op's line, in order
    return;
  }
  if (lines.size() < global) lines.resize(global, 0);
  lines[global - 1] = value;
}

void ScheduleBuilder::end_rank() {
  const uint32_t n = ops_in_rank();
  auto& ops = sched_.ops_;
  if (sched_.edges_.size() + done_pending_.size() + start_pending_.size() >=
      std::numeric_limits<uint32_t>::max())
    throw ScheduleError("schedule has more than 4294967294 dependencies", 0);
  for (const auto& e : done_pending_) ++ops[cur_begin_ + e.to].num_deps;
  for (const auto& e : start_pending_) ++ops[cur_begin_ + e.to].num_deps;

  // A dependency cycle would leave its ops waiting forever: find it now, by
  // peeling off ops whose dependencies can all be satisfied (Kahn). Edges
  // that all point from an earlier op to a later one, as Schedgen writes
  // them, cannot close a cycle.
  bool forward = true;
  for (const auto& e : done_pending_) forward &= e.from < e.to;
  for (const auto& e : start_pending_) forward &= e.from < e.to;
  if (!forward) {
    counts_.resize(n);
    for (uint32_t i = 0; i < n; ++i) counts_[i] = ops[cur_begin_ + i].num_deps;
    adj_begin_.assign(n + 1, 0);
    adj_.resize(done_pending_.size() + start_pending_.size());
    for (const auto& e : done_pending_) ++adj_begin_[e.from + 1];
    for (const auto& e : start_pending_) ++adj_begin_[e.from + 1];
    for (uint32_t i = 0; i < n; ++i) adj_begin_[i + 1] += adj_begin_[i];
    fill_.assign(adj_begin_.begin(), adj_begin_.end() - 1);
    for (const auto& e : done_pending_) adj_[fill_[e.from]++] = e.to;
    for (const auto& e : start_pending_) adj_[fill_[e.from]++] = e.to;
    stack_.clear();
    for (uint32_t i = 0; i < n; ++i)
      if (counts_[i] == 0) stack_.push_back(i);
    uint32_t seen = 0;
    while (!stack_.empty()) {
      const uint32_t v = stack_.back();
      stack_.pop_back();
      ++seen;
      for (uint32_t k = adj_begin_[v]; k < adj_begin_[v + 1]; ++k)
        if (--counts_[adj_[k]] == 0) stack_.push_back(adj_[k]);
    }
    if (seen != n) {
      uint32_t culprit = 0;
      while (counts_[culprit] == 0) ++culprit;
      const size_t global = sched_.rank_begin_.back() + culprit;
      const uint64_t line = global < sched_.lines_.size() ? sched_.lines_[global] : 0;
      throw ScheduleError("dependency cycle in rank " + std::to_string(cur_rank_) +
                              " involving operation " + std::to_string(culprit),
                          line);
    }
  }

  // Successor lists, per op: its start successors, then its done
  // successors, each in declaration order (a stable counting sort).
  auto& edges = sched_.edges_;
  const uint32_t first = static_cast<uint32_t>(edges.size());
  scratch_.assign(2 * static_cast<size_t>(n) + 1, 0);
  for (const auto& e : start_pending_) ++scratch_[2 * e.from + 1];
  for (const auto& e : done_pending_) ++scratch_[2 * e.from + 2];
  for (size_t k = 0; k < 2 * static_cast<size_t>(n); ++k) scratch_[k + 1] += scratch_[k];
  for (uint32_t i = 0; i < n; ++i) {
    Op& op = ops[cur_begin_ + i];
    op.edge_begin = first + scratch_[2 * i];
    op.start_count = scratch_[2 * i + 1] - scratch_[2 * i];
  }
  edges.resize(first + start_pending_.size() + done_pending_.size());
  for (const auto& e : start_pending_) edges[first + scratch_[2 * e.from]++] = e.to;
  for (const auto& e : done_pending_) edges[first + scratch_[2 * e.from + 1]++] = e.to;
  done_pending_.clear();
  start_pending_.clear();

  // Peers relative to the rank, so ranks that differ only by where they sit
  // in the ring share a template.
  const uint32_t P = num_ranks_;
  for (uint32_t i = 0; i < n; ++i) {
    Op& op = ops[cur_begin_ + i];
    if (op.kind != OpKind::Calc && op.peer != kAny) op.peer = op.peer >= cur_rank_ ? op.peer - cur_rank_ : op.peer + P - cur_rank_;
  }
  uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
  auto mix = [&h](uint64_t v) { h = (h ^ v) * 0x100000001B3ull; h ^= h >> 29; };
  for (uint32_t i = 0; i < n; ++i) {
    const Op& op = ops[cur_begin_ + i];
    mix(op.amount);
    mix(uint64_t{op.peer} << 32 | op.tag);
    mix(uint64_t{op.num_deps} << 32 | op.start_count);
    mix(uint64_t{op.edge_begin - first} << 24 | uint64_t{static_cast<uint8_t>(op.kind)} << 16 |
        uint64_t{op.cpu} << 8 | op.nic);
  }
  for (size_t k = first; k < edges.size(); ++k) mix(edges[k]);
  const uint32_t twin = find_twin(cur_begin_, n, first, h);
  if (twin != kAny) {
    sched_.ops_.resize(cur_begin_);
    edges.resize(first);
    sched_.rank_template_.push_back(twin);
  } else {
    templates_by_hash_[h].push_back(cur_begin_);
    sched_.rank_template_.push_back(cur_begin_);
    ++sched_.num_templates_;
  }
  sched_.rank_begin_.push_back(sched_.rank_begin_.back() + n);
  in_rank_ = false;
}

// An existing template equal to the staged one at ops_[begin, begin+n) with
// edges from `edge_begin`, or kAny.
uint32_t ScheduleBuilder::find_twin(uint32_t begin, uint32_t n, uint32_t edge_begin,
                                    uint64_t hash) const {
  const auto it = templates_by_hash_.find(hash);
  if (it == templates_by_hash_.end()) return kAny;
  const auto& ops = sched_.ops_;
  const auto& edges = sched_.edges_;
  const uint32_t staged_edges = static_cast<uint32_t>(edges.size()) - edge_begin;
  for (const uint32_t t : it->second) {
    // A candidate may be longer than n ops (a hash collision): then its
    // first n ops, if equal with edges among themselves, serve as well.
    if (t + n > begin) continue;
    const uint32_t t_edges = ops[t].edge_begin;
    const uint32_t t_edge_end = t + n < ops.size() ? ops[t + n].edge_begin : edge_begin;
    if (t_edge_end - t_edges != staged_edges) continue;
    bool same = true;
    for (uint32_t i = 0; i < n && same; ++i) {
      const Op& a = ops[t + i];
      const Op& b = ops[begin + i];
      same = a.amount == b.amount && a.peer == b.peer && a.tag == b.tag && a.num_deps == b.num_deps &&
             a.kind == b.kind && a.cpu == b.cpu && a.nic == b.nic &&
             a.start_count == b.start_count && a.edge_begin - t_edges == b.edge_begin - edge_begin;
    }
    for (uint32_t k = 0; k < staged_edges && same; ++k) same = edges[t_edges + k] == edges[edge_begin + k];
    if (same) return t;
  }
  return kAny;
}

Schedule ScheduleBuilder::finish_part() {
  if (in_rank_) end_rank();
  if (!sched_.lines_.empty()) sched_.lines_.resize(sched_.num_ops(), 0);
  templates_by_hash_.clear();
  return std::move(sched_);
}

void Schedule::append(Schedule&& part) {
  const uint32_t op_base = num_ops(), tmpl_base = static_cast<uint32_t>(ops_.size());
  const uint32_t edge_base = static_cast<uint32_t>(edges_.size());
  if (static_cast<uint64_t>(op_base) + part.num_ops() >= 0xFFFFFFFEull)
    throw ScheduleError("schedule has more than 4294967294 operations", 0);
  for (Op op : part.ops_) {
    op.edge_begin += edge_base;
    ops_.push_back(op);
  }
  edges_.insert(edges_.end(), part.edges_.begin(), part.edges_.end());
  for (size_t r = 1; r < part.rank_begin_.size(); ++r) rank_begin_.push_back(op_base + part.rank_begin_[r]);
  for (const uint32_t t : part.rank_template_) rank_template_.push_back(tmpl_base + t);
  if (!lines_.empty() || !part.lines_.empty()) {
    lines_.resize(op_base, 0);
    lines_.insert(lines_.end(), part.lines_.begin(), part.lines_.end());
    lines_.resize(num_ops(), 0);
  }
  num_templates_ += part.num_templates_;
  max_cpu_ = std::max(max_cpu_, part.max_cpu_);
  max_nic_ = std::max(max_nic_, part.max_nic_);
}

void ScheduleBuilder::repeat_first_rank(uint32_t rank) {
  begin_rank(rank);  // checks the order
  in_rank_ = false;
  if (sched_.rank_template_.empty())
    throw ScheduleError("repeat_first_rank needs a first rank to copy", 0);
  const uint32_t n = sched_.rank_begin_[1] - sched_.rank_begin_[0];
  if (static_cast<uint64_t>(sched_.rank_begin_.back()) + n >= std::numeric_limits<uint32_t>::max() - 1)
    throw ScheduleError("schedule has more than 4294967294 operations", 0);
  sched_.rank_template_.push_back(sched_.rank_template_.front());
  sched_.rank_begin_.push_back(sched_.rank_begin_.back() + n);
}

Schedule ScheduleBuilder::finish() {
  if (in_rank_) end_rank();
  const uint32_t have = first_rank_ + static_cast<uint32_t>(sched_.rank_begin_.size() - 1);
  if (have != num_ranks_)
    throw ScheduleError("schedule defines " + std::to_string(have) + " of " +
                            std::to_string(num_ranks_) + " ranks",
                        0);
  if (!sched_.lines_.empty()) sched_.lines_.resize(sched_.num_ops(), 0);
  templates_by_hash_.clear();
  return std::move(sched_);
}

}  // namespace cloudnoise
