// ls_gui_bench: what the app's graph canvas costs on the bundled models, measured with the real
// view code (GraphView, PanesView, LayoutCache, RunJob) in an offscreen Dear ImGui context (no
// window, no GPU: the CPU time to build the frames' draw lists). Issue 16/17 budgets:
//   open vit_tiny_deep200 to the first frame with the graph drawn  <= 1 s    (BM_OpenToFirstFrame)
//   step to another pass (diff + layout + frame)                   <= 50 ms  (BM_StepPass)
//   frame at full zoom-out with badges                             <= 8 ms   (BM_FrameZoomedOut)
//   3-pane Side by side frame                                      <= 12 ms  (BM_PanesFrame)
//   ./build/dev/tests/ls_gui_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Benchmarks whose work spans the layout worker thread report wall time ("Time") and the CPU
// time of the whole process ("CPU"); the machine is usually shared, so read CPU under load.
// A case is a model, a pipeline and the canvas options (CaseSpec); a new canvas mode (e.g.
// folding by module) is a new CaseSpec field fed to the layout options in layoutOptions().
#include <benchmark/benchmark.h>

#include <imgui.h>

#include <chrono>
#include <map>
#include <memory>

#include "core/graph_layout/layout_cache.h"
#include "core/io/load.h"
#include "viewers/graph_view.h"
#include "viewers/model/graph_model.h"
#include "viewers/model/run_job.h"
#include "viewers/panes_view.h"

namespace {

using namespace ls;
using Clock = std::chrono::steady_clock;

/// What one benchmark opens: a bundled model, the pipeline the app runs on it, the canvas options.
struct CaseSpec {
  std::string model;  ///< file under assets/graphs without ".fxjson.json" ("large/vit_tiny_deep200")
  std::string pipeline = "tosa";
  bool badges = true;  ///< constants as badges (the app's default), else beside their user
  std::string key() const { return model + "|" + pipeline + (badges ? "|badges" : "|nodes"); }
};

const CaseSpec kVit{"large/vit_tiny_deep200"};
const CaseSpec kMobilenet{"mobilenet_v2"};

std::string modelPath(const CaseSpec& c) { return std::string(LS_ASSETS_DIR) + "/graphs/" + c.model + ".fxjson.json"; }

/// The app's layout options for a case (App::layoutOptions: settings defaults).
graph_layout::LayoutOptions layoutOptions(const CaseSpec& c) { return viewmodel::canvasLayoutOptions(true, c.badges); }

std::shared_ptr<const ir::Graph> loadModel(const CaseSpec& c) {
  auto g = io::loadGraphFile(modelPath(c));
  if (!g) {
    fprintf(stderr, "load failed: %s\n", g.message().c_str());
    std::abort();
  }
  return std::make_shared<const ir::Graph>(std::move(g).value());
}

/// The app's run of the case's pipeline (RunJob's body, trace recorded).
viewmodel::TracePtr runPipeline(const std::shared_ptr<const ir::Graph>& src, const CaseSpec& c) {
  viewmodel::RunConfig cfg;
  cfg.pipeline = c.pipeline;
  auto o = viewmodel::RunJob::runNow(src, c.model, cfg, nullptr, {});
  if (!o.trace) {
    fprintf(stderr, "run failed: %s\n", o.trace.message().c_str());
    std::abort();
  }
  return o.trace.value();
}

/// A case opened once per process: its run, and a cache holding the layouts of its whole lineage
/// (what the app has after it laid out the run in the background).
struct Opened {
  viewmodel::TracePtr trace;
  std::unique_ptr<graph_layout::LayoutCache> cache;
  std::vector<int> changed;  ///< passes that changed the graph, in order

  static Opened& get(const CaseSpec& c) {
    static std::map<std::string, std::unique_ptr<Opened>> cases;
    auto& slot = cases[c.key()];
    if (!slot) slot = std::make_unique<Opened>(make(c));
    return *slot;
  }
  static Opened make(const CaseSpec& c) {
    Opened f;
    f.trace = runPipeline(loadModel(c), c);
    for (const auto& r : f.trace->records)
      if (r.status == passes::PassStatus::Changed) f.changed.push_back(r.index);
    f.cache = std::make_unique<graph_layout::LayoutCache>(layoutOptions(c));
    viewers::ViewState s;
    s.trace = f.trace;
    viewers::requestLineageLayouts(*f.cache, s);
    f.cache->wait(f.trace->source.get(), std::chrono::minutes(5));
    for (const auto& g : f.trace->snapshots) f.cache->wait(g.get(), std::chrono::minutes(5));
    return f;
  }
};

/// An ImGui context with a built font atlas and a 1600x1000 display; frames are built but never
/// rendered to a GPU.
struct ImGuiOffscreen {
  ImGuiOffscreen() {
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(1600, 1000);
    io.DeltaTime = 1.f / 60.f;
    // As the app's OpenGL 3.2 renderer: large draw lists are split with VtxOffset.
    io.BackendFlags |= ImGuiBackendFlags_RendererHasVtxOffset;
    unsigned char* px = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&px, &w, &h);
  }
  ~ImGuiOffscreen() { ImGui::DestroyContext(); }
  ImGuiOffscreen(const ImGuiOffscreen&) = delete;
  ImGuiOffscreen& operator=(const ImGuiOffscreen&) = delete;
  /// One frame with `draw` in a full-size window; returns the vertex count.
  template <class Draw>
  int frame(Draw&& draw) {
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImGui::GetIO().DisplaySize);
    ImGui::Begin("graph", nullptr, ImGuiWindowFlags_NoDecoration);
    draw();
    ImGui::End();
    ImGui::Render();
    return ImGui::GetDrawData()->TotalVtxCount;
  }
  int frame(viewers::GraphView& view, viewers::ViewState& s) {
    return frame([&] { view.draw(s); });
  }
};

