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

  // The receives by (source relative to the rank, tag): each key once.
  std::unordered_map<uint64_t, uint32_t> recv_of;
  uint32_t sends = 0;
  for (uint32_t k = 0; k < n; ++k) {
    const Op& op = s.stored_op(tb + k);
    if (op.start_count != 0 || op.kind == OpKind::Calc) return std::nullopt;
    const uint32_t* e = s.edges() + op.edge_begin;
    const uint32_t edges = s.edge_end(tb + k) - op.edge_begin;
    if (op.kind == OpKind::Send) {
      ++sends;
      if (edges != 0 || op.num_deps > 1 || op.peer == kAny) return std::nullopt;
      continue;
    }
    if (op.num_deps != 0 || op.peer == kAny || op.tag == kAny || edges > 1) return std::nullopt;
    if (edges == 1) {
      const Op& succ = s.stored_op(tb + e[0]);
      if (succ.kind != OpKind::Send || succ.num_deps != 1) return std::nullopt;
    }
    if (!recv_of.emplace(uint64_t{op.peer} << 32 | op.tag, k).second) return std::nullopt;
  }
  if (sends != recv_of.size()) return std::nullopt;

  ExchangePlan plan;
  plan.n_ = n;
  plan.sends_ = sends;
  plan.steps_.assign(n, Step{0, kNone, 0});
  std::unordered_map<uint64_t, uint32_t> size_of;
  std::vector<bool> taken(n, false);
  for (uint32_t k = 0; k < n; ++k) {
    const Op& op = s.stored_op(tb + k);
    if (op.kind != OpKind::Send) continue;
    // The receiver (rank + to) takes it with its receive from rank, whose
    // source relative to the receiver is -to (mod P).
    const uint32_t from = op.peer == 0 ? 0 : P - op.peer;
    const auto it = recv_of.find(uint64_t{from} << 32 | op.tag);
    if (it == recv_of.end() || taken[it->second]) return std::nullopt;
    taken[it->second] = true;
    const Op& recv = s.stored_op(tb + it->second);
    const uint32_t edges = s.edge_end(tb + it->second) - recv.edge_begin;
    const auto [size, fresh] = size_of.try_emplace(op.amount, static_cast<uint32_t>(plan.sizes_.size()));
    if (fresh) plan.sizes_.push_back(op.amount);
    plan.steps_[k] = {op.peer, edges == 1 ? s.edges()[recv.edge_begin] : kNone, size->second};
  }
  // A send waiting for a receive is released by it: each send with one
  // dependency is named by exactly one receive, and none other is named.
  std::vector<uint8_t> named(n, 0);
  for (uint32_t k = 0; k < n; ++k) {
    const Op& op = s.stored_op(tb + k);
    if (op.kind == OpKind::Recv && s.edge_end(tb + k) != op.edge_begin) ++named[s.edges()[op.edge_begin]];
  }
  for (uint32_t k = 0; k < n; ++k) {
    const Op& op = s.stored_op(tb + k);
    if (named[k] != (op.kind == OpKind::Send ? op.num_deps : 0)) return std::nullopt;
  }
  return plan;
}

}  // namespace cloudnoise
