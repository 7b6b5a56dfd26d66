// Module folding over the bundled models (their meta.module paths from tools/export_fxjson.py):
// vit_tiny_deep200 opens as its 200 encoder blocks, expanding one block shows its parts, the
// folded graph is a valid DAG with aggregated edges, and diff marks reach the folds.
#include "viewers/model/module_folds.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "tests/viewers/fixtures.h"

namespace ls::viewmodel {
namespace {

size_t countFolds(const ir::Graph& g) {
  return size_t(std::count_if(g.nodes().begin(), g.nodes().end(), [](const ir::NodePtr& p) { return isFoldNode(*p); }));
}

TEST(ModuleFolds, Prefixes) {
  EXPECT_EQ(modulePrefixes("a.b.c"), (std::vector<std::string>{"a", "a.b", "a.b.c"}));
  EXPECT_TRUE(modulePrefixes("").empty());
}

TEST(ModuleFolds, DeepVitOpensAsItsBlocks) {
  auto g = test::loadedAsset("large/vit_tiny_deep200.fxjson.json");
  ASSERT_TRUE(g);
  ASSERT_GT(g->size(), 10000u);
  auto expanded = autoExpand(*g, 400);
  // The encoder and its layer list are open, the blocks are not.
  EXPECT_TRUE(expanded.count("encoder"));
  EXPECT_TRUE(expanded.count("encoder.layers"));
  EXPECT_FALSE(expanded.count("encoder.layers.encoder_layer_0"));
  FoldIds ids;
  FoldedGraph f = foldModules(*g, expanded, ids);
  ASSERT_TRUE(f.graph);
  EXPECT_TRUE(f.graph->validate().isOk()) << f.graph->validate().message();
  EXPECT_LE(f.graph->size(), 600u);
  const Fold* block = f.foldByPath("encoder.layers.encoder_layer_7");
  ASSERT_NE(block, nullptr);
  EXPECT_GT(block->members.size(), 20u);
  EXPECT_EQ(countFolds(*f.graph), f.folds.size());
  EXPECT_GE(f.folds.size(), 200u);
  // Every real node is drawn itself or in exactly one fold; member counts add up.
  size_t members = 0;
  for (const Fold& fo : f.folds) members += fo.members.size();
  EXPECT_EQ(members + (f.graph->size() - f.folds.size()), g->size());
  const ir::Node& bn = f.graph->node(block->id);
  EXPECT_NE(foldLabel(bn).find("encoder.layers.encoder_layer_7"), std::string::npos);
  EXPECT_NE(foldOpSummary(bn).find("addmm"), std::string::npos) << foldOpSummary(bn);
  // Blocks chain: block 7 reads block 6 (aggregated to one edge).
  const Fold* prev = f.foldByPath("encoder.layers.encoder_layer_6");
  ASSERT_NE(prev, nullptr);
  size_t fromPrev = 0;
  bn.forEachInput([&](const ir::ValueRef& r) { fromPrev += r.node == prev->id; });
  EXPECT_EQ(fromPrev, 1u);

  // Expanding one block shows its parts (and leaves the other blocks folded).
  expanded.insert("encoder.layers.encoder_layer_7");
  FoldedGraph f2 = foldModules(*g, expanded, ids);
  EXPECT_TRUE(f2.graph->validate().isOk());
  EXPECT_EQ(f2.foldByPath("encoder.layers.encoder_layer_7"), nullptr);
  EXPECT_NE(f2.foldByPath("encoder.layers.encoder_layer_7.mlp"), nullptr);
  EXPECT_NE(f2.foldByPath("encoder.layers.encoder_layer_8"), nullptr);
  // Fold ids are stable: the same module keeps its id.
  EXPECT_EQ(f2.foldByPath("encoder.layers.encoder_layer_8")->id, f.foldByPath("encoder.layers.encoder_layer_8")->id);

  // Reveal: the prefixes to open so one node inside block 9's MLP is drawn itself.
  const ir::NodeId inside = f2.foldByPath("encoder.layers.encoder_layer_9")->members.back();
  std::vector<std::string> open = revealPath(*g, inside, expanded);
  ASSERT_FALSE(open.empty());
  EXPECT_EQ(open.front(), "encoder.layers.encoder_layer_9");
  for (std::string& p : open) expanded.insert(std::move(p));
  FoldedGraph f3 = foldModules(*g, expanded, ids);
  EXPECT_EQ(f3.foldOfNode(inside), ir::kInvalidNode);
  EXPECT_NE(f3.graph->find(inside), nullptr);
}

// resnet18 on request (a small graph): its eight blocks; one expanded, the rest stay folded.
TEST(ModuleFolds, ExpandingOneBlockKeepsTheOthersFolded) {
  auto g = test::loadedAsset("resnet18.fxjson.json");
  ASSERT_TRUE(g);
  auto expanded = autoExpand(*g, 24);
  FoldIds ids;
  FoldedGraph f = foldModules(*g, expanded, ids);
  std::vector<std::string> paths;
  for (const Fold& fo : f.folds) paths.push_back(fo.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"layer1.0", "layer1.1", "layer2.0", "layer2.1", "layer3.0", "layer3.1", "layer4.0",
                                             "layer4.1"}));
  expanded.insert("layer1.0");
  FoldedGraph f2 = foldModules(*g, expanded, ids);
  paths.clear();
  for (const Fold& fo : f2.folds) paths.push_back(fo.path);
  EXPECT_EQ(f2.foldByPath("layer1.0"), nullptr);
  // layer1.0.relu is called twice in the block (after bn1 and after the residual add): as one
  // box it would close a cycle, so it stays expanded; bn1 (its op and getitem) folds.
  EXPECT_EQ(f2.foldByPath("layer1.0.relu"), nullptr);
  EXPECT_NE(f2.foldByPath("layer1.0.bn1"), nullptr);
  EXPECT_TRUE(f2.graph->validate().isOk()) << f2.graph->validate().message();
  EXPECT_NE(f2.foldByPath("layer1.1"), nullptr) << ::testing::PrintToString(paths);
  EXPECT_NE(f2.foldByPath("layer4.1"), nullptr);
}

