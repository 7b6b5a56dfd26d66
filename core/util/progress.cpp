// Terminal progress bar.
#include "core/util/progress.h"

#include <unistd.h>

#include <cstdio>

namespace ls {

Progress::Progress(bool enabled) : tty_(enabled && ::isatty(STDERR_FILENO)) {}
Progress::~Progress() { finish(); }

void Progress::update(size_t i, size_t n, const std::string& label) {
  if (!tty_ || n == 0) return;
  const int width = 30;
  int filled = int(double(i) / double(n) * width);
  std::string bar(size_t(filled), '#');
  bar.resize(width, '.');
  std::fprintf(stderr, "\r[%s] %zu/%zu %-50.50s", bar.c_str(), i, n, label.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::finish() {
  if (tty_ && drawn_) {
    std::fprintf(stderr, "\r%*s\r", 100, "");
    std::fflush(stderr);
  }
  drawn_ = false;
}

}  // namespace ls
