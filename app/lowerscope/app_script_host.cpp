// App as the ScriptHost of a --script run: each operation a script needs, mapped onto the
// view state, the views and the key input of the shell (the runner is script_runner.cpp).
#include <algorithm>
#include <utility>

#include <GLFW/glfw3.h>
#include <fmt/format.h>

#include "app/lowerscope/app.h"

namespace ls::app {

void App::requestCompare(const viewmodel::RunConfig& b, int repeat) {
  if (repeat > 0) state_.compareRepeat = repeat;
  state_.compareRequest = b;
}

void App::stepPass(viewmodel::StepKey key) { pipelineView_.step(state_, key); }

void App::setPin(std::optional<int> pass) { state_.pinnedPass = pass ? *pass : viewers::kNoPin; }
void App::addPane(int pass, bool runB) {
  state_.addPane(pass, runB);
  panesView_->requestFit();
}
void App::clearPanes() { state_.panes.clear(); }

void App::selectNode(ir::NodeId id) {
  state_.selectedNode = id;
  state_.centerRequested = true;
}

void App::enterSubgraph(const std::string& name) {
  state_.subgraphPath.push_back(name);
  state_.selectedNode = ir::kInvalidNode;
  graphView_->requestFit();
}

void App::leaveSubgraph() {
  if (!state_.subgraphPath.empty()) state_.subgraphPath.pop_back();
  state_.selectedNode = ir::kInvalidNode;
  graphView_->requestFit();
}

Status App::showPreparation(bool on) {
  if (on == bool(state_.pipelineTrace)) return Status::ok();
  if (on) {
    if (!state_.trace || !state_.trace->preparation) return Status::error("this run has no preparation run");
    viewmodel::TracePtr prep = state_.trace->preparation;
    state_.pipelineTrace = state_.trace;
    state_.selectedPass = int(prep->records.size()) - 1;
    showRun(std::move(prep));
  } else {
    viewmodel::TracePtr run = std::exchange(state_.pipelineTrace, nullptr);
    state_.selectedPass = -1;
    showRun(std::move(run));
  }
  state_.selectedNode = ir::kInvalidNode;
  state_.statusMessage = on ? "showing the quantizer's passes (the run before the pipeline)" : "back to the pipeline run";
  return Status::ok();
}

void App::showView(const std::string& name) {
  if (name == "graph") state_.tab = viewers::CenterTab::Graph, state_.tabChangeRequested = true;
  else if (name == "timing") state_.tab = viewers::CenterTab::Timing, state_.tabChangeRequested = true;
  else if (name == "delegation") state_.tab = viewers::CenterTab::Delegation, state_.tabChangeRequested = true;
  else if (name == "ir-diff") state_.tab = viewers::CenterTab::IrDiff, state_.tabChangeRequested = true;
  else if (name == "panes") state_.tab = viewers::CenterTab::Panes, state_.tabChangeRequested = true;
  else if (name == "pipeline") showPipeline_ = true;
  else if (name == "inspector") showInspector_ = true;
}

void App::setSearch(const std::string& text) { graphView_->setSearch(text); }
bool App::searchStep(int dir) { return graphView_->searchStep(state_, dir); }
bool App::changeStep(int dir) { return graphView_->changeStep(state_, dir); }
void App::fitGraph() { graphView_->requestFit(); }
void App::setGraphOption(const std::string& name, bool on) {
  if (name == "badges") setConstantBadges(on);
  else if (name == "wrap") graphView_->setWrap(on);
  else if (name == "partitions") state_.partitionColours = on, state_.diffEnabled = on ? false : state_.diffEnabled;
  else if (name == "folds") graphView_->setFoldMode(on ? viewers::GraphView::FoldMode::On : viewers::GraphView::FoldMode::Off);
}
std::vector<std::string> App::inspectorLines(const std::string& what) {
  std::vector<std::string> out;
  if (what == "lineage")
    for (const viewmodel::LineageEntry& e : inspectorView_.lineage(state_)) out.push_back(e.text);
  else
    for (const viewmodel::FieldChange& c : inspectorView_.changedFields(state_))
      out.push_back(fmt::format("{}: {} -> {}", c.name, c.before, c.after));
  return out;
}
bool App::followLineage(size_t index) { return inspectorView_.followLineage(state_, index); }
bool App::foldModule(const std::string& path, bool expand) {
  return expand ? graphView_->expandModule(path) : graphView_->collapseModule(path);
}
void App::zoomGraph(float factor) { graphView_->zoomBy(factor); }

Status App::exportComparison(const std::string& format, const std::string& path) {
  return timingView_.exportComparison(state_, format, path);
}

Status App::exportChart(const std::string& path) {
  state_.tab = viewers::CenterTab::Timing;
  state_.tabChangeRequested = true;
  Status st = timingView_.exportChart(state_, path);
  state_.statusMessage = st ? "wrote " + path : st.message();
  return st;
}

void App::setTimingOption(const std::string& name, const std::string& value) {
  if (name == "aggregate") timingView_.setAggregate(value == "on");
  else if (name == "baseline") timingView_.setBaseline(value == "B" ? 1 : 0);
  else if (name == "zoom") timingView_.zoomTimeline(state_, std::stod(value));  // checked by the parser
}

std::string App::abVerdict(const std::string& pass) {
  if (!state_.trace || !state_.compareTrace) return {};
  const viewmodel::AbComparison& c = timingView_.abComparison(state_);
  if (pass == "total") return std::string(viewmodel::abVerdictName(c.total.verdict));
  for (const viewmodel::AbRow& r : c.rows)
    if (r.name == pass) return std::string(viewmodel::abVerdictName(r.verdict));
  return {};
}

bool App::pressKey(const std::string& key, bool shift) {
  static const std::pair<const char*, int> kNames[] = {{"up", GLFW_KEY_UP},     {"down", GLFW_KEY_DOWN},     {"home", GLFW_KEY_HOME},
                                                       {"end", GLFW_KEY_END},   {"escape", GLFW_KEY_ESCAPE}, {"f1", GLFW_KEY_F1},
                                                       {"f5", GLFW_KEY_F5}};
  int code = key.size() == 1 && key[0] >= 'a' && key[0] <= 'z' ? GLFW_KEY_A + (key[0] - 'a') : -1;
  for (const auto& [name, c] : kNames)
    if (key == name) code = c;
  if (code < 0) return false;
  // beforeNewFrame: down for one frame, then up.
  pendingKey_ = code;
  pendingShift_ = shift;
  keyPhase_ = 1;
  return true;
}

size_t App::diffSize() { return graphView_->diffSize(state_); }

int64_t App::viewCount(ViewCount what) {
  switch (what) {
    case ViewCount::DrawnNodes: return graphView_->lastStats().nodes;
    case ViewCount::DrawnLabels: return graphView_->lastStats().labels;
    case ViewCount::DrawnEdges: return graphView_->lastStats().edges;
    case ViewCount::DrawnBadges: return graphView_->lastStats().badges;
    case ViewCount::DrawnStubs: return graphView_->lastStats().stubs;
    case ViewCount::DrawnGhosts: return graphView_->lastStats().ghosts;
    case ViewCount::DrawnLinks: return graphView_->lastStats().links;
    case ViewCount::DrawnTinted: return graphView_->lastStats().tinted;
    case ViewCount::DrawnErrors: return graphView_->lastStats().errors;
    case ViewCount::DrawnFolds: return graphView_->lastStats().folds;
    case ViewCount::Folds: return int64_t(graphView_->foldCount());
    case ViewCount::ChangedFields: return int64_t(inspectorView_.changedFields(state_).size());
    case ViewCount::LineageEntries: return int64_t(inspectorView_.lineage(state_).size());
    case ViewCount::Columns: return graphView_->columns();
    case ViewCount::CompareRows: return int64_t(timingView_.comparisonRows(state_));
    case ViewCount::TimingBars: return int64_t(timingView_.barCount(state_));
    case ViewCount::TimelinePasses: return int64_t(timingView_.timelineOf(state_).passes);
    case ViewCount::TimelineTicks: return int64_t(timingView_.timelineOf(state_).ticks);
    case ViewCount::TimelineVisible: return int64_t(timingView_.timelineVisible(state_));
    case ViewCount::AbRows: return int64_t(timingView_.comparisonRows(state_));
    case ViewCount::AbRepeats: {
      if (!state_.compareTrace) return 0;
      const viewmodel::AbComparison& c = timingView_.abComparison(state_);
      return int64_t(std::min(c.repeatsA, c.repeatsB));
    }
    case ViewCount::AbNoise: return state_.compareTrace ? int64_t(timingView_.abComparison(state_).count(viewmodel::AbVerdict::Noise)) : 0;
    case ViewCount::OpDiffs: return state_.compareTrace ? int64_t(timingView_.abComparison(state_).opDiffs.size()) : 0;
    case ViewCount::PaneCount: return int64_t(panesView_->paneCount());
    case ViewCount::SyncedPanes: return int64_t(panesView_->panesWithSelection());
    case ViewCount::COUNT: break;
  }
  return 0;
}

void App::note(const std::string& line) { fmt::print("lowerscope: {}\n", line); }

}  // namespace ls::app
