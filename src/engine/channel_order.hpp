// MPI's non-overtaking rule for a schedule that asks for it
// (Schedule::in_order): two messages of one channel (sender, receiver,
// tag) reach the receiver in the order they were sent. Latency noise draws
// each message's latency on its own, so without this a message could
// arrive before one sent earlier on its channel and take that one's
// receive: a receive then completes with another message's data and size,
// and a program that relies on MPI's order (an Isend of a large message
// then a small one, the receiver's next step waiting on the first) can
// deadlock. A message's arrival is therefore at least its channel's
// previous arrival; at equal times the earlier send's event comes first
// (its stamp is smaller), so the channel's messages are matched in order.
//
// Per sender, a hash map from (receiver, tag) to the channel's last
// arrival; a collective's tag is used once per call, so the maps hold one
// entry per channel used in the repetition. Cleared per repetition, the
// maps' storage kept.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace cloudnoise {

class ChannelOrder {
 public:
  void resize(uint32_t senders) { last_.resize(senders); }

  // Forgets every channel (a new repetition).
  void clear() {
    for (const uint32_t h : used_) last_[h].clear();
    used_.clear();
  }

  // The arrival of a message of (h, r, tag) drawn for `arrival`: no earlier
  // than the channel's previous one, which it becomes.
  int64_t arrival(uint32_t h, uint32_t r, uint32_t tag, int64_t arrival) {
    auto& channels = last_[h];
    if (channels.empty()) used_.push_back(h);
    auto [it, inserted] = channels.try_emplace(uint64_t{r} << 32 | tag, arrival);
    if (!inserted) {
      if (arrival < it->second) arrival = it->second;
      it->second = arrival;
    }
    return arrival;
  }

 private:
  std::vector<std::unordered_map<uint64_t, int64_t>> last_;
  std::vector<uint32_t> used_;  // senders with channels this repetition
};

}  // namespace cloudnoise
