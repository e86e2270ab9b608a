// In-order delivery between two ranks, for a schedule that asks for it
// (Schedule::in_order): the messages from one rank to another reach it in
// the order they were sent, as on the in-order connection an MPI library
// keeps between two processes; MPI's non-overtaking rule (messages of one
// sender, receiver and tag are matched in send order) follows from it.
// Latency drawn per message (latency noise, stalls, switch draws) would let
// a message arrive before one sent earlier to the same rank and take that
// one's receive: a receive then completes with another message's data and
// size, and a program that relies on MPI's order (an Isend of a large
// message then a small one, the receiver's next step waiting on the first)
// can deadlock. A message's arrival is therefore at least the previous
// arrival from its sender at its receiver; at equal times the earlier
// send's event comes first (its stamp is smaller).
//
// Per sender, the receivers it sent to this repetition and the last
// arrival at each: a short array searched in place (a rank of an
// application sends to a few neighbours and a collective's few peers), and
// a hash map once a sender has sent to more than kFlat ranks (an
// all-to-all). Cleared per repetition, the storage kept.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace cloudnoise {

class ChannelOrder {
 public:
  static constexpr uint32_t kFlat = 32;

  void resize(uint32_t senders) { senders_.resize(senders); }

  // Forgets every arrival (a new repetition).
  void clear() {
    for (const uint32_t h : used_) {
      senders_[h].flat.clear();
      senders_[h].many.clear();
    }
    used_.clear();
  }

  // The arrival at r of a message from h drawn to arrive at `arrival`: no
  // earlier than h's previous message to r, whose place it takes.
  int64_t arrival(uint32_t h, uint32_t r, int64_t arrival) {
    Sender& s = senders_[h];
    if (s.flat.empty() && s.many.empty()) used_.push_back(h);
    if (s.many.empty()) {
      for (Last& l : s.flat)
        if (l.receiver == r) {
          if (arrival < l.at) arrival = l.at;
          l.at = arrival;
          return arrival;
        }
      if (s.flat.size() < kFlat) {
        s.flat.push_back({r, arrival});
        return arrival;
      }
      for (const Last& l : s.flat) s.many.emplace(l.receiver, l.at);
      s.flat.clear();
    }
    auto [it, inserted] = s.many.try_emplace(r, arrival);
    if (!inserted) {
      if (arrival < it->second) arrival = it->second;
      it->second = arrival;
    }
    return arrival;
  }

 private:
  struct Last {
    uint32_t receiver;
    int64_t at;
  };
  struct Sender {
    std::vector<Last> flat;
    std::unordered_map<uint32_t, int64_t> many;
  };
  std::vector<Sender> senders_;
  std::vector<uint32_t> used_;  // senders that sent this repetition
};

}  // namespace cloudnoise