TEST(ModuleFolds, SmallModelWithNoModulesIsUnchanged) {
  // Nodes without module stay; nothing is expanded by autoExpand.
  ir::Graph g;
  ir::Node x;
  x.kind = ir::NodeKind::Placeholder;
  x.name = x.target = "x";
  x.outputs = {ir::TensorMeta{}};
  const ir::NodeId xi = g.append(x);
  ir::Node out;
  out.kind = ir::NodeKind::Output;
  out.name = out.target = "output";
  out.args = {ir::Arg(ir::ValueRef{xi, 0})};
  g.append(out);
  EXPECT_TRUE(autoExpand(g, 10).empty());
  FoldIds ids;
  FoldedGraph f = foldModules(g, {}, ids);
  ASSERT_TRUE(f.graph);
  EXPECT_EQ(f.graph->size(), 2u);
  EXPECT_TRUE(f.folds.empty());
}

TEST(ModuleFolds, DiffMarksReachFoldsThroughAPipeline) {
  // resnet18 through the tosa pipeline: modules follow the rewrites (replacements inherit the
  // module of what they replace), and a changed pass marks the folds it touched.
  viewmodel::TracePtr run = test::pipelineRun("resnet18.fxjson.json", "tosa");
  ASSERT_TRUE(run);
  const trace::Trace& t = *run;
  const ir::Graph& fin = t.finalGraph();
  size_t calls = 0, withModule = 0;
  for (const ir::NodePtr& p : fin.nodes())
    if (p->isCall()) ++calls, withModule += !p->module.empty();
  EXPECT_GT(calls, 50u);
  EXPECT_GE(double(withModule), 0.9 * double(calls)) << withModule << " of " << calls;
  // The first pass that changes a node inside layer1.
  FoldIds ids;
  bool found = false;
  for (int p = 0; p < int(t.records.size()) && !found; ++p) {
    if (t.snapshotAfter(p) == t.snapshotAfter(p - 1)) continue;
    const ir::Graph& before = t.graphAfter(p - 1);
    const ir::Graph& after = t.graphAfter(p);
    const std::set<std::string, std::less<>> expanded;  // everything folded at the top level
    ids.reserve(before.nextId());
    ids.reserve(after.nextId());
    FoldedGraph fs = foldModules(after, expanded, ids), fc = foldModules(before, expanded, ids);
    DrawDiff d = prepareDiff(trace::diffGraphs(before, after), after);
    if (d.empty()) continue;
    foldDiff(d, fs, &fc);
    const Fold* layer1 = fs.foldByPath("layer1");
    ASSERT_NE(layer1, nullptr);
    bool inside = false;
    for (ir::NodeId m : layer1->members) inside |= d.mark(m) != DiffMark::None;
    if (!inside) continue;
    found = true;
    EXPECT_NE(d.mark(layer1->id), DiffMark::None) << t.records[size_t(p)].name;
    for (auto [from, to] : d.replacedBy) EXPECT_NE(fs.graph->find(to), nullptr);
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace ls::viewmodel
