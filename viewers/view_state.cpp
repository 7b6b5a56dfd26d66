// ViewState helpers: the graph (and its cache key) at a pass, the compared graph, clamped selection.
#include "viewers/view_state.h"

#include <algorithm>

namespace ls::viewers {

GraphPtr ViewState::graphAt(int pass) const {
  if (!trace) return nullptr;
  int snap = trace->snapshotAfter(pass);
  GraphPtr g = snap >= 0 && size_t(snap) < trace->snapshots.size() ? trace->snapshots[size_t(snap)] : trace->source;
  for (const std::string& name : subgraphPath) {
    if (!g) return nullptr;
    auto it = g->subgraphs().find(name);
    if (it == g->subgraphs().end() || !it->second) return nullptr;
    g = it->second;
  }
  return g;
}

GraphKey ViewState::graphKeyAt(int pass) const {
  if (!graphAt(pass)) return {};
  int snap = trace->snapshotAfter(pass);
  if (snap < 0 || size_t(snap) >= trace->snapshots.size()) snap = -1;  // as graphAt: the source
  return GraphKey{trace->generation, snap, subgraphPath};
}

namespace {
/// The pass whose graph the shown one is diffed against; nullopt when there is none.
std::optional<int> comparedPass(const ViewState& s) {
  if (!s.trace || !s.diffEnabled) return std::nullopt;
  if (s.pinnedPass != kNoPin) return s.pinnedPass == s.selectedPass ? std::nullopt : std::optional<int>(s.pinnedPass);
  if (s.selectedPass < 0) return std::nullopt;
  return s.selectedPass - 1;
}
}  // namespace

GraphPtr ViewState::comparedGraph() const {
  std::optional<int> p = comparedPass(*this);
  return p ? graphAt(*p) : nullptr;
}

GraphKey ViewState::comparedKey() const {
  std::optional<int> p = comparedPass(*this);
  return p ? graphKeyAt(*p) : GraphKey{};
}

void ViewState::addPane(int pass, bool runB) {
  const PaneRef p{pass, runB};
  if (std::find(panes.begin(), panes.end(), p) != panes.end()) return;
  if (panes.size() >= kMaxPanes) panes.erase(panes.begin());
  panes.push_back(p);
}

void ViewState::selectPass(int pass) {
  selectedPass = std::clamp(pass, -1, std::max(-1, passCount() - 1));
}

bool ViewState::revalidate() {
  bool fixed = false;
  const int last = passCount() - 1;
  if (selectedPass < -1 || selectedPass > last) selectPass(selectedPass), fixed = true;
  if (pinnedPass != kNoPin && (!trace || pinnedPass < -1 || pinnedPass > last)) pinnedPass = kNoPin, fixed = true;
  const size_t before = panes.size();
  std::erase_if(panes, [&](const PaneRef& p) {
    const viewmodel::TracePtr& t = paneTrace(p);
    return !t || p.pass < -1 || p.pass >= int(t->records.size());
  });
  return fixed || panes.size() != before;
}

void requestLineageLayouts(graph_layout::LayoutCache& cache, const ViewState& s) {
  if (!s.trace) return;
  const trace::Trace& tr = *s.trace;
  GraphPtr prev = tr.source;
  if (prev) cache.request(prev);
  for (const auto& snap : tr.snapshots) {
    cache.request(snap, prev);
    prev = snap;
  }
  if (GraphPtr shown = s.shownGraph()) cache.request(shown, s.graphAt(s.selectedPass - 1));
}

}  // namespace ls::viewers
