// Graph view, module folding: which graph is laid out and drawn (the shown graph, or its
// modules folded by viewmodel::foldModules), and the expansion state (auto-expanded levels of
// the module tree, then the user's expand / collapse).
#include "viewers/graph_view.h"

#include <algorithm>

namespace ls::viewers {

namespace {
bool hasModules(const ir::Graph& g) {
  for (const ir::NodePtr& p : g.nodes())
    if (p->isCall() && !p->module.empty()) return true;
  return false;
}
}  // namespace

bool GraphView::foldingActive(const ViewState& s) const {
  if (foldMode_ == FoldMode::Off) return false;
  GraphPtr g = s.shownGraph();
  if (!g) return false;
  if (foldMode_ == FoldMode::Auto && g->size() <= kFoldAbove) return false;
  return hasModules(*g);
}

void GraphView::setFoldMode(FoldMode m) {
  if (m == foldMode_) return;
  foldMode_ = m;
  ++foldGen_;
  foldRefit_ = true;
}

std::pair<GraphPtr, GraphPtr> GraphView::drawnGraphs(const ViewState& s, const GraphPtr& shown, const GraphPtr& compared) {
  folding_ = shown && foldingActive(s);
  if (!folding_) return {shown, compared};
  // The expansion starts from whole levels of the module tree for each new run / nested graph.
  GraphKey scope{generationOf(s.trace), 0, s.subgraphPath, 0};
  if (scope != expandedFor_) {
    expandedFor_ = scope;
    // At most kFoldBudget boxes, fewer for a small graph folded on request (about one box per
    // eight nodes), so folding it folds something.
    expanded_ = viewmodel::autoExpand(*shown, std::min(kFoldBudget, std::max<size_t>(8, shown->size() / 8)));
    ++foldGen_;
  }
  GraphKey sk = s.shownKey(), ck = s.comparedKey();
  sk.fold = ck.fold = foldGen_;
  // Fold ids above every real id of both graphs; when they have to move, both are folded again.
  const ir::NodeId base = foldIds_.base();
  if (compared) foldIds_.reserve(compared->nextId());
  foldIds_.reserve(shown->nextId());
  if (foldIds_.base() != base) foldShownKey_ = foldComparedKey_ = {};
  if (sk != foldShownKey_ || !foldShown_.graph) {
    foldShown_ = viewmodel::foldModules(*shown, expanded_, foldIds_);
    foldShownKey_ = sk;
    foldShownReal_ = shown;
  }
  if (!compared) {
    foldCompared_ = {};
    foldComparedKey_ = {};
  } else if (ck != foldComparedKey_ || !foldCompared_.graph) {
    foldCompared_ = viewmodel::foldModules(*compared, expanded_, foldIds_);
    foldComparedKey_ = ck;
  }
  return {foldShown_.graph, compared ? foldCompared_.graph : nullptr};
}

bool GraphView::expandModule(const std::string& path) {
  if (!folding_ || !foldShown_.foldByPath(path)) return false;
  for (const std::string& p : viewmodel::modulePrefixes(path)) expanded_.insert(p);
  ++foldGen_;
  return true;
}

bool GraphView::collapseModule(const std::string& path) {
  if (!folding_ || !expanded_.count(path)) return false;
  // The module and everything below it fold again.
  for (auto it = expanded_.begin(); it != expanded_.end();)
    it = *it == path || (it->size() > path.size() && it->compare(0, path.size(), path) == 0 && (*it)[path.size()] == '.')
             ? expanded_.erase(it)
             : std::next(it);
  ++foldGen_;
  return true;
}

bool GraphView::revealSelected(const ViewState& s) {
  if (!folding_ || !foldShownReal_ || foldShown_.foldOfNode(s.selectedNode) == ir::kInvalidNode) return false;
  std::vector<std::string> open = viewmodel::revealPath(*foldShownReal_, s.selectedNode, expanded_);
  if (open.empty()) return false;
  for (std::string& p : open) expanded_.insert(std::move(p));
  ++foldGen_;
  return true;
}

}  // namespace ls::viewers
