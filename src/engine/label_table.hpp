// Maps a rank's operation labels to their local indices while a GOAL file is
// read. Open addressing over one flat array; reset between ranks by bumping a
// generation stamp instead of clearing, so a 16K-rank file costs nothing extra.
// Schedgen names every op l1, l2, ...: such a label (an `l` and a number
// without leading zeros) below the array's length is kept in an array
// indexed by its number instead, no hashing and no string comparison; other
// names go to the hash table. The array's length is fixed within a rank (a
// label must always be looked up where it was put) and grows between ranks
// to the numbers the last rank used, up to 4 per op it had, so a hostile
// label such as l60000000 costs no memory.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

namespace cloudnoise {

class LabelTable {
 public:
  static constexpr uint32_t kMissing = 0xFFFFFFFFu;

  LabelTable() {
    slots_.resize(1024);
    by_number_.resize(4096);
  }

  void reset() {
    if (largest_hashed_ != kNotNumbered && largest_hashed_ < 4 * (uint64_t{inserted_} + 256)) {
      size_t length = std::max<size_t>(by_number_.size(), 1024);
      while (length <= largest_hashed_) length *= 2;
      by_number_.resize(length);
    }
    largest_hashed_ = kNotNumbered;
    inserted_ = 0;
    ++generation_;
    size_ = 0;
  }

  // Returns false if the label was already defined in this rank.
  bool insert(std::string_view label, uint32_t index) {
    ++inserted_;
    const uint32_t n = numbered(label);
    if (n < by_number_.size()) {
      Numbered& slot = by_number_[n];
      if (slot.generation == generation_) return false;
      slot = {index, generation_};
      return true;
    }
    if (n != kNotNumbered && (largest_hashed_ == kNotNumbered || n > largest_hashed_))
      largest_hashed_ = n;
    if ((size_ + 1) * 2 > slots_.size()) grow();
    const uint64_t h = hash(label);
    for (size_t i = h & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
      Slot& s = slots_[i];
      if (s.generation != generation_) {
        s = {h, label.data(), static_cast<uint32_t>(label.size()), index, generation_};
        ++size_;
        return true;
      }
      if (s.hash == h && std::string_view(s.text, s.len) == label) return false;
    }
  }

  uint32_t find(std::string_view label) const {
    if (const uint32_t n = numbered(label); n < by_number_.size())
      return by_number_[n].generation == generation_ ? by_number_[n].index : kMissing;
    const uint64_t h = hash(label);
    for (size_t i = h & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
      const Slot& s = slots_[i];
      if (s.generation != generation_) return kMissing;
      if (s.hash == h && std::string_view(s.text, s.len) == label) return s.index;
    }
  }

 private:
  struct Slot {
    uint64_t hash = 0;
    const char* text = nullptr;
    uint32_t len = 0;
    uint32_t index = 0;
    uint32_t generation = 0;
  };

  struct Numbered {
    uint32_t index = 0;
    uint32_t generation = 0;
  };
  static constexpr uint32_t kNotNumbered = 0xFFFFFFFFu;

  // n for the label "l<n>" written without leading zeros, n < 2^26;
  // kNotNumbered otherwise.
  static uint32_t numbered(std::string_view s) {
    if (s.size() < 2 || s.size() > 9 || s[0] != 'l' || (s[1] == '0' && s.size() > 2))
      return kNotNumbered;
    uint32_t n = 0;
    for (size_t i = 1; i < s.size(); ++i) {
      const auto d = static_cast<uint32_t>(s[i] - '0');
      if (d > 9) return kNotNumbered;
      n = n * 10 + d;
    }
    return n < (uint32_t{1} << 26) ? n : kNotNumbered;
  }

  static uint64_t hash(std::string_view s) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ s.size();
    for (unsigned char c : s) h = (h ^ c) * 0x100000001B3ull;
    return h ^ (h >> 29);
  }

  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.resize(old.size() * 2);
    size_ = 0;
    for (const Slot& s : old)
      if (s.generation == generation_) insert(std::string_view(s.text, s.len), s.index);
  }

  std::vector<Slot> slots_;
  std::vector<Numbered> by_number_;  // by the label's number; length fixed within a rank
  uint32_t largest_hashed_ = kNotNumbered;  // the largest "l<n>" this rank put in the hash table
  uint32_t inserted_ = 0;                   // labels this rank
  uint32_t generation_ = 1;
  size_t size_ = 0;
};

}  // namespace cloudnoise