/// Frames until the shown graph is drawn with its own layout (the layout worker is waited on
/// between frames, as the app's loop sleeps until the worker wakes it). Returns the frames built.
constexpr int kMaxFrames = 10000;  ///< framesUntilDrawn gives up here: the graph never showed

int framesUntilDrawn(ImGuiOffscreen& ctx, viewers::GraphView& view, viewers::ViewState& s, graph_layout::LayoutCache& cache) {
  int frames = 0;
  for (; frames < kMaxFrames; ++frames) {
    ctx.frame(view, s);
    // Drawn: its layout ready and something of it on screen. After a step the camera stays
    // where it was, so a pass that removed everything there (a DCE) shows only the removed
    // nodes' ghosts: that frame is the step's result too.
    const viewers::CanvasStats& drawn = view.lastStats();
    if (!view.layoutPending(s) && (drawn.nodes > 0 || drawn.ghosts > 0)) return frames + 1;
    if (auto g = s.shownGraph()) cache.wait(g.get(), std::chrono::milliseconds(50));
  }
  return frames;
}

/// What the last frame drew (`vtx` < 0: vertices not counted).
void setCounters(benchmark::State& st, const viewers::GraphView& view, int vtx) {
  st.counters["nodes_drawn"] = view.lastStats().nodes;
  st.counters["edges_drawn"] = view.lastStats().edges;
  st.counters["labels_drawn"] = view.lastStats().labels;
  st.counters["badges_drawn"] = view.lastStats().badges;
  if (vtx >= 0) st.counters["vertices"] = vtx;
  st.counters["zoom"] = view.camera().zoom;
}

// ---- (a) opening a model

/// File > Open to the first frame with the graph drawn: load, lay out the source graph, build the
/// canvas and draw (`run` = 0). With `run` = 1, as the app opens a file today: load, run the
/// default pipeline (tosa) with the trace recorded, request the lineage's layouts (the shown
/// graph first), then frames until the source graph is drawn.
void BM_OpenToFirstFrame(benchmark::State& st, CaseSpec c, bool run) {
  ImGuiOffscreen ctx;
  int frames = 0;
  size_t nodes = 0;
  for (auto _ : st) {
    graph_layout::LayoutCache cache(layoutOptions(c));
    viewers::GraphView view(cache);
    viewers::ViewState s;
    auto src = loadModel(c);
    if (run) {
      s.trace = runPipeline(src, c);
    } else {
      auto t = std::make_shared<trace::Trace>();
      t->model = c.model;
      src->buildIndices();
      t->source = src;
      s.trace = t;
    }
    viewers::requestLineageLayouts(cache, s);
    frames = framesUntilDrawn(ctx, view, s, cache);
    if (frames >= kMaxFrames) st.SkipWithError("the opened graph was never drawn");
    nodes = s.trace->source->size();
    setCounters(st, view, -1);
  }
  st.counters["frames"] = frames;
  st.counters["graph_nodes"] = double(nodes);
}
BENCHMARK_CAPTURE(BM_OpenToFirstFrame, vit_tiny_deep200, kVit, false)
    ->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime()->MeasureProcessCPUTime();
BENCHMARK_CAPTURE(BM_OpenToFirstFrame, vit_tiny_deep200_with_run, kVit, true)
    ->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime()->MeasureProcessCPUTime();

// ---- (b) stepping between passes

