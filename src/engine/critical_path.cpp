#include "critical_path.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace cloudnoise {

namespace {

[[noreturn]] void broken(const std::string& what) {
  throw std::logic_error("internal error: the critical path " + what +
                         "; run with the general loop (general=True) and report the schedule");
}

}  // namespace

std::vector<PathSegment> walk_path(const CriticalPathRecorder& rec, CriticalPathRecorder::Why last, int64_t end,
                                   const SegmentOf& segment) {
  using Rec = CriticalPathRecorder;
  std::vector<PathSegment> out;
  Rec::Why w = last;
  int64_t t = end;
  PathNode after{};
  bool has_after = false;
  // One pass backwards over the log: a node's last entry (its start) comes
  // before the entries of the nodes that waited for it.
  size_t pos = rec.size();
  while (Rec::link_of(w) != PathLink::Start) {
    const PathNode n = Rec::node_of(w);
    const PathLink link = Rec::link_of(w);
    // Going back to n's last entry, past the release of the node after it,
    // which n made if that came after n started.
    bool released_by_n = false, release_seen = false;
    const Rec::Why n_node = Rec::why(n.op, n.message, PathLink::Start);
    if (has_after && rec.entry(pos).released()) {  // the node after's last entry may be its release
      release_seen = true;
      released_by_n = rec.entry(pos).releaser() == n_node;
    }
    for (;;) {
      if (pos == 0) broken("names an event that was never queued");
      const Rec::Entry& e = rec.entry(--pos);
      const PathNode node = e.node();
      if (has_after && !release_seen && e.released() && node.op == after.op && node.message == after.message) {
        release_seen = true;
        released_by_n = e.releaser() == n_node;
      }
      if (node.op == n.op && node.message == n.message) break;
    }
    const Rec::Entry& start_entry = rec.entry(pos);
    const int64_t start = start_entry.time;
    if (start > t) broken("goes forward in time");
    PathSegment s = segment(n, link, start);
    if (s.end != t) broken("has a stretch that does not end where the next one starts");
    if (has_after) s.dependency = after.message ? link == PathLink::Flight : released_by_n;
    out.push_back(s);
    after = n;
    has_after = true;
    t = start;
    w = start_entry.setter();
  }
  if (t != 0) broken("does not reach time 0");
  std::reverse(out.begin(), out.end());
  return out;
}

CriticalPath summarize_path(std::vector<PathSegment> segments, int64_t end, uint32_t last_host) {
  CriticalPath path;
  path.end = end;
  path.last_host = last_host;
  int64_t total = 0;
  for (const PathSegment& s : segments) {
    for (size_t k = 0; k < kPathParts; ++k) path.parts[k] += s.parts[k];
    total += s.end - s.start;
    PathCounts& c = path.counts;
    c.L += s.n_L;
    c.o_send += s.n_o_send;
    c.o_recv += s.n_o_recv;
    c.g += s.n_g;
    const uint64_t charged = s.bytes > 0 ? s.bytes - 1 : 0;
    if (s.charges_G) c.G_bytes += charged;
    if (s.charges_O) c.O_bytes += charged;
    if (s.kind == 3) ++c.calcs;
  }
  path.counts.segments = segments.size();
  int64_t sum = 0;
  for (const int64_t v : path.parts) sum += v;
  if (sum != end || total != end) broken("does not add up to the runtime");
  path.segments = std::move(segments);
  return path;
}

}  // namespace cloudnoise
