// The text IR diff of the shown pass against the compared graph (previous or pinned pass):
// the printer's lines, unified, coloured; D toggles it in place of the graph canvas.
#pragma once

#include "viewers/model/ir_diff.h"
#include "viewers/view_state.h"

namespace ls::viewers {

class IrDiffView {
 public:
  void draw(const ViewState& s);
  /// The diff currently shown (for scripts and tests).
  const viewmodel::IrDiff& diff() const { return diff_; }

 private:
  GraphKey shown_, compared_;
  viewmodel::IrDiff diff_;
  bool computed_ = false;
};

}  // namespace ls::viewers
