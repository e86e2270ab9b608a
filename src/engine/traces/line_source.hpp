// Lines of a text file, plain or gzip-compressed, read in large blocks: the
// C++ liballprof converter's input. It never throws on bad data: a file it
// cannot open or read to its end is `failed()`, and the caller hands the
// file to the Python reader, whose messages name what is wrong.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace cloudnoise::traces {

class LineSource {
 public:
  // gzip when `path` ends in ".gz" (as the Python reader decides).
  explicit LineSource(const std::string& path);
  ~LineSource();
  LineSource(const LineSource&) = delete;
  LineSource& operator=(const LineSource&) = delete;

  // The next line without its '\n' (valid until the next call); false at the
  // end of the file or on a read error (then failed() is true).
  bool next(std::string_view& line);
  bool failed() const { return failed_; }

 private:
  size_t read_some(char* dst, size_t n);  // 0 at the end or on error

  struct Gz;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> plain_{nullptr, &std::fclose};
  std::unique_ptr<Gz> gz_;
  std::vector<char> buf_;
  size_t begin_ = 0, end_ = 0;
  bool eof_ = false, failed_ = false;
};

}  // namespace cloudnoise::traces
