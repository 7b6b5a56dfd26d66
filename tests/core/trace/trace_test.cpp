// Trace: which graph is in effect after each pass (snapshots only after changed passes),
// totals that keep skipped apart from unchanged, generations for view caches, and the
// TraceRecorder filling it from a real run.
#include <gtest/gtest.h>

#include "core/session/lowering_session.h"
#include "core/trace/trace.h"
#include "support/graph_builder.h"

namespace ls {
namespace {

using passes::PassStatus;

trace::Trace handMade() {
  test::GraphBuilder b;
  auto x = b.input("x", {4});
  b.output({b.call("aten.relu.default", {x})});
  trace::Trace t;
  t.source = std::make_shared<const ir::Graph>(b.g);
  ir::Graph after = b.g;
  after.modelName = "after1";
  t.snapshots.push_back(std::make_shared<const ir::Graph>(after));
  auto rec = [](int i, PassStatus s, int snap) {
    passes::PassRecord r;
    r.index = i;
    r.name = "P" + std::to_string(i) + "Pass";
    r.status = s;
    r.snapshot = snap;
    r.runNs = 10 * (i + 1);
    return r;
  };
  t.records = {rec(0, PassStatus::Skipped, -1), rec(1, PassStatus::Changed, 0), rec(2, PassStatus::Unchanged, -1),
               rec(3, PassStatus::Failed, -1)};
  return t;
}

TEST(Trace, GraphAfterFollowsTheLastChangedPass) {
  trace::Trace t = handMade();
  EXPECT_EQ(&t.graphAfter(-1), t.source.get());
  EXPECT_EQ(&t.graphAfter(0), t.source.get()) << "a skipped pass leaves the source";
  EXPECT_EQ(t.graphAfter(1).modelName, "after1");
  EXPECT_EQ(t.graphAfter(2).modelName, "after1") << "unchanged: the previous changed pass's graph";
  EXPECT_EQ(&t.graphBefore(2), &t.graphAfter(1));
  EXPECT_EQ(t.snapshotAfter(0), -1);
  EXPECT_EQ(t.snapshotAfter(3), 0);
  EXPECT_EQ(t.finalGraph().modelName, "after1");
}

TEST(Trace, TotalsKeepSkippedApartFromUnchanged) {
  trace::Trace::Totals s = handMade().totals();
  EXPECT_EQ(s.skipped, 1);
  EXPECT_EQ(s.changed, 1);
  EXPECT_EQ(s.unchanged, 1);
  EXPECT_EQ(s.failed, 1);
  EXPECT_EQ(s.ran, 2);
}

TEST(Trace, GenerationsAreUniquePerTraceAndKeptByCopies) {
  trace::Trace a, b;
  EXPECT_NE(a.generation, b.generation);
  EXPECT_NE(a.generation, 0u);
  trace::Trace c = a;
  EXPECT_EQ(c.generation, a.generation);
}

TEST(TraceRecorder, RecordsEveryPassAndASnapshotPerChangedPass) {
  session::SessionConfig cfg;
  cfg.pipeline = "tosa";
  auto o = session::LoweringSession(cfg).lower(
      session::LoweringSession::load(std::string(LS_ASSETS_DIR) + "/graphs/squeezenet1_1.fxjson.json").value(), "sq");
  ASSERT_TRUE(o.isOk()) << o.message();
  const trace::Trace& t = *o->trace;
  ASSERT_EQ(t.records.size(), o->result.records.size());
  size_t changed = 0;
  for (const auto& r : t.records) {
    if (r.status == PassStatus::Changed) {
      EXPECT_EQ(r.snapshot, int(changed)) << r.name;
      ++changed;
    } else {
      EXPECT_EQ(r.snapshot, -1) << r.name;
    }
  }
  EXPECT_EQ(t.snapshots.size(), changed);
  EXPECT_GT(changed, 5u);
  EXPECT_EQ(t.finalGraph().size(), o->finalGraph.size());
  EXPECT_GT(t.approxBytes(), trace::Trace::approxGraphBytes(*t.source));
}

}  // namespace
}  // namespace ls
