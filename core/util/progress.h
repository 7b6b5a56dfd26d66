// Progress reporting: the stage callback long engine operations (calibration, verification)
// report through, and a redrawn line on stderr when stderr is a terminal, silent otherwise.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace ls {

/// How far a long operation got: the stage it is in ("quantize: calibration", "verify-each
/// FuseFooPass") and the fraction of the operation done, in [0, 1]. Called on the thread doing
/// the work, as often as once per executed node: keep it cheap (Progress::stage redraws only
/// when the shown text changes). May be empty (no reporting).
using StageProgressFn = std::function<void(std::string_view stage, double fraction)>;

class Progress {
 public:
  explicit Progress(bool enabled = true);
  ~Progress();
  /// Shows step `i` of `n` with a label; no-op when stderr is not a TTY.
  void update(size_t i, size_t n, const std::string& label);
  /// Shows "stage  NN%" on one redrawn line (only when the stage or the whole percentage
  /// changed); no-op when stderr is not a TTY. A StageProgressFn can forward here.
  void stage(std::string_view stage, double fraction);
  void finish();
  bool active() const { return tty_; }

 private:
  bool tty_;
  bool drawn_ = false;
  std::string shown_;  // the text stage() drew last
};

}  // namespace ls
