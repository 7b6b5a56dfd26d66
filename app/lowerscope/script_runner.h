// The --script interpreter: executes parsed script commands (viewers/model/script.h) one
// frame at a time against a ScriptHost (the App, or a fake in tests/app), waits for runs and
// layouts, checks expectations, and reports failures as "SCRIPT:LINE: 'TEXT': message". No
// ImGui and no engine logic: everything it does to the app goes through ScriptHost.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/ir/graph.h"
#include "core/util/status.h"
#include "viewers/model/pass_list.h"
#include "viewers/model/run_job.h"
#include "viewers/model/script.h"

namespace ls::app {

/// A view counter an expectation can check ("expect min WHAT N").
enum class ViewCount : uint8_t {
  DrawnNodes, DrawnLabels, DrawnEdges, DrawnBadges, DrawnStubs, DrawnErrors, DrawnGhosts, DrawnLinks, DrawnTinted, Columns, CompareRows,
  TimingBars, TimelinePasses, TimelineTicks, TimelineVisible, AbRows, AbRepeats, AbNoise, OpDiffs, PaneCount, SyncedPanes,
  DrawnFolds, Folds, ChangedFields, LineageEntries,
  COUNT
};

/// What a script can do to the app. All calls come from the UI thread between frames and
/// return at once: loading, runs and layouts start in the background and the runner waits
/// for idle() before the next command. Errors the user would see as a dialog (a file that
/// does not load) go to the dialog, not to the caller: scripts check them with "expect error".
class ScriptHost {
 public:
  virtual ~ScriptHost() = default;

  /// No run, comparison, pending open or layout of the shown graph in flight.
  virtual bool idle() const = 0;

  // ---- files and runs (start work; the runner then waits for idle())
  virtual void openFile(const std::string& path) = 0;
  /// Loads a saved run (.lstrace) as comparison B.
  virtual void openCompareTrace(const std::string& path) = 0;
  virtual viewmodel::RunConfig runConfig() const = 0;
  /// The config of the next run (toolbar pickers); does not start a run.
  virtual void setRunConfig(const viewmodel::RunConfig& c) = 0;
  /// Runs the current config over the loaded graph (run A).
  virtual void startRun() = 0;
  /// Runs B with `b` once run A is finished; the timing view then shows A vs B.
  /// `repeat` > 0: A and B are timed in that many interleaved repeats each (else the last count).
  virtual void requestCompare(const viewmodel::RunConfig& b, int repeat) = 0;

  // ---- run A and the selection
  virtual viewmodel::TracePtr trace() const = 0;  ///< null before the first run
  virtual viewmodel::TracePtr compareTrace() const = 0;  ///< run B (compare / compare-trace), or null
  virtual int selectedPass() const = 0;           ///< -1 = the source graph
  virtual void selectPass(int pass) = 0;          ///< clamped to the passes
  /// Steps as the pipeline view's keys do (respecting its filters).
  virtual void stepPass(viewmodel::StepKey key) = 0;
  /// Diff against `pass` instead of the previous pass; nullopt: unpin.
  virtual void setPin(std::optional<int> pass) = 0;
  /// Side-by-side panes: adds a pass (-1: the source graph) of run A or B / removes them all.
  virtual void addPane(int pass, bool runB) = 0;
  virtual void clearPanes() = 0;
  virtual viewmodel::PassFilter passFilter() const = 0;
  virtual void setPassFilter(const viewmodel::PassFilter& f) = 0;
  /// The graph shown at the selected pass / the graph it is diffed against (null: none).
  virtual std::shared_ptr<const ir::Graph> shownGraph() const = 0;
  virtual std::shared_ptr<const ir::Graph> comparedGraph() const = 0;
  virtual ir::NodeId selectedNode() const = 0;
  /// Selects a node (of the shown graph, or a ghost of the compared one) and centres it.
  virtual void selectNode(ir::NodeId id) = 0;
  /// The nested graphs open in the canvas, outermost first (empty: the main graph).
  virtual std::vector<std::string> subgraphPath() const = 0;
  virtual void enterSubgraph(const std::string& name) = 0;  ///< opens it in place and fits
  virtual void leaveSubgraph() = 0;
  /// Shows the run that prepared run A's source (Trace::preparation: the quantizer's passes)
  /// as the stepped run (true), or run A again (false). Errors when there is no such run.
  virtual Status showPreparation(bool on) = 0;
  /// While showPreparation(true) is in effect (trace() is the preparation run), the pipeline
  /// run it prepared; null otherwise.
  virtual viewmodel::TracePtr pipelineTrace() const = 0;

  // ---- views
  /// "graph" | "timing" (centre tab) | "pipeline" | "inspector" (side panels).
  virtual void showView(const std::string& name) = 0;
  virtual void setSearch(const std::string& text) = 0;
  /// Next (+1) / previous (-1) search hit or diff change: selects and centres it; false if none.
  virtual bool searchStep(int dir) = 0;
  virtual bool changeStep(int dir) = 0;
  virtual void fitGraph() = 0;
  /// Graph view options: "badges" (constants drawn on their users), "wrap" (columns at Fit).
  virtual void setGraphOption(const std::string& name, bool on) = 0;
  /// Opens the folded module `path` one level (expand) or folds it again; false when the graph
  /// view shows no such fold / expanded module.
  virtual bool foldModule(const std::string& path, bool expand) = 0;
  /// What the inspector shows for the selected node: "lineage" (one line per lineage entry) or
  /// "changed" (one "NAME: BEFORE -> AFTER" line per field the selected pass changed).
  virtual std::vector<std::string> inspectorLines(const std::string& what) = 0;
  /// Jumps to lineage entry `index` of the selected node (pass and node); false if none.
  virtual bool followLineage(size_t index) = 0;
  virtual void zoomGraph(float factor) = 0;

