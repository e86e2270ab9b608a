// A set of measured samples read at random positions, stored as small codes
// into its distinct values.
//
// The switch-draws sets are the artifact's raw Netgauge samples: 150,000 to
// 1.3 million per set (GCP's: 10 MB as int64), read at a uniformly picked
// position for every message, so nearly every draw missed the core's
// caches. They hold few distinct values (GCP: 175 latencies and 194 gaps
// in 1.28 million samples; Daint: 117 and 29), because Netgauge reports
// whole nanoseconds and the authors' scaling maps equal samples to equal
// values. Stored as one byte per sample (two past 256 distinct values) and
// a table of the values (in no particular order), a set is 1/8 (1/4) of
// its size and the same position gives the same value: the draws are
// unchanged bit for bit.
// Sets with more than 65,536 distinct values stay as they are.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <vector>

namespace cloudnoise {

class CodedSamples {
 public:
  CodedSamples() = default;

  // One pass with a small open-addressing table from value to code (a
  // sort of GCP's 1.28 million samples took ~0.1 s per set, paid again by
  // every noise model built); the values keep the order they are first met.
  explicit CodedSamples(std::span<const int64_t> samples) : size_(samples.size()) {
    if (samples.empty()) throw std::invalid_argument("a sample set needs at least one value");
    constexpr unsigned kTableBits = 17;  // twice the most codes: probes stay short
    constexpr size_t kTable = size_t{1} << kTableBits;
    constexpr uint32_t kFree = 0xFFFFFFFFu;
    std::vector<uint32_t> slot(kTable, kFree);  // value's code, by hash
    std::vector<uint16_t> codes(size_);
    for (size_t i = 0; i < size_; ++i) {
      const int64_t v = samples[i];
      size_t h = static_cast<size_t>((static_cast<uint64_t>(v) * 0x9E3779B97F4A7C15ull) >> (64 - kTableBits));
      while (slot[h] != kFree && values_[slot[h]] != v) h = (h + 1) & (kTable - 1);
      if (slot[h] == kFree) {
        if (values_.size() == 65536) {  // too many values for codes: raw
          values_.assign(samples.begin(), samples.end());
          min_ = *std::min_element(values_.begin(), values_.end());
          return;
        }
        slot[h] = static_cast<uint32_t>(values_.size());
        values_.push_back(v);
      }
      codes[i] = static_cast<uint16_t>(slot[h]);
    }
    width_ = values_.size() <= 256 ? 1 : 2;
    codes_.resize(size_ * width_);
    if (width_ == 1)
      for (size_t i = 0; i < size_; ++i) codes_[i] = static_cast<uint8_t>(codes[i]);
    else
      std::memcpy(codes_.data(), codes.data(), 2 * size_);
    min_ = *std::min_element(values_.begin(), values_.end());
  }

  size_t size() const { return size_; }

  // The sample at position i (< size()). Inline: a message's draws are
  // two or three of these, and GCC left it out of line once gap_time_ps
  // was inlined into the event loop.
  [[gnu::always_inline]] int64_t operator[](size_t i) const {
    if (width_ == 1) return values_[codes_[i]];
    if (width_ == 2) {
      uint16_t code;
      std::memcpy(&code, &codes_[2 * i], 2);
      return values_[code];
    }
    return values_[i];
  }

  // Where position i's code lies (for a prefetch).
  const void* address(size_t i) const {
    return width_ == 8 ? static_cast<const void*>(&values_[i]) : static_cast<const void*>(&codes_[i * width_]);
  }

  int64_t min() const { return min_; }

 private:
  size_t size_ = 0;
  unsigned width_ = 8;           // bytes per sample: 1, 2, or 8 (stored raw)
  int64_t min_ = 0;              // the least value
  std::vector<int64_t> values_;  // distinct values as first met (width 1, 2), or every sample (8)
  std::vector<uint8_t> codes_;   // per sample: its value's index, width_ bytes
};

}  // namespace cloudnoise
