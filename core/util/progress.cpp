// Terminal progress bar.
#include "core/util/progress.h"

#include <unistd.h>

#include <algorithm>
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

void Progress::stage(std::string_view stage, double fraction) {
  if (!tty_) return;
  const int pct = int(std::clamp(fraction, 0.0, 1.0) * 100.0);
  std::string text(stage.substr(0, 80));
  text += "  " + std::to_string(pct) + "%";
  if (text == shown_) return;
  std::fprintf(stderr, "\r%-90.90s", text.c_str());
  std::fflush(stderr);
  shown_ = std::move(text);
  drawn_ = true;
}

void Progress::finish() {
  if (tty_ && drawn_) {
    std::fprintf(stderr, "\r%*s\r", 100, "");
    std::fflush(stderr);
  }
  drawn_ = false;
  shown_.clear();
}

}  // namespace ls
