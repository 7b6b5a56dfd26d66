// Graph view frame cost on the largest graph (vit_tiny_deep200, 10.8k nodes), measured with an
// offscreen Dear ImGui context (no window, no GPU): the CPU time to build one frame's draw
// lists at full zoom-out and zoomed in, and to step to another pass whose layout is cached.
//   ./build/dev/tests/ls_gui_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <imgui.h>

#include <memory>

#include "core/io/load.h"
#include "core/graph_layout/layout_cache.h"
#include "viewers/graph_view.h"
#include "viewers/model/graph_model.h"
#include "viewers/model/run_job.h"

namespace {

using namespace ls;

struct Fixture {
  viewmodel::TracePtr trace;
  std::unique_ptr<graph_layout::LayoutCache> cache;
  int changedPass = -1;

  static Fixture& get() {
    static Fixture f = make();
    return f;
  }

  static Fixture make() {
    Fixture f;
    auto g = io::loadGraphFile(std::string(LS_ASSETS_DIR) + "/graphs/large/vit_tiny_deep200.fxjson.json");
    if (!g) {
      fprintf(stderr, "load failed: %s\n", g.message().c_str());
      std::abort();
    }
    auto src = std::make_shared<const ir::Graph>(std::move(g).value());
    viewmodel::RunConfig cfg;
    cfg.pipeline = "generic";
    auto o = viewmodel::RunJob::runNow(src, "vit_tiny_deep200", cfg, nullptr, {});
    f.trace = o.trace.value();
    for (const auto& r : f.trace->records)
      if (r.status == passes::PassStatus::Changed) {
        f.changedPass = r.index;
        break;
      }
    // The app's layout options.
    graph_layout::LayoutOptions lo;
    lo.hideConstants = true;
    lo.measureWidth = [](const ir::Graph& gr, const ir::Node& n) { return viewmodel::measureNodeWidth(gr, n, false); };
    f.cache = std::make_unique<graph_layout::LayoutCache>(lo);
    auto prev = f.trace->source;
    f.cache->request(prev);
    for (const auto& s : f.trace->snapshots) {
      f.cache->request(s, prev);
      prev = s;
    }
    f.cache->wait(f.trace->source.get(), std::chrono::seconds(60));
    for (const auto& s : f.trace->snapshots) f.cache->wait(s.get(), std::chrono::seconds(60));
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
  /// One frame with the graph view in a full-size window; returns the vertex count.
  int frame(viewers::GraphView& view, viewers::ViewState& s) {
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImGui::GetIO().DisplaySize);
    ImGui::Begin("graph", nullptr, ImGuiWindowFlags_NoDecoration);
    view.draw(s);
    ImGui::End();
    ImGui::Render();
    return ImGui::GetDrawData()->TotalVtxCount;
  }
};

void setUp(viewers::ViewState& s, Fixture& f, int pass) {
  s.trace = f.trace;
  s.selectPass(pass);
}

void BM_GraphFrameZoomedOut(benchmark::State& st) {
  Fixture& f = Fixture::get();
  ImGuiOffscreen ctx;
  viewers::GraphView view(*f.cache);
  viewers::ViewState s;
  setUp(s, f, f.changedPass);
  view.requestFit();
  ctx.frame(view, s);
  int vtx = 0;
  for (auto _ : st) vtx = ctx.frame(view, s);
  st.counters["nodes_drawn"] = view.lastStats().nodes;
  st.counters["edges_drawn"] = view.lastStats().edges;
  st.counters["vertices"] = vtx;
  st.counters["zoom"] = view.camera().zoom;
}
BENCHMARK(BM_GraphFrameZoomedOut)->Unit(benchmark::kMillisecond);

void BM_GraphFrameZoomedIn(benchmark::State& st) {
  Fixture& f = Fixture::get();
  ImGuiOffscreen ctx;
  viewers::GraphView view(*f.cache);
  viewers::ViewState s;
  setUp(s, f, f.changedPass);
  // Centre on a node in the middle of the graph at 100%.
  const ir::Graph& g = f.trace->graphAfter(f.changedPass);
  s.selectedNode = g.at(g.size() / 2).id;
  s.centerRequested = true;
  ctx.frame(view, s);
  view.zoomBy(1.f / view.camera().zoom);
  ctx.frame(view, s);
  int vtx = 0;
  for (auto _ : st) vtx = ctx.frame(view, s);
  st.counters["nodes_drawn"] = view.lastStats().nodes;
  st.counters["labels_drawn"] = view.lastStats().labels;
  st.counters["vertices"] = vtx;
  st.counters["zoom"] = view.camera().zoom;
}
BENCHMARK(BM_GraphFrameZoomedIn)->Unit(benchmark::kMillisecond);

/// Stepping between the source graph and the changed pass (layouts cached): the frame after a
/// selection change rebuilds the canvas data and the diff.
void BM_StepPassCachedLayout(benchmark::State& st) {
  Fixture& f = Fixture::get();
  ImGuiOffscreen ctx;
  viewers::GraphView view(*f.cache);
  viewers::ViewState s;
  setUp(s, f, -1);
  view.requestFit();
  ctx.frame(view, s);
  int pass = f.changedPass;
  for (auto _ : st) {
    s.selectPass(pass);
    ctx.frame(view, s);
    pass = pass == -1 ? f.changedPass : -1;
  }
  st.counters["nodes"] = double(f.trace->graphAfter(f.changedPass).size());
}
BENCHMARK(BM_StepPassCachedLayout)->Unit(benchmark::kMillisecond);

}  // namespace


