// The --script interpreter: command dispatch, waiting and expectations over a ScriptHost.
#include "app/lowerscope/script_runner.h"

#include <algorithm>
#include <cstdio>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/passes/pass_manager.h"
#include "viewers/model/delegation.h"
#include "viewers/model/error_overlay.h"
#include "viewers/model/ir_diff.h"
#include "viewers/model/pass_summary.h"

namespace ls::app {

using viewmodel::ScriptCommand;
using viewmodel::ScriptOp;

ScriptRunner::ScriptRunner(std::vector<ScriptCommand> commands, std::string path)
    : commands_(std::move(commands)), path_(std::move(path)) {}

Result<ScriptRunner> ScriptRunner::parse(std::string_view text, const std::string& path) {
  auto parsed = viewmodel::parseScript(text, path);
  if (!parsed) return Status::error(parsed.message());
  return ScriptRunner(std::move(parsed).value(), path);
}

Result<ScriptRunner> ScriptRunner::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error(path + ": cannot read script");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse(ss.str(), path);
}

bool ScriptRunner::opensFile() const {
  return std::any_of(commands_.begin(), commands_.end(), [](const ScriptCommand& c) { return c.op == ScriptOp::Open; });
}

std::string ScriptRunner::resolve(const std::string& path) const {
  if (std::filesystem::path(path).is_absolute() || std::filesystem::exists(path)) return path;
  std::string alt = (std::filesystem::path(path_).parent_path() / path).string();
  return std::filesystem::exists(alt) ? alt : path;
}

namespace {

bool parseIndex(std::string_view s, int& n) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  return ec == std::errc() && end == s.data() + s.size();
}

/// The pass `name` names in `t`: an index (-1: the source graph), first|last (as the pipeline
/// list's Home/End keys under `filter`, from `selected`), or the first pass of that name.
std::optional<int> passIn(const trace::Trace& t, std::string_view name, int selected,
                          const viewmodel::PassFilter& filter) {
  int n = 0;
  if (parseIndex(name, n)) return n >= -1 && n < int(t.records.size()) ? std::optional<int>(n) : std::nullopt;
  if (name == "first" || name == "last")
    return viewmodel::step(t, viewmodel::visiblePasses(t, filter), selected,
                           name == "first" ? viewmodel::StepKey::First : viewmodel::StepKey::Last);
  for (const trace::PassRecord& r : t.records)
    if (r.name == name) return r.index;
  return std::nullopt;
}

/// "no pass 'X' in the tosa run (0..3, first, last or a pass name)".
std::string noPass(const std::string& arg, const trace::Trace& t) {
  return fmt::format("no pass '{}'{} (0..{}, first, last or a pass name)", arg,
                     t.pipeline.empty() ? std::string() : fmt::format(" in the {} run", t.pipeline),
                     int(t.records.size()) - 1);
}

}  // namespace

Result<int> ScriptRunner::findPassIn(ScriptHost& host, const trace::Trace& t, const ScriptCommand& c) const {
  if (std::optional<int> p = passIn(t, c.arg, host.selectedPass(), host.passFilter())) return *p;
  return Status::error(noPass(c.arg, t));
}

