#include "line_source.hpp"

#include <algorithm>
#include <cstring>

#ifdef CLOUDNOISE_HAVE_ZLIB
#include <zlib.h>
#endif

namespace cloudnoise::traces {

namespace {
constexpr size_t kBlock = 1 << 20;
constexpr size_t kMaxLine = 64u << 20;  // longer lines go to the Python reader
}  // namespace

struct LineSource::Gz {
#ifdef CLOUDNOISE_HAVE_ZLIB
  gzFile file = nullptr;
  ~Gz() {
    if (file) gzclose(file);
  }
#endif
};

LineSource::LineSource(const std::string& path) : buf_(kBlock) {
  const bool gz = path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  if (gz) {
#ifdef CLOUDNOISE_HAVE_ZLIB
    gz_ = std::make_unique<Gz>();
    gz_->file = gzopen(path.c_str(), "rb");
    if (!gz_->file) failed_ = true;
#else
    failed_ = true;
#endif
  } else {
    plain_.reset(std::fopen(path.c_str(), "rb"));
    if (!plain_) failed_ = true;
  }
  if (failed_) eof_ = true;
}

LineSource::~LineSource() = default;

size_t LineSource::read_some(char* dst, size_t n) {
  if (plain_) {
    const size_t got = std::fread(dst, 1, n, plain_.get());
    if (got == 0 && std::ferror(plain_.get())) failed_ = true;
    return got;
  }
#ifdef CLOUDNOISE_HAVE_ZLIB
  if (gz_ && gz_->file) {
    const int got = gzread(gz_->file, dst, static_cast<unsigned>(std::min<size_t>(n, 1u << 30)));
    // Python's gzip refuses a file that is not gzip; zlib would copy it through.
    if (got < 0 || gzdirect(gz_->file)) {
      failed_ = true;
      return 0;
    }
    if (got == 0) {
      int err = Z_OK;
      gzerror(gz_->file, &err);
      if (err != Z_OK) failed_ = true;  // truncated or corrupt stream
    }
    return static_cast<size_t>(got);
  }
#endif
  failed_ = true;
  return 0;
}

bool LineSource::next(std::string_view& line) {
  while (true) {
    const char* start = buf_.data() + begin_;
    const void* nl = std::memchr(start, '\n', end_ - begin_);
    if (nl) {
      const size_t len = static_cast<const char*>(nl) - start;
      line = std::string_view(start, len);
      begin_ += len + 1;
      return true;
    }
    if (eof_) {
      if (failed_ || begin_ == end_) return false;
      line = std::string_view(start, end_ - begin_);  // a last line without '\n'
      begin_ = end_;
      return true;
    }
    // move the partial line to the front, grow if it fills the buffer, read more
    if (begin_ > 0) {
      std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    if (end_ == buf_.size()) {
      if (buf_.size() >= kMaxLine) {
        failed_ = eof_ = true;
        return false;
      }
      buf_.resize(buf_.size() * 2);
    }
    const size_t got = read_some(buf_.data() + end_, buf_.size() - end_);
    if (got == 0) eof_ = true;
    if (failed_) return false;
    end_ += got;
  }
}

}  // namespace cloudnoise::traces
