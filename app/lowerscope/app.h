// The desktop shell: menus, toolbar (pipeline/profile/target pickers, Run/Cancel, progress),
// panel layout with splitters, dialogs (file browser, errors, help), the worker jobs, the
// layout cache, settings persistence, --screenshot captures, and the ScriptHost a --script
// runner (script_runner.h) drives (implemented in app_script_host.cpp).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/lowerscope/script_runner.h"
#include "core/graph_layout/layout_cache.h"
#include "viewers/file_browser.h"
#include "viewers/graph_view.h"
#include "viewers/inspector_view.h"
#include "viewers/model/run_job.h"
#include "viewers/model/settings.h"
#include "viewers/pipeline_view.h"
#include "viewers/delegation_view.h"
#include "viewers/ir_diff_view.h"
#include "viewers/panes_view.h"
#include "viewers/timing_view.h"
#include "viewers/view_state.h"

struct GLFWwindow;

namespace ls::app {

struct AppOptions {
  std::string file;        ///< graph or trace to open ("" = the bundled sample)
  std::string pipeline;    ///< "" = settings, else the default pipeline
  std::string profile, target;
  std::string screenshot;  ///< save a PNG when idle, then exit
  std::string script;      ///< UI actions to run
  bool scriptKeepGoing = false;  ///< a failing script command is reported and the next one runs
  bool scriptEcho = false;       ///< print each script command to stderr as it starts
  bool useSettings = true; ///< load/save the settings file (off in test modes)
  double timeoutSec = 120; ///< test modes: give up after this long
};

class App final : private ScriptHost {
 public:
  App(AppOptions opts, GLFWwindow* window);
  ~App() override;

  /// Builds one frame of UI (between ImGui::NewFrame and ImGui::Render).
  void frame();
  /// After the draw data is rendered into the back buffer: PNG captures, screenshot, exit.
  void afterRender();
  void onDrop(const std::vector<std::string>& paths);
  /// Before ImGui::NewFrame: applies key presses of the script (pressKey).
  void beforeNewFrame();
  /// Work is in flight (run, layout, script): the loop should not sleep.
  bool busy() const;
  /// A pipeline run (A, or the comparison run and its timed repeats) is in flight: its pass times
  /// are being measured, so the loop renders only a few frames a second and the layout worker
  /// waits (syncLayoutPause), and drawing does not compete with the passes (the job wakes the loop).
  bool measuring() const { return (jobA_.busy() && !jobA_.holding()) || jobB_.busy(); }
  bool wantsExit() const { return exit_; }
  int exitCode() const { return exitCode_; }
  void saveSettings();
  viewmodel::Settings& settings() { return settings_; }

 private:
  graph_layout::LayoutOptions layoutOptions() const;
  /// Requests the layouts of the current trace's lineage, the shown graph first.
  void requestLineageLayouts();
 public:
  /// Constants and CONST_SHAPE drawn as badges on their users (on) or as nodes (off).
  void setConstantBadges(bool on);
  bool constantBadges() const { return settings_.constantBadges; }
 private:
  void openFile(const std::string& path) override;
  void startRun() override;
  /// Loads a saved run (.lstrace) as comparison B for the timing view.
  void openCompareTrace(const std::string& path) override;
  void startCompare(const viewmodel::RunConfig& cfg);
  void pollJobs();
  /// Pauses the layout worker while a job measures pass times, resumes it after.
  void syncLayoutPause();
  void adoptTrace(viewmodel::TracePtr t);
  /// Shows a graph jobA loaded while its run is still to come (the first frame of an open).
  void showLoaded(std::shared_ptr<const ir::Graph> source);
  /// Makes `t` the stepped run (selection clamped, layouts requested, window title); keeps the
  /// comparison. adoptTrace = a new run A; showPreparation swaps with the preparation run.
  void showRun(viewmodel::TracePtr t);
  void showError(const std::string& msg);
  std::string exportBase() const;
  /// Writes the current run as lstrace, csv, md, chrome or dot (the selected snapshot).
  Status exportRun(const std::string& format, const std::string& path) override;
  bool idle() const override;  // no job, no pending layout of the shown graph, no pending compare
  bool scriptRunning() const { return script_ && !script_->done(); }

  void drawMenu();
  void drawToolbar();
  void drawPanels();
  void drawStatusBar();
  void drawDialogs();
  void drawHelp();
  void handleGlobalKeys();