Result<ScriptRunner::NamedPass> ScriptRunner::findPass(ScriptHost& host, const ScriptCommand& c) const {
  const viewmodel::TracePtr shown = host.trace();
  if (!shown) return Status::error("no trace loaded (open a file first)");
  // The other stage: the quantizer's run before the shown pipeline run, or the pipeline run
  // after the shown quantizer's run.
  const viewmodel::TracePtr pipeline = host.pipelineTrace();
  const viewmodel::TracePtr other = pipeline ? pipeline : shown->preparation;
  const int selected = host.selectedPass();
  const viewmodel::PassFilter filter = host.passFilter();
  std::string_view name = c.arg;
  const trace::Trace* only = nullptr;  // RUN:NAME names one of them
  if (const size_t colon = name.find(':'); colon != std::string_view::npos && colon > 0) {
    const std::string_view run = name.substr(0, colon);
    if (run == shown->pipeline) only = shown.get();
    else if (other && run == other->pipeline) only = other.get();
    else
      return Status::error(fmt::format("no run '{}' to name a pass of (the shown run is '{}'{})", run, shown->pipeline,
                                       other ? fmt::format(", the {} one '{}'", pipeline ? "pipeline" : "quantizer's",
                                                           other->pipeline)
                                             : std::string()));
    name = name.substr(colon + 1);
  }
  if (!only || only == shown.get())
    if (std::optional<int> p = passIn(*shown, name, selected, filter)) return NamedPass{*p, false, shown->pipeline};
  if (other && (!only || only == other.get())) {
    // Unqualified, the other run is searched by pass name only: an index, first and last mean
    // the shown run's.
    int index = 0;
    const bool isName = !parseIndex(name, index) && name != "first" && name != "last";
    if (only || isName)
      if (std::optional<int> p = passIn(*other, name, -1, filter)) return NamedPass{*p, true, other->pipeline};
  }
  std::string msg = noPass(c.arg, only ? *only : *shown);
  if (other && !only)
    msg += fmt::format(" nor in the {} run {} it", other->pipeline, pipeline ? "after" : "before");
  return Status::error(msg);
}

Status ScriptRunner::showOtherStage(ScriptHost& host) {
  LS_RETURN_IF_ERROR(host.showPreparation(!host.pipelineTrace()));
  waiting_ = true;  // the other run's layouts
  return Status::ok();
}

void ScriptRunner::step(ScriptHost& host) {
  if (done_ || failed()) return;
  if (frames_ > 0) {
    --frames_;
    return;
  }
  if (waiting_) {
    if (!host.idle()) return;
    waiting_ = false;
    frames_ = 2;  // let views pick up the new data
    return;
  }
  while (pos_ < commands_.size() && !waiting_ && frames_ == 0) {
    const ScriptCommand& c = commands_[pos_++];
    if (echo_) fmt::print(stderr, "script: {}: {}\n", c.line, c.text), std::fflush(stderr);
    Status st = execute(host, c);
    if (!st) {
      std::string msg = fmt::format("{}:{}: '{}': {}", path_, c.line, c.text, st.message());
      if (!keepGoing_) {
        error_ = std::move(msg);
        return;
      }
      errors_.push_back(std::move(msg));
    }
    // Selection changes need a frame so views react before the next command.
    frames_ = std::max(frames_, 1);
  }
  if (pos_ >= commands_.size() && !waiting_ && frames_ == 0) done_ = true;
}

