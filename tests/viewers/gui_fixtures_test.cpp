// Fixture files for the GUI screenshot tests (tests/gui), written only when
// LS_GUI_FIXTURE_DIR is set (ctest's gui_fixtures test); skipped otherwise.
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/io/lsg.h"
#include "core/io/lstrace.h"
#include "core/trace/trace_recorder.h"
#include "core/transforms/generic_passes.h"
#include "core/verify/localize.h"
#include "core/verify/verify.h"
#include "tests/support/corrupt_pass.h"
#include "tests/support/graph_builder.h"
#include "tests/viewers/fixtures.h"

namespace ls::viewmodel {
namespace {

// A real run in which one pass failed: the recorded form of what PassManager produces when a
// pass returns an error (the pass is failed with its message, the graph keeps the last good
// snapshot, later passes are skipped as not reached).
TEST(GuiFixtures, TraceWithAFailedPass) {
  const char* dir = std::getenv("LS_GUI_FIXTURE_DIR");
  if (!dir) GTEST_SKIP() << "LS_GUI_FIXTURE_DIR not set";
  auto run = test::realRun("deit_tiny_vit.fxjson.json");
  ASSERT_TRUE(run);
  trace::Trace t = *run;
  ASSERT_GE(t.records.size(), 4u);
  trace::PassRecord& f = t.records[2];
  f.status = passes::PassStatus::Failed;
  f.reason = passes::SkipReason::None;
  f.message = fmt::format("{} failed: node 'getitem_3': expected a tensor input at argument 0", f.name);
  f.snapshot = -1;
  for (size_t i = 3; i < t.records.size(); ++i) {
    trace::PassRecord& r = t.records[i];
    r.status = passes::PassStatus::Skipped;
    r.reason = passes::SkipReason::NotReached;
    r.message = "pipeline stopped after pass #2 failed";
    r.runNs = r.verifyNs = 0;
    r.snapshot = -1;
  }
  // Drop snapshots after the failure.
  int keep = 0;
  for (size_t i = 0; i < 2; ++i) keep = std::max(keep, t.records[i].snapshot + 1);
  t.snapshots.resize(size_t(keep));
  Status st = io::saveTrace(t, std::string(dir) + "/failed.lstrace");
  ASSERT_TRUE(st.isOk()) << st.message();
}

}  // namespace
}  // namespace ls::viewmodel

namespace ls::viewmodel {
namespace {

// A graph whose delegate call runs a nested graph (as a backend partitioner leaves it): the
// GUI opens the nested graph in place.
TEST(GuiFixtures, GraphWithADelegate) {
  const char* dir = std::getenv("LS_GUI_FIXTURE_DIR");
  if (!dir) GTEST_SKIP() << "LS_GUI_FIXTURE_DIR not set";
  test::GraphBuilder sub;
  ir::ValueRef a = sub.input("a", {1, 16});
  ir::ValueRef s1 = sub.call("aten.add.Tensor", {a, a}, {}, "add");
  ir::ValueRef s2 = sub.call("aten.relu.default", {s1}, {}, "relu_in_delegate");
  ir::ValueRef s3 = sub.call("aten.mul.Tensor", {s2, a}, {}, "mul");
  sub.output({s3});

  test::GraphBuilder b;
  b.g.modelName = "delegate_demo";
  ir::ValueRef x = b.input("x", {1, 16});
  ir::ValueRef r = b.call("aten.relu.default", {x}, {}, "relu");
  ir::Node call = b.makeCall("lowerscope.call_delegate", {"delegate_0", ir::RefList{r}}, {}, "call_delegate");
  call.outputs.push_back(ir::TensorMeta(ir::DType::Float32, ir::Shape{1, 16}));
  call.flags |= ir::kFlagOpaque;
  ir::NodeId cid = b.g.append(call);
  ir::ValueRef y = b.call("aten.sigmoid.default", {ir::ValueRef{cid, 0}}, {}, "sigmoid");
  b.output({y});
  b.g.subgraphs()["delegate_0"] = std::make_shared<ir::Graph>(std::move(sub.g));
  ASSERT_TRUE(b.g.validate().isOk()) << b.g.validate().message();
  Status st = io::saveLsg(b.g, std::string(dir) + "/delegate.lsg");
  ASSERT_TRUE(st.isOk()) << st.message();
}

}  // namespace
}  // namespace ls::viewmodel

namespace ls::viewmodel {
namespace {

// A localised run (what verify --each --localize saves): resnet18 through a short pipeline in
// which a test-only pass turns the middle residual add into a sub; the localisation of that
// pass is stored in the trace.
TEST(GuiFixtures, TraceWithALocalizedPass) {
  const char* dir = std::getenv("LS_GUI_FIXTURE_DIR");
  if (!dir) GTEST_SKIP() << "LS_GUI_FIXTURE_DIR not set";
  auto model = test::modelWithAdds("resnet18.fxjson.json");
  ASSERT_TRUE(model.isOk()) << model.message();
  ir::Graph g = model->graph;
  const std::vector<std::string>& adds = model->adds;
  ASSERT_EQ(adds.size(), 8u);
  passes::PassManager pm;
  pm.pipelineName = "localize-fixture";
  pm.add(std::make_unique<transforms::RemoveNoopViewPass>());
  pm.add(std::make_unique<test::CorruptOneAddPass>(adds[4]));  // "add_4"
  pm.add(std::make_unique<transforms::DeadCodeEliminationPass>());
  trace::TraceRecorder rec;
  pm.addInstrumentation(&rec);
  passes::PassContext ctx;
  ops::InferenceCache cache;
  ctx.cache = &cache;
  const ir::Graph source = g;
  ASSERT_EQ(pm.run(g, ctx).failedIndex, -1);
  trace::Trace t = rec.take();
  t.model = "resnet18";
  verify::VerifyOptions vo;
  vo.compare.scaleRelative = true;
  auto ref = verify::Reference::compute(source, vo);
  ASSERT_TRUE(ref.isOk()) << ref.message();
  auto loc = verify::localizePass(t, 1, *ref);
  ASSERT_TRUE(loc.isOk()) << loc.message();
  ASSERT_EQ(t.graphAfter(1).node(loc->culprit).name, adds[4]);
  t.localization = std::make_shared<const trace::Localization>(std::move(loc).value());
  Status st = io::saveTrace(t, std::string(dir) + "/localize.lstrace");
  ASSERT_TRUE(st.isOk()) << st.message();
}

}  // namespace
}  // namespace ls::viewmodel
