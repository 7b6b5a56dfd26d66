// Node inspector model: a node's history across the passes of a real run.
#include "viewers/model/node_history.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "core/trace/diff.h"
#include "tests/viewers/fixtures.h"

namespace ls::viewmodel {
namespace {

int firstChangedPass(const trace::Trace& t) {
  for (const trace::PassRecord& r : t.records)
    if (r.status == passes::PassStatus::Changed) return r.index;
  return -1;
}

TEST(NodeHistory, RemovedChangedAndUntouchedNodes) {
  auto t = test::realRun("deit_tiny_vit.fxjson.json");
  ASSERT_TRUE(t);
  int p = firstChangedPass(*t);
  ASSERT_GE(p, 0);
  trace::GraphDiff d = trace::diffGraphs(t->graphBefore(p), t->graphAfter(p));
  ASSERT_FALSE(d.removed.empty());
  ASSERT_FALSE(d.changed.empty());

  NodeHistory removed = nodeHistory(*t, d.removed.front());
  EXPECT_TRUE(removed.inSource);
  EXPECT_EQ(removed.first, -1);
  EXPECT_EQ(removed.last, p - 1 < 0 ? -1 : p - 1);
  ASSERT_FALSE(removed.events.empty());
  EXPECT_EQ(removed.events.back().kind, NodeEvent::Kind::Removed);
  EXPECT_EQ(removed.events.back().pass, p);

  NodeHistory changed = nodeHistory(*t, d.changed.front().id);
  bool found = false;
  for (const NodeEvent& e : changed.events)
    if (e.pass == p) {
      EXPECT_EQ(e.kind, NodeEvent::Kind::Changed);
      EXPECT_EQ(e.what, d.changed.front().what);
      found = true;
    }
  EXPECT_TRUE(found);
  EXPECT_EQ(changed.last, int(t->records.size()) - 1);  // still there at the end

  // The output node of the source exists everywhere.
  const ir::Node* out = t->source->outputNode();
  ASSERT_NE(out, nullptr);
  NodeHistory o = nodeHistory(*t, out->id);
  EXPECT_EQ(o.first, -1);
  EXPECT_EQ(o.last, int(t->records.size()) - 1);
}

TEST(NodeHistory, NodeThatNeverExisted) {
  auto t = test::realRun("squeezenet1_1.fxjson.json");
  ASSERT_TRUE(t);
  NodeHistory h = nodeHistory(*t, ir::NodeId(1u << 30));
  EXPECT_FALSE(h.inSource);
  EXPECT_EQ(h.first, -2);
  EXPECT_TRUE(h.events.empty());
}

TEST(NodeHistory, CreatedNodesAreReported) {
  // A synthetic lineage: node 1 added by pass 1, changed (meta) by pass 2.
  trace::Trace t = test::syntheticTrace("cuc");
  auto g0 = std::make_shared<ir::Graph>();
  ir::Node a;
  a.kind = ir::NodeKind::Placeholder;
  a.name = a.target = "a";
  a.outputs.push_back(ir::TensorMeta(ir::DType::Float32, ir::Shape{2}));
  g0->append(a);
  auto g1 = std::make_shared<ir::Graph>(*g0);
  ir::Node b = a;
  b.id = ir::kInvalidNode;
  b.name = b.target = "b";
  ir::NodeId bid = g1->append(b);
  auto g2 = std::make_shared<ir::Graph>(*g1);
  g2->mutableNode(bid).outputs[0] = ir::TensorMeta(ir::DType::Float32, ir::Shape{3});
  t.source = g0;
  t.snapshots = {g1, g2};
  t.records[0].snapshot = 0;
  t.records[2].snapshot = 1;
  NodeHistory h = nodeHistory(t, bid);
  EXPECT_FALSE(h.inSource);
  EXPECT_EQ(h.first, 0);
  EXPECT_EQ(h.last, 2);
  ASSERT_EQ(h.events.size(), 2u);
  EXPECT_EQ(h.events[0].kind, NodeEvent::Kind::Created);
  EXPECT_EQ(h.events[1].kind, NodeEvent::Kind::Changed);
  EXPECT_EQ(h.events[1].what, trace::kMetaChanged);
  EXPECT_EQ(changeBitsText(trace::kOpChanged | trace::kMetaChanged), "op+meta");
  // The untouched placeholder: no events.
  EXPECT_TRUE(nodeHistory(t, g0->at(0).id).events.empty());
}

}  // namespace
}  // namespace ls::viewmodel