/// Up/Down to the next pass that changed the graph (the steps that cost: new graph, new diff), and
/// frames until it is drawn with its own layout. `cached` = 1: every layout of the lineage is
/// ready (the app lays the run out in the background after it opens); 0: the stepped-to
/// snapshot is laid out on the step (incrementally from the one before, which is ready).
void BM_StepPass(benchmark::State& st, CaseSpec c, bool cached) {
  Opened& f = Opened::get(c);
  ImGuiOffscreen ctx;
  std::unique_ptr<graph_layout::LayoutCache> fresh;
  std::unique_ptr<viewers::GraphView> view;
  viewers::ViewState s;
  size_t next = 0;
  double worst = 0;
  int frames = 0;
  // A new walk through the lineage: at the source, its layout ready.
  auto restart = [&] {
    view.reset();
    graph_layout::LayoutCache* cache = f.cache.get();
    if (!cached) {
      fresh = std::make_unique<graph_layout::LayoutCache>(layoutOptions(c));
      fresh->request(f.trace->source);
      fresh->wait(f.trace->source.get(), std::chrono::minutes(1));
      cache = fresh.get();
    }
    view = std::make_unique<viewers::GraphView>(*cache);
    s = {};
    s.trace = f.trace;
    s.selectPass(-1);
    view->requestFit();
    framesUntilDrawn(ctx, *view, s, *cache);
    next = 0;
  };
  restart();
  for (auto _ : st) {
    if (next == f.changed.size()) {
      st.PauseTiming();
      restart();
      st.ResumeTiming();
    }
    const auto t0 = Clock::now();
    s.selectPass(f.changed[next++]);
    frames = framesUntilDrawn(ctx, *view, s, cached ? *f.cache : *fresh);
    if (frames >= kMaxFrames) st.SkipWithError("a stepped-to pass was never drawn");
    worst = std::max(worst, std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  st.counters["worst_ms"] = worst;
  st.counters["frames"] = frames;
  st.counters["changed_passes"] = double(f.changed.size());
  st.counters["final_nodes"] = double(f.trace->finalGraph().size());
}
BENCHMARK_CAPTURE(BM_StepPass, vit_tiny_deep200_cached, kVit, true)
    ->Unit(benchmark::kMillisecond)->UseRealTime()->MeasureProcessCPUTime();
BENCHMARK_CAPTURE(BM_StepPass, vit_tiny_deep200_layout_on_step, kVit, false)
    ->Unit(benchmark::kMillisecond)->UseRealTime()->MeasureProcessCPUTime();

// ---- (c) frames of the graph view

/// One frame at full zoom-out (Fit, wrapped into columns) of the pass with `which` = 0: the source
/// graph, 1: the final graph (the most nodes), badges on, diff against the previous pass.
void BM_FrameZoomedOut(benchmark::State& st, CaseSpec c, int which) {
  Opened& f = Opened::get(c);
  ImGuiOffscreen ctx;
  viewers::GraphView view(*f.cache);
  viewers::ViewState s;
  s.trace = f.trace;
  s.selectPass(which == 0 ? -1 : f.changed.back());
  view.requestFit();
  framesUntilDrawn(ctx, view, s, *f.cache);
  int vtx = 0;
  for (auto _ : st) vtx = ctx.frame(view, s);
  setCounters(st, view, vtx);
  st.counters["graph_nodes"] = double(s.shownGraph()->size());
}
BENCHMARK_CAPTURE(BM_FrameZoomedOut, vit_tiny_deep200_source, kVit, 0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FrameZoomedOut, vit_tiny_deep200_final, kVit, 1)->Unit(benchmark::kMillisecond);

/// One frame at 100% centred on a node in the middle of the final graph (labels and badges drawn).
void BM_FrameZoomedIn(benchmark::State& st, CaseSpec c) {
  Opened& f = Opened::get(c);
  ImGuiOffscreen ctx;
  viewers::GraphView view(*f.cache);
  viewers::ViewState s;
  s.trace = f.trace;
  s.selectPass(f.changed.back());
  const ir::Graph& g = *s.shownGraph();
  s.selectedNode = g.at(g.size() / 2).id;
  s.centerRequested = true;
  framesUntilDrawn(ctx, view, s, *f.cache);
  view.zoomBy(1.f / view.camera().zoom);
  ctx.frame(view, s);
  int vtx = 0;
  for (auto _ : st) vtx = ctx.frame(view, s);
  setCounters(st, view, vtx);
}
BENCHMARK_CAPTURE(BM_FrameZoomedIn, vit_tiny_deep200, kVit)->Unit(benchmark::kMillisecond);

// ---- (d) Side by side

/// One frame of the Side by side tab with three panes (the source, the middle changed pass, the
/// final graph) at Fit, one node selected (its counterparts outlined in every pane).
void BM_PanesFrame(benchmark::State& st, CaseSpec c) {
  Opened& f = Opened::get(c);
  ImGuiOffscreen ctx;
  viewers::PanesView panes(*f.cache);
  viewers::ViewState s;
  s.trace = f.trace;
  s.addPane(-1);
  s.addPane(f.changed[f.changed.size() / 2]);
  s.addPane(f.changed.back());
  s.selectPass(-1);
  const ir::Graph& g = *s.shownGraph();
  for (size_t i = 0; i < g.size() && s.selectedNode == ir::kInvalidNode; ++i)
    if (g.at(i).target == "aten.convolution.default" || g.at(i).target == "aten.linear.default") s.selectedNode = g.at(i).id;
  int vtx = 0;
  for (int k = 0; k < 3; ++k) vtx = ctx.frame([&] { panes.draw(s); });
  for (auto _ : st) vtx = ctx.frame([&] { panes.draw(s); });
  st.counters["panes"] = double(panes.paneCount());
  st.counters["panes_synced"] = double(panes.panesWithSelection());
  st.counters["vertices"] = vtx;
}
BENCHMARK_CAPTURE(BM_PanesFrame, mobilenet_v2, kMobilenet)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PanesFrame, vit_tiny_deep200, kVit)->Unit(benchmark::kMillisecond);

}  // namespace