Status ScriptRunner::execute(ScriptHost& host, const ScriptCommand& c) {
  viewmodel::TracePtr trace = host.trace();
  auto needTrace = [&]() -> Status { return trace ? Status::ok() : Status::error("no trace loaded (open a file first)"); };
  auto stepPass = [&](viewmodel::StepKey key) {
    host.stepPass(key);
    return needTrace();
  };
  auto wrote = [&](Status st, const std::string& path) {
    if (st) host.note("wrote " + path);
    return st;
  };
  switch (c.op) {
    case ScriptOp::Open:
      host.openFile(resolve(c.arg));
      paneStage_.reset();
      waiting_ = true;
      return Status::ok();
    case ScriptOp::Pipeline: {
      if (!passes::PipelineRegistry::instance().find(c.arg)) return Status::error(fmt::format("unknown pipeline '{}'", c.arg));
      viewmodel::RunConfig cfg = host.runConfig();
      cfg.pipeline = c.arg;
      host.setRunConfig(cfg);
      return Status::ok();
    }
    case ScriptOp::Profile:
    case ScriptOp::Target: {
      viewmodel::RunConfig cfg = host.runConfig();
      // Values were checked by the parser.
      if (c.op == ScriptOp::Profile) cfg.profile = *passes::parseProfile(c.arg);
      else cfg.target = *passes::parseTarget(c.arg);
      host.setRunConfig(cfg);
      return Status::ok();
    }
    case ScriptOp::Run:
      host.setRunConfig(c.overrides.apply(host.runConfig()));
      host.startRun();
      waiting_ = true;
      return Status::ok();
    case ScriptOp::Wait: waiting_ = true; return Status::ok();
    case ScriptOp::SelectPass: {
      LS_ASSIGN_OR_RETURN(p, findPass(host, c));
      if (p.otherStage) LS_RETURN_IF_ERROR(showOtherStage(host));
      host.selectPass(p.index);
      return Status::ok();
    }
    case ScriptOp::NextPass: return stepPass(viewmodel::StepKey::Next);
    case ScriptOp::PrevPass: return stepPass(viewmodel::StepKey::Prev);
    case ScriptOp::FirstPass: return stepPass(viewmodel::StepKey::First);
    case ScriptOp::LastPass: return stepPass(viewmodel::StepKey::Last);
    case ScriptOp::NextChanged:
    case ScriptOp::PrevChanged: {
      LS_RETURN_IF_ERROR(needTrace());
      int before = host.selectedPass();
      host.stepPass(c.op == ScriptOp::NextChanged ? viewmodel::StepKey::NextChanged : viewmodel::StepKey::PrevChanged);
      if (before == host.selectedPass()) return Status::error("no such changed pass");
      return Status::ok();
    }
    case ScriptOp::SelectNode: {
      LS_RETURN_IF_ERROR(needTrace());
      std::shared_ptr<const ir::Graph> g = host.shownGraph();
      ir::NodeId id = g ? g->findByName(c.arg) : ir::kInvalidNode;
      if (id == ir::kInvalidNode) {
        // A node removed by this pass can be selected as its ghost.
        std::shared_ptr<const ir::Graph> cg = host.comparedGraph();
        id = cg ? cg->findByName(c.arg) : ir::kInvalidNode;
      }
      if (id == ir::kInvalidNode) return Status::error(fmt::format("no node named '{}' at the selected pass", c.arg));
      host.selectNode(id);
      return Status::ok();
    }
    case ScriptOp::Pin:
    case ScriptOp::PaneAdd: {
      LS_ASSIGN_OR_RETURN(p, findPass(host, c));
      const bool preparation = bool(host.pipelineTrace()) != p.otherStage;  // the run the pass is in
      if (p.otherStage) {
        // Pins and panes are passes of the shown run: what is there stays meaningful only if
        // the shown run does not change under it.
        const std::string where =
            fmt::format("'{}' is a pass of the {} run, not of the shown {} run", c.arg, p.run, trace->pipeline);
        if (c.op == ScriptOp::Pin)
          return Status::error(where + ": a pin compares passes of the shown run (select pass " + c.arg + " shows that run)");
        if (paneStage_ && *paneStage_ != preparation)
          return Status::error(where + ", which the panes show: panes show passes of one run (pane clear first)");
        LS_RETURN_IF_ERROR(showOtherStage(host));
      }
      if (c.op == ScriptOp::Pin) {
        host.setPin(p.index);
      } else {
        host.addPane(p.index, false);
        paneStage_ = preparation;
      }
      return Status::ok();
    }
    case ScriptOp::PaneAddB: {
      LS_RETURN_IF_ERROR(needTrace());
      viewmodel::TracePtr b = host.compareTrace();
      if (!b) return Status::error("no run B (compare or compare-trace first)");
      auto p = findPassIn(host, *b, c);
      if (!p) return Status::error("run B: " + p.message());
      host.addPane(*p, true);
      return Status::ok();
    }
    case ScriptOp::Unpin: host.setPin(std::nullopt); return Status::ok();
    case ScriptOp::PaneClear:
      host.clearPanes();
      paneStage_.reset();
      return Status::ok();
    case ScriptOp::View: host.showView(c.arg); return Status::ok();
    case ScriptOp::Filter: {
      viewmodel::PassFilter f = host.passFilter();
      if (c.arg == "hide-skipped") f.hideSkipped = c.arg2 == "on";
      else if (c.arg == "hide-unchanged") f.hideUnchanged = c.arg2 == "on";
      else f.search = c.arg2;
      host.setPassFilter(f);
      return Status::ok();
    }
    case ScriptOp::Search: host.setSearch(c.arg); return Status::ok();
    case ScriptOp::SearchNext:
    case ScriptOp::SearchPrev:
      if (!host.searchStep(c.op == ScriptOp::SearchNext ? +1 : -1)) return Status::error("no search hits");
      return Status::ok();
    case ScriptOp::Compare:
      LS_RETURN_IF_ERROR(needTrace());
      host.requestCompare(c.overrides.apply(host.runConfig()), c.number);
      waiting_ = true;
      return Status::ok();
    case ScriptOp::NextChange:
    case ScriptOp::PrevChange:
      if (!host.changeStep(c.op == ScriptOp::NextChange ? +1 : -1)) return Status::error("no changes at this pass");
      return Status::ok();
    case ScriptOp::Enter: {
      LS_RETURN_IF_ERROR(needTrace());
      std::shared_ptr<const ir::Graph> g = host.shownGraph();
      if (!g || !g->subgraphs().count(c.arg)) return Status::error(fmt::format("the shown graph has no nested graph '{}'", c.arg));
      host.enterSubgraph(c.arg);
      return Status::ok();
    }
    case ScriptOp::Leave:
      if (host.subgraphPath().empty()) return Status::error("not inside a nested graph");
      host.leaveSubgraph();
      return Status::ok();
    case ScriptOp::Stage:
      LS_RETURN_IF_ERROR(needTrace());
      return host.showPreparation(c.arg == "quantizer");
    case ScriptOp::CompareTrace:
      LS_RETURN_IF_ERROR(needTrace());
      host.openCompareTrace(resolve(c.arg));
      waiting_ = true;
      return Status::ok();
    case ScriptOp::Fit: host.fitGraph(); return Status::ok();
    case ScriptOp::GraphOption: host.setGraphOption(c.arg, c.arg2 == "on"); return Status::ok();
    case ScriptOp::FollowLineage:
      LS_RETURN_IF_ERROR(needTrace());
      if (!host.followLineage(size_t(c.number))) return Status::error(fmt::format("the selected node has no lineage entry {}", c.number));
      return Status::ok();
    case ScriptOp::Expand:
    case ScriptOp::Collapse:
      LS_RETURN_IF_ERROR(needTrace());
      if (!host.foldModule(c.arg, c.op == ScriptOp::Expand))
        return Status::error(fmt::format("the graph shows no {} module '{}'", c.op == ScriptOp::Expand ? "folded" : "expanded", c.arg));
      return Status::ok();
    case ScriptOp::Zoom: host.zoomGraph(float(c.factor)); return Status::ok();
    case ScriptOp::ExportComparison: return wrote(host.exportComparison(c.arg, c.arg2), c.arg2);
    case ScriptOp::ExportRun: return wrote(host.exportRun(c.arg, c.arg2), c.arg2);
    case ScriptOp::ExportChart: return wrote(host.exportChart(c.arg2), c.arg2);
    case ScriptOp::TimingOption: host.setTimingOption(c.arg, c.arg2); return Status::ok();
    case ScriptOp::Frames: frames_ = c.number; return Status::ok();
    case ScriptOp::Expect: return expect(host, c);
    case ScriptOp::Key:
      if (!host.pressKey(c.arg, c.shift)) return Status::error("unknown key");
      frames_ = 3;  // press, release, settle
      return Status::ok();
    case ScriptOp::COUNT: break;
  }
  return Status::error("unsupported command");
}

