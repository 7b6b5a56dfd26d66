// ViewState helpers.
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

GraphPtr ViewState::comparedGraph() const {
  if (!trace || !diffEnabled) return nullptr;
  if (pinnedPass != kNoPin) return pinnedPass == selectedPass ? nullptr : graphAt(pinnedPass);
  if (selectedPass < 0) return nullptr;
  return graphAt(selectedPass - 1);
}

void ViewState::selectPass(int pass) {
  selectedPass = std::clamp(pass, -1, std::max(-1, passCount() - 1));
}

}  // namespace ls::viewers