  // ---- ScriptHost (app_script_host.cpp; the rest is above)
  viewmodel::RunConfig runConfig() const override { return config_; }
  void setRunConfig(const viewmodel::RunConfig& c) override { config_ = c; }
  void requestCompare(const viewmodel::RunConfig& b, int repeat) override;
  viewmodel::TracePtr trace() const override { return state_.trace; }
  viewmodel::TracePtr compareTrace() const override { return state_.compareTrace; }
  int selectedPass() const override { return state_.selectedPass; }
  void selectPass(int pass) override { state_.selectPass(pass); }
  void stepPass(viewmodel::StepKey key) override;
  void setPin(std::optional<int> pass) override;
  void addPane(int pass, bool runB) override;
  void clearPanes() override;
  viewmodel::PassFilter passFilter() const override { return state_.filter; }
  void setPassFilter(const viewmodel::PassFilter& f) override { state_.filter = f; }
  std::shared_ptr<const ir::Graph> shownGraph() const override { return state_.shownGraph(); }
  std::shared_ptr<const ir::Graph> comparedGraph() const override { return state_.comparedGraph(); }
  ir::NodeId selectedNode() const override { return state_.selectedNode; }
  void selectNode(ir::NodeId id) override;
  std::vector<std::string> subgraphPath() const override { return state_.subgraphPath; }
  void enterSubgraph(const std::string& name) override;
  void leaveSubgraph() override;
  Status showPreparation(bool on) override;
  viewmodel::TracePtr pipelineTrace() const override { return state_.pipelineTrace; }
  void showView(const std::string& name) override;
  void setSearch(const std::string& text) override;
  bool searchStep(int dir) override;
  bool changeStep(int dir) override;
  void fitGraph() override;
  void setGraphOption(const std::string& name, bool on) override;
  bool foldModule(const std::string& path, bool expand) override;
  std::vector<std::string> inspectorLines(const std::string& what) override;
  bool followLineage(size_t index) override;
  void zoomGraph(float factor) override;
  Status exportComparison(const std::string& format, const std::string& path) override;
  Status exportChart(const std::string& path) override;
  void setTimingOption(const std::string& name, const std::string& value) override;
  std::string abVerdict(const std::string& pass) override;
  bool pressKey(const std::string& key, bool shift) override;
  bool helpShown() const override { return showHelp_; }
  bool errorShown() const override { return errorShown_ || errorPending_; }
  size_t diffSize() override;
  int64_t viewCount(ViewCount what) override;
  void note(const std::string& line) override;

  AppOptions opts_;
  GLFWwindow* window_;
  viewmodel::Settings settings_;
  std::string settingsPath_;

  viewmodel::RunConfig config_;
  std::shared_ptr<const ir::Graph> source_;  // the loaded graph (re-run without reloading)
  std::string currentPath_;
  viewmodel::RunJob jobA_, jobB_;
  std::optional<viewmodel::RunConfig> pendingCompare_;
  std::optional<std::string> pendingOpen_;  // opened while a run was being cancelled
  std::optional<int> loadedPass_;  // the selected pass before showLoaded, restored with the run
  std::unique_ptr<graph_layout::LayoutCache> layouts_;

  viewers::ViewState state_;
  viewers::PipelineView pipelineView_;
  std::unique_ptr<viewers::GraphView> graphView_;
  std::unique_ptr<viewers::PanesView> panesView_;
  viewers::InspectorView inspectorView_;
  viewers::TimingView timingView_;
  viewers::DelegationView delegationView_;
  viewers::IrDiffView irDiffView_;
  viewers::FileBrowser browser_;

  std::string error_;
  bool errorPending_ = false;
  bool errorShown_ = false;
  bool showHelp_ = false;
  bool browseForCompare_ = false;  // the file browser picks trace B
  bool showPipeline_ = true, showInspector_ = true;

  // test hooks
  std::unique_ptr<ScriptRunner> script_;  // --script (null without)
  int settleFrames_ = 0;
  int pendingKey_ = 0;
  bool pendingShift_ = false;
  int keyPhase_ = 0;  // 1: press on the next frame, 2: release
  double startTime_ = 0;
  bool exit_ = false;
  int exitCode_ = 0;
};

}  // namespace ls::app
