// Timing A/B view: run A against run B over N interleaved repeats each (medians with min-max
// whiskers per pass and in total, the noise floor, the chosen baseline, neutral verdicts
// "A 1.40x faster" / "B 1.40x faster" / "within noise", "saved X ms" where one run skipped a
// pass the other ran, the final op-count differences). The exports are the timing view's.
#pragma once

#include <cstdint>
#include <string>

#include "viewers/model/ab_compare.h"
#include "viewers/view_state.h"

namespace ls::viewers {

class TimingAbView {
 public:
  /// Draws the comparison of s.trace and s.compareTrace (both set).
  void draw(ViewState& s);
  /// The comparison (cached by the generations of A, B and the repeats).
  const viewmodel::AbComparison& comparison(const ViewState& s);
  int baseline() const { return baseline_; }
  void setBaseline(int b) { baseline_ = b == 0 ? 0 : 1; }

 private:
  uint64_t genA_ = 0, genB_ = 0, genRepeats_ = 0;
  viewmodel::AbComparison cmp_;
  int baseline_ = 0;  ///< 0: A, 1: B
  bool byDifference_ = true;
};

}  // namespace ls::viewers
