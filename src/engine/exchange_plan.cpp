#include "exchange_plan.hpp"

#include <unordered_map>

namespace cloudnoise {

std::optional<ExchangePlan> ExchangePlan::of(const Schedule& s) {
  const uint32_t P = s.num_ranks();
  if (P == 0 || s.num_cpus() != 1 || s.num_nics() != 1) return std::nullopt;
  // One template for every rank, rank r's ops at [r n, (r + 1) n).
  const uint32_t n = s.rank_end(0) - s.rank_begin(0);
  const uint32_t tb = s.template_begin(0);
  for (uint32_t r = 0; r < P; ++r)
    if (s.template_begin(r) != tb || s.rank_begin(r) != static_cast<uint64_t>(r) * n) return std::nullopt;
  if (static_cast<uint64_t>(tb) + n > s.num_template_ops()) return std::nullopt;

  // The receives by (source relative to the rank, tag): each key once. Who
  // names whom: a receive at most one send, a calc sends and receives.
  std::unordered_map<uint64_t, uint32_t> recv_of;
  std::vector<uint32_t> named(n, 0);
  uint32_t sends = 0;
  bool late = false;
  for (uint32_t k = 0; k < n; ++k) {
    const Op& op = s.stored_op(tb + k);
    if (op.start_count != 0) return std::nullopt;
    const uint32_t* e = s.edges() + op.edge_begin;
    const uint32_t edges = s.edge_end(tb + k) - op.edge_begin;
    for (uint32_t j = 0; j < edges; ++j) {
      if (e[j] >= n) return std::nullopt;
      const Op& succ = s.stored_op(tb + e[j]);
      // A receive releases one send; a calc sends and receives, each once.
      const bool ok = op.kind == OpKind::Recv ? succ.kind == OpKind::Send && edges == 1
                                              : op.kind == OpKind::Calc && succ.kind != OpKind::Calc;
      if (!ok || succ.num_deps != 1 || named[e[j]]++ != 0) return std::nullopt;
    }
    switch (op.kind) {
      case OpKind::Calc:
        if (op.num_deps != 0) return std::nullopt;
        break;
      case OpKind::Send:
        ++sends;
        if (edges != 0 || op.num_deps > 1 || op.peer == kAny) return std::nullopt;
        break;
      case OpKind::Recv:
        if (op.num_deps > 1 || op.peer == kAny || op.tag == kAny) return std::nullopt;
        if (!recv_of.emplace(uint64_t{op.peer} << 32 | op.tag, k).second) return std::nullopt;
        late |= op.num_deps == 1;
        break;
    }
  }
  // Every dependency is one of the edges above (none between calcs, none
  // from a send).
  for (uint32_t k = 0; k < n; ++k)
    if (named[k] != s.stored_op(tb + k).num_deps) return std::nullopt;
  if (sends != recv_of.size()) return std::nullopt;
  // A receive posted late keeps a byte of state per rank (exchange_loop.cpp).
  if (late && static_cast<uint64_t>(P) * n > (uint64_t{1} << 26)) return std::nullopt;

  ExchangePlan plan;
  plan.n_ = n;
  plan.sends_ = sends;
  plan.late_ = late;
  plan.steps_.assign(n, Step{0, kNone, 0, kNone});
  std::unordered_map<uint64_t, uint32_t> size_of;
  auto size_index = [&](uint64_t bytes) {
    const auto [it, fresh] = size_of.try_emplace(bytes, static_cast<uint32_t>(plan.sizes_.size()));
    if (fresh) plan.sizes_.push_back(bytes);
    return it->second;
  };
  auto successor = [&](uint32_t k) {
    const Op& op = s.stored_op(tb + k);
    return s.edge_end(tb + k) != op.edge_begin ? s.edges()[op.edge_begin] : kNone;
  };
  std::vector<bool> taken(n, false);
  for (uint32_t k = 0; k < n; ++k) {
    const Op& op = s.stored_op(tb + k);
    if (op.kind == OpKind::Recv) {
      plan.steps_[k] = {op.peer, successor(k), size_index(op.amount), k};
      continue;
    }
    if (op.kind != OpKind::Send) continue;
    // The receiver (rank + to) takes it with its receive from rank, whose
    // source relative to the receiver is -to (mod P).
    const uint32_t from = op.peer == 0 ? 0 : P - op.peer;
    const auto it = recv_of.find(uint64_t{from} << 32 | op.tag);
    if (it == recv_of.end() || taken[it->second]) return std::nullopt;
    taken[it->second] = true;
    plan.steps_[k] = {op.peer, successor(it->second), size_index(op.amount), it->second};
  }
  return plan;
}

}  // namespace cloudnoise
