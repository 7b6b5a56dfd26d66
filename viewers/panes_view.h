// Side by side: up to four passes' graphs in panes with one camera and one selection. A node
// selected in any pane is outlined in every pane, or its counterparts are (the nodes that
// replaced it or that it came from, by provenance), so a rewrite can be followed across passes.
// A pane can show a pass of run B (the comparison run, e.g. tosa-permute next to tosa): its
// nodes are matched through the shared source graph (viewmodel::crossCounterparts).
#pragma once

#include <memory>
#include <vector>

#include "core/graph_layout/layout_cache.h"
#include "viewers/graph_view.h"
#include "viewers/view_state.h"

namespace ls::viewers {

class PanesView {
 public:
  explicit PanesView(graph_layout::LayoutCache& cache) : cache_(cache) {}
  void draw(ViewState& s);
  void requestFit() { fitPending_ = true; }

  size_t paneCount() const { return panes_.size(); }
  /// Panes whose outline (the node or a counterpart) was drawn in the last frame.
  size_t panesWithSelection() const { return synced_; }
  /// The counterparts of the selection in pane `i` (last frame).
  const std::vector<ir::NodeId>& highlighted(size_t i) const { return panes_[i].highlight; }

 private:
  struct Pane {
    ViewState::PaneRef ref;
    viewmodel::TracePtr trace;  ///< the run shown (null: run B is gone)
    int pass = -1;
    GraphPtr graph;
    std::unique_ptr<CanvasData> data;
    std::vector<ir::NodeId> highlight;  ///< the selection or its counterparts in this pane
  };
  void refresh(const ViewState& s);
  /// Selects `id` of pane `pane` (and the pane's pass, so the inspector shows it).
  void selectIn(ViewState& s, size_t pane, ir::NodeId id);

  graph_layout::LayoutCache& cache_;
  std::vector<Pane> panes_;
  uint64_t generation_ = 0, generationB_ = 0;
  /// The selection the highlights follow: a node of a pass of run A or B. Selections made
  /// elsewhere (graph view, inspector, scripts) are run A's; `written_` is what this view last
  /// wrote to the shared selection, to tell them apart.
  struct SelectionRef {
    bool runB = false;
    int pass = -2;
    ir::NodeId node = ir::kInvalidNode;
    bool operator==(const SelectionRef&) const = default;
  };
  SelectionRef ref_, highlightRef_, written_;
  Camera cam_;
  bool fitPending_ = true;
  size_t synced_ = 0;
};

}  // namespace ls::viewers
