// The desktop shell: menus, toolbar (pipeline/profile/target pickers, Run/Cancel, progress),
// panel layout with splitters, dialogs (file browser, errors, help), the worker jobs, the
// layout cache, settings persistence, and the --script / --screenshot test hooks.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/graph_layout/layout_cache.h"
#include "viewers/file_browser.h"
#include "viewers/graph_view.h"
#include "viewers/inspector_view.h"
#include "viewers/model/run_job.h"
#include "viewers/model/script.h"
#include "viewers/model/settings.h"
#include "viewers/pipeline_view.h"
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
  bool useSettings = true; ///< load/save the settings file (off in test modes)
  double timeoutSec = 120; ///< test modes: give up after this long
};

class App {
 public:
  App(AppOptions opts, GLFWwindow* window);
  ~App();

  /// Builds one frame of UI (between ImGui::NewFrame and ImGui::Render).
  void frame();
  /// After the draw data is rendered into the back buffer: PNG captures, screenshot, exit.
  void afterRender();
  void onDrop(const std::vector<std::string>& paths);
  /// Before ImGui::NewFrame: applies key presses of the script.
  void beforeNewFrame();
  /// Work is in flight (run, layout, script): the loop should not sleep.
  bool busy() const;
  bool wantsExit() const { return exit_; }
  int exitCode() const { return exitCode_; }
  void saveSettings();
  viewmodel::Settings& settings() { return settings_; }

 private:
  void openFile(const std::string& path);
  void startRun();
  /// Loads a saved run (.lstrace) as comparison B for the timing view.
  void openCompareTrace(const std::string& path);
  void startCompare(const viewmodel::RunConfig& cfg);
  void pollJobs();
  void adoptTrace(viewmodel::TracePtr t);
  void showError(const std::string& msg);
  std::string exportBase() const;
  /// Writes the current run as lstrace, csv, md, chrome or dot (the selected snapshot).
  Status exportRun(const std::string& format, const std::string& path);
  bool idle() const;  // no job, no pending layout of the shown graph, no pending compare

  void drawMenu();
  void drawToolbar();
  void drawPanels();
  void drawStatusBar();
  void drawDialogs();
  void drawHelp();
  void handleGlobalKeys();

  void runScript();
  Status execute(const viewmodel::ScriptCommand& c);
  int findPass(const viewmodel::ScriptCommand& c) const;
  Status expect(const viewmodel::ScriptCommand& c);

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
  std::unique_ptr<graph_layout::LayoutCache> layouts_;

  viewers::ViewState state_;
  viewers::PipelineView pipelineView_;
  std::unique_ptr<viewers::GraphView> graphView_;
  viewers::InspectorView inspectorView_;
  viewers::TimingView timingView_;
  viewers::FileBrowser browser_;

  std::string error_;
  bool errorPending_ = false;
  bool errorShown_ = false;
  bool showHelp_ = false;
  bool browseForCompare_ = false;  // the file browser picks trace B
  bool showPipeline_ = true, showInspector_ = true;

  // test hooks
  std::vector<viewmodel::ScriptCommand> script_;
  size_t scriptPos_ = 0;
  bool scriptWaiting_ = false;
  int scriptFrames_ = 0;
  bool scriptDone_ = true;
  int settleFrames_ = 0;
  int pendingKey_ = 0;
  bool pendingShift_ = false;
  int keyPhase_ = 0;  // 1: press on the next frame, 2: release
  double startTime_ = 0;
  bool exit_ = false;
  int exitCode_ = 0;
};

}  // namespace ls::app
