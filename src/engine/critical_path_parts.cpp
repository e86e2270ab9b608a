// The critical path of a recorded run (critical_path.hpp): each node's
// activity split into its parts by taking the engine's steps again
// (engine_steps.hpp) with the same draws, and the walk from the last rank.
#include "engine.hpp"
#include "engine_steps.hpp"

#include <stdexcept>

namespace cloudnoise {

namespace {

struct GapParts {
  int64_t G = 0, draw = 0, episode = 0;
  int64_t total() const { return G + draw + episode; }
};

}  // namespace

PathSegment Engine::path_segment(PathNode n, PathLink link, int64_t start) {
  PathSegment s;
  s.node = n;
  s.link = link;
  s.start = start;
  PathParts& parts = s.parts;
  auto add = [&parts](PathPart k, int64_t v) { parts[static_cast<size_t>(k)] += v; };
  const uint32_t owner = sched_.rank_of(n.op);  // the op's rank (a message's sender)
  const Op& op = sched_.template_op(owner, n.op);
  s.kind = n.message ? static_cast<uint8_t>(kEvMsg) : static_cast<uint8_t>(op.kind);
  s.host = owner;
  s.cpu = op.cpu;
  s.nic = op.nic;
  s.bytes = op.amount;
  if (op.kind != OpKind::Calc) s.peer = peer_of(owner, op);
  auto wrong = [&]() {
    throw std::logic_error("internal error: the critical path links a " + std::string(n.message ? "message" : "op") +
                           " through a part it has not (op " + std::to_string(n.op) + ")");
  };
  const LogGOPSParams::Costs costs = p_.costs_for(op.amount);
  // The gap of a message's bytes as depart and arrive charge it at time t,
  // by its sender's draws and its sender's episode at t.
  auto gap = [&](uint32_t sender, uint32_t receiver, int64_t t) {
    GapParts g;
    if (switch_) {
      const int64_t drawn = switch_->gap_time_ps(switch_->is_far(sender, receiver), op.amount, bandwidth_rng_, n.op);
      g.G = switch_nominal_ ? switch_nominal_->gap_time_ps(switch_nominal_->is_far(sender, receiver), op.amount,
                                                          bandwidth_rng_, n.op)
                            : bytes_time(op.amount, costs.G_fs);
      g.draw = drawn - g.G;
      return g;
    }
    const int64_t G_drawn = bandwidth_ ? message_G_fs(n.op, costs.G_fs) : costs.G_fs;
    const int64_t G = episodes_ ? episode_G_fs(sender, t, costs.G_fs, G_drawn) : G_drawn;
    g.G = bytes_time(op.amount, costs.G_fs);
    g.draw = bytes_time(op.amount, G_drawn) - g.G;
    g.episode = bytes_time(op.amount, G) - bytes_time(op.amount, G_drawn);
    return g;
  };
  auto add_gap = [&](const GapParts& g) {
    add(PathPart::G, g.G);
    add(PathPart::BandwidthDraw, g.draw);
    add(PathPart::BandwidthEpisode, g.episode);
    s.charges_G = true;
  };
  if (link == PathLink::Hold) {
    // The match ran at `start` and held the sender from then: no time.
  } else if (n.message) {
    const uint32_t r = s.peer;
    s.host = r;
    s.peer = owner;
    if (link == PathLink::Cpu) {
      // arrive: o_r, its OS noise, then the larger of O and G x bytes.
      const int64_t o_r = p_.o_recv();
      add(PathPart::o, o_r);
      s.n_o_recv = 1;
      add(PathPart::OsDetour, os_noise(r, start, o_r));
      const GapParts g = gap(owner, r, start);
      const int64_t O_bytes = bytes_time(op.amount, costs.O_fs);
      if (static_cast<uint64_t>(O_bytes) > static_cast<uint64_t>(g.total())) {  // unsigned_max's choice
        add(PathPart::O, O_bytes);
        s.charges_O = true;
      } else {
        add_gap(g);
      }
    } else if (link == PathLink::NicRecv) {
      add(PathPart::g, p_.g_ps);
      s.n_g = 1;
      add_gap(gap(owner, r, start));
    } else {
      wrong();
    }
  } else if (op.kind == OpKind::Calc) {
    if (link != PathLink::Cpu) wrong();
    const auto len = static_cast<int64_t>(op.amount);
    add(PathPart::Compute, len);
    add(PathPart::OsDetour, os_noise(owner, start, len));
  } else if (op.kind == OpKind::Send) {
    const uint32_t r = s.peer;
    if (link == PathLink::Cpu) {
      // depart: o, O x bytes and the OS noise of o.
      add(PathPart::o, p_.o_ps);
      s.n_o_send = 1;
      add(PathPart::O, bytes_time(op.amount, costs.O_fs));
      s.charges_O = costs.O_fs != 0;
      add(PathPart::OsDetour, os_noise(owner, start, p_.o_ps));
    } else if (link == PathLink::NicSend) {
      add(PathPart::g, p_.g_ps);
      s.n_g = 1;
      add_gap(gap(owner, r, start));
    } else if (link == PathLink::Flight) {
      // depart: o, then L and what the message drew or waited.
      add(PathPart::o, p_.o_ps);
      s.n_o_send = 1;
      if (switch_) {
        const int64_t times = op.amount > p_.S ? 1 + SwitchDraws::kRendezvousExtraL : 1;
        const uint64_t bits = latency_rng_.bits(n.op);
        const int64_t drawn = times * switch_->latency_ps(switch_->is_far(owner, r), bits);
        const int64_t nominal =
            times * (switch_nominal_ ? switch_nominal_->latency_ps(switch_nominal_->is_far(owner, r), bits) : costs.L_ps);
        add(PathPart::L, nominal);
        add(PathPart::LatencyDraw, drawn - nominal);
        s.n_L = static_cast<uint8_t>(times);
      } else {
        add(PathPart::L, costs.L_ps);
        s.n_L = 1;
        // The draw (under a latency state, by the sender's state at the
        // send) and the sender's level, as depart adds them (the level
        // clamped so that the latency stays at -o or more).
        const int64_t drawn = latency_ ? latency_draw_ps(owner, start, n.op) : 0;
        const int64_t latency = time_add(costs.L_ps, drawn);
        const int64_t leveled = levels_ ? std::max(time_add(latency, level_ps(owner, start)), -p_.o_ps) : latency;
        add(PathPart::LatencyDraw, drawn + (leveled - latency));
        if (stalls_ && op.amount <= stall_max_bytes_) add(PathPart::LatencyStall, stall_delay_ps(owner, start));
      }
    } else {
      wrong();
    }
  } else {
    wrong();  // a receive sets no time but through a match (Hold)
  }
  int64_t length = 0;
  for (const int64_t v : parts) length = time_add(length, v);
  s.end = time_add(start, length);
  return s;
}

CriticalPath Engine::critical_path(const RunResult& res) {
  // The last rank to finish (the lowest of those that end last), and its
  // CPU that frees last: what set that time is where the walk starts.
  uint32_t last = 0;
  while (last + 1 < ranks_ && res.host_end_ps[last] != res.max_end_ps) ++last;
  uint32_t cpu = 0;
  while (cpu + 1 < ncpu_ && next_o(last, cpu) != res.max_end_ps) ++cpu;
  std::vector<PathSegment> segments =
      walk_path(path_, path_.setter(resource_index(next_o(last, cpu))), res.max_end_ps,
                [this](PathNode n, PathLink link, int64_t start) { return path_segment(n, link, start); });
  return summarize_path(std::move(segments), res.max_end_ps, last);
}

std::vector<PathSegment> Engine::activities(const std::vector<uint8_t>& ranks) {
  if (!record_path_ || path_.size() == 0) throw std::logic_error("activities need a run that recorded its path");
  auto wanted = [&](uint32_t r) { return r < ranks.size() && ranks[r] != 0; };
  // Every node's start: its last entry in the log.
  std::vector<int64_t> op_start(sched_.num_ops(), -1), message_start(sched_.num_ops(), -1);
  for (size_t i = 0; i < path_.size(); ++i) {
    const CriticalPathRecorder::Entry& e = path_.entry(i);
    (e.node().message ? message_start : op_start)[e.op] = e.time;
  }
  std::vector<PathSegment> out;
  for (uint32_t r = 0; r < ranks_; ++r) {
    for (uint32_t i = sched_.rank_begin(r); i < sched_.rank_end(r); ++i) {
      const Op& op = sched_.template_op(r, i);
      if (op.kind == OpKind::Calc && wanted(r)) {
        out.push_back(path_segment({i, false}, PathLink::Cpu, op_start[i]));
      } else if (op.kind == OpKind::Send) {
        if (wanted(r))
          for (const PathLink link : {PathLink::Cpu, PathLink::NicSend, PathLink::Flight})
            out.push_back(path_segment({i, false}, link, op_start[i]));
        if (wanted(peer_of(r, op)))
          for (const PathLink link : {PathLink::Cpu, PathLink::NicRecv})
            out.push_back(path_segment({i, true}, link, message_start[i]));
      }
    }
  }
  return out;
}

}  // namespace cloudnoise
