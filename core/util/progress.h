// Progress reporting on stderr: a redrawn bar when stderr is a terminal, silent otherwise.
#pragma once

#include <string>

namespace ls {

class Progress {
 public:
  explicit Progress(bool enabled = true);
  ~Progress();
  /// Shows step `i` of `n` with a label; no-op when stderr is not a TTY.
  void update(size_t i, size_t n, const std::string& label);
  void finish();
  bool active() const { return tty_; }

 private:
  bool tty_;
  bool drawn_ = false;
};

}  // namespace ls