  // ---- exports (format names as in script.h)
  virtual Status exportComparison(const std::string& format, const std::string& path) = 0;
  virtual Status exportRun(const std::string& format, const std::string& path) = 0;
  /// Writes the timing chart (the run's bars, or the A/B chart) as .svg or .png.
  virtual Status exportChart(const std::string& path) = 0;
  /// Timing view options: aggregate on|off (bars by pass name), baseline A|B, zoom FACTOR (the
  /// timeline, around its centre).
  virtual void setTimingOption(const std::string& name, const std::string& value) = 0;
  /// The A/B verdict (viewmodel::abVerdictName) of the first pass named `pass`, or of the
  /// total for "total"; "" without a comparison or such a pass.
  virtual std::string abVerdict(const std::string& pass) = 0;

  // ---- input and what expectations observe
  /// Presses `key` (up, down, home, end, escape, f1, f5, a-z) on the next frame and releases
  /// it on the one after; false for a key it does not know.
  virtual bool pressKey(const std::string& key, bool shift) = 0;
  virtual bool helpShown() const = 0;
  virtual bool errorShown() const = 0;  ///< an error dialog is open or about to open
  /// Added + changed + removed nodes of the graph view's diff at the selected pass.
  virtual size_t diffSize() = 0;
  virtual int64_t viewCount(ViewCount what) = 0;
  /// A line for the user (stdout in the app), e.g. "wrote PATH".
  virtual void note(const std::string& line) = 0;
};

class ScriptRunner {
 public:
  /// Parses `text`; `path` names the script in messages and is the directory relative
  /// paths fall back to. Parse errors name the path and line.
  static Result<ScriptRunner> parse(std::string_view text, const std::string& path);
  /// Reads and parses the script file at `path`.
  static Result<ScriptRunner> load(const std::string& path);

  /// Call once per frame after the UI is built: counts down frames, waits for the host to be
  /// idle, else executes commands until one needs frames or waiting. The first failing
  /// command stops the script (failed()).
  void step(ScriptHost& host);

  /// Keep going after a failing command (the action fuzzer: random commands often do not
  /// apply): the failure is collected in errors() and the next command runs.
  void setKeepGoing(bool on) { keepGoing_ = on; }
  /// Print "script: LINE: TEXT" to stderr as each command starts (the fuzzer's reducer cuts a
  /// crashing script after the last line printed).
  void setEcho(bool on) { echo_ = on; }
  /// Failures collected in keep-going mode, one "SCRIPT:LINE: 'TEXT': message" each.
  const std::vector<std::string>& errors() const { return errors_; }
  bool done() const { return done_; }
  bool failed() const { return !error_.empty(); }
  /// "SCRIPT:LINE: 'TEXT': message" of the failed command.
  const std::string& error() const { return error_; }
  /// Source line of the command executed next (-1 at the end): for timeout messages.
  int currentLine() const { return pos_ < commands_.size() ? commands_[pos_].line : -1; }
  /// The script opens its own file (the app then skips the bundled sample).
  bool opensFile() const;
  const std::vector<viewmodel::ScriptCommand>& commands() const { return commands_; }

 private:
  ScriptRunner(std::vector<viewmodel::ScriptCommand> commands, std::string path);
  Status execute(ScriptHost& host, const viewmodel::ScriptCommand& c);
  Status expect(ScriptHost& host, const viewmodel::ScriptCommand& c);
  /// A pass a command names in run A: its index, and whether it is a pass of the other stage
  /// (the quantizer's run when the pipeline run is shown, or the reverse), which the command
  /// shows first.
  struct NamedPass {
    int index = -1;
    bool otherStage = false;
    std::string run;  ///< the pipeline of the run the pass is in (e.g. quantize-pt2e)
  };
  /// The pass `c.arg` names in run A: an index (-1: the source graph), first|last (as the
  /// pipeline list's Home/End keys), a pass name (the shown run's first, else the other stage's),
  /// or RUN:NAME (RUN: the pipeline of either stage, e.g. quantize-pt2e:FuseBatchNorm2dPass).
  Result<NamedPass> findPass(ScriptHost& host, const viewmodel::ScriptCommand& c) const;
  /// The same in one run (run B), without stages.
  Result<int> findPassIn(ScriptHost& host, const trace::Trace& t, const viewmodel::ScriptCommand& c) const;
  /// Shows the other stage of run A (the quantizer's run or the pipeline run) and waits for it.
  Status showOtherStage(ScriptHost& host);
  /// `path` as given when it exists (or is absolute), else relative to the script's directory.
  std::string resolve(const std::string& path) const;

  std::vector<viewmodel::ScriptCommand> commands_;
  std::string path_;
  size_t pos_ = 0;
  bool waiting_ = false;  // for host.idle()
  int frames_ = 0;        // frames to render before the next command
  bool done_ = false;
  bool keepGoing_ = false;
  bool echo_ = false;
  /// The stage of run A the panes this script added show (true: the quantizer's run); nullopt
  /// when it added none since the last `pane clear` / `open`.
  std::optional<bool> paneStage_;
  std::string error_;
  std::vector<std::string> errors_;
};

}  // namespace ls::app
