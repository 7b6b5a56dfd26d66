// Graph view model: namespaces, labels, diff marks, search, nested-graph references.
#include "viewers/model/graph_model.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "core/graph_layout/graph_layout.h"
#include "core/trace/diff.h"
#include "viewers/model/pass_list.h"
#include "tests/support/graph_builder.h"
#include "tests/viewers/fixtures.h"

namespace ls::viewmodel {
namespace {

TEST(GraphModel, NamespacesOfARealModel) {
  auto t = test::realRun("mobilenet_v2.fxjson.json");
  ASSERT_TRUE(t && t->source);
  const ir::Graph& g = *t->source;
  std::vector<int> count(size_t(OpNamespace::COUNT), 0);
  for (const ir::NodePtr& n : g.nodes()) ++count[size_t(classifyNode(g, *n))];
  EXPECT_EQ(count[size_t(OpNamespace::Output)], 1);
  EXPECT_GE(count[size_t(OpNamespace::Input)], 1);
  EXPECT_GT(count[size_t(OpNamespace::Constant)], 100);  // weights
  EXPECT_GT(count[size_t(OpNamespace::Aten)], 100);
  EXPECT_EQ(count[size_t(OpNamespace::Tosa)], 0);
}

TEST(GraphModel, NamespaceByOpName) {
  test::GraphBuilder b;
  ir::ValueRef x = b.input("x", {1, 4});
  ir::Node n = b.makeCall("tosa.TRANSPOSE.default", {x}, {}, "t");
  ir::Node q = b.makeCall("quantized_decomposed.quantize_per_tensor.default", {x}, {}, "q");
  ir::Node d = b.makeCall("lowerscope.call_delegate", {"sub0"}, {}, "d");
  ir::Node o = b.makeCall("mylib.custom.default", {x}, {}, "c");
  ir::Node opaque = b.makeCall("aten.mystery.default", {x}, {}, "m");
  opaque.flags |= ir::kFlagOpaque;
  EXPECT_EQ(classifyNode(b.g, n), OpNamespace::Tosa);
  EXPECT_EQ(classifyNode(b.g, q), OpNamespace::Quantized);
  EXPECT_EQ(classifyNode(b.g, d), OpNamespace::Delegate);
  EXPECT_EQ(classifyNode(b.g, o), OpNamespace::Unknown);
  EXPECT_EQ(classifyNode(b.g, opaque), OpNamespace::Unknown);
  EXPECT_EQ(classifyNode(b.g, b.g.node(x.node)), OpNamespace::Input);
  EXPECT_EQ(opNamespaceName(OpNamespace::Quantized), "quantized");
}

TEST(GraphModel, LabelsAreShortOpAndShape) {
  test::GraphBuilder b;
  ir::ValueRef x = b.input("x", {1, 16, 8, 8});
  ir::ValueRef r = b.call("aten.relu.default", {x}, {}, "r");
  ir::ValueRef a = b.call("aten.add.Tensor", {r, x}, {}, "a");
  EXPECT_EQ(shortOpName(b.g.node(r.node)), "relu");
  EXPECT_EQ(nodeLabel(b.g.node(r.node)), "relu f32[1,16,8,8]");
  EXPECT_EQ(nodeLabel(b.g.node(a.node)), "add.Tensor f32[1,16,8,8]");
  EXPECT_EQ(nodeLabel(b.g.node(x.node)), "input f32[1,16,8,8]");
}

TEST(GraphModel, BadgesNameSchemaArgumentsWithShapesOrValues) {
  test::GraphBuilder b;
  ir::ValueRef x = b.input("x", {1, 3, 8, 8});
  ir::ValueRef w = b.parameter("conv_w", {4, 3, 3, 3});
  ir::ValueRef bias = b.constant("conv_b", ir::DType::Float32, {4}, {1, 2, 3, 4});
  ir::ValueRef c = b.call("aten.convolution.default",
                          {x, w, bias, ir::IntList{1, 1}, ir::IntList{1, 1}, ir::IntList{1, 1}, false, ir::IntList{0, 0}, int64_t(1)},
                          {}, "conv");
  ir::ValueRef s = b.constant("scale", ir::DType::Float32, {}, {0.5});
  ir::ValueRef m = b.call("aten.mul.Tensor", {c, s}, {}, "mul");
  auto all = [](ir::NodeId) { return true; };
  auto line = badgeLine(nodeBadges(b.g, b.g.node(c.node), all));
  // Argument names from aten.convolution's schema; the input x is a badge only when asked.
  EXPECT_EQ(line, "input 1x3x8x8, weight 4x3x3x3, bias 4");
  auto params = [&](ir::NodeId id) { return graph_layout::isParameterNode(b.g, b.g.node(id)); };
  EXPECT_EQ(badgeLine(nodeBadges(b.g, b.g.node(c.node), params)), "weight 4x3x3x3, bias 4");
  // A one-element constant with bytes shows its value.
  auto mb = nodeBadges(b.g, b.g.node(m.node), params);
  ASSERT_EQ(mb.size(), 1u);  // conv is not a parameter
  EXPECT_EQ(mb[0].id, s.node);
  EXPECT_EQ(mb[0].text, "other=0.5");
  EXPECT_EQ(argName(b.g.node(m.node), 0), "self");
  EXPECT_EQ(argName(b.g.node(x.node), 0), "#0");
  // Width grows with the badge line.
  ir::ValueRef mm = b.call("aten.addmm.default", {b.parameter("fc_b", {64}), b.parameter("fc_x", {1, 128}), b.parameter("fc_w", {128, 64})},
                           {}, "fc");
  const std::string fcLine = "self 64, mat1 1x128, mat2 128x64";
  EXPECT_EQ(badgeLine(nodeBadges(b.g, b.g.node(mm.node), params)), fcLine);
  EXPECT_GE(measureNodeWidth(b.g, b.g.node(mm.node), true), 12.f + 8.2f * float(fcLine.size()));
  EXPECT_LT(measureNodeWidth(b.g, b.g.node(mm.node), false), 12.f + 8.2f * float(fcLine.size()));
}

TEST(GraphModel, DiffMarksMatchTheGraphDiff) {
  auto t = test::realRun("deit_tiny_vit.fxjson.json");
  ASSERT_TRUE(t);
  int changedPass = -1;
  for (const trace::PassRecord& r : t->records)
    if (r.status == passes::PassStatus::Changed) {
      changedPass = r.index;
      break;
    }
  ASSERT_GE(changedPass, 0);
  const ir::Graph& before = t->graphBefore(changedPass);
  const ir::Graph& after = t->graphAfter(changedPass);
  trace::GraphDiff d = trace::diffGraphs(before, after);
  DrawDiff dd = prepareDiff(d, after);
  EXPECT_FALSE(dd.empty());
  EXPECT_EQ(dd.added, d.added.size());
  EXPECT_EQ(dd.changed, d.changed.size());
  EXPECT_EQ(dd.removed, d.removed);
  size_t marked = 0;
  for (const ir::NodePtr& n : after.nodes()) marked += dd.mark(n->id) != DiffMark::None;
  EXPECT_EQ(marked, d.added.size() + d.changed.size());
  for (const trace::ChangedNode& c : d.changed) EXPECT_EQ(dd.mark(c.id), DiffMark::Changed);
  for (ir::NodeId id : d.removed) EXPECT_FALSE(after.contains(id));
  EXPECT_EQ(dd.mark(ir::NodeId(1u << 30)), DiffMark::None);  // out of range is safe
}

TEST(GraphModel, SearchByNameOrOp) {
  auto t = test::realRun("resnet18.fxjson.json");
  ASSERT_TRUE(t);
  const ir::Graph& g = *t->source;
  auto conv = searchNodes(g, "CONVOLUTION");
  ASSERT_FALSE(conv.empty());
  for (ir::NodeId id : conv) {
    const ir::Node& n = g.node(id);
    EXPECT_TRUE(containsNoCase(n.name, "convolution") || containsNoCase(n.target, "convolution")) << n.name;
  }
  // Graph order.
  for (size_t i = 1; i < conv.size(); ++i) EXPECT_LT(g.position(conv[i - 1]), g.position(conv[i]));
  EXPECT_TRUE(searchNodes(g, "").empty());
  EXPECT_TRUE(searchNodes(g, "no-such-node-anywhere").empty());
}

TEST(GraphModel, SearchByModulePathSelectsTheModuleAndItsChildren) {
  // The bundled resnet18 carries its module paths (fxjson meta.module, tools/export_fxjson.py).
  auto t = test::realRun("resnet18.fxjson.json");
  ASSERT_TRUE(t);
  ir::Graph g = *t->source;
  // One node moved to "layer10.conv": "layer1" is a prefix of its text, not of its path.
  ir::NodeId moved = ir::kInvalidNode;
  for (const ir::NodePtr& p : g.nodes())
    if (p->isCall() && p->module == "conv1") {
      moved = p->id;
      break;
    }
  ASSERT_NE(moved, ir::kInvalidNode);
  g.mutableNode(moved).module = "layer10.conv";
  auto under = [&](const std::string& path) {
    std::vector<ir::NodeId> out;
    for (const ir::NodePtr& p : g.nodes())
      if (p->module == path || p->module.rfind(path + ".", 0) == 0) out.push_back(p->id);
    return out;
  };
  const std::vector<ir::NodeId> layer1 = searchNodes(g, "module:layer1");
  EXPECT_EQ(layer1, under("layer1"));
  EXPECT_GT(layer1.size(), 20u);  // two blocks: convolutions, batch norms, relus, adds, weights
  EXPECT_TRUE(std::find(layer1.begin(), layer1.end(), moved) == layer1.end());
  EXPECT_EQ(searchNodes(g, "module:layer1.0"), under("layer1.0"));
  const std::vector<ir::NodeId> bn1 = searchNodes(g, "module:layer1.0.bn1");
  EXPECT_EQ(bn1, under("layer1.0.bn1"));
  ASSERT_FALSE(bn1.empty());
  for (ir::NodeId id : bn1) EXPECT_EQ(g.node(id).module, "layer1.0.bn1");
  EXPECT_EQ(searchNodes(g, "module:layer10"), std::vector<ir::NodeId>{moved});
  size_t withModule = 0;
  for (const ir::NodePtr& p : g.nodes()) withModule += !p->module.empty();
  EXPECT_EQ(searchNodes(g, "module:").size(), withModule);  // every node that has a module
  EXPECT_TRUE(searchNodes(g, "module:layer5").empty());
}

TEST(GraphModel, NestedGraphRefsByNameAndGetAttr) {
  test::GraphBuilder b;
  ir::ValueRef x = b.input("x", {2});
  auto sub = std::make_shared<ir::Graph>();
  b.g.subgraphs()["body"] = sub;
  b.g.subgraphs()["other"] = std::make_shared<ir::Graph>();
  ir::Node call = b.makeCall("lowerscope.call_delegate", {"body", ir::RefList{x}}, {}, "d");
  EXPECT_EQ(nestedGraphRefs(b.g, call), (std::vector<std::string>{"body"}));
  ir::Node ga;
  ga.kind = ir::NodeKind::GetAttr;
  ga.name = "other_attr";
  ga.target = "other";
  ir::NodeId gid = b.g.append(ga);
  ir::Node cond = b.makeCall("torch.ops.higher_order.cond", {x, ir::ValueRef{gid, 0}, "body", "missing"}, {}, "c");
  EXPECT_EQ(nestedGraphRefs(b.g, cond), (std::vector<std::string>{"body", "other"}));
  ir::Node plain = b.makeCall("aten.relu.default", {x}, {}, "r");
  EXPECT_TRUE(nestedGraphRefs(b.g, plain).empty());
}

}  // namespace
}  // namespace ls::viewmodel

