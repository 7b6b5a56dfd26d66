// Focused tests of Arm decomposition passes that only the real-model tests covered: each
// removes its target op, keeps the graph's values (reference executor), verifies, and is
// skipped with no-target-ops on a graph without its target.
#include <gtest/gtest.h>

#include <functional>

#include "core/exec/compare.h"
#include "core/exec/executor.h"
#include "core/exec/synth.h"
#include "core/passes/pass_manager.h"
#include "support/graph_builder.h"

namespace ls::arm {
namespace {

using ir::IntList;

struct Case {
  const char* pass;
  const char* target;
  std::function<ir::ValueRef(test::GraphBuilder&)> build;
};

std::vector<double> ramp(int64_t n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = 0.1 * double((i * 7) % 13) - 0.5;
  return v;
}

std::vector<Case> cases() {
  return {
      {"ConvertTransposeToPermutePass", "aten.t_copy.default",
       [](test::GraphBuilder& b) { return b.call("aten.t_copy.default", {b.input("x", {3, 5})}); }},
      {"ConvertSqueezesToViewPass", "aten.unsqueeze_copy.default",
       [](test::GraphBuilder& b) { return b.call("aten.unsqueeze_copy.default", {b.input("x", {3, 5}), int64_t(1)}); }},
      {"ConvertExpandCopyToRepeatPass", "aten.expand_copy.default",
       [](test::GraphBuilder& b) { return b.call("aten.expand_copy.default", {b.input("x", {3, 1}), IntList{2, 3, 4}}); }},
      {"DecomposeRollPass", "aten.roll.default",
       [](test::GraphBuilder& b) { return b.call("aten.roll.default", {b.input("x", {4, 6}), IntList{2}, IntList{1}}); }},
      {"DecomposeSelectPass", "aten.select_copy.int",
       [](test::GraphBuilder& b) { return b.call("aten.select_copy.int", {b.input("x", {4, 6}), int64_t(0), int64_t(2)}); }},
      {"ConvertMmToBmmPass", "aten.mm.default",
       [](test::GraphBuilder& b) { return b.call("aten.mm.default", {b.input("a", {3, 4}), b.input("m", {4, 5})}); }},
      {"DecomposeLinearPass", "aten.linear.default",
       [](test::GraphBuilder& b) {
         auto w = b.constant("w", ir::DType::Float32, {5, 4}, ramp(20));
         auto bias = b.constant("bias", ir::DType::Float32, {5}, ramp(5));
         return b.call("aten.linear.default", {b.input("x", {2, 4}), w, bias});
       }},
      {"DecomposeAddmmPass", "aten.addmm.default",
       [](test::GraphBuilder& b) {
         auto bias = b.constant("bias", ir::DType::Float32, {5}, ramp(5));
         return b.call("aten.addmm.default", {bias, b.input("a", {3, 4}), b.input("m", {4, 5})});
       }},
  };
}

passes::ShouldRun shouldRun(const std::string& name, const ir::Graph& g) {
  auto p = passes::PassRegistry::instance().create(name);
  passes::PassContext ctx;
  return p->shouldRun(g, ctx);
}

TEST(ArmDecomposeFocused, RemovesItsTargetKeepsValuesAndVerifies) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.pass);
    test::GraphBuilder b;
    b.output({c.build(b)});
    const ir::Graph before = b.g;
    ir::Graph g = b.g;
    ASSERT_EQ(g.nodesOfOp(ir::internOp(c.target)).size(), 1u);
    auto p = passes::PassRegistry::instance().create(c.pass);
    ASSERT_TRUE(p);
    ops::InferenceCache cache;
    passes::PassContext ctx;
    ctx.cache = &cache;
    ASSERT_TRUE(p->shouldRun(g, ctx).run);
    passes::PassResult r = p->run(g, ctx);
    ASSERT_EQ(r.status, passes::PassStatus::Changed) << r.message;
    EXPECT_EQ(g.nodesOfOp(ir::internOp(c.target)).size(), 0u);
    Status st = passes::VerifierInstrumentation::verifyGraph(g);
    EXPECT_TRUE(st.isOk()) << st.message();
    exec::Executor ex({}, std::make_shared<exec::ConstantCache>());
    auto in = exec::synthesizeInputs(before, 5);
    auto want = ex.run(before, in);
    auto got = ex.run(g, in);
    ASSERT_TRUE(want.isOk()) << want.message();
    ASSERT_TRUE(got.isOk()) << got.message();
    exec::CompareResult cmp = exec::compareOutputs(*got, *want);
    EXPECT_LE(cmp.maxRelToMax, 1e-6);
    EXPECT_EQ(g.outputNode()->meta(0), before.outputNode()->meta(0));
  }
}

TEST(ArmDecomposeFocused, SkippedWithoutItsTargetOp) {
  test::GraphBuilder b;
  b.output({b.call("aten.relu.default", {b.input("x", {2, 3})})});
  for (const Case& c : cases()) {
    passes::ShouldRun s = shouldRun(c.pass, b.g);
    EXPECT_FALSE(s.run) << c.pass;
    EXPECT_EQ(s.reason, passes::SkipReason::NoTargetOps) << c.pass;
  }
}

}  // namespace
}  // namespace ls::arm