Status ScriptRunner::expect(ScriptHost& host, const ScriptCommand& c) {
  auto fail = [&](const std::string& got) { return Status::error(fmt::format("expectation failed: got {}", got)); };
  if (c.arg == "help") return host.helpShown() ? Status::ok() : fail("no help overlay");
  if (c.arg == "error") return host.errorShown() ? Status::ok() : fail("no error dialog");
  viewmodel::TracePtr trace = host.trace();
  if (!trace) return fail("no trace");
  if (c.arg == "pass-status") {
    int p = host.selectedPass();
    if (p < 0 || size_t(p) >= trace->records.size()) return fail("the source graph row");
    std::string_view st = passes::passStatusName(trace->records[size_t(p)].status);
    return st == c.arg2 ? Status::ok() : fail(std::string(st));
  }
  if (c.arg == "diff") {
    size_t n = host.diffSize();
    bool ok = c.arg2 == "empty" ? n == 0 : n > 0;
    return ok ? Status::ok() : fail(fmt::format("{} changed/added/removed nodes", n));
  }
  if (c.arg == "pipeline") return trace->pipeline == c.arg2 ? Status::ok() : fail(trace->pipeline);
  if (c.arg == "summary") {
    std::vector<std::string> lines = viewmodel::summaryLines(viewmodel::passSummary(*trace, host.selectedPass()));
    for (const std::string& l : lines)
      if (l.find(c.arg2) != std::string::npos) return Status::ok();
    return fail(fmt::format("a summary without it:\n  {}", fmt::join(lines, "\n  ")));
  }
  if (c.arg == "lineage" || c.arg == "changed") {
    std::vector<std::string> lines = host.inspectorLines(c.arg);
    for (const std::string& l : lines)
      if (l.find(c.arg2) != std::string::npos) return Status::ok();
    return fail(lines.empty() ? std::string("nothing") : fmt::format("\n  {}", fmt::join(lines, "\n  ")));
  }
  if (c.arg == "synced") {
    std::shared_ptr<const ir::Graph> g = host.shownGraph();
    const ir::Node* n = g ? g->find(host.selectedNode()) : nullptr;
    if (!n || n->name != c.arg2) return fail(fmt::format("selected node {}", n ? n->name : "(none)"));
    int64_t panes = host.viewCount(ViewCount::PaneCount), synced = host.viewCount(ViewCount::SyncedPanes);
    if (panes == 0) return fail("no side-by-side panes");
    return synced == panes ? Status::ok() : fail(fmt::format("{} of {} panes outline it or a counterpart", synced, panes));
  }
  if (c.arg == "ab-verdict") {
    std::string v = host.abVerdict(c.arg2);
    if (v.empty()) return fail(fmt::format("no A/B comparison with a pass '{}'", c.arg2));
    return v == c.arg3 ? Status::ok() : fail(v);
  }
  if (c.arg == "graph") {
    std::vector<std::string> path = host.subgraphPath();
    std::string cur = path.empty() ? "main" : path.back();
    return cur == c.arg2 ? Status::ok() : fail(cur);
  }
  if (c.arg == "node") {
    std::shared_ptr<const ir::Graph> g = host.shownGraph(), cg = host.comparedGraph();
    const ir::Node* n = g ? g->find(host.selectedNode()) : nullptr;
    if (!n && cg) n = cg->find(host.selectedNode());  // a removed node, selected as its ghost
    std::string name = n ? n->name : "(none)";
    return name == c.arg2 ? Status::ok() : fail(name);
  }
  if (c.arg == "culprit") {
    // What the graph view and inspector show: the overlay of the selected pass.
    viewmodel::ErrorOverlay o = viewmodel::ErrorOverlay::build(trace, host.selectedPass(), !host.subgraphPath().empty());
    if (!o.active()) return fail(fmt::format("no localisation at pass {}", host.selectedPass()));
    std::shared_ptr<const ir::Graph> g = host.shownGraph();
    const ir::NodeId id = o.localization()->culprit;
    const ir::Node* n = g && id != ir::kInvalidNode ? g->find(id) : nullptr;
    std::string name = id == ir::kInvalidNode ? "none" : n ? n->name : fmt::format("node {} (not in the shown graph)", id);
    return name == c.arg2 ? Status::ok() : fail(name);
  }
  if (c.arg == "min" || c.arg == "max") {
    auto counter = [&](const std::string& what) -> int64_t {
      if (what == "drawn-nodes") return host.viewCount(ViewCount::DrawnNodes);
      if (what == "drawn-labels") return host.viewCount(ViewCount::DrawnLabels);
      if (what == "drawn-edges") return host.viewCount(ViewCount::DrawnEdges);
      if (what == "drawn-badges") return host.viewCount(ViewCount::DrawnBadges);
      if (what == "drawn-stubs") return host.viewCount(ViewCount::DrawnStubs);
      if (what == "drawn-ghosts") return host.viewCount(ViewCount::DrawnGhosts);
      if (what == "drawn-links") return host.viewCount(ViewCount::DrawnLinks);
      if (what == "drawn-tinted") return host.viewCount(ViewCount::DrawnTinted);
      if (what == "drawn-errors") return host.viewCount(ViewCount::DrawnErrors);
      if (what == "columns") return host.viewCount(ViewCount::Columns);
      if (what == "compare-rows") return host.viewCount(ViewCount::CompareRows);
      if (what == "timing-bars") return host.viewCount(ViewCount::TimingBars);
      if (what == "timeline-passes") return host.viewCount(ViewCount::TimelinePasses);
      if (what == "timeline-ticks") return host.viewCount(ViewCount::TimelineTicks);
      if (what == "timeline-visible") return host.viewCount(ViewCount::TimelineVisible);
      if (what == "ab-rows") return host.viewCount(ViewCount::AbRows);
      if (what == "ab-repeats") return host.viewCount(ViewCount::AbRepeats);
      if (what == "ab-noise") return host.viewCount(ViewCount::AbNoise);
      if (what == "op-diffs") return host.viewCount(ViewCount::OpDiffs);
      if (what == "visible-passes") return int64_t(viewmodel::visiblePasses(*trace, host.passFilter()).size());
      if (what == "pane-count") return host.viewCount(ViewCount::PaneCount);
      if (what == "synced-panes") return host.viewCount(ViewCount::SyncedPanes);
      if (what == "drawn-folds") return host.viewCount(ViewCount::DrawnFolds);
      if (what == "folds") return host.viewCount(ViewCount::Folds);
      if (what == "changed-fields") return host.viewCount(ViewCount::ChangedFields);
      if (what == "lineage-entries") return host.viewCount(ViewCount::LineageEntries);
      if (what == "ir-diff-added" || what == "ir-diff-removed") {
        std::shared_ptr<const ir::Graph> a = host.comparedGraph(), b = host.shownGraph();
        if (!a || !b) return 0;
        viewmodel::IrDiff d = viewmodel::irDiff(*a, *b);
        return int64_t(what == "ir-diff-added" ? d.added : d.removed);
      }
      if (what == "delegates" || what == "delegated-nodes" || what == "undelegated-ops") {
        std::shared_ptr<const ir::Graph> g = host.shownGraph();
        if (!g) return 0;
        viewmodel::Delegation d = viewmodel::delegation(*g);
        return what == "delegates" ? int64_t(d.delegates.size())
               : what == "delegated-nodes" ? d.delegatedNodes : int64_t(d.undelegated.size());
      }
      return 0;
    };
    int64_t v = counter(c.arg2);
    double bound = c.arg3.empty() ? double(c.number) : c.factor * double(counter(c.arg3));
    std::string boundText = c.arg3.empty() ? std::to_string(c.number) : fmt::format("{}x {} = {}", c.factor, c.arg3, bound);
    bool ok = c.arg == "min" ? double(v) >= bound : double(v) <= bound;
    return ok ? Status::ok() : fail(fmt::format("{} = {} (bound {})", c.arg2, v, boundText));
  }
  return Status::error("unknown expectation");
}

}  // namespace ls::app
