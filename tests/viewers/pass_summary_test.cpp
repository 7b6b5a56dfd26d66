// Pass summary: change groups by pattern, full skip reasons with the target ops looked for.
#include "viewers/model/pass_summary.h"

#include <gtest/gtest.h>

#include "core/ir/graph.h"
#include "tests/support/graph_builder.h"
#include "tests/viewers/fixtures.h"

namespace ls::viewmodel {
namespace {

size_t countOp(const ir::Graph& g, std::string_view op) {
  size_t n = 0;
  for (const ir::NodePtr& p : g.nodes())
    if (p->kind == ir::NodeKind::Call && ir::opName(p->op) == op) ++n;
  return n;
}

TEST(PassSummary, GroupsLinksThenUnlinkedNodesByOp) {
  test::GraphBuilder a;
  ir::ValueRef x = a.input("x", {1, 2, 3});
  ir::ValueRef p1 = a.call("aten.permute.default", {x, ir::IntList{0, 2, 1}});
  ir::ValueRef p2 = a.call("aten.permute.default", {p1, ir::IntList{0, 2, 1}});
  ir::ValueRef r = a.call("aten.relu.default", {p2});
  a.output({r});
  test::GraphBuilder b;
  ir::ValueRef y = b.input("x", {1, 2, 3});
  ir::ValueRef t = b.call("aten.permute.default", {y, ir::IntList{0, 1, 2}});  // the two, composed
  ir::ValueRef c = b.call("aten.abs.default", {t});
  b.output({c});

  trace::GraphDiff d;
  d.links.push_back({trace::ProvenanceLink::Kind::Fusion, {p1.node, p2.node}, {t.node}, "FuseTransposes"});
  d.added = {t.node, c.node};
  d.removed = {p1.node, p2.node, r.node};
  d.changed = {{y.node, trace::kMetaChanged}};
  std::vector<ChangeGroup> g = groupChanges(a.g, b.g, d);
  ASSERT_EQ(g.size(), 4u);
  EXPECT_EQ(g[0], (ChangeGroup{1, "+ aten.abs.default"}));
  EXPECT_EQ(g[1], (ChangeGroup{1, "- aten.relu.default"}));
  EXPECT_EQ(g[2], (ChangeGroup{1, "2x aten.permute.default -> aten.permute.default (fusion)"}));
  EXPECT_EQ(g[3], (ChangeGroup{1, "~ input (meta)"}));
}

TEST(PassSummary, RealTosaRunCountsEveryChangeOnceAndNamesTargetOps) {
  viewmodel::TracePtr run = test::pipelineRun("mobilenet_v2.fxjson.json", "tosa");
  ASSERT_TRUE(run);
  const trace::Trace& t = *run;
  bool sawConvRewrite = false, sawNoTarget = false;
  for (int i = 0; i < int(t.records.size()); ++i) {
    const trace::PassRecord& r = t.records[size_t(i)];
    PassSummary s = passSummary(t, i);
    EXPECT_NE(s.title.find(r.name), std::string::npos);
    if (r.status == passes::PassStatus::Changed) {
      const ir::Graph &before = t.graphBefore(i), &after = t.graphAfter(i);
      trace::GraphDiff d = trace::diffGraphs(before, after);
      // Every link, unlinked added/removed node and changed node is in exactly one group.
      size_t linkedAdded = 0, linkedRemoved = 0, total = 0;
      for (const auto& l : d.links) linkedAdded += l.to.size(), linkedRemoved += l.from.size();
      for (const ChangeGroup& g : s.changes) total += g.count;
      EXPECT_EQ(total, d.links.size() + (d.added.size() - linkedAdded) + (d.removed.size() - linkedRemoved) +
                           d.changed.size())
          << r.name;
      // The rewrite into CONV2D is one pattern, counted once per convolution it lowered.
      const size_t conv = countOp(after, "tosa.CONV2D") - countOp(before, "tosa.CONV2D");
      if (conv > 0) {
        for (const ChangeGroup& g : s.changes)
          if (g.text.find("-> ") != std::string::npos && g.text.find("tosa.CONV2D") != std::string::npos &&
              g.count == conv)
            sawConvRewrite = true;
      }
    }
    if (r.status == passes::PassStatus::Skipped && r.reason == passes::SkipReason::NoTargetOps) {
      sawNoTarget = true;
      EXPECT_EQ(s.reason.rfind("no-target-ops: none of its", 0), 0u) << s.reason;
      EXPECT_FALSE(s.targetOps.empty()) << r.name;
      bool listed = false;
      for (const std::string& l : summaryLines(s)) listed |= l.rfind("looks for: " + s.targetOps[0], 0) == 0;
      EXPECT_TRUE(listed) << r.name;
    }
  }
  EXPECT_TRUE(sawConvRewrite);
  EXPECT_TRUE(sawNoTarget);
}

}  // namespace
}  // namespace ls::viewmodel
