// The desktop shell: construction, jobs, menus, toolbar, panels, dialogs, captures.
#include "app/lowerscope/app.h"

#include <algorithm>
#include <filesystem>

#include <GLFW/glfw3.h>
#include <fmt/format.h>
#include <imgui.h>
#include <imgui_stdlib.h>

#include "app/lowerscope/capture.h"
#include "core/io/exports.h"
#include "core/io/lstrace.h"
#include "core/passes/pass_manager.h"
#include "core/util/atomic_file.h"
#include "viewers/model/graph_model.h"

namespace ls::app {

namespace {
std::string defaultSample() { return std::string(LS_ASSETS_DIR) + "/graphs/mobilenet_v2.fxjson.json"; }
}  // namespace

App::App(AppOptions opts, GLFWwindow* window) : opts_(std::move(opts)), window_(window) {
  startTime_ = glfwGetTime();
  std::string dir = viewmodel::configDir();
  if (opts_.useSettings && !dir.empty()) {
    settingsPath_ = dir + "/settings.ini";
    settings_ = viewmodel::loadSettings(settingsPath_);
  }
  // Run config: command line > settings > defaults.
  config_.pipeline = !opts_.pipeline.empty() ? opts_.pipeline : !settings_.pipeline.empty() ? settings_.pipeline : viewmodel::defaultPipeline();
  if (!passes::PipelineRegistry::instance().find(config_.pipeline)) config_.pipeline = viewmodel::defaultPipeline();
  std::string prof = opts_.profile.empty() ? settings_.profile : opts_.profile;
  std::string tgt = opts_.target.empty() ? settings_.target : opts_.target;
  if (auto p = passes::parseProfile(prof)) config_.profile = *p;
  if (auto t = passes::parseTarget(tgt)) config_.target = *t;

  layouts_ = std::make_unique<graph_layout::LayoutCache>(layoutOptions());
  layouts_->setOnReady([](const ir::Graph*) { glfwPostEmptyEvent(); });
  jobA_.onFinished = [] { glfwPostEmptyEvent(); };
  jobB_.onFinished = [] { glfwPostEmptyEvent(); };
  graphView_ = std::make_unique<viewers::GraphView>(*layouts_);
  panesView_ = std::make_unique<viewers::PanesView>(*layouts_);

  if (!opts_.script.empty()) {
    auto runner = ScriptRunner::load(opts_.script);
    if (!runner) {
      fmt::print(stderr, "lowerscope: {}\n", runner.message());
      exit_ = true;
      exitCode_ = 2;
      return;
    }
    script_ = std::make_unique<ScriptRunner>(std::move(runner).value());
    script_->setKeepGoing(opts_.scriptKeepGoing);
    script_->setEcho(opts_.scriptEcho);
  }
  // A script that opens its own file does not need the sample first.
  bool scriptOpens = script_ && script_->opensFile();
  if (!opts_.file.empty()) openFile(opts_.file);
  else if (!scriptOpens) openFile(defaultSample());
}

App::~App() = default;

void App::saveSettings() {
  if (settingsPath_.empty()) return;
  int w = 0, h = 0;
  glfwGetWindowSize(window_, &w, &h);
  if (w > 0 && h > 0) settings_.windowWidth = w, settings_.windowHeight = h;
  settings_.pipeline = config_.pipeline;
  settings_.profile = std::string(passes::profileName(config_.profile));
  settings_.target = std::string(passes::targetName(config_.target));
  if (!browser_.directory().empty()) settings_.lastDir = browser_.directory();
  Status st = viewmodel::saveSettings(settings_, settingsPath_);
  if (!st) fmt::print(stderr, "lowerscope: {}\n", st.message());
}

std::string App::exportBase() const {
  std::string model = state_.trace ? std::filesystem::path(state_.trace->model).filename().string() : "run";
  for (const char* ext : {".fxjson.json", ".lstrace", ".lsg", ".json"}) {
    std::string e(ext);
    if (model.size() > e.size() && model.compare(model.size() - e.size(), e.size(), e) == 0) {
      model.resize(model.size() - e.size());
      break;
    }
  }
  return timingView_.exportDir + "/" + model + "_" + config_.pipeline;
}

Status App::exportRun(const std::string& format, const std::string& path) {
  if (!state_.trace) return Status::error("export: no run");
  const trace::Trace& t = *state_.trace;
  Status st;
  if (format == "lstrace") st = io::saveTrace(t, path);
  else if (format == "csv") st = writeFileAtomic(path, io::traceToCsv(t));
  else if (format == "md") st = writeFileAtomic(path, io::traceToMarkdown(t));
  else if (format == "chrome") st = writeFileAtomic(path, io::traceToChromeJson(t));
  else if (format == "dot") st = writeFileAtomic(path, io::snapshotToDot(t, state_.selectedPass));
  else st = Status::error(fmt::format("export: unknown format '{}' (lstrace, csv, md, chrome, dot)", format));
  state_.statusMessage = st ? "wrote " + path : st.message();
  if (!st) showError(st.message());
  return st;
}

void App::showError(const std::string& msg) {
  error_ = msg;
  errorPending_ = true;
  fmt::print(stderr, "lowerscope: {}\n", msg);
}

void App::openFile(const std::string& path) {
  if (jobA_.busy()) {
    // Never block the UI on the running job: cancel it and open when it has stopped.
    jobA_.cancel();
    pendingOpen_ = path;
    return;
  }
  std::error_code ec;
  std::string abs = std::filesystem::absolute(path, ec).lexically_normal().string();
  if (ec || !std::filesystem::is_regular_file(abs, ec)) {
    showError(fmt::format("{}: no such file", path));
    return;
  }
  currentPath_ = abs;
  // The loaded graph is drawn before its run starts (showLoaded, then release in frame()).
  jobA_.startFile(abs, config_, /*holdAfterLoad=*/true);
  syncLayoutPause();
}

void App::startRun() {
  if (!source_) {
    if (!currentPath_.empty()) jobA_.startFile(currentPath_, config_, /*holdAfterLoad=*/true);
    syncLayoutPause();
    return;
  }
  if (jobA_.busy()) return;
  std::string model = state_.trace ? state_.trace->model : source_->modelName;
  jobA_.startGraph(source_, model, config_);
  syncLayoutPause();
}

void App::startCompare(const viewmodel::RunConfig& cfg) {
  if (!source_) {
    showError("Compare: no graph loaded");
    return;
  }
  if (jobB_.busy()) return;
  state_.compareTrace.reset();
  state_.compareRepeats.reset();
  std::string model = state_.trace ? state_.trace->model : source_->modelName;
  // B's trace, then A and B timed in interleaved repeats as `lowerscope-cli bench` does.
  jobB_.startCompare(source_, model, config_, cfg, session::RepeatOptions{state_.compareRepeat, 1});
  syncLayoutPause();
}

void App::openCompareTrace(const std::string& path) {
  if (!state_.trace) {
    showError("Compare: open a run first");
    return;
  }
  if (jobB_.busy()) return;
  if (!viewmodel::isTracePath(path)) {
    showError(fmt::format("{}: not a trace (.lstrace or a recorder bundle); only saved runs can be compared", path));
    return;
  }
  state_.compareTrace.reset();
  state_.compareRepeats.reset();
  jobB_.startFile(path, config_);
  syncLayoutPause();
}

void App::adoptTrace(viewmodel::TracePtr t) {
  state_.compareTrace.reset();
  state_.compareRepeats.reset();
  state_.pipelineTrace.reset();
  state_.labelA = viewmodel::describe(config_);
  showRun(std::move(t));
}

void App::showLoaded(std::shared_ptr<const ir::Graph> source) {
  // Until its run finishes, the loaded graph is shown as a run without passes.
  auto t = std::make_shared<trace::Trace>();
  t->model = source->modelName.empty() ? currentPath_ : source->modelName;
  t->pipeline = config_.pipeline;
  t->profile = config_.profile;
  t->target = config_.target;
  t->source = std::move(source);
  if (!loadedPass_) loadedPass_ = state_.selectedPass;
  adoptTrace(std::move(t));
  state_.statusMessage = fmt::format("{}: {} nodes loaded; running {}", state_.trace->model, state_.trace->source->size(),
                                     viewmodel::describe(config_));
}

void App::showRun(viewmodel::TracePtr t) {
  // The same source graph as shown (the loaded graph drawn while its run ran): its layout and the
  // camera stay.
  const bool sameSource = state_.trace && t && state_.trace->source && state_.trace->source == t->source;
  state_.trace = std::move(t);
  state_.pinnedPass = viewers::kNoPin;
  state_.subgraphPath.clear();
  if (!sameSource) state_.fitRequested = true;
  // Keep the selection when re-running the same model; else start at the last changed pass
  // (what the user most likely wants to see), or the source.
  state_.selectPass(state_.selectedPass);
  if (auto shown = state_.shownGraph(); !shown || !shown->find(state_.selectedNode)) state_.selectedNode = ir::kInvalidNode;
  layouts_->clear(sameSource ? state_.trace->source.get() : nullptr);
  requestLineageLayouts();
  const trace::Trace& tr = *state_.trace;
  glfwSetWindowTitle(window_, fmt::format("Lowerscope - {} ({})", tr.model, state_.labelA).c_str());
}

void App::syncLayoutPause() {
  if (layouts_->paused() != measuring()) layouts_->setPaused(measuring());
}

void App::pollJobs() {
  if (pendingOpen_ && !jobA_.busy()) {
    (void)jobA_.take();  // the cancelled job's outcome is for the file being replaced
    std::string path = std::move(*pendingOpen_);
    pendingOpen_.reset();
    openFile(path);
  }
  if (auto src = jobA_.takeLoaded()) showLoaded(std::move(src));
  if (auto o = jobA_.take()) {
    if (o->source) source_ = o->source;
    // Selection as before the loaded graph was shown (re-opening keeps the pass); showRun clamps
    // it to the new run.
    if (loadedPass_) state_.selectedPass = *loadedPass_;
    loadedPass_.reset();
    if (!o->path.empty()) {
      settings_.addRecent(o->path);
      if (o->fromTraceFile) config_ = o->config;
    }
    if (!o->trace) {
      // The loaded graph (a run without passes) stays shown: the selection is clamped to it.
      state_.selectPass(state_.selectedPass);
      showError(o->trace.message());
    } else {
      adoptTrace(o->trace.value());
      const trace::Trace& t = *state_.trace;
      if (o->cancelled) state_.statusMessage = "run cancelled";
      else state_.statusMessage = fmt::format("{}: {} passes in {}", t.model, t.records.size(),
                                              viewmodel::formatDuration(t.totalNs));
      if (t.totals().failed) state_.statusMessage += " - a pass failed (see the pipeline view)";
      if (!o->quantized.empty()) state_.statusMessage += "; quantized first: " + o->quantized;
    }
    if (!o->path.empty()) state_.importWarnings = o->warnings;
    if (!state_.importWarnings.empty())
      state_.statusMessage += fmt::format(" - {} load warning(s), hover here", state_.importWarnings.size());
  }
  if (auto o = jobB_.take()) {
    if (!o->fromTraceFile && o->source != source_) {
      // A file was opened while run B was computed: the comparison is for another model.
    } else if (!o->trace) showError("Compare run: " + o->trace.message());
    else {
      state_.compareTrace = o->trace.value();
      state_.compareRepeats = o->repeats;
      if (!o->repeatsError.empty()) state_.statusMessage = "Compare: no timed repeats: " + o->repeatsError;
      state_.labelB = viewmodel::describe(o->config);
      if (o->fromTraceFile) state_.labelB += " (" + std::filesystem::path(o->path).filename().string() + ")";
      state_.tab = viewers::CenterTab::Timing;
      state_.tabChangeRequested = true;
    }
  }
  if (state_.preparationRequest) {
    if (Status st = showPreparation(*state_.preparationRequest); !st) state_.statusMessage = st.message();
    state_.preparationRequest.reset();
  }
  if (state_.compareRequest) {
    pendingCompare_ = state_.compareRequest;
    state_.compareRequest.reset();
  }
  if (pendingCompare_ && !jobA_.busy() && !jobB_.busy()) {
    startCompare(*pendingCompare_);
    pendingCompare_.reset();
  }
  syncLayoutPause();
}

bool App::idle() const {
  if (jobA_.busy() || jobB_.busy() || pendingCompare_ || state_.compareRequest || pendingOpen_) return false;
  if (state_.tab == viewers::CenterTab::Graph && graphView_->layoutPending(state_)) return false;
  return true;
}

bool App::busy() const {
  return jobA_.busy() || jobB_.busy() || scriptRunning() || !opts_.screenshot.empty() || graphView_->layoutPending(state_);
}

void App::beforeNewFrame() {
  // Script key presses: down for one frame, then up, exactly as the GLFW key callback would.
  if (keyPhase_ == 0) return;
  ImGuiIO& io = ImGui::GetIO();
  bool down = keyPhase_ == 1;
  io.KeysDown[pendingKey_] = down;
  io.KeyShift = down && pendingShift_;
  keyPhase_ = down ? 2 : 0;
}

void App::onDrop(const std::vector<std::string>& paths) {
  if (!paths.empty()) openFile(paths.front());
}

// ---------------------------------------------------------------- frame

void App::frame() {
  pollJobs();
  state_.revalidate();
  // A held open (startFile with holdAfterLoad) runs its pipeline once the loaded graph has been
  // drawn: its layout was ready when the panels below were drawn (or it is not on screen).
  const bool loadedDrawn = !graphView_->layoutPending(state_) || state_.tab != viewers::CenterTab::Graph;
  handleGlobalKeys();
  drawMenu();
  ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  ImGuiWindowFlags hostFlags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoBringToFrontOnFocus |
                               ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoScrollbar;
  ImGui::PushStyleVar(ImGuiStyleVar_WindowRounding, 0.f);
  ImGui::Begin("##host", nullptr, hostFlags);
  ImGui::PopStyleVar();
  drawToolbar();
  drawPanels();
  drawStatusBar();
  ImGui::End();
  drawDialogs();
  if (showHelp_) drawHelp();
  if (jobA_.holding() && loadedDrawn) {
    jobA_.release();
    syncLayoutPause();
  }
  if (scriptRunning() && !exit_) {
    const size_t errorsBefore = script_->errors().size();
    script_->step(*this);
    for (size_t i = errorsBefore; i < script_->errors().size(); ++i)
      fmt::print(stderr, "lowerscope: (keep going) {}\n", script_->errors()[i]);
    if (script_->failed()) {
      fmt::print(stderr, "lowerscope: {}\n", script_->error());
      exit_ = true;
      exitCode_ = 1;
    }
  }
}

void App::handleGlobalKeys() {
  ImGuiIO& io = ImGui::GetIO();
  if (ImGui::IsPopupOpen(nullptr, ImGuiPopupFlags_AnyPopupId)) return;
  if (!io.WantTextInput) {
    pipelineView_.handleKeys(state_);
    if (ImGui::IsKeyPressed(GLFW_KEY_F1, false) || (io.KeyShift && ImGui::IsKeyPressed(GLFW_KEY_SLASH, false))) showHelp_ = !showHelp_;
    if (ImGui::IsKeyPressed(GLFW_KEY_F5, false)) startRun();
    if (ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false)) {
      if (jobA_.busy()) jobA_.cancel();
      else showHelp_ = false;
    }
    if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_O, false)) browseForCompare_ = false, browser_.open(settings_.lastDir);
    if (!io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_P, false) && state_.trace)
      state_.pinnedPass = state_.pinnedPass == state_.selectedPass ? viewers::kNoPin : state_.selectedPass;
    if (!io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_B, false)) setConstantBadges(!settings_.constantBadges);
    if (!io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_S, false) && state_.trace) {
      state_.addPane(state_.selectedPass);
      panesView_->requestFit();
      state_.tab = viewers::CenterTab::Panes;
      state_.tabChangeRequested = true;
    }
    if (!io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_D, false)) {
      state_.tab = state_.tab == viewers::CenterTab::IrDiff ? viewers::CenterTab::Graph : viewers::CenterTab::IrDiff;
      state_.tabChangeRequested = true;
    }
    if (ImGui::IsKeyPressed(GLFW_KEY_T, false)) {
      state_.tab = state_.tab == viewers::CenterTab::Graph ? viewers::CenterTab::Timing : viewers::CenterTab::Graph;
      state_.tabChangeRequested = true;
    }
  }
}

