// Graph view behaviour with an offscreen Dear ImGui context (no window): clipping and level of
// detail, diff ghosts, search and change stepping, camera kept between passes, the 64k-vertex
// guard without VtxOffset support.
#include "viewers/graph_view.h"

#include <gtest/gtest.h>
#include <imgui.h>

#include "core/io/load.h"
#include "core/trace/diff.h"
#include "tests/viewers/fixtures.h"
#include "viewers/model/graph_model.h"

namespace ls::viewers {
namespace {

struct Offscreen {
  explicit Offscreen(bool vtxOffset = true) {
    ctx_ = ImGui::CreateContext();
    ImGui::SetCurrentContext(ctx_);
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(1600, 1000);
    io.DeltaTime = 1.f / 60.f;
    if (vtxOffset) io.BackendFlags |= ImGuiBackendFlags_RendererHasVtxOffset;
    unsigned char* px = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&px, &w, &h);
  }
  ~Offscreen() { ImGui::DestroyContext(ctx_); }
  void frame(GraphView& v, ViewState& s) {
    ImGui::SetCurrentContext(ctx_);
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImGui::GetIO().DisplaySize);
    ImGui::Begin("graph", nullptr, ImGuiWindowFlags_NoDecoration);
    v.draw(s);
    ImGui::End();
    ImGui::Render();
  }
  ImGuiContext* ctx_ = nullptr;
};

struct Laid {
  viewmodel::TracePtr trace;
  std::unique_ptr<graph_layout::LayoutCache> cache;
  int changed = -1;
};

Laid layOut(const std::string& file) {
  Laid l;
  l.trace = test::realRun(file);
  graph_layout::LayoutOptions lo;
  lo.hideConstants = true;
  l.cache = std::make_unique<graph_layout::LayoutCache>(lo);
  auto prev = l.trace->source;
  l.cache->request(prev);
  for (const auto& s : l.trace->snapshots) l.cache->request(s, prev), prev = s;
  EXPECT_TRUE(l.cache->wait(l.trace->source.get(), std::chrono::seconds(60)));
  for (const auto& s : l.trace->snapshots) EXPECT_TRUE(l.cache->wait(s.get(), std::chrono::seconds(60)));
  for (const auto& r : l.trace->records)
    if (r.status == passes::PassStatus::Changed) {
      l.changed = r.index;
      break;
    }
  return l;
}

TEST(GraphView, FitDrawsEverythingZoomInClipsAndLabels) {
  Laid l = layOut("deit_tiny_vit.fxjson.json");
  Offscreen ctx;
  GraphView v(*l.cache);
  ViewState s;
  s.trace = l.trace;
  s.diffEnabled = false;
  v.requestFit();
  ctx.frame(v, s);
  const ir::Graph& g = *l.trace->source;
  EXPECT_EQ(v.lastStats().nodes, int(g.size()));
  EXPECT_EQ(v.lastStats().labels, 0);  // far too small to read
  // Centre on a node at 100%: a few rows are visible, each box labelled.
  s.selectedNode = g.at(g.size() / 2).id;
  s.centerRequested = true;
  ctx.frame(v, s);
  v.zoomBy(1.f / v.camera().zoom);
  ctx.frame(v, s);
  EXPECT_FLOAT_EQ(v.camera().zoom, 1.f);
  EXPECT_GT(v.lastStats().nodes, 3);
  EXPECT_LT(v.lastStats().nodes, int(g.size()) / 4);
  EXPECT_EQ(v.lastStats().labels, v.lastStats().nodes);
}