namespace ls::viewmodel {
namespace {

TEST(NodeHistory, NestedGraphNodesAreLookedUpInTheNestedGraph) {
  // Main and nested graph both have a node with id 0; the nested one changes in pass 0.
  trace::Trace t = test::syntheticTrace("c");
  auto makeLeaf = [](const std::string& name, int64_t n) {
    ir::Node a;
    a.kind = ir::NodeKind::Placeholder;
    a.name = a.target = name;
    a.outputs.push_back(ir::TensorMeta(ir::DType::Float32, ir::Shape{n}));
    return a;
  };
  auto main0 = std::make_shared<ir::Graph>();
  main0->append(makeLeaf("m", 2));
  auto sub0 = std::make_shared<ir::Graph>();
  sub0->append(makeLeaf("s", 2));
  main0->subgraphs()["body"] = sub0;
  auto main1 = std::make_shared<ir::Graph>(*main0);
  auto sub1 = std::make_shared<ir::Graph>(*sub0);
  sub1->mutableNode(0).outputs[0] = ir::TensorMeta(ir::DType::Float32, ir::Shape{3});
  main1->subgraphs()["body"] = sub1;
  t.source = main0;
  t.snapshots = {main1};
  t.records[0].snapshot = 0;
  EXPECT_TRUE(nodeHistory(t, 0).events.empty());  // the main graph's node 0 never changed
  NodeHistory h = nodeHistory(t, 0, {"body"});
  ASSERT_EQ(h.events.size(), 1u);
  EXPECT_EQ(h.events[0].kind, NodeEvent::Kind::Changed);
  EXPECT_EQ(h.events[0].what, trace::kMetaChanged);
  EXPECT_EQ(nodeHistory(t, 0, {"missing"}).first, -2);
}

TEST(NodeFieldChanges, ChangedNodesNameTheFieldsWithBothValues) {
  auto t = test::realRun("deit_tiny_vit.fxjson.json");
  ASSERT_TRUE(t);
  size_t checked = 0;
  for (const trace::PassRecord& r : t->records) {
    if (r.status != passes::PassStatus::Changed) continue;
    const ir::Graph& a = t->graphBefore(r.index);
    const ir::Graph& b = t->graphAfter(r.index);
    for (const trace::ChangedNode& c : trace::diffGraphs(a, b).changed) {
      std::vector<FieldChange> f = nodeFieldChanges(a, a.node(c.id), b, b.node(c.id));
      ASSERT_FALSE(f.empty()) << b.node(c.id).name << " changed (" << changeBitsText(c.what) << ") in " << r.name;
      for (const FieldChange& x : f) EXPECT_NE(x.before, x.after) << x.name;
      // The diff's bits and the fields agree.
      auto has = [&](FieldChange::Field k) {
        return std::any_of(f.begin(), f.end(), [&](const FieldChange& x) { return x.field == k; });
      };
      EXPECT_EQ(bool(c.what & trace::kOpChanged), has(FieldChange::Field::Op));
      EXPECT_EQ(bool(c.what & trace::kMetaChanged), has(FieldChange::Field::Output));
      EXPECT_EQ(bool(c.what & trace::kArgsChanged), has(FieldChange::Field::Arg) || has(FieldChange::Field::Kwarg));
      ++checked;
    }
  }
  EXPECT_GT(checked, 0u);
  // Equal versions: nothing.
  const ir::Graph& src = *t->source;
  EXPECT_TRUE(nodeFieldChanges(src, src.at(5), src, src.at(5)).empty());
}

TEST(NodeLineage, ConvolutionFollowedToItsTosaReplacementAndBack) {
  viewmodel::TracePtr run = test::pipelineRun("mobilenet_v2.fxjson.json", "tosa");
  ASSERT_TRUE(run);
  const trace::Trace& t = *run;
  const ir::NodeId conv = t.source->findByName("convolution");
  ASSERT_NE(conv, ir::kInvalidNode);
  std::vector<LineageEntry> fwd = nodeLineage(t, conv, -1);
  ASSERT_GE(fwd.size(), 2u);
  EXPECT_EQ(fwd.front().kind, LineageEntry::Kind::Source);
  EXPECT_TRUE(fwd.front().selected);
  // Pipeline order, and a replacement step that moves to another node at a later pass.
  for (size_t i = 1; i < fwd.size(); ++i) EXPECT_LE(fwd[i - 1].pass, fwd[i].pass);
  auto step = std::find_if(fwd.begin(), fwd.end(), [](const LineageEntry& e) { return e.kind == LineageEntry::Kind::ReplacedBy; });
  ASSERT_NE(step, fwd.end());
  EXPECT_NE(step->node, conv);
  EXPECT_NE(step->text.find("%convolution replaced by"), std::string::npos) << step->text;
  // Every entry's node exists where the entry jumps (after the pass; a removal: before it).
  for (const LineageEntry& e : fwd) {
    const ir::Graph& g = e.kind == LineageEntry::Kind::Removed ? t.graphAfter(e.pass - 1) : t.graphAfter(e.pass);
    EXPECT_NE(g.find(e.node), nullptr) << e.text;
  }
  // The last node of the lineage, asked from the final graph, leads back to the convolution.
  const LineageEntry& last = fwd.back();
  const int lastPass = int(t.records.size()) - 1;
  if (t.finalGraph().contains(last.node)) {
    std::vector<LineageEntry> back = nodeLineage(t, last.node, lastPass);
    ASSERT_FALSE(back.empty());
    EXPECT_EQ(back.front().kind, LineageEntry::Kind::Source);
    EXPECT_EQ(back.front().node, conv);
  }
}

}  // namespace
}  // namespace ls::viewmodel