void App::drawMenu() {
  if (!ImGui::BeginMainMenuBar()) return;
  if (ImGui::BeginMenu("File")) {
    if (ImGui::MenuItem("Open...", "Ctrl+O")) browseForCompare_ = false, browser_.open(settings_.lastDir);
    if (ImGui::MenuItem("Open trace as comparison B...", nullptr, false, state_.trace != nullptr))
      browseForCompare_ = true, browser_.open(settings_.lastDir);
    if (ImGui::BeginMenu("Open Recent", !settings_.recent.empty())) {
      for (const std::string& r : settings_.recent)
        if (ImGui::MenuItem(r.c_str())) openFile(r);
      ImGui::Separator();
      if (ImGui::MenuItem("Clear list")) settings_.recent.clear();
      ImGui::EndMenu();
    }
    if (ImGui::MenuItem("Open bundled sample")) openFile(defaultSample());
    ImGui::Separator();
    if (ImGui::BeginMenu("Export run", state_.trace != nullptr)) {
      if (ImGui::MenuItem("Trace (.lstrace)")) (void)exportRun("lstrace", exportBase() + ".lstrace");
      if (ImGui::MenuItem("Timing CSV")) (void)exportRun("csv", exportBase() + ".csv");
      if (ImGui::MenuItem("Timing Markdown")) (void)exportRun("md", exportBase() + ".md");
      if (ImGui::MenuItem("Chrome trace (Perfetto)")) (void)exportRun("chrome", exportBase() + ".trace.json");
      if (ImGui::MenuItem("Selected snapshot as DOT")) (void)exportRun("dot", exportBase() + fmt::format(".pass{}.dot", state_.selectedPass));
      ImGui::EndMenu();
    }
    ImGui::Separator();
    if (ImGui::MenuItem("Quit", "Alt+F4")) glfwSetWindowShouldClose(window_, 1);
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Run")) {
    if (ImGui::MenuItem("Run pipeline", "F5", false, !jobA_.busy())) startRun();
    if (ImGui::MenuItem("Cancel", "Esc", false, jobA_.busy())) jobA_.cancel();
    ImGui::Separator();
    if (ImGui::MenuItem("Compare: no skip, no fast-copy", nullptr, false, source_ != nullptr)) {
      viewmodel::RunConfig b = config_;
      b.engine.skip = false;
      b.engine.fastCopy = false;
      state_.compareRequest = b;
    }
    if (ImGui::MenuItem("Compare: other profile", nullptr, false, source_ != nullptr)) {
      viewmodel::RunConfig b = config_;
      b.profile = b.profile == passes::Profile::FP ? passes::Profile::INT : passes::Profile::FP;
      state_.compareRequest = b;
    }
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("View")) {
    ImGui::MenuItem("Pipeline panel", nullptr, &showPipeline_);
    ImGui::MenuItem("Inspector panel", nullptr, &showInspector_);
    if (ImGui::MenuItem("Graph", nullptr, state_.tab == viewers::CenterTab::Graph))
      state_.tab = viewers::CenterTab::Graph, state_.tabChangeRequested = true;
    if (ImGui::MenuItem("Timing", "T", state_.tab == viewers::CenterTab::Timing))
      state_.tab = viewers::CenterTab::Timing, state_.tabChangeRequested = true;
    if (ImGui::MenuItem("Side by side", "S", state_.tab == viewers::CenterTab::Panes))
      state_.tab = viewers::CenterTab::Panes, state_.tabChangeRequested = true;
    if (ImGui::MenuItem("IR diff", "D", state_.tab == viewers::CenterTab::IrDiff))
      state_.tab = viewers::CenterTab::IrDiff, state_.tabChangeRequested = true;
    if (ImGui::MenuItem("Delegation", nullptr, state_.tab == viewers::CenterTab::Delegation))
      state_.tab = viewers::CenterTab::Delegation, state_.tabChangeRequested = true;
    if (ImGui::MenuItem("Fit graph", "F")) graphView_->requestFit();
    if (ImGui::MenuItem("Constants as badges", "B", settings_.constantBadges)) setConstantBadges(!settings_.constantBadges);
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Help")) {
    if (ImGui::MenuItem("Keys", "F1", showHelp_)) showHelp_ = !showHelp_;
    ImGui::EndMenu();
  }
  ImGui::EndMainMenuBar();
}