TEST(GraphView, DiffAtAChangedPassGhostsAndChangeStepping) {
  Laid l = layOut("deit_tiny_vit.fxjson.json");
  ASSERT_GE(l.changed, 0);
  Offscreen ctx;
  GraphView v(*l.cache);
  ViewState s;
  s.trace = l.trace;
  s.selectPass(l.changed);
  v.requestFit();
  ctx.frame(v, s);
  trace::GraphDiff d = trace::diffGraphs(l.trace->graphBefore(l.changed), l.trace->graphAfter(l.changed));
  EXPECT_EQ(v.diffSize(s), d.added.size() + d.changed.size() + d.removed.size());
  EXPECT_EQ(v.lastStats().ghosts, int(d.removed.size()));  // all on screen at fit
  // Stepping through the changes visits every changed/added/removed node once, then wraps.
  std::set<ir::NodeId> seen;
  size_t n = v.diffSize(s);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_TRUE(v.changeStep(s, +1));
    seen.insert(s.selectedNode);
  }
  EXPECT_EQ(seen.size(), n);
  // Source row: no diff.
  s.selectPass(-1);
  ctx.frame(v, s);
  EXPECT_EQ(v.diffSize(s), 0u);
  EXPECT_FALSE(v.changeStep(s, +1));
}

TEST(GraphView, SearchSelectsAndCentresHits) {
  Laid l = layOut("resnet18.fxjson.json");
  Offscreen ctx;
  GraphView v(*l.cache);
  ViewState s;
  s.trace = l.trace;
  v.requestFit();
  ctx.frame(v, s);
  v.setSearch("convolution");
  ASSERT_TRUE(v.searchStep(s, +1));
  EXPECT_EQ(v.searchHitCount(), viewmodel::searchNodes(*l.trace->source, "convolution").size());
  ctx.frame(v, s);
  // The hit is selected and inside the visible canvas.
  const ir::Node& n = l.trace->source->node(s.selectedNode);
  EXPECT_NE(n.target.find("convolution"), std::string::npos);
  auto lay = l.cache->get(l.trace->source.get());
  const graph_layout::NodeBox* b = lay->find(s.selectedNode);
  ASSERT_NE(b, nullptr);
  const Camera& c = v.camera();
  EXPECT_GE(b->centerX(), c.x);
  EXPECT_GE(b->y, c.y);
  EXPECT_LE(b->y, c.y + 1000.f / c.zoom);
  ir::NodeId firstHit = s.selectedNode;
  ASSERT_TRUE(v.searchStep(s, +1));
  EXPECT_NE(s.selectedNode, firstHit);
  ASSERT_TRUE(v.searchStep(s, -1));
  EXPECT_EQ(s.selectedNode, firstHit);
  v.setSearch("no-such-op-anywhere");
  EXPECT_FALSE(v.searchStep(s, +1));
}

TEST(GraphView, CameraStaysWhenSteppingPasses) {
  Laid l = layOut("deit_tiny_vit.fxjson.json");
  Offscreen ctx;
  GraphView v(*l.cache);
  ViewState s;
  s.trace = l.trace;
  ctx.frame(v, s);
  Camera before = v.camera();
  for (int p = 0; p < s.passCount(); ++p) {
    s.selectPass(p);
    ctx.frame(v, s);
    EXPECT_EQ(v.camera().x, before.x);
    EXPECT_EQ(v.camera().y, before.y);
    EXPECT_EQ(v.camera().zoom, before.zoom);
  }
}

TEST(GraphView, WithoutVtxOffsetDetailIsLimitedBelow64kVertices) {
  Laid l = layOut("large/vit_tiny_deep200.fxjson.json");
  Offscreen ctx(/*vtxOffset=*/false);
  GraphView v(*l.cache);
  v.setFoldMode(GraphView::FoldMode::Off);  // every node (module folding is on above 2000 nodes)
  ViewState s;
  s.trace = l.trace;
  v.requestFit();
  ctx.frame(v, s);  // would assert in ImGui if one draw list exceeded 64k vertices
  EXPECT_TRUE(v.lastStats().truncated);
  EXPECT_GT(v.lastStats().nodes + v.lastStats().edges, 1000);
  Offscreen big;
  GraphView w(*l.cache);
  w.setFoldMode(GraphView::FoldMode::Off);
  w.requestFit();
  big.frame(w, s);
  EXPECT_FALSE(w.lastStats().truncated);
  EXPECT_EQ(w.lastStats().nodes, int(l.trace->source->size()));
}

}  // namespace
}  // namespace ls::viewers
