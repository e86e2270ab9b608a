#include "exchange_plan.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace cloudnoise {

namespace {

// Bounds on what a plan may hold, so that it stays small beside the
// schedule: its channel table (templates x keys), the channel counters
// (per rank), the late receives' states (per op of the whole schedule).
constexpr uint64_t kMaxChannelTable = uint64_t{1} << 22;
constexpr uint64_t kMaxCounters = uint64_t{1} << 24;
constexpr uint64_t kMaxLateStates = uint64_t{1} << 26;

uint64_t pair_key(uint32_t a, uint32_t b) { return uint64_t{a} << 32 | b; }

}  // namespace

std::optional<ExchangePlan> ExchangePlan::of(const Schedule& s, std::span<const uint32_t> initial_ops,
                                             std::span<const uint32_t> initial_begin,
                                             std::span<const uint32_t> initial_count) {
  const uint32_t P = s.num_ranks();
  if (P == 0 || s.num_cpus() != 1 || s.num_nics() != 1) return std::nullopt;
  const uint32_t stored_ops = s.num_template_ops();
  ExchangePlan plan;

  // The templates, keyed as Engine::index_templates keys them (an empty
  // rank's template starts where the next one does).
  std::unordered_map<uint64_t, uint32_t> tid_of;
  plan.ranks_.resize(P);
  for (uint32_t r = 0; r < P; ++r) {
    const uint32_t tb = s.template_begin(r);
    const uint32_t n = s.rank_end(r) - s.rank_begin(r);
    const auto [it, fresh] = tid_of.try_emplace(pair_key(n, tb), static_cast<uint32_t>(plan.templates_.size()));
    if (fresh) {
      if (static_cast<uint64_t>(tb) + n > stored_ops || n >= (1u << 30) - 1) return std::nullopt;
      plan.templates_.push_back({tb, n, r});
    }
    plan.ranks_[r] = {s.rank_begin(r), tb, it->second, 0};
  }
  const auto templates = static_cast<uint32_t>(plan.templates_.size());

  // Per template: its ops' checks, its channels by key (receives' source
  // relative to the rank and tag, interned over all templates), its sends
  // grouped by receiver and key.
  std::unordered_map<uint64_t, uint32_t> key_of;
  auto intern = [&](uint32_t src, uint32_t tag) {
    return key_of.try_emplace(pair_key(src, tag), static_cast<uint32_t>(key_of.size())).first->second;
  };
  // A group's sends' size, or kMixedSizes when they differ.
  constexpr uint64_t kMixedSizes = ~uint64_t{0};
  struct SendGroup {
    uint32_t to, key, count;
    uint64_t bytes;
  };
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> channels_of(templates);  // (key, channel)
  std::vector<std::vector<SendGroup>> sends_of(templates);
  std::vector<std::vector<uint32_t>> tos_of(templates);  // distinct receivers (relative)
  std::vector<uint32_t> sends_in(templates, 0);
  std::unordered_map<uint64_t, uint32_t> group_of;  // (to, key) -> index into sends_of[tid]
  std::unordered_set<uint32_t> seen_to;
  std::vector<uint32_t> slots_of(templates, 0);
  std::vector<uint8_t> checked(stored_ops, 0);
  bool sends_release = false;
  std::unordered_map<uint64_t, uint32_t> local_channel;  // key -> index into channels_of[tid]
  // Per channel: a late receive's size (kMixedSizes for a channel posted at
  // time 0). A late receive that takes a waiting message completes its
  // rendezvous by the receive's size (Engine::exchange_recv), where the
  // general loop goes by the message's: the plan takes a late receive only
  // of its message's size, so the two agree.
  std::vector<uint64_t> late_bytes;
  for (uint32_t tid = 0; tid < templates; ++tid) {
    const auto [tb, n, rep] = plan.templates_[tid];
    local_channel.clear();
    group_of.clear();
    seen_to.clear();
    std::vector<std::vector<uint32_t>> chan_recvs;
    std::vector<bool> chan_late;
    uint32_t sends = 0;
    for (uint32_t k = 0; k < n; ++k) {
      const Op& op = s.stored_op(tb + k);
      if (op.start_count != 0) return std::nullopt;
      const uint32_t* e = s.edges() + op.edge_begin;
      const uint32_t edges = s.edge_end(tb + k) - op.edge_begin;
      for (uint32_t j = 0; j < edges; ++j)
        if (e[j] >= n) return std::nullopt;
      if (op.kind == OpKind::Send) {
        if (op.peer == kAny) return std::nullopt;
        ++sends;
        sends_release |= edges != 0;
        const uint32_t from = op.peer == 0 ? 0 : P - op.peer;
        const uint32_t key = intern(from, op.tag);
        const auto [g, fresh] = group_of.try_emplace(pair_key(op.peer, key), static_cast<uint32_t>(sends_of[tid].size()));
        if (fresh) {
          sends_of[tid].push_back({op.peer, key, 0, op.amount});
          if (seen_to.insert(op.peer).second) tos_of[tid].push_back(op.peer);
        }
        SendGroup& group = sends_of[tid][g->second];
        ++group.count;
        if (group.bytes != op.amount) group.bytes = kMixedSizes;
      } else if (op.kind == OpKind::Recv) {
        if (op.peer == kAny || op.tag == kAny) return std::nullopt;
        const uint32_t key = intern(op.peer, op.tag);
        const auto [it, fresh] = local_channel.try_emplace(key, static_cast<uint32_t>(chan_recvs.size()));
        if (fresh) {
          chan_recvs.emplace_back();
          chan_late.push_back(false);
          channels_of[tid].push_back({key, 0});
        }
        chan_recvs[it->second].push_back(k);
        if (op.num_deps != 0) {
          chan_late[it->second] = true;
          plan.late_ = true;
        }
      }
    }
    // A channel of several receives, all posted at time 0, matches in
    // posting order: the order of the rank's time-0 list.
    std::vector<uint32_t> position(n, 0);
    const uint32_t* list = initial_ops.data() + initial_begin[rep];
    for (uint32_t j = 0; j < initial_count[rep]; ++j) position[list[j]] = j;
    for (uint32_t c = 0; c < chan_recvs.size(); ++c) {
      std::vector<uint32_t>& recvs = chan_recvs[c];
      if (recvs.size() > 1) {
        if (chan_late[c]) return std::nullopt;
        std::stable_sort(recvs.begin(), recvs.end(), [&](uint32_t a, uint32_t b) { return position[a] < position[b]; });
      }
      Channel ch;
      ch.first = static_cast<uint32_t>(plan.recv_order_.size());
      ch.count = static_cast<uint32_t>(recvs.size());
      ch.slot = recvs.size() > 1 ? slots_of[tid]++ : 0;
      plan.recv_order_.insert(plan.recv_order_.end(), recvs.begin(), recvs.end());
      channels_of[tid][c].second = static_cast<uint32_t>(plan.channels_.size());
      plan.channels_.push_back(ch);
      late_bytes.push_back(chan_late[c] ? s.stored_op(tb + recvs[0]).amount : kMixedSizes);
    }
    plan.max_sends_ = std::max(plan.max_sends_, sends);
    sends_in[tid] = sends;
  }
  // A late receive's match would have to find its send, to release what
  // that send's completion releases: not kept.
  if (plan.late_ && sends_release) return std::nullopt;
  if (plan.late_ && s.num_ops() > kMaxLateStates) return std::nullopt;

  // The channel table, dense: templates x keys.
  plan.keys_ = static_cast<uint32_t>(key_of.size());
  if (uint64_t{templates} * std::max<uint32_t>(plan.keys_, 1) > kMaxChannelTable) return std::nullopt;
  plan.channel_index_.assign(static_cast<size_t>(templates) * plan.keys_, kNone);
  for (uint32_t tid = 0; tid < templates; ++tid)
    for (const auto& [key, c] : channels_of[tid]) plan.channel_index_[static_cast<size_t>(tid) * plan.keys_ + key] = c;
  auto channel_at = [&](uint32_t tid, uint32_t key) {
    return plan.channel_index_[static_cast<size_t>(tid) * plan.keys_ + key];
  };

  // Every rank's sends: the receiver's template for each distinct
  // receiver (relative), then each group of sends must find its channel
  // there with as many receives. With as many (rank, group) pairs as
  // (rank, channel) pairs, every channel takes exactly its messages.
  uint64_t groups = 0, channels = 0, counters = 0;
  std::unordered_map<uint64_t, std::vector<uint32_t>> receivers;  // (tid, to) -> receiver templates
  for (uint32_t r = 0; r < P; ++r) {
    const uint32_t tid = plan.ranks_[r].tid;
    groups += sends_of[tid].size();
    channels += channels_of[tid].size();
    plan.ranks_[r].counters = static_cast<uint32_t>(counters);
    counters += slots_of[tid];
    if (counters > kMaxCounters) return std::nullopt;
    plan.total_sends_ += sends_in[tid];
    // One template: every receiver is of it (no look per rank and receiver).
    if (templates == 1 && r > 0) continue;
    for (const uint32_t to : tos_of[tid]) {
      const uint32_t u = plan.ranks_[Schedule::absolute_peer(r, to, P)].tid;
      std::vector<uint32_t>& us = receivers[pair_key(tid, to)];
      if (std::find(us.begin(), us.end(), u) == us.end()) us.push_back(u);
    }
  }
  if (groups != channels) return std::nullopt;
  plan.counters_ = static_cast<uint32_t>(counters);
  for (uint32_t tid = 0; tid < templates; ++tid)
    for (const SendGroup& g : sends_of[tid])
      for (const uint32_t u : receivers[pair_key(tid, g.to)]) {
        const uint32_t c = channel_at(u, g.key);
        if (c == kNone || plan.channels_[c].count != g.count) return std::nullopt;
        if (late_bytes[c] != kMixedSizes && late_bytes[c] != g.bytes) return std::nullopt;
      }

  // Per stored op: its step and what it releases.
  plan.steps_.assign(stored_ops, Step{});
  plan.send_keys_.assign(stored_ops, kNone);
  plan.releases_.assign(stored_ops, Release{});
  std::unordered_map<uint64_t, uint32_t> size_of;
  auto size_index = [&](uint64_t bytes) {
    const auto [it, fresh] = size_of.try_emplace(bytes, static_cast<uint32_t>(plan.sizes_.size()));
    if (fresh) plan.sizes_.push_back(bytes);
    return it->second;
  };
  for (uint32_t tid = 0; tid < templates; ++tid) {
    const auto [tb, n, rep] = plan.templates_[tid];
    for (uint32_t k = 0; k < n; ++k) {
      if (checked[tb + k]) continue;
      checked[tb + k] = 1;
      const Op& op = s.stored_op(tb + k);
      Release& rel = plan.releases_[tb + k];
      rel.begin = static_cast<uint32_t>(plan.successors_.size());
      rel.count = s.edge_end(tb + k) - op.edge_begin;
      for (uint32_t j = 0; j < rel.count; ++j) {
        const uint32_t succ = s.edges()[op.edge_begin + j];
        plan.successors_.push_back(succ);
        rel.simple &= s.stored_op(tb + succ).num_deps == 1;
      }
      if (op.kind == OpKind::Calc) continue;
      Step& step = plan.steps_[tb + k];
      step.to = op.peer;
      step.size = size_index(op.amount) | (rel.count != 0 ? kReleases : 0);
      if (op.kind == OpKind::Send) plan.send_keys_[tb + k] = key_of.at(pair_key(op.peer == 0 ? 0 : P - op.peer, op.tag));
    }
  }
  // A send's receive, where one template receives it from every rank
  // whose template has the send, in a channel of one receive (a stored op
  // in two templates, one the other's prefix, must agree).
  std::vector<uint8_t> conflict(stored_ops, 0);
  for (uint32_t tid = 0; tid < templates; ++tid) {
    const auto [tb, n, rep] = plan.templates_[tid];
    for (uint32_t k = 0; k < n; ++k) {
      const Op& op = s.stored_op(tb + k);
      if (op.kind != OpKind::Send) continue;
      Step& step = plan.steps_[tb + k];
      const std::vector<uint32_t>& us = receivers[pair_key(tid, op.peer)];
      uint32_t recv = kNone, recv_stored = kNone;
      if (us.size() == 1) {
        const Channel& c = plan.channels_[channel_at(us[0], plan.send_keys_[tb + k])];
        if (c.count == 1) {
          recv = plan.recv_order_[c.first];
          recv_stored = plan.templates_[us[0]].tb + recv;
        }
      }
      uint32_t next = kUnknown;
      if (recv_stored != kNone) {
        const Release& rel = plan.releases_[recv_stored];
        const uint32_t rtb = plan.templates_[us[0]].tb;
        if (rel.simple && rel.count <= 1) {
          next = kNone;
          if (rel.count == 1) {
            const uint32_t succ = plan.successors_[rel.begin];
            next = ready_op(succ, s.stored_op(rtb + succ).kind);
          }
        }
      }
      if (conflict[tb + k]) continue;
      if (checked[tb + k] == 2 && (step.recv != recv || step.next != next)) {
        conflict[tb + k] = 1;
        step.recv = kNone;
        step.next = kUnknown;
        continue;
      }
      checked[tb + k] = 2;
      step.recv = recv;
      step.next = next;
    }
  }
  plan.n_ = plan.templates_[0].n;
  plan.counters_per_rank_ = slots_of[0];
  return plan;
}

}  // namespace cloudnoise
