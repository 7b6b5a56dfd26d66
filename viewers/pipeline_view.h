// Pipeline view: every pass with status icon and colour, time bar, node delta; filters and
// keyboard stepping. Selecting a pass selects its snapshot everywhere (ViewState).
#pragma once

#include <vector>

#include "viewers/pass_summary_view.h"
#include "viewers/view_state.h"

namespace ls::viewers {

class PipelineView {
 public:
  /// Draws inside the current window/child.
  void draw(ViewState& s);
  /// Handles Up/Down, Shift+Up/Down, Home/End (call once per frame when no text input is active).
  void handleKeys(ViewState& s);
  /// Applies a stepping key (also used by scripts).
  void step(ViewState& s, viewmodel::StepKey key);

 private:
  void refresh(const ViewState& s);
  uint64_t cachedGeneration_ = 0;  ///< trace of visible_ (generationOf)
  viewmodel::PassFilter cachedFilter_;
  std::vector<int> visible_;
  bool scrollToSelection_ = false;
  PassSummaryView summaryView_;
};

/// Draws the status icon of a pass at the cursor (a square of the current line height).
void statusIcon(passes::PassStatus st, float size);

}  // namespace ls::viewers
