// The ops one event made executable, in the order they became so, waiting
// to be ordered and queued (Engine::enqueue_ready). Most events release
// none or one, so the append is inline: a size check and two stores
// (std::vector's push_back came out of the engine's loop as a call).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace cloudnoise {

class ReleasedOps {
 public:
  struct Entry {
    uint32_t host;
    uint32_t op;  // global index
  };

  [[gnu::always_inline]] void push(uint32_t host, uint32_t op) {
    if (size_ == data_.size()) [[unlikely]]
      grow();
    data_[size_++] = {host, op};
  }
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  void clear() { size_ = 0; }
  Entry& operator[](size_t i) { return data_[i]; }
  const Entry& front() const { return data_[0]; }
  const Entry* begin() const { return data_.data(); }
  const Entry* end() const { return data_.data() + size_; }

 private:
  [[gnu::noinline]] void grow() { data_.resize(std::max<size_t>(16, 2 * data_.size())); }

  std::vector<Entry> data_;
  size_t size_ = 0;
};

}  // namespace cloudnoise
