// Every host's posted receives, in posting order, matched as LogGOPSim
// matches them (match_runs.hpp).
//
// A host's queue is one 64-byte line: a header and up to 14 receives, each
// stored as its op's index within the rank (4 bytes). A receive's source
// and tag are not stored: they are read from the rank's template op when
// matching, and a template is shared by every rank of a rank-symmetric
// collective, so those reads hit the cache. Under network noise messages
// reach the hosts in random order and every match touches a random host's
// queue: one line per host, 1 MiB for a 16K-rank run where the former
// 12-byte entries took three lines and 3 MiB. Dissemination posts 14
// receives per rank at 16K ranks, all inline. Longer queues spill to runs
// in a pool (the ring allreduce: one run per host). Inline entries are always older than spilled ones, and the
// inline block is only empty when nothing is spilled.
#pragma once

#include <cstdint>
#include <vector>

#include "match_runs.hpp"

namespace cloudnoise {

class PostedReceives {
 public:
  static constexpr uint32_t kInline = 14;

  explicit PostedReceives(uint32_t hosts = 0) : blocks_(hosts) {}

  // Every queue emptied; spill storage is kept for the next repetition.
  void clear() {
    for (Block& b : blocks_) b.begin = b.end = 0;
    for (MatchRuns& r : pool_) r.clear();
  }

  bool empty(uint32_t host) const { return blocks_[host].begin == blocks_[host].end; }

  // Posts receive `local` (its op index within the rank) with its source
  // and tag.
  void push(uint32_t host, const MatchEntry& e) {
    Block& b = blocks_[host];
    if (!spilled(b)) {
      if (b.end < kInline) {
        b.ops[b.end++] = e.op;
        return;
      }
      if (b.begin > 0) {
        // Room left at the front by taken entries: close the gap.
        uint8_t k = 0;
        for (uint8_t i = b.begin; i < b.end; ++i) b.ops[k++] = b.ops[i];
        b.begin = 0;
        b.end = k;
        b.ops[b.end++] = e.op;
        return;
      }
      if (b.spill == kNoSpill) {
        b.spill = static_cast<uint32_t>(pool_.size());
        pool_.emplace_back();
      }
    }
    pool_[b.spill].push(e);
  }

  // Removes and returns the first receive matching a message (src, tag);
  // op kNoMatch when none does. key(local) gives a receive's {source, tag}.
  // Inline for the common case, the oldest receive matching: messages
  // mostly arrive in the order their receives were posted.
  template <class Key>
  [[gnu::always_inline]] MatchEntry take(uint32_t host, uint32_t src, uint32_t tag, const Key& key) {
    Block& b = blocks_[host];
    if (b.begin < b.end) {
      const MatchEntry e = key(b.ops[b.begin]);
      if (entry_matches(e.src, e.tag, src, tag)) {
        ++b.begin;
        if (b.begin == b.end) refill(b);
        return e;
      }
    }
    return take_any(b, src, tag, key);
  }

  // A host's waiting receives, oldest first (for reports).
  template <class Key>
  std::vector<MatchEntry> snapshot(uint32_t host, const Key& key) const {
    const Block& b = blocks_[host];
    std::vector<MatchEntry> out;
    for (uint32_t i = b.begin; i < b.end; ++i) out.push_back(key(b.ops[i]));
    if (b.spill != kNoSpill) pool_[b.spill].append_to(out);
    return out;
  }

 private:
  static constexpr uint32_t kNoSpill = 0xFFFFFFFFu;

  struct alignas(64) Block {
    uint8_t begin = 0, end = 0;  // the live inline entries
    uint32_t spill = kNoSpill;   // this host's runs in pool_, once it needed them
    uint32_t ops[kInline];
  };
  static_assert(sizeof(Block) == 64);

  bool spilled(const Block& b) const { return b.spill != kNoSpill && !pool_[b.spill].empty(); }

  // The inline block ran empty: the oldest spilled entries move in.
  void refill(Block& b) {
    b.begin = b.end = 0;
    while (b.end < kInline && spilled(b)) b.ops[b.end++] = pool_[b.spill].pop_front().op;
  }

  // take() past the oldest receive: the first match anywhere, inline or
  // spilled.
  template <class Key>
  [[gnu::noinline]] MatchEntry take_any(Block& b, uint32_t src, uint32_t tag, const Key& key) {
    for (uint32_t i = b.begin; i < b.end; ++i) {
      const MatchEntry e = key(b.ops[i]);
      if (entry_matches(e.src, e.tag, src, tag)) {
        // Close the gap from the nearer end: the front, usually, as
        // messages mostly arrive in the order their receives were posted.
        if (i - b.begin <= b.end - 1u - i) {
          for (uint32_t k = i; k > b.begin; --k) b.ops[k] = b.ops[k - 1];
          ++b.begin;
        } else {
          for (uint32_t k = i + 1; k < b.end; ++k) b.ops[k - 1] = b.ops[k];
          --b.end;
        }
        if (b.begin == b.end) refill(b);
        return {e.src, e.tag, e.op};
      }
    }
    if (spilled(b)) return pool_[b.spill].take(src, tag);
    return {0, 0, kNoMatch};
  }

  std::vector<Block> blocks_;
  std::vector<MatchRuns> pool_;
};

}  // namespace cloudnoise