namespace ls::viewmodel {
namespace {

TEST(GraphModel, GhostsInACrowdedRowMovePastTheBoxWithTheRightmostLeftEdgeOnly) {
  // A row of 50 boxes 80 wide at x = 0, 100, 200, ... (20 apart: no ghost fits between two),
  // one box in the row below, and 300 removed nodes that all sat at x = 205: each moves left
  // past the boxes and the ghosts placed before it, one box width plus the gap at a time, and
  // the row below is never read. (A DCE step of vit_tiny_deep200 removes 3206 nodes: the old
  // search, every box of the band per move, took 200 ms there.)
  graph_layout::Layout shown, compared;
  auto add = [](graph_layout::Layout& l, ir::NodeId id, float x, float y) {
    if (l.indexById.size() <= id) l.indexById.resize(id + 1, -1);
    l.indexById[id] = int32_t(l.nodes.size());
    graph_layout::NodeBox b;
    b.id = id, b.x = x, b.y = y, b.w = 80, b.h = 30;
    l.nodes.push_back(b);
  };
  for (ir::NodeId i = 0; i < 50; ++i) add(shown, i, 100.f * float(i), 0);
  add(shown, 50, 150, 40);
  std::vector<ir::NodeId> removed;
  for (ir::NodeId i = 100; i < 400; ++i) {
    add(compared, i, 205, 0);
    removed.push_back(i);
  }
  const float gap = 16;
  std::vector<GhostBox> ghosts = placeGhosts(shown, compared, removed, gap);
  ASSERT_EQ(ghosts.size(), removed.size());
  for (size_t k = 0; k < ghosts.size(); ++k) {
    EXPECT_EQ(ghosts[k].id, removed[k]);
    EXPECT_EQ(ghosts[k].y, 0.f);
    // Left of box 0 (x = -96), then left of every ghost before it.
    EXPECT_FLOAT_EQ(ghosts[k].x, -96.f - 96.f * float(k)) << k;
  }
  // A ghost that overlaps nothing stays where it was; one overlapping two boxes moves left of
  // the one whose left edge is rightmost, and no further when that spot is free.
  graph_layout::Layout sparse;
  add(sparse, 0, 0, 0);
  add(sparse, 1, 60, 0);
  add(sparse, 2, 400, 0);
  graph_layout::Layout was;
  add(was, 7, 1000, 0);
  add(was, 8, 50, 0);
  std::vector<GhostBox> two = placeGhosts(sparse, was, {7, 8}, gap);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_FLOAT_EQ(two[0].x, 1000.f);
  EXPECT_FLOAT_EQ(two[1].x, -96.f);  // past box 1 (to -36, still on box 0), then past box 0
}

TEST(GraphModel, GhostsGetTheirOwnSpaceInTheirRowAndKeepTheirLinks) {
  viewmodel::TracePtr run = test::pipelineRun("mobilenet_v2.fxjson.json", "tosa");
  ASSERT_TRUE(run);
  const trace::Trace& t = *run;
  int checked = 0;
  for (int i = 0; i < int(t.records.size()); ++i) {
    if (t.records[size_t(i)].status != passes::PassStatus::Changed) continue;
    const ir::Graph &a = t.graphBefore(i), &b = t.graphAfter(i);
    graph_layout::LayoutOptions o;
    o.constantBadges = true;
    graph_layout::Layout la = graph_layout::computeLayout(a, o);
    graph_layout::Layout lb = graph_layout::computeLayout(b, o, &la);
    trace::GraphDiff gd = trace::diffGraphs(a, b);
    DrawDiff d = prepareDiff(gd, b);
    std::vector<GhostBox> ghosts = placeGhosts(lb, la, d.removed);
    auto overlaps = [](float x0, float w0, float y0, float h0, float x1, float w1, float y1, float h1) {
      return x0 < x1 + w1 && x1 < x0 + w0 && y0 < y1 + h1 && y1 < y0 + h0;
    };
    for (size_t g = 0; g < ghosts.size(); ++g) {
      const GhostBox& gh = ghosts[g];
      const graph_layout::NodeBox* old = la.find(gh.id);
      ASSERT_NE(old, nullptr);
      EXPECT_EQ(gh.y, old->y);  // its own row
      EXPECT_EQ(gh.w, old->w);
      for (const graph_layout::NodeBox& nb : lb.nodes)
        if (nb.w > 0) {
          EXPECT_FALSE(overlaps(gh.x, gh.w, gh.y, gh.h, nb.x, nb.w, nb.y, nb.h)) << t.records[size_t(i)].name;
        }
      for (size_t k = 0; k < g; ++k)
        EXPECT_FALSE(overlaps(gh.x, gh.w, gh.y, gh.h, ghosts[k].x, ghosts[k].w, ghosts[k].y, ghosts[k].h));
    }
    // Every provenance link appears as (removed, replacement) pairs.
    size_t pairs = 0;
    for (const auto& l : gd.links) pairs += l.from.size() * l.to.size();
    EXPECT_EQ(d.replacedBy.size(), pairs);
    if (!ghosts.empty()) ++checked;
  }
  EXPECT_GE(checked, 3);
}

}  // namespace
}  // namespace ls::viewmodel
