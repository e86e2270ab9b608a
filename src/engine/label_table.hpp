// Maps a rank's operation labels to their local indices while a GOAL file is
// read. Open addressing over one flat array; reset between ranks by bumping a
// generation stamp instead of clearing, so a 16K-rank file costs nothing extra.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace cloudnoise {

class LabelTable {
 public:
  static constexpr uint32_t kMissing = 0xFFFFFFFFu;

  LabelTable() { slots_.resize(1024); }

  void reset() {
    ++generation_;
    size_ = 0;
  }

  // Returns false if the label was already defined in this rank.
  bool insert(std::string_view label, uint32_t index) {
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
  uint32_t generation_ = 1;
  size_t size_ = 0;
};

}  // namespace cloudnoise