void App::drawToolbar() {
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("pipeline");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(150);
  if (ImGui::BeginCombo("##pipeline", config_.pipeline.c_str())) {
    for (const std::string& n : passes::PipelineRegistry::instance().names()) {
      bool sel = n == config_.pipeline;
      if (ImGui::Selectable(n.c_str(), sel)) config_.pipeline = n;
      if (ImGui::IsItemHovered())
        if (const passes::PipelineDef* d = passes::PipelineRegistry::instance().find(n))
          ImGui::SetTooltip("%s (%zu passes)", d->description.c_str(), d->passes.size());
    }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  int prof = int(config_.profile), tgt = int(config_.target);
  ImGui::TextUnformatted("profile");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(60);
  if (ImGui::Combo("##profile", &prof, "fp\0int\0")) config_.profile = passes::Profile(prof);
  ImGui::SameLine();
  ImGui::TextUnformatted("target");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(90);
  if (ImGui::Combo("##target", &tgt, "generic\0u55\0u85\0")) config_.target = passes::Target(tgt);
  ImGui::SameLine();
  if (config_.profile == passes::Profile::INT) {
    // INT calibration: upstream's histogram observers or min/max, on the seeded inputs or the
    // user's data (a .npy file or directory, as `lowerscope-cli --calibration`).
    int obs = int(config_.observer);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(95);
    if (ImGui::Combo("##observer", &obs, "histogram\0minmax\0")) config_.observer = quant::ActivationObserver(obs);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("activation observers of the INT calibration");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(200);
    ImGui::InputTextWithHint("##calibration", "calibration .npy / dir", &config_.calibration);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("calibrate on your data: a .npy file (a sample or a stack [N, ...]), a directory of "
                        "<input>.npy files or of sample directories; empty: the seeded inputs");
  }
  ImGui::SameLine();
  ImGui::Checkbox("skip", &config_.engine.skip);
  ImGui::SameLine();
  ImGui::Checkbox("fast-copy", &config_.engine.fastCopy);
  ImGui::SameLine();
  ImGui::Checkbox("verify", &config_.verify);
  ImGui::SameLine();
  if (jobA_.busy()) {
    viewmodel::RunJob::Progress p = jobA_.progress();
    if (ImGui::Button("Cancel")) jobA_.cancel();
    ImGui::SameLine();
    float frac = p.count ? float(p.index) / float(p.count) : float(p.fraction);
    std::string text = p.phase == viewmodel::RunJob::Phase::Loading
                           ? fmt::format("loading {}", std::filesystem::path(p.what).filename().string())
                       : p.count == 0 ? fmt::format("{} {:.0f}%", p.passName, 100.0 * p.fraction)
                                      : fmt::format("pass {}/{} {}", p.index + 1, p.count, p.passName);
    ImGui::ProgressBar(frac, ImVec2(-1, 0), text.c_str());
  } else {
    if (ImGui::Button("Run (F5)")) startRun();
    ImGui::SameLine();
    if (jobB_.busy()) {
      viewmodel::RunJob::Progress p = jobB_.progress();
      ImGui::ProgressBar(p.count ? float(p.index) / float(p.count) : 0.f, ImVec2(-1, 0),
                         fmt::format("run B: {}/{} {}", p.index + 1, p.count, p.passName).c_str());
    } else {
      ImGui::TextDisabled("%s", currentPath_.empty() ? "no file" : std::filesystem::path(currentPath_).filename().string().c_str());
    }
  }
}

void App::drawPanels() {
  float statusH = ImGui::GetFrameHeightWithSpacing();
  ImVec2 avail = ImGui::GetContentRegionAvail();
  float h = avail.y - statusH;
  const float splitter = 6.f;
  auto split = [&](const char* id, float& width, float sign) {
    ImGui::SameLine(0, 0);
    ImGui::InvisibleButton(id, ImVec2(splitter, h));
    if (ImGui::IsItemHovered() || ImGui::IsItemActive()) ImGui::SetMouseCursor(ImGuiMouseCursor_ResizeEW);
    if (ImGui::IsItemActive()) width = std::clamp(width + sign * ImGui::GetIO().MouseDelta.x, 120.f, avail.x * 0.6f);
    ImGui::SameLine(0, 0);
  };
  float left = showPipeline_ ? std::min(settings_.leftPanel, avail.x * 0.45f) : 0.f;
  float right = showInspector_ ? std::min(settings_.rightPanel, avail.x * 0.45f) : 0.f;
  if (showPipeline_) {
    ImGui::BeginChild("##pipeline", ImVec2(left, h), true);
    ImGui::TextUnformatted("Pipeline");
    ImGui::Separator();
    pipelineView_.draw(state_);
    ImGui::EndChild();
    split("##splitL", settings_.leftPanel, +1.f);
  }
  float centerW = avail.x - left - right - (showPipeline_ ? splitter : 0) - (showInspector_ ? splitter : 0);
  ImGui::BeginChild("##center", ImVec2(std::max(centerW, 100.f), h), true, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  if (ImGui::BeginTabBar("##tabs")) {
    auto tab = [&](const char* name, viewers::CenterTab t) {
      ImGuiTabItemFlags f = state_.tabChangeRequested && state_.tab == t ? ImGuiTabItemFlags_SetSelected : 0;
      bool open = ImGui::BeginTabItem(name, nullptr, f);
      if (open && !state_.tabChangeRequested) state_.tab = t;
      return open;
    };
    if (tab("Graph", viewers::CenterTab::Graph)) {
      graphView_->draw(state_);
      ImGui::EndTabItem();
    }
    if (tab("Timing", viewers::CenterTab::Timing)) {
      timingView_.draw(state_);
      ImGui::EndTabItem();
    }
    if (tab("Delegation", viewers::CenterTab::Delegation)) {
      delegationView_.draw(state_, state_.shownGraph());
      ImGui::EndTabItem();
    }
    if (tab("IR diff", viewers::CenterTab::IrDiff)) {
      irDiffView_.draw(state_);
      ImGui::EndTabItem();
    }
    if (tab("Side by side", viewers::CenterTab::Panes)) {
      panesView_->draw(state_);
      ImGui::EndTabItem();
    }
    state_.tabChangeRequested = false;
    ImGui::EndTabBar();
  }
  ImGui::EndChild();
  if (showInspector_) {
    split("##splitR", settings_.rightPanel, -1.f);
    ImGui::BeginChild("##inspector", ImVec2(right, h), true);
    ImGui::TextUnformatted("Node inspector");
    ImGui::Separator();
    inspectorView_.draw(state_);
    ImGui::EndChild();
  }
}

void App::drawStatusBar() {
  std::string sel = state_.trace ? (state_.selectedPass < 0 ? std::string("source graph")
                                                            : fmt::format("pass #{} {}", state_.selectedPass,
                                                                          state_.trace->records[size_t(state_.selectedPass)].name))
                                 : std::string("-");
  const viewers::CanvasStats& cs = graphView_->lastStats();
  std::string text = state_.tab == viewers::CenterTab::Graph
                         ? fmt::format("{} | drawn {} nodes {} edges{} | {}", sel, cs.nodes, cs.edges,
                                       cs.truncated ? " (detail limited)" : "", state_.statusMessage)
                         : fmt::format("{} | {}", sel, state_.statusMessage);
  // The message is cut (with "...") before the help hint instead of running under it; the whole
  // text and any load warnings are in the tooltip.
  const char* hint = "F1: keys & help";
  const float hintW = ImGui::CalcTextSize(hint).x + ImGui::GetStyle().ItemSpacing.x * 2;
  const float room = ImGui::GetContentRegionAvail().x - hintW;
  std::string shown = text;
  if (ImGui::CalcTextSize(shown.c_str()).x > room) {
    // The longest prefix that fits with "..." (binary search: a few measurements per frame).
    size_t lo = 0, hi = text.size();
    while (lo < hi) {
      const size_t mid = (lo + hi + 1) / 2;
      if (ImGui::CalcTextSize((text.substr(0, mid) + "...").c_str()).x <= room) lo = mid;
      else hi = mid - 1;
    }
    shown = text.substr(0, lo) + "...";
  }
  ImGui::TextUnformatted(shown.c_str());
  if (ImGui::IsItemHovered() && (shown != text || !state_.importWarnings.empty())) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 50);
    ImGui::TextUnformatted(text.c_str());
    for (const std::string& w : state_.importWarnings) ImGui::BulletText("%s", w.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
  ImGui::SameLine(ImGui::GetWindowWidth() - hintW);
  ImGui::TextDisabled("%s", hint);
}

void App::drawDialogs() {
  if (auto chosen = browser_.draw(settings_.recent)) {
    settings_.lastDir = browser_.directory();
    if (browseForCompare_) openCompareTrace(*chosen);
    else openFile(*chosen);
  }
  if (errorPending_) {
    ImGui::OpenPopup("Error");
    errorPending_ = false;
  }
  errorShown_ = ImGui::IsPopupOpen("Error");
  ImGui::SetNextWindowSize(ImVec2(560, 0), ImGuiCond_Appearing);
  if (ImGui::BeginPopupModal("Error", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
    ImGui::PushTextWrapPos(540);
    ImGui::TextColored(ImVec4(1.f, 0.45f, 0.45f, 1.f), "%s", error_.c_str());
    ImGui::PopTextWrapPos();
    if (ImGui::Button("OK", ImVec2(120, 0)) || ImGui::IsKeyPressed(GLFW_KEY_ENTER, false)) ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
  }
}

void App::drawHelp() {
  ImVec2 vs = ImGui::GetMainViewport()->Size;
  ImGui::SetNextWindowPos(ImVec2(vs.x * 0.5f, vs.y * 0.5f), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowBgAlpha(0.94f);
  if (!ImGui::Begin("Keys", &showHelp_, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings)) {
    ImGui::End();
    return;
  }
  static const char* kKeys[][2] = {
      {"Up / Down", "previous / next pass"},
      {"Shift+Up / Shift+Down", "previous / next pass that changed the graph"},
      {"Home / End", "source graph / last pass"},
      {"P", "pin the selected pass (diff against it) / unpin"},
      {"T", "switch Graph / Timing"},
      {"D", "text IR diff of the pass (printed graphs, unified) / back to the graph"},
      {"S", "add the selected pass to the side-by-side panes (up to 4, one camera and selection)"},
      {"F", "fit the graph (graph view focused)"},
      {"M", "fold modules into boxes / unfold (graph view focused; double-click a fold to expand it)"},
      {"B", "constants and CONST_SHAPE as badges on their users / as nodes"},
      {"mouse wheel / drag", "zoom / pan the graph; drag the minimap to move"},
      {"click / double-click", "select node / centre it (opens nested graphs)"},
      {"F5 / Esc", "run the pipeline / cancel the run"},
      {"Ctrl+O", "open a graph (.fxjson.json, .lsg, .tosa) or a saved run (.lstrace, .lsbundle); or drop a file"},
      {"F1", "this help"},
  };
  if (ImGui::BeginTable("##keys", 2, ImGuiTableFlags_RowBg)) {
    for (auto& k : kKeys) {
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::TextColored(ImVec4(0.5f, 0.8f, 1.f, 1.f), "%s", k[0]);
      ImGui::TableSetColumnIndex(1);
      ImGui::TextUnformatted(k[1]);
    }
    ImGui::EndTable();
  }
  ImGui::Separator();
  ImGui::TextUnformatted("Pass icons: filled = changed, ring = unchanged, dash = skipped (reason shown), X = failed.");
  ImGui::TextUnformatted("Graph colours: added green, changed amber, removed red outlines (ghosts).");
  ImGui::End();
}

// ---------------------------------------------------------------- capture and test hooks

void App::afterRender() {
  int fbw = 0, fbh = 0;
  glfwGetFramebufferSize(window_, &fbw, &fbh);
  bool timedOut = opts_.timeoutSec > 0 && glfwGetTime() - startTime_ > opts_.timeoutSec;
  if ((!opts_.screenshot.empty() || !opts_.script.empty()) && timedOut && !exit_) {
    fmt::print(stderr, "lowerscope: timed out after {} s (script line {}, run busy {}, layout pending {})\n", opts_.timeoutSec,
               script_ ? script_->currentLine() : -1, jobA_.busy() || jobB_.busy(),
               graphView_->layoutPending(state_));
    exit_ = true;
    exitCode_ = 3;
    return;
  }
  if (opts_.screenshot.empty()) {
    if (!opts_.script.empty() && !scriptRunning() && idle() && ++settleFrames_ > 3) exit_ = true;
    return;
  }
  if (scriptRunning() || !idle() || errorPending_) {
    settleFrames_ = 0;
    return;
  }
  // A few frames after idle so windows, tables and the clipper have settled.
  if (++settleFrames_ < 6) return;
  Status st = captureBackBuffer(opts_.screenshot, 0, 0, fbw, fbh, fbh);
  if (!st) {
    fmt::print(stderr, "lowerscope: {}\n", st.message());
    exitCode_ = 1;
  } else {
    fmt::print("lowerscope: wrote {} ({}x{})\n", opts_.screenshot, fbw, fbh);
  }
  exit_ = true;
}

graph_layout::LayoutOptions App::layoutOptions() const {
  return viewmodel::canvasLayoutOptions(settings_.hideConstants, settings_.constantBadges);
}

void App::requestLineageLayouts() { viewers::requestLineageLayouts(*layouts_, state_); }

void App::setConstantBadges(bool on) {
  if (settings_.constantBadges == on) return;
  settings_.constantBadges = on;
  layouts_->setOptions(layoutOptions());
  requestLineageLayouts();
  graphView_->requestFit();
}

}  // namespace ls::app
