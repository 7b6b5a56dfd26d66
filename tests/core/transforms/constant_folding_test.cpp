// Constant folding (core/transforms/constant_folding.h): chains fold in one run with the
// executor's values, targets restrict what folds, and each option (data required, arg-less
// producers, size limit, naming) behaves as documented.
#include "core/transforms/constant_folding.h"

#include <gtest/gtest.h>

#include "transforms_test_util.h"

namespace ls::transforms {
namespace {

using ir::IntList;
using passes::PassStatus;
using test::countOp;
using test::runPassOn;

/// x[4,3] + (t(w) * t(w)), w a [3,4] parameter (shape-only unless `data`).
struct ConstChain {
  test::GraphBuilder b;
  ir::ValueRef x, t, mul;
};
ConstChain chain(bool data) {
  ConstChain c;
  c.x = c.b.input("x", {4, 3});
  auto w = data ? c.b.constant("w", ir::DType::Float32, {3, 4}, test::ramp(12)) : c.b.parameter("w", {3, 4});
  c.t = c.b.call("aten.t_copy.default", {w}, {}, "t");
  c.mul = c.b.call("aten.mul.Tensor", {c.t, c.t}, {}, "sq");
  auto y = c.b.call("aten.add.Tensor", {c.x, c.mul}, {}, "y");
  c.b.output({y});
  return c;
}

TEST(ConstantFolding, AnyOpFoldsChainsWithExecutorValues) {
  ConstChain c = chain(/*data=*/false);
  const ir::Graph before = c.b.g;
  FoldConstantsPass p("ConstPropPass", "all ops", {}, {});
  ASSERT_EQ(runPassOn(p, c.b.g).status, PassStatus::Changed);
  EXPECT_EQ(p.statistics()[0].value, 2);
  EXPECT_EQ(countOp(c.b.g, "aten.t_copy.default") + countOp(c.b.g, "aten.mul.Tensor"), 0u);
  EXPECT_EQ(countOp(c.b.g, "aten.add.Tensor"), 1u);  // reads the input: stays
  EXPECT_NE(c.b.g.constant("sq_folded"), nullptr);
  EXPECT_EQ(c.b.g.constant("sq_folded")->fqn, "w");  // identity of the first constant input
  EXPECT_EQ(c.b.g.constant("w"), nullptr);           // dead after folding
  test::expectVerified(c.b.g);
  EXPECT_EQ(test::maxRelDiff(before, c.b.g), 0.0);
  EXPECT_EQ(p.shouldRun(c.b.g, passes::PassContext{}).reason, passes::SkipReason::Precondition);
}

TEST(ConstantFolding, TargetsAndNamingAfterTheInput) {
  ConstChain c = chain(/*data=*/true);
  const ir::Graph before = c.b.g;
  ConstantFoldingOptions o;
  o.nameAfterInput = true;
  FoldConstantsPass p("FuseConstantArgsPass", "views", {"aten.t_copy.default"}, o);
  ASSERT_EQ(runPassOn(p, c.b.g).status, PassStatus::Changed);
  EXPECT_EQ(countOp(c.b.g, "aten.t_copy.default"), 0u);
  EXPECT_EQ(countOp(c.b.g, "aten.mul.Tensor"), 1u);  // not a target
  EXPECT_NE(c.b.g.constant("w_folded"), nullptr);
  EXPECT_LT(test::maxRelDiff(before, c.b.g), 1e-7);
}

TEST(ConstantFolding, RequireDataAndSizeLimit) {
  ConstChain shapeOnly = chain(/*data=*/false);
  FoldConstantViewsPass views;
  EXPECT_EQ(runPassOn(views, shapeOnly.b.g).status, PassStatus::Unchanged);
  EXPECT_EQ(views.statistics()[1].value, 1);  // skipped_no_data
  ConstChain withData = chain(/*data=*/true);
  EXPECT_EQ(runPassOn(views, withData.b.g).status, PassStatus::Changed);
  EXPECT_NE(withData.b.g.constant("t_folded"), nullptr);

  ConstChain big = chain(/*data=*/true);
  ConstantFoldingOptions small;
  small.maxElements = 4;
  FoldConstantsPass p("ConstPropPass", "small only", {}, small);
  EXPECT_EQ(runPassOn(p, big.b.g).status, PassStatus::Unchanged);
  EXPECT_EQ(p.statistics()[2].value, 1);  // skipped_large: t (sq then reads a computed value)
}

TEST(ConstantFolding, ArgLessProducersAreEvaluatedAlongOnlyWhenAllowed) {
  test::GraphBuilder b;
  auto w = b.constant("w", ir::DType::Float32, {2, 6}, test::ramp(12));
  auto shape = b.call("tosa.CONST_SHAPE", {}, {{"values", ir::Arg(IntList{3, 4})}}, "shape");
  auto r = b.call("tosa.RESHAPE", {w, shape}, {}, "reshape");
  b.output({r});
  const ir::Graph before = b.g;
  ir::Graph g = b.g;
  FoldConstantsPass strict("Fold", "reshape", {"tosa.RESHAPE"}, {});
  EXPECT_EQ(runPassOn(strict, g).status, PassStatus::Unchanged);
  ConstantFoldingOptions o;
  o.argLessProducers = true;
  FoldConstantsPass arm("Fold", "reshape", {"tosa.RESHAPE"}, o);
  ASSERT_EQ(runPassOn(arm, g).status, PassStatus::Changed);
  EXPECT_EQ(countOp(g, "tosa.RESHAPE") + countOp(g, "tosa.CONST_SHAPE"), 0u);
  EXPECT_EQ(test::maxRelDiff(before, g), 0.0);
}

TEST(ConstantFolding, TheRetraceDriverSkipsWithoutACandidateAndFoldsChainsFromOne) {
  // permute(w) is a candidate (its input is a constant); view(permute) becomes one only once
  // permute is folded, in the same run. view(x) reads an input: never a candidate.
  test::GraphBuilder b;
  auto x = b.input("x", {3, 4});
  auto w = b.constant("w", ir::DType::Float32, {4, 3}, test::ramp(12));
  auto p = b.call("aten.permute_copy.default", {w, IntList{1, 0}}, {}, "p");
  auto v = b.call("aten.view_copy.default", {p, IntList{3, 4}}, {}, "v");
  auto vx = b.call("aten.view_copy.default", {x, IntList{3, 4}}, {}, "vx");
  b.output({b.call("aten.add.Tensor", {vx, v}, {}, "y")});
  const ir::Graph before = b.g;
  ConstantFoldingOptions o;
  o.nameAfterInput = true;
  FoldConstantsRetracePass fold("FuseConstantArgsPass", "views", {"aten.permute_copy.default", "aten.view_copy.default"}, o);
  ir::Graph g = b.g;
  ASSERT_EQ(runPassOn(fold, g).status, PassStatus::Changed);
  EXPECT_EQ(fold.statistics()[0].value, 2);  // permute, then the view of its result
  EXPECT_EQ(countOp(g, "aten.permute_copy.default"), 0u);
  EXPECT_EQ(countOp(g, "aten.view_copy.default"), 1u);  // vx
  EXPECT_EQ(test::maxRelDiff(before, g), 0.0);
  // Nothing left to fold: skipped with the precondition, and a forced run changes nothing.
  passes::PassContext ctx;
  passes::ShouldRun s = fold.shouldRun(g, ctx);
  EXPECT_FALSE(s.run);
  EXPECT_EQ(s.reason, passes::SkipReason::Precondition);
  ops::InferenceCache cache;
  ctx.cache = &cache;
  EXPECT_EQ(fold.run(g, ctx).status, PassStatus::Unchanged);
}

TEST(ConstantFolding, EvaluateRejectsNonConstantInputs) {
  ConstChain c = chain(/*data=*/true);
  auto r = evaluateOnConstants(c.b.g, c.b.g.node(c.b.g.findByName("y")));
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.message().find("'y'"), std::string::npos) << r.message();
}

}  // namespace
}  // namespace ls::transforms
