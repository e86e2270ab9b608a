#include "rank_op_store.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace cloudnoise::traces {

namespace {

[[noreturn]] void throw_spill_error(const char* what) {
  throw SpillError(std::string(what) + " (" + std::strerror(errno) + ")");
}

}  // namespace

template <class T>
void SpillColumn<T>::spill() {
  if (!file_) {
    file_.reset(std::tmpfile());
    if (!file_) throw_spill_error("cannot create a temporary file for a rank's ops");
  }
  std::fseek(file_.get(), 0, SEEK_END);
  if (std::fwrite(tail_.data(), sizeof(T), tail_.size(), file_.get()) != tail_.size())
    throw_spill_error("cannot write a rank's ops to a temporary file");
  spilled_ += tail_.size();
  tail_.clear();
}

template <class T>
void SpillColumn<T>::throw_read_error() {
  throw_spill_error("cannot read a rank's ops back from their temporary file");
}

template class SpillColumn<StoredOp>;
template class SpillColumn<StoredEdge>;

uint32_t RankOpStore::op(uint8_t kind, uint64_t amount, uint32_t peer, uint32_t tag) {
  const uint64_t n = ops_.size();
  if (n >= 0xFFFFFFFFull) throw std::length_error("a rank with more than 2^32-1 ops");
  ops_.push({amount, peer, tag, kind});
  return static_cast<uint32_t>(n);
}

}  // namespace cloudnoise::traces
