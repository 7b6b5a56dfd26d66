// The shared batch-norm transforms (core/transforms/batch_norm.h): matching, folding into
// conv / linear weights and the two decompositions, with op counts, values kept (reference
// executor), each option's behaviour and a training-mode batch norm as bad input.
#include "core/transforms/batch_norm.h"

#include <gtest/gtest.h>

#include <cstring>

#include "core/exec/materialize.h"
#include "transforms_test_util.h"

namespace ls::transforms {
namespace {

using ir::IntList;
using passes::PassStatus;
using test::countOp;
using test::runPassOn;

/// x -> <producer> -> batch norm -> getitem 0 -> relu -> output; producer "conv", "linear" or "add".
struct BnGraph {
  test::GraphBuilder b;
  ir::ValueRef producer, bn;
};
BnGraph bnGraph(const std::string& producer, bool training = false) {
  BnGraph r;
  auto& b = r.b;
  const bool linear = producer == "linear";
  auto x = linear ? b.input("x", {2, 6}) : b.input("x", {1, 3, 6, 6});
  if (producer == "conv") {
    auto w = b.constant("conv_w", ir::DType::Float32, {4, 3, 3, 3}, test::ramp(108, 0.3));
    auto cb = b.constant("conv_b", ir::DType::Float32, {4}, test::ramp(4));
    r.producer = b.call("aten.convolution.default",
                        {x, w, cb, IntList{1, 1}, IntList{1, 1}, IntList{1, 1}, false, IntList{0, 0}, int64_t(1)}, {},
                        "conv");
  } else if (linear) {
    auto w = b.constant("fc_w", ir::DType::Float32, {4, 6}, test::ramp(24, 0.3));
    r.producer = b.call("aten.linear.default", {x, w}, {}, "fc");
  } else {
    r.producer = b.call("aten.add.Tensor", {x, x}, {}, "add");
  }
  const int64_t C = producer == "add" ? 3 : 4;
  auto gw = b.constant("bn_w", ir::DType::Float32, {C}, test::ramp(C, 1.0));
  auto gb = b.constant("bn_b", ir::DType::Float32, {C}, test::ramp(C));
  auto rm = b.constant("bn_rm", ir::DType::Float32, {C}, test::ramp(C, 0.05));
  std::vector<double> var(static_cast<size_t>(C));
  for (int64_t c = 0; c < C; ++c) var[size_t(c)] = 0.8 + 0.1 * double(c);
  auto rv = b.constant("bn_rv", ir::DType::Float32, {C}, var);
  r.bn = b.call("aten.native_batch_norm.default", {r.producer, gw, gb, rm, rv, training, 0.1, 1e-5}, {}, "bn");
  auto g0 = b.call("operator.getitem", {r.bn, int64_t(0)}, {}, "bn_0");
  auto relu = b.call("aten.relu.default", {g0}, {}, "relu");
  b.output({relu});
  return r;
}

TEST(BatchNorm, MatchGivesScaleAndShift) {
  BnGraph r = bnGraph("conv");
  auto m = matchEvalBatchNorm(r.b.g, r.b.g.node(r.bn.node), {});
  ASSERT_TRUE(m.isOk()) << m.message();
  ASSERT_TRUE(m->has_value());
  const EvalBatchNorm& e = **m;
  ASSERT_EQ(e.scale.size(), 4u);
  EXPECT_EQ(e.getitems.size(), 1u);
  const double w0 = test::ramp(4, 1.0)[0], rm0 = test::ramp(4, 0.05)[0], b0 = test::ramp(4)[0];
  EXPECT_NEAR(e.scale[0], w0 / std::sqrt(0.8 + 1e-5), 1e-6);
  EXPECT_NEAR(e.shift[0], b0 - rm0 * e.scale[0], 1e-6);
  // Not a batch norm: no match.
  auto none = matchEvalBatchNorm(r.b.g, r.b.g.node(r.producer.node), {});
  ASSERT_TRUE(none.isOk());
  EXPECT_FALSE(none->has_value());
}

TEST(BatchNorm, MatchWithoutScaleShiftReadsNoValuesAndGivesTheSameRecipes) {
  BnGraph r = bnGraph("conv");
  auto full = matchEvalBatchNorm(r.b.g, r.b.g.node(r.bn.node), {});
  auto bare = matchEvalBatchNorm(r.b.g, r.b.g.node(r.bn.node), {}, false);
  ASSERT_TRUE(full.isOk() && full->has_value());
  ASSERT_TRUE(bare.isOk() && bare->has_value());
  EXPECT_EQ((*bare)->channels, 4);
  EXPECT_EQ((*full)->channels, 4);
  EXPECT_TRUE((*bare)->scale.empty());
  EXPECT_TRUE((*bare)->shift.empty());
  EXPECT_EQ((*bare)->getitems, (*full)->getitems);
  EXPECT_EQ((*bare)->eps, (*full)->eps);
  // The fold recipes (what FuseBatchNormPass builds from the bare match) are the same.
  const ir::Constant* w = r.b.g.constant("conv_w");
  ASSERT_NE(w, nullptr);
  for (bool weight : {true, false}) {
    const ir::Constant* target = weight ? w : nullptr;
    EXPECT_EQ(foldBatchNormRecipe(weight, target, **bare, ir::DType::Float32)->hash(),
              foldBatchNormRecipe(weight, target, **full, ir::DType::Float32)->hash());
    EXPECT_EQ(foldBatchNormRecipe(weight, target, **bare, ir::DType::Float32)->shape(),
              foldBatchNormRecipe(weight, target, **full, ir::DType::Float32)->shape());
  }
  // Not a batch norm: no match either way.
  auto none = matchEvalBatchNorm(r.b.g, r.b.g.node(r.producer.node), {}, false);
  ASSERT_TRUE(none.isOk());
  EXPECT_FALSE(none->has_value());
}

TEST(BatchNorm, FoldsIntoConvKeepingItsId) {
  BnGraph r = bnGraph("conv");
  const ir::Graph before = r.b.g;
  FuseBatchNormPass p("FuseBatchNorm2dPass", {});
  ASSERT_EQ(runPassOn(p, r.b.g).status, PassStatus::Changed);
  EXPECT_EQ(countOp(r.b.g, "aten.native_batch_norm.default"), 0u);
  EXPECT_EQ(countOp(r.b.g, "operator.getitem"), 0u);
  EXPECT_EQ(countOp(r.b.g, "aten.convolution.default"), 1u);
  EXPECT_EQ(r.b.g.node(r.producer.node).name, "conv");
  EXPECT_NE(r.b.g.constant("conv_fused_weight"), nullptr);
  EXPECT_EQ(p.statistics()[0].value, 1);
  test::expectVerified(r.b.g);
  EXPECT_LT(test::maxRelDiff(before, r.b.g), 1e-5);
  EXPECT_EQ(runPassOn(p, r.b.g).status, PassStatus::Skipped);
}

TEST(BatchNorm, FoldIntoLinearOnlyWhenAsked) {
  BnGraph r = bnGraph("linear");
  const ir::Graph before = r.b.g;
  ir::Graph g = r.b.g;
  FuseBatchNormPass arm("FuseBatchNorm2dPass", {});
  EXPECT_EQ(runPassOn(arm, g).status, PassStatus::Unchanged);
  EXPECT_EQ(arm.statistics()[1].value, 1);  // kept
  BatchNormOptions o;
  o.foldIntoLinear = true;
  FuseBatchNormPass xnn("FuseBatchNormPass", o);
  ASSERT_EQ(runPassOn(xnn, g).status, PassStatus::Changed);
  EXPECT_EQ(countOp(g, "aten.native_batch_norm.default"), 0u);
  EXPECT_EQ(countOp(g, "aten.linear.default"), 1u);
  EXPECT_LT(test::maxRelDiff(before, g), 1e-5);
}

TEST(BatchNorm, FoldOfShapeOnlyWeightsEqualsANaiveReferenceByteForByte) {
  // Weights and statistics without data (synthesised, as in the bundled models): the folded
  // weight is w[o, i] * gamma[o] / sqrt(var[o] + eps) rounded to float, element by element.
  test::GraphBuilder b;
  auto x = b.input("x", {1, 8, 5, 5});
  auto w = b.parameter("conv_weight", {16, 8, 3, 3}, "conv.weight");
  auto conv = b.call("aten.convolution.default",
                     {x, w, ir::Arg(), IntList{1, 1}, IntList{1, 1}, IntList{1, 1}, false, IntList{0, 0}, int64_t(1)},
                     {}, "conv");
  auto gw = b.parameter("bn_weight", {16}, "bn.weight");
  auto gb = b.parameter("bn_bias", {16}, "bn.bias");
  auto rm = b.parameter("bn_running_mean", {16}, "bn.running_mean");
  auto rv = b.parameter("bn_running_var", {16}, "bn.running_var");
  auto bn = b.call("aten.native_batch_norm.default", {conv, gw, gb, rm, rv, false, 0.1, 1e-5}, {}, "bn");
  b.output({b.call("operator.getitem", {bn, int64_t(0)}, {}, "bn_0")});
  const ir::Graph before = b.g;
  FuseBatchNormPass p("FuseBatchNorm2dPass", {});
  ASSERT_EQ(runPassOn(p, b.g).status, PassStatus::Changed);
  const ir::Constant* fused = b.g.constant("conv_fused_weight");
  ASSERT_TRUE(fused && fused->recipe);  // a lazy constant: its bytes are made on demand
  auto made = exec::materialize(*fused);
  ASSERT_TRUE(made.isOk()) << made.message();
  const std::vector<uint8_t> fusedBytes(made->bytes(), made->bytes() + made->nbytes());
  auto values = [&](const char* name) { return exec::synthesizeConstant(*before.constant(name)); };
  exec::Tensor w0 = values("conv_weight"), gamma = values("bn_weight"), var = values("bn_running_var");
  std::vector<float> expected(size_t(w0.numel()));
  const int64_t per = w0.numel() / 16;
  for (int64_t i = 0; i < w0.numel(); ++i) {
    const int64_t o = i / per;
    const double scale = gamma.getDouble(o) / std::sqrt(var.getDouble(o) + 1e-5);
    expected[size_t(i)] = float(double(w0.data<float>()[i]) * scale);
  }
  ASSERT_EQ(fusedBytes.size(), expected.size() * sizeof(float));
  EXPECT_EQ(std::memcmp(fusedBytes.data(), expected.data(), fusedBytes.size()), 0);
  // The source graph's constants are untouched (the fold wrote into its own copy).
  EXPECT_FALSE(before.constant("conv_weight")->hasData());
  EXPECT_LT(test::maxRelDiff(before, b.g), 1e-5);
}

TEST(BatchNorm, DecompositionForms) {
  BnGraph r = bnGraph("add");
  const ir::Graph before = r.b.g;
  FuseBatchNormPass fuse("FuseBatchNorm2dPass", {});
  ir::Graph g = r.b.g;
  EXPECT_EQ(runPassOn(fuse, g).status, PassStatus::Unchanged);  // an add cannot absorb it
  DecomposeBatchNormPass mulAdd("DecomposeBatchNormNoStatsPass", {});
  ASSERT_EQ(runPassOn(mulAdd, g).status, PassStatus::Changed);
  EXPECT_EQ(countOp(g, "aten.native_batch_norm.default"), 0u);
  EXPECT_EQ(countOp(g, "aten.mul.Tensor"), 1u);
  EXPECT_EQ(countOp(g, "aten.add.Tensor"), 2u);
  test::expectVerified(g);
  EXPECT_LT(test::maxRelDiff(before, g), 1e-5);

  BatchNormOptions o;
  o.decomposition = BatchNormDecomposition::DepthwiseConv;
  ir::Graph h = r.b.g;
  DecomposeBatchNormPass dw("DecomposeBatchNormPass", o);
  ASSERT_EQ(runPassOn(dw, h).status, PassStatus::Changed);
  ASSERT_EQ(countOp(h, "aten.convolution.default"), 1u);
  EXPECT_EQ(*h.node(h.nodesOfOp(ir::internOp("aten.convolution.default"))[0]).args[8].asInt(), 3);
  EXPECT_NE(h.findByName("bn_dwconv"), ir::kInvalidNode);
  test::expectVerified(h);
  EXPECT_LT(test::maxRelDiff(before, h), 1e-5);
}

TEST(BatchNorm, DisallowFlagAndFloat32Options) {
  BnGraph r = bnGraph("conv");
  r.b.g.mutableNode(r.bn.node).flags |= ir::kFlagDisallowTransform;
  BatchNormOptions q;
  q.honourDisallowFlag = true;
  q.float32Only = true;
  q.rejectTraining = false;
  FuseBatchNormPass quantizer("FuseBatchNorm2dPass", q);
  EXPECT_EQ(quantizer.shouldRun(r.b.g, passes::PassContext{}).reason, passes::SkipReason::TargetsDisallowed);
  ir::Graph g = r.b.g;
  FuseBatchNormPass arm("FuseBatchNorm2dPass", {});
  EXPECT_EQ(runPassOn(arm, g).status, PassStatus::Changed);
}

TEST(BatchNorm, TrainingModeIsRejectedOrKept) {
  BnGraph r = bnGraph("conv", /*training=*/true);
  ir::Graph g = r.b.g;
  FuseBatchNormPass arm("FuseBatchNorm2dPass", {});
  passes::PassResult res = runPassOn(arm, g);
  ASSERT_EQ(res.status, PassStatus::Failed);
  EXPECT_NE(res.message.find("'bn'"), std::string::npos) << res.message;
  EXPECT_NE(res.message.find("training"), std::string::npos) << res.message;
  BatchNormOptions keep;
  keep.rejectTraining = false;
  DecomposeBatchNormPass d("DecomposeBatchNormPass", keep);
  EXPECT_EQ(runPassOn(d, g).status, PassStatus::Unchanged);
  EXPECT_EQ(countOp(g, "aten.native_batch_norm.default"), 1u);
}

}  // namespace
}  // namespace ls::transforms
