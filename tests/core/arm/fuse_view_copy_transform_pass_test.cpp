// FuseViewCopyTransformPass (core/backends/arm/passes/fuse_view_copy_transform_pass.cpp),
// house style: a view -> unary -> view -> view chain keeps one view giving the last shape
// (values kept by the reference executor), untargeted nodes keep their ids, a link with a
// second user or a shape-dependent op ends the chain, the pass is skipped without views, and
// through the tosa pipeline x * x.sum() has no RESHAPE to rank 0 left.
#include <gtest/gtest.h>

#include "tests/core/arm/pass_cases.h"

namespace ls::arm {
namespace {

using ir::DType;
using ir::IntList;
using test::opCount;

constexpr const char* kView = "aten.view_copy.default";

std::vector<test::PassCase> cases() {
  return {
      // view [2,6] -> relu -> view [3,4] -> view [12]: one view [12] before the relu.
      {"FuseViewCopyTransformPass", kView,
       [](test::GraphBuilder& b) {
         auto v0 = b.call(kView, {b.input("x", {3, 4}), IntList{2, 6}});
         auto r = b.call("aten.relu.default", {v0});
         auto v1 = b.call(kView, {r, IntList{3, 4}});
         return b.call(kView, {v1, IntList{12}});
       },
       [](const ir::Graph&, const ir::Graph& g) {
         ASSERT_EQ(opCount(g, kView), 1u);
         const ir::Node& v = g.node(g.nodesOfOp(ir::internOp(kView))[0]);
         EXPECT_EQ(v.meta().shape, (ir::Shape{12}));
       }},
      // view [6,2] -> exp -> view [3,4] (the input's shape): the chain fuses into one view
      // giving [3,4], which is then a no-op and goes.
      {"FuseViewCopyTransformPass", kView,
       [](test::GraphBuilder& b) {
         auto v0 = b.call(kView, {b.input("x", {3, 4}), IntList{6, 2}});
         auto e = b.call("aten.exp.default", {v0});
         return b.call(kView, {e, IntList{3, 4}});
       },
       [](const ir::Graph&, const ir::Graph& g) {
         EXPECT_EQ(opCount(g, kView), 0u);
         EXPECT_EQ(opCount(g, "aten.exp.default"), 1u);
       }},
  };
}

TEST(FuseViewCopyTransformPass, ChangesWhatItShouldKeepsValuesAndVerifies) {
  for (const test::PassCase& c : cases()) test::runCase(c);
}

TEST(FuseViewCopyTransformPass, SkippedWithoutViews) { test::expectSkippedWithoutTarget(cases()); }

TEST(FuseViewCopyTransformPass, ChainsEndAtASecondUserOrAShapeDependentOp) {
  test::GraphBuilder b;
  auto x = b.input("x", {3, 4});
  auto v0 = b.call(kView, {x, IntList{2, 6}});
  auto s = b.call("aten._softmax.default", {v0, int64_t(-1), false});  // depends on the shape
  auto v1 = b.call(kView, {s, IntList{12}});
  auto w0 = b.call(kView, {x, IntList{6, 2}});
  auto t = b.call("aten.tanh.default", {w0});
  auto w1 = b.call(kView, {t, IntList{4, 3}});
  b.output({v1, w1, t});  // t has a second user: the chain stops there
  const ir::Graph before = b.g;
  ir::Graph g = b.g;
  auto p = passes::PassRegistry::instance().create("FuseViewCopyTransformPass");
  passes::PassContext ctx;
  const passes::PassResult r = p->run(g, ctx);
  EXPECT_EQ(r.status, passes::PassStatus::Unchanged) << r.message;
  EXPECT_EQ(opCount(g, kView), 4u);
  EXPECT_EQ(test::sameInputsCompare(before, g, 2).maxRelToMax, 0.0);
}

TEST(FuseViewCopyTransformPass, NoRankZeroReshapeLeftForAProductWithASum) {
  // x * x.sum(): the sum's RESHAPE to [] and the rank match's RESHAPE back to [1, 1].
  test::GraphBuilder b;
  auto x = b.input("x", {2, 3});
  auto sum = b.call("aten.sum.dim_IntList", {x, IntList{0, 1}, false});
  b.output({b.call("aten.mul.Tensor", {x, sum})});
  const ir::Graph src = b.g;
  for (passes::Profile profile : {passes::Profile::FP, passes::Profile::INT}) {
    SCOPED_TRACE(passes::profileName(profile));
    ir::Graph g = test::lowerTosa(src, profile);
    for (ir::NodeId id : g.nodesOfOp(ir::internOp("tosa.RESHAPE"))) EXPECT_GT(g.node(id).meta().rank(), 0);
    for (ir::NodeId id : g.nodesOfOp(ir::internOp("tosa.CONST_SHAPE"))) EXPECT_GT(g.node(id).meta().numel(), 0);
    if (profile == passes::Profile::FP) EXPECT_LE(test::sameInputsCompare(src, g, 1).maxRelToMax, 1e-5);  // the sum in another order
  }
}

}  // namespace
}  // namespace ls::arm
