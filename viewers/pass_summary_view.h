// The selected pass under the pipeline list: full status and skip reason with the target ops
// the pass looked for, timings, node counts, its changes grouped by pattern, its statistics.
#pragma once

#include <cstdint>

#include "viewers/model/pass_summary.h"
#include "viewers/view_state.h"

namespace ls::viewers {

class PassSummaryView {
 public:
  /// Draws inside the current window/child.
  void draw(const ViewState& s);
  const viewmodel::PassSummary& summary() const { return summary_; }

 private:
  uint64_t generation_ = 0;  ///< trace of summary_ (generationOf)
  int pass_ = -2;
  viewmodel::PassSummary summary_;
};

}  // namespace ls::viewers
