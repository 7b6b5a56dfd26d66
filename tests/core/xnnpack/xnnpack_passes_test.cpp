// XNNPACK passes one at a time, upstream test style: op counts before/after, skipped when
// there is nothing to do, untargeted nodes untouched, semantics preserved (reference
// executor), and bad input reported with the node's name.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

#include "core/backends/xnnpack/xnnpack_ops.h"
#include "core/backends/xnnpack/xnnpack_util.h"
#include "core/transforms/remove_getitem.h"
#include "support/graph_builder.h"
#include "xnnpack_test_util.h"

namespace ls {
namespace {

using ir::IntList;
using passes::PassStatus;
using test::countOp;
using test::runOne;

ir::Arg f(double v) { return ir::Arg(v); }

/// x[2,4,8] -> scale -> <between> -> bmm(., y^T) -> softmax -> bmm(., x): an attention block.
struct AttentionGraph {
  test::GraphBuilder b;
  ir::ValueRef scale;
};

AttentionGraph attention(const std::string& scaleOp, double c, const std::vector<std::string>& between) {
  AttentionGraph a;
  auto& b = a.b;
  auto x = b.input("x", {2, 4, 8});
  auto y = b.input("y", {2, 4, 8});
  a.scale = b.call(scaleOp, {x, f(c)}, {}, "scale");
  ir::ValueRef q = a.scale;
  for (const std::string& op : between) {
    if (op == "clone") q = b.call("aten.clone.default", {q});
    else if (op == "permute") q = b.call("aten.permute_copy.default", {q, IntList{0, 1, 2}});
    else if (op == "view") q = b.call("aten.view_copy.default", {q, IntList{2, 4, 8}});
    else if (op == "expand") q = b.call("aten.expand_copy.default", {q, IntList{2, 4, 8}});
    else if (op == "transpose2") {
      q = b.call("aten.transpose_copy.int", {q, int64_t(1), int64_t(2)});
      q = b.call("aten.transpose_copy.int", {q, int64_t(1), int64_t(2)});
    }
  }
  auto kt = b.call("aten.transpose_copy.int", {y, int64_t(-2), int64_t(-1)});
  auto s = b.call("aten.bmm.default", {q, kt});
  auto p = b.call("aten._softmax.default", {s, int64_t(-1), false});
  auto o = b.call("aten.bmm.default", {p, x});
  b.output({o});
  return a;
}

// ---------------------------------------------------------------- Lift + SDPA guard

class SdpaGuard : public ::testing::TestWithParam<const char*> {};

TEST_P(SdpaGuard, ScaleBehindLayoutOpIsKeptAndRead) {
  AttentionGraph a = attention("aten.mul.Tensor", 0.25, {GetParam()});
  const ir::Graph source = a.b.g;
  ir::Graph g = source;
  xnnpack::LiftConstantScalarOperandsPass lift;
  EXPECT_EQ(runOne(lift, g).status, PassStatus::Unchanged);
  EXPECT_EQ(lift.statistics()[1].value, 1);  // kept_sdpa_scale
  EXPECT_TRUE(g.node(a.scale.node).args[1].isNumber());
  xnnpack::ConvertToSDPAPass sdpa;
  ASSERT_EQ(runOne(sdpa, g).status, PassStatus::Changed);
  ASSERT_EQ(sdpa.scalesRead().size(), 1u);
  EXPECT_DOUBLE_EQ(sdpa.scalesRead()[0], 0.25);
  EXPECT_FALSE(g.contains(a.scale.node));
  EXPECT_EQ(countOp(g, "aten.bmm.default"), 0u);
  EXPECT_EQ(countOp(g, "aten._softmax.default"), 0u);
  auto v = test::verifyLowering(source, g);
  EXPECT_TRUE(v.diff.equivalent) << v.diff.message;
}

INSTANTIATE_TEST_SUITE_P(Between, SdpaGuard, ::testing::Values("clone", "permute", "view", "expand", "transpose2"));

TEST(SdpaGuard, DivScaleReadAsReciprocalAndPostScoreScale) {
  AttentionGraph a = attention("aten.div.Tensor", 8.0, {"clone", "view"});
  ir::Graph g = a.b.g;
  xnnpack::ConvertToSDPAPass sdpa;
  ASSERT_EQ(runOne(sdpa, g).status, PassStatus::Changed);
  EXPECT_DOUBLE_EQ(sdpa.scalesRead().at(0), 0.125);

  // Scale applied to the scores (bmm -> mul -> softmax) is read too.
  test::GraphBuilder b;
  auto q = b.input("q", {1, 3, 4});
  auto k = b.input("k", {1, 5, 4});
  auto v = b.input("v", {1, 5, 2});
  auto kt = b.call("aten.permute_copy.default", {k, IntList{0, 2, 1}});
  auto s = b.call("aten.bmm.default", {q, kt});
  auto sc = b.call("aten.mul.Scalar", {s, f(0.5)});
  auto p = b.call("aten._softmax.default", {sc, int64_t(-1), false});
  auto o = b.call("aten.bmm.default", {p, v});
  b.output({o});
  ir::Graph src = b.g;
  ir::Graph h = b.g;
  xnnpack::LiftConstantScalarOperandsPass lift;
  EXPECT_EQ(runOne(lift, h).status, PassStatus::Unchanged);  // guarded: it scales the scores
  xnnpack::ConvertToSDPAPass sdpa2;
  ASSERT_EQ(runOne(sdpa2, h).status, PassStatus::Changed);
  EXPECT_DOUBLE_EQ(sdpa2.scalesRead().at(0), 0.5);
  EXPECT_EQ(countOp(h, "aten.mul.Scalar"), 0u);
  EXPECT_EQ(countOp(h, "aten.permute_copy.default"), 0u);  // k^T folded into the sdpa's key
  auto r = test::verifyLowering(src, h);
  EXPECT_TRUE(r.diff.equivalent) << r.diff.message;
}

TEST(SdpaGuard, QAndKEachScaledBySqrtGiveTheSquare) {
  // Upstream's form (timm attention): q * s^0.5 and k * s^0.5 as mul.Scalar, k scaled before
  // its transpose; the sdpa scale is the product (0.5 * 0.5).
  test::GraphBuilder b;
  auto q = b.input("q", {2, 6, 4});
  auto k = b.input("k", {2, 6, 4});
  auto v = b.input("v", {2, 6, 4});
  auto qs = b.call("aten.mul.Scalar", {q, f(0.5)});
  auto ks = b.call("aten.mul.Scalar", {k, f(0.5)});
  auto kt = b.call("aten.transpose_copy.int", {ks, int64_t(-2), int64_t(-1)});
  auto sc = b.call("aten.bmm.default", {qs, kt});
  auto p = b.call("aten._softmax.default", {sc, int64_t(-1), false});
  auto o = b.call("aten.bmm.default", {p, v});
  b.output({o});
  const ir::Graph src = b.g;
  ir::Graph g = b.g;
  xnnpack::LiftConstantScalarOperandsPass lift;
  EXPECT_EQ(runOne(lift, g).status, PassStatus::Unchanged);
  EXPECT_EQ(lift.statistics()[1].value, 2);
  xnnpack::ConvertToSDPAPass sdpa;
  ASSERT_EQ(runOne(sdpa, g).status, PassStatus::Changed);
  EXPECT_DOUBLE_EQ(sdpa.scalesRead().at(0), 0.25);
  EXPECT_EQ(countOp(g, "aten.mul.Scalar") + countOp(g, "aten.transpose_copy.int"), 0u);
  const ir::Node& attn = g.node(o.node);  // the second bmm became the sdpa (same id)
  EXPECT_EQ(ir::opName(attn.op), xnnpack::kSdpaOp);
  EXPECT_EQ(attn.args[1].ref()->node, k.node);
  auto r = test::verifyLowering(src, g);
  EXPECT_TRUE(r.diff.equivalent) << r.diff.message;
}

TEST(SdpaGuard, ScaleBeforeAPlainBmmOrAnOtherDimSoftmaxIsLifted) {
  // Not attention: a bmm without softmax, and a softmax over dim 1. Both scales are lifted
  // and nothing becomes an sdpa.
  test::GraphBuilder b;
  auto x = b.input("x", {2, 4, 4});
  auto y = b.input("y", {2, 4, 4});
  auto s1 = b.call("aten.mul.Tensor", {x, f(0.5)}, {}, "s1");
  auto m1 = b.call("aten.bmm.default", {s1, y});
  auto s2 = b.call("aten.div.Tensor", {y, f(4.0)}, {}, "s2");
  auto m2 = b.call("aten.bmm.default", {s2, x});
  auto p = b.call("aten._softmax.default", {m2, int64_t(1), false});
  auto o = b.call("aten.bmm.default", {p, x});
  b.output({m1, o});
  const ir::Graph src = b.g;
  ir::Graph g = b.g;
  EXPECT_TRUE(xnnpack::findAttention(g).empty());
  xnnpack::LiftConstantScalarOperandsPass lift;
  ASSERT_EQ(runOne(lift, g).status, PassStatus::Changed);
  EXPECT_EQ(lift.statistics()[0].value, 2);
  xnnpack::ConvertToSDPAPass sdpa;
  EXPECT_EQ(runOne(sdpa, g).status, PassStatus::Unchanged);
  auto r = test::verifyLowering(src, g);
  EXPECT_TRUE(r.diff.equivalent) << r.diff.message;
}

TEST(SdpaGuard, SkippedWithoutSoftmax) {
  ir::Graph g = test::loadGraph(test::realGraphPath("resnet18"));
  xnnpack::ConvertToSDPAPass sdpa;
  EXPECT_EQ(runOne(sdpa, g).status, PassStatus::Skipped);
}

TEST(SdpaGuard, SharedScaleIsNotFoldedButStaysCorrect) {
  test::GraphBuilder b;
  auto x = b.input("x", {2, 4, 8});
  auto y = b.input("y", {2, 4, 8});
  auto s = b.call("aten.mul.Tensor", {x, f(0.5)});
  auto kt = b.call("aten.transpose_copy.int", {y, int64_t(1), int64_t(2)});
  auto sc = b.call("aten.bmm.default", {s, kt});
  auto p = b.call("aten._softmax.default", {sc, int64_t(-1), false});
  auto o = b.call("aten.bmm.default", {p, y});
  auto extra = b.call("aten.add.Tensor", {o, s});  // the scaled q has a second user
  b.output({extra});
  ir::Graph src = b.g, g = b.g;
  xnnpack::ConvertToSDPAPass sdpa;
  ASSERT_EQ(runOne(sdpa, g).status, PassStatus::Changed);
  EXPECT_DOUBLE_EQ(sdpa.scalesRead().at(0), 1.0);
  EXPECT_TRUE(g.contains(s.node));
  auto r = test::verifyLowering(src, g);
  EXPECT_TRUE(r.diff.equivalent) << r.diff.message;
}

TEST(LiftConstantScalarOperands, LiftsEveryFormIntoZeroDimConstants) {
  test::GraphBuilder b;
  auto x = b.input("x", {2, 3});
  auto i = b.input("i", ir::DType::Int64, {2, 3});
  auto m1 = b.call("aten.mul.Scalar", {x, f(0.5)}, {}, "m1");
  auto m2 = b.call("aten.mul.Tensor", {m1, f(2.0)}, {}, "m2");
  auto d = b.call("aten.div.Tensor", {m2, f(3.0)}, {}, "d");
  auto a = b.call("aten.add.Scalar", {d, f(1.0), int64_t(2)}, {}, "a");
  auto r = b.call("aten.rsub.Scalar", {a, f(4.0)}, {}, "r");
  auto s = b.call("aten.sub.Tensor", {r, f(0.25)}, {{"alpha", f(2.0)}}, "s");
  auto ii = b.call("aten.mul.Tensor", {i, int64_t(3)}, {}, "ii");
  auto fi = b.call("aten.mul.Tensor", {i, f(0.5)}, {}, "fi");  // int * float: left alone
  auto keep = b.call("aten.add.Tensor", {s, x}, {}, "keep");
  b.output({keep, ii, fi});
  const ir::Graph src = b.g;
  ir::Graph g = b.g;
  const ir::NodePtr keepBefore = *g.findPtr(keep.node);
  xnnpack::LiftConstantScalarOperandsPass lift;
  ASSERT_EQ(runOne(lift, g).status, PassStatus::Changed);
  EXPECT_EQ(lift.statistics()[0].value, 7);
  EXPECT_EQ(lift.statistics()[2].value, 1);
  EXPECT_EQ(countOp(g, "aten.mul.Scalar") + countOp(g, "aten.add.Scalar") + countOp(g, "aten.rsub.Scalar"), 0u);
  EXPECT_EQ(countOp(g, "aten.full.default"), 0u);
  for (const char* name : {"m1", "m2", "d", "a", "r", "s", "ii"}) {
    const ir::Node& n = g.node(g.findByName(name));
    bool sawConst = false;
    for (const ir::Arg& arg : n.args) {
      EXPECT_FALSE(arg.isNumber()) << name;
      if (const ir::Constant* c = arg.ref() ? xnnpack::constantOf(g, *arg.ref()) : nullptr) {
        EXPECT_EQ(c->shape.rank(), 0) << name;
        EXPECT_EQ(c->dtype, g.meta(ir::ValueRef{n.id, 0}).dtype) << name;
        sawConst = true;
      }
    }
    EXPECT_TRUE(sawConst) << name;
  }
  EXPECT_EQ(g.node(g.findByName("r")).args[1].ref()->node, a.node);  // rsub: const - x
  EXPECT_EQ(*g.findPtr(keep.node), keepBefore);  // untargeted-in-effect node untouched
  auto v = test::verifyLowering(src, g);
  EXPECT_TRUE(v.diff.equivalent) << v.diff.message;
}

TEST(LiftConstantScalarOperands, SkippedWithoutScalarOperands) {
  ir::Graph g = test::loadGraph(test::realGraphPath("resnet18"));
  xnnpack::LiftConstantScalarOperandsPass lift;
  passes::PassContext ctx;
  auto sr = lift.shouldRun(g, ctx);
  EXPECT_FALSE(sr.run);
  EXPECT_EQ(sr.reason, passes::SkipReason::Precondition);
}

// ---------------------------------------------------------------- DecomposeActivations

TEST(DecomposeActivations, SiluAndHardsigmoidBecomeTableOps) {
  const ir::Graph src = test::loadGraph(test::realGraphPath("mobilenet_v3_small"));
  ir::Graph g = src;
  ASSERT_EQ(countOp(g, "aten.hardsigmoid.default"), 9u);
  const size_t addBefore = countOp(g, "aten.add.Tensor");
  xnnpack::DecomposeActivationsPass p;
  ASSERT_EQ(runOne(p, g).status, PassStatus::Changed);
  EXPECT_EQ(countOp(g, "aten.hardsigmoid.default"), 0u);
  EXPECT_EQ(countOp(g, "aten.clamp.default"), 9u);
  EXPECT_EQ(countOp(g, "aten.div.Tensor"), 9u);
  EXPECT_EQ(countOp(g, "aten.add.Tensor"), addBefore + 9);
  for (ir::NodeId id : g.nodesOfOp(ir::internOp("aten.div.Tensor"))) {
    const ir::Constant* six = xnnpack::constantOf(g, *g.node(id).args[1].ref());
    ASSERT_NE(six, nullptr);
    EXPECT_EQ(six->shape.rank(), 0);
    EXPECT_EQ(xnnpack::constantValues(*six).getDouble(0), 6.0);
  }
  auto v = test::verifyLowering(src, g);
  EXPECT_TRUE(v.diff.equivalent) << v.diff.message;

  test::GraphBuilder b;
  auto x = b.input("x", {2, 5});
  auto s = b.call("aten.silu.default", {x});
  b.output({s});
  ir::Graph h = b.g;
  ASSERT_EQ(runOne(p, h).status, PassStatus::Changed);
  EXPECT_EQ(countOp(h, "aten.silu.default"), 0u);
  EXPECT_EQ(countOp(h, "aten.sigmoid.default") + countOp(h, "aten.mul.Tensor"), 2u);
  auto v2 = test::verifyLowering(b.g, h);
  EXPECT_TRUE(v2.diff.equivalent) << v2.diff.message;
  ir::Graph r = test::loadGraph(test::realGraphPath("resnet18"));
  EXPECT_EQ(runOne(p, r).status, PassStatus::Skipped);
}

// ---------------------------------------------------------------- ConvertToLinear

TEST(ConvertToLinear, DeitAddmmBecomeLinear) {
  const ir::Graph src = test::loadGraph(test::realGraphPath("deit_tiny_vit"));
  ir::Graph g = src;
  ASSERT_EQ(countOp(g, "aten.addmm.default"), 49u);
  xnnpack::ConvertToLinearPass p;
  ASSERT_EQ(runOne(p, g).status, PassStatus::Changed);
  EXPECT_EQ(countOp(g, "aten.addmm.default"), 0u);
  EXPECT_EQ(countOp(g, "aten.linear.default"), 49u);
  EXPECT_EQ(countOp(g, "aten.t_copy.default"), 0u);
  auto v = test::verifyLowering(src, g);
  EXPECT_TRUE(v.diff.equivalent) << v.diff.message;
  ir::Graph w = test::loadGraph(test::realGraphPath("wav2letter"));
  EXPECT_EQ(runOne(p, w).status, PassStatus::Skipped);
}

TEST(ConvertToLinear, LeavesScaledAddmmAndDynamicWeights) {
  test::GraphBuilder b;
  auto x = b.input("x", {3, 4});
  auto y = b.input("y", {5, 4});
  auto yt = b.call("aten.t_copy.default", {y});
  auto mm = b.call("aten.mm.default", {x, yt});  // dynamic weight: not a constant
  b.output({mm});
  ir::Graph g = b.g;
  xnnpack::ConvertToLinearPass p;
  EXPECT_EQ(runOne(p, g).status, PassStatus::Unchanged);
}

// ---------------------------------------------------------------- batch norm, activation

TEST(FuseBatchNormAndActivation, MobilenetV2) {
  const ir::Graph src = test::loadGraph(test::realGraphPath("mobilenet_v2"));
  ir::Graph g = src;
  ASSERT_EQ(countOp(g, "aten.native_batch_norm.default"), 52u);
  auto bnOwner = xnnpack::makeFuseBatchNormPass();
  passes::Pass& bn = *bnOwner;
  ASSERT_EQ(runOne(bn, g).status, PassStatus::Changed);
  EXPECT_EQ(countOp(g, "aten.native_batch_norm.default"), 0u);
  EXPECT_EQ(countOp(g, "operator.getitem"), 0u);
  EXPECT_EQ(bn.statistics()[0].value, 52);
  xnnpack::FuseActivationPass act;
  ASSERT_EQ(runOne(act, g).status, PassStatus::Changed);
  EXPECT_EQ(countOp(g, "aten.hardtanh.default"), 0u);
  EXPECT_EQ(countOp(g, "xnnpack.convolution_clamp.default"), 35u);
  for (ir::NodeId id : g.nodesOfOp(ir::internOp("xnnpack.convolution_clamp.default"))) {
    EXPECT_DOUBLE_EQ(*g.node(id).kwarg("output_min")->number(), 0.0);
    EXPECT_DOUBLE_EQ(*g.node(id).kwarg("output_max")->number(), 6.0);
  }
  auto v = test::verifyLowering(src, g);
  EXPECT_TRUE(v.diff.equivalent) << v.diff.message;
  EXPECT_LT(v.diff.maxRelToMax, 1e-4);
}

TEST(FuseActivation, ReluOnAddAndClampOfClamp) {
  test::GraphBuilder b;
  auto x = b.input("x", {1, 6});
  auto y = b.input("y", {1, 6});
  auto a = b.call("aten.add.Tensor", {x, y});
  auto r = b.call("aten.relu.default", {a});
  auto h = b.call("aten.hardtanh.default", {r, f(-1.0), f(0.5)});
  auto s = b.call("aten.sub.Tensor", {x, y});
  auto s2 = b.call("aten.mul.Tensor", {s, y});
  auto used = b.call("aten.relu.default", {s});  // s has two users (mul, relu): not fused
  b.output({h, s2, used});
  const ir::Graph src = b.g;
  ir::Graph g = b.g;
  xnnpack::FuseActivationPass p;
  ASSERT_EQ(runOne(p, g).status, PassStatus::Changed);
  EXPECT_EQ(p.statistics()[0].value, 2);
  const ir::Node& fused = g.node(a.node);
  EXPECT_EQ(ir::opName(fused.op), "xnnpack.add_clamp.Tensor");
  EXPECT_DOUBLE_EQ(*fused.kwarg("output_min")->number(), 0.0);
  EXPECT_DOUBLE_EQ(*fused.kwarg("output_max")->number(), 0.5);
  EXPECT_EQ(countOp(g, "aten.relu.default"), 1u);
  auto v = test::verifyLowering(src, g);
  EXPECT_TRUE(v.diff.equivalent) << v.diff.message;
}

TEST(FuseActivation, HardtanhWithMinAboveMaxIsMaxEverywhere) {
  // A pipeline-fuzzer finding: hardtanh(x, 1.5, 1.0) (torch: 1.0 everywhere) was fused into an
  // output clamp [1.5, 1], which the fused op rejects as empty.
  test::GraphBuilder b;
  auto x = b.input("x", {1, 6});
  auto y = b.input("y", {1, 6});
  auto a = b.call("aten.add.Tensor", {x, y});
  b.output({b.call("aten.hardtanh.default", {a, f(1.5), f(1.0)})});
  const ir::Graph src = b.g;
  ir::Graph g = b.g;
  xnnpack::FuseActivationPass p;
  ASSERT_EQ(runOne(p, g).status, PassStatus::Changed);
  const ir::Node& fused = g.node(a.node);
  EXPECT_DOUBLE_EQ(*fused.kwarg("output_min")->number(), 1.0);
  EXPECT_DOUBLE_EQ(*fused.kwarg("output_max")->number(), 1.0);
  auto v = test::verifyLowering(src, g);
  EXPECT_TRUE(v.diff.equivalent) << v.diff.message;
}

TEST(DecomposeBatchNorm, NormAfterAddBecomesDepthwiseConv) {
  test::GraphBuilder b;
  auto x = b.input("x", {1, 3, 5, 5});
  ir::Constant mean, var;
  for (auto* c : {&mean, &var}) {
    c->kind = ir::ConstantKind::Buffer;
    c->shape = ir::Shape{3};
  }
  mean.name = "bn_running_mean";
  var.name = "bn_running_var";
  std::vector<ir::ValueRef> stats;
  for (auto* c : {&mean, &var}) {
    b.g.setConstant(*c);
    ir::Node n;
    n.kind = ir::NodeKind::GetAttr;
    n.name = n.target = c->name;
    n.outputs.push_back(ir::TensorMeta(ir::DType::Float32, c->shape));
    stats.push_back({b.g.append(std::move(n)), 0});
  }
  auto a = b.call("aten.add.Tensor", {x, x});
  auto bn = b.call("aten.native_batch_norm.default", {a, ir::Arg(), ir::Arg(), stats[0], stats[1], false, f(0.1), f(1e-5)});
  auto gi = b.call("operator.getitem", {bn, int64_t(0)});
  b.output({gi});
  const ir::Graph src = b.g;
  ir::Graph g = b.g;
  auto fuseOwner = xnnpack::makeFuseBatchNormPass();
  passes::Pass& fuse = *fuseOwner;
  EXPECT_EQ(runOne(fuse, g).status, PassStatus::Unchanged);  // producer is an add
  auto pOwner = xnnpack::makeDecomposeBatchNormPass();
  passes::Pass& p = *pOwner;
  ASSERT_EQ(runOne(p, g).status, PassStatus::Changed);
  EXPECT_EQ(countOp(g, "aten.native_batch_norm.default"), 0u);
  ASSERT_EQ(countOp(g, "aten.convolution.default"), 1u);
  const ir::Node& conv = g.node(g.nodesOfOp(ir::internOp("aten.convolution.default"))[0]);
  EXPECT_EQ(*conv.args[8].asInt(), 3);  // depthwise
  auto v = test::verifyLowering(src, g);
  EXPECT_TRUE(v.diff.equivalent) << v.diff.message;
}

// ---------------------------------------------------------------- cat, getitem, const prop

TEST(DecomposeConcatenate, SevenInputsBecomeAChain) {
  test::GraphBuilder b;
  ir::RefList ins;
  for (int i = 0; i < 7; ++i) ins.push_back(b.input("x" + std::to_string(i), {1, 2, 3}));
  auto c = b.call("aten.cat.default", {ins, int64_t(1)});
  b.output({c});
  const ir::Graph src = b.g;
  ir::Graph g = b.g;
  xnnpack::DecomposeConcatenatePass p;
  ASSERT_EQ(runOne(p, g).status, PassStatus::Changed);
  EXPECT_EQ(countOp(g, "aten.cat.default"), 2u);
  for (ir::NodeId id : g.nodesOfOp(ir::internOp("aten.cat.default")))
    EXPECT_LE(g.node(id).args[0].asRefList()->size(), 5u);
  auto v = test::verifyLowering(src, g);
  EXPECT_TRUE(v.diff.equivalent) << v.diff.message;
  ir::Graph sq = test::loadGraph(test::realGraphPath("squeezenet1_1"));  // 2-input cats only
  passes::PassContext ctx;
  EXPECT_EQ(p.shouldRun(sq, ctx).reason, passes::SkipReason::Precondition);
}

TEST(RemoveGetItem, ResnetMaxPoolLosesItsIndices) {
  const ir::Graph src = test::loadGraph(test::realGraphPath("resnet18"));
  ir::Graph g = src;
  transforms::RemoveGetItemPass p;
  ASSERT_EQ(runOne(p, g).status, PassStatus::Changed);
  EXPECT_EQ(countOp(g, "aten.max_pool2d_with_indices.default"), 0u);
  EXPECT_EQ(countOp(g, "aten.max_pool2d.default"), 1u);
  EXPECT_EQ(countOp(g, "operator.getitem"), 20u);  // the batch norms' getitems stay
  auto v = test::verifyLowering(src, g);
  EXPECT_TRUE(v.diff.equivalent) << v.diff.message;
}

TEST(RemoveGetItem, MaxDimWithUnusedIndicesBecomesAmax) {
  test::GraphBuilder b;
  auto x = b.input("x", {2, 5, 3});
  auto m = b.call("aten.max.dim", {x, int64_t(1), true});
  auto v = b.call("operator.getitem", {m, int64_t(0)});
  auto i = b.call("operator.getitem", {m, int64_t(1)});  // unused indices
  (void)i;
  b.output({v});
  const ir::Graph src = b.g;
  ir::Graph g = b.g;
  transforms::RemoveGetItemPass p;
  ASSERT_EQ(runOne(p, g).status, PassStatus::Changed);
  EXPECT_EQ(countOp(g, "aten.max.dim") + countOp(g, "operator.getitem"), 0u);
  EXPECT_EQ(countOp(g, "aten.amax.default"), 1u);
  auto r = test::verifyLowering(src, g);
  EXPECT_TRUE(r.diff.equivalent) << r.diff.message;
}

TEST(RemoveNoopExpandCopy, RemovesOnlySameShapeExpands) {
  const ir::Graph src = test::loadGraph(test::realGraphPath("deit_tiny_vit"));
  ir::Graph g = src;
  ASSERT_EQ(countOp(g, "aten.expand_copy.default"), 1u);  // class token [1,1,192] -> [1,-1,-1]
  xnnpack::RemoveNoopExpandCopyPass p;
  ASSERT_EQ(runOne(p, g).status, PassStatus::Changed);
  EXPECT_EQ(countOp(g, "aten.expand_copy.default"), 0u);
  EXPECT_EQ(g.size(), src.size() - 1);
  test::GraphBuilder b;
  auto x = b.input("x", {1, 3});
  auto e = b.call("aten.expand_copy.default", {x, IntList{4, 3}});
  b.output({e});
  ir::Graph h = b.g;
  EXPECT_EQ(runOne(p, h).status, PassStatus::Unchanged);
  ir::Graph r = test::loadGraph(test::realGraphPath("resnet18"));
  EXPECT_EQ(runOne(p, r).status, PassStatus::Skipped);
}

TEST(ConstProp, FoldsConstantOnlyChainsWithExecutorValues) {
  test::GraphBuilder b;
  auto x = b.input("x", {4, 3});
  ir::Constant w;
  w.name = "fc_weight";
  w.shape = ir::Shape{3, 4};  // shape-only: values synthesised by name
  b.g.setConstant(w);
  ir::Node ga;
  ga.kind = ir::NodeKind::GetAttr;
  ga.name = ga.target = "fc_weight";
  ga.outputs.push_back(ir::TensorMeta(ir::DType::Float32, w.shape));
  ir::ValueRef wv{b.g.append(std::move(ga)), 0};
  auto wt = b.call("aten.t_copy.default", {wv});
  auto w2 = b.call("aten.mul.Tensor", {wt, wt});
  auto y = b.call("aten.add.Tensor", {x, w2});
  b.output({y});
  const ir::Graph src = b.g;
  ir::Graph g = b.g;
  auto pOwner = xnnpack::makeConstPropPass();
  passes::Pass& p = *pOwner;
  ASSERT_EQ(runOne(p, g).status, PassStatus::Changed);
  EXPECT_EQ(p.statistics()[0].value, 2);
  EXPECT_EQ(countOp(g, "aten.t_copy.default") + countOp(g, "aten.mul.Tensor"), 0u);
  EXPECT_EQ(g.constant("fc_weight"), nullptr);  // dead after folding
  auto v = test::verifyLowering(src, g);
  EXPECT_TRUE(v.diff.equivalent) << v.diff.message;
  EXPECT_EQ(v.diff.maxAbsError, 0.0);
}

// ---------------------------------------------------------------- memory format

TEST(ChannelsLastTaggedReshape, MobilenetV3LayoutsMeetOnce) {
  ir::Graph src = test::loadGraph(test::realGraphPath("mobilenet_v3_small"));
  ir::Graph g = src;
  auto bnOwner = xnnpack::makeFuseBatchNormPass();
  passes::Pass& bn = *bnOwner;
  xnnpack::ChannelsLastTaggedReshapePass cl;
  xnnpack::RemoveRedundantCopyPass rr;
  runOne(bn, g);
  ASSERT_EQ(runOne(cl, g).status, PassStatus::Changed);
  const ir::DimOrder nhwc = ir::DimOrder::of({0, 2, 3, 1});
  std::set<std::pair<ir::NodeId, bool>> conversions;
  for (const ir::NodePtr& p : g.nodes()) {
    if (!p->isCall()) continue;
    const std::string& op = ir::opName(p->op);
    if (op == "aten.convolution.default" || op == "aten.mean.dim") {
      EXPECT_EQ(g.meta(*p->args[0].ref()).dimOrder, nhwc) << p->name;
    }
    if (op == "aten.view_copy.default" || op == "aten.linear.default" || op == "aten.addmm.default") {
      p->forEachInput([&](const ir::ValueRef& r) {
        if (g.meta(r).rank() == 4) {
          EXPECT_TRUE(g.meta(r).dimOrder.isIdentity()) << p->name;
        }
      });
    }
    if (op == "aten.clone.default" && p->kwarg("memory_format")) {
      const bool toNhwc = p->meta(0).dimOrder == nhwc;
      EXPECT_TRUE(conversions.insert({p->args[0].ref()->node, toNhwc}).second) << "converted twice: " << p->name;
    }
  }
  for (ir::ValueRef r : g.signature().outputs) EXPECT_TRUE(g.meta(r).dimOrder.isIdentity());
  EXPECT_GE(cl.statistics()[0].value, 1);
  EXPECT_EQ(runOne(rr, g).status, PassStatus::Unchanged);  // nothing redundant was inserted
  auto v = test::verifyLowering(src, g);
  EXPECT_TRUE(v.diff.equivalent) << v.diff.message;
}

TEST(ChannelsLastTaggedReshape, SqueezenetCatsFollowTheirChannelsLastInputs) {
  const ir::Graph src = test::loadGraph(test::realGraphPath("squeezenet1_1"));
  ir::Graph g = src;
  xnnpack::ChannelsLastTaggedReshapePass cl;
  ASSERT_EQ(runOne(cl, g).status, PassStatus::Changed);
  EXPECT_EQ(cl.statistics()[0].value, 1);  // only the graph input
  EXPECT_EQ(cl.statistics()[1].value, 0);  // mean.dim's [1,C,1,1] result is contiguous already
  const ir::DimOrder nhwc = ir::DimOrder::of({0, 2, 3, 1});
  for (ir::NodeId id : g.nodesOfOp(ir::internOp("aten.cat.default"))) EXPECT_EQ(g.node(id).meta(0).dimOrder, nhwc);
  auto v = test::verifyLowering(src, g);
  EXPECT_TRUE(v.diff.equivalent) << v.diff.message;

  // Mixed layouts into an agnostic op: everything goes NHWC (one conversion of the NCHW side).
  test::GraphBuilder b;
  auto x = b.input("x", {1, 2, 4, 4});
  auto y = b.input("y", {1, 2, 4, 4});
  ir::Constant w;
  w.name = "w";
  w.shape = ir::Shape{2, 2, 1, 1};
  b.g.setConstant(w);
  ir::Node ga;
  ga.kind = ir::NodeKind::GetAttr;
  ga.name = ga.target = "w";
  ga.outputs.push_back(ir::TensorMeta(ir::DType::Float32, w.shape));
  ir::ValueRef wv{b.g.append(std::move(ga)), 0};
  auto conv = b.call("aten.convolution.default",
                     {x, wv, ir::Arg(), IntList{1, 1}, IntList{0, 0}, IntList{1, 1}, false, IntList{0, 0}, int64_t(1)});
  auto sum = b.call("aten.add.Tensor", {y, conv});
  b.output({sum});
  ir::Graph h = b.g;
  xnnpack::ChannelsLastTaggedReshapePass cl2;
  ASSERT_EQ(runOne(cl2, h).status, PassStatus::Changed);
  EXPECT_EQ(cl2.statistics()[0].value, 2);  // x for the conv, y for the add
  EXPECT_EQ(cl2.statistics()[1].value, 1);  // the output
  EXPECT_EQ(h.node(sum.node).meta(0).dimOrder, nhwc);
}

TEST(RemoveRedundantCopy, CancelsRoundTrips) {
  test::GraphBuilder b;
  auto x = b.input("x", {1, 2, 3, 3});
  ir::EnumArg cl{ir::EnumKind::MemoryFormat, 2}, cf{ir::EnumKind::MemoryFormat, 0};
  auto a = b.call("aten.clone.default", {x}, {{"memory_format", cl}});
  auto back = b.call("aten.clone.default", {a}, {{"memory_format", cf}});
  auto noop = b.call("aten.clone.default", {back}, {{"memory_format", cf}});
  auto r = b.call("aten.relu.default", {noop});
  b.output({r});
  ir::Graph g = b.g;
  xnnpack::RemoveRedundantCopyPass p;
  ASSERT_EQ(runOne(p, g).status, PassStatus::Changed);
  EXPECT_EQ(countOp(g, "aten.clone.default"), 0u);
  EXPECT_EQ(g.node(r.node).args[0].ref()->node, x.node);
}

// ---------------------------------------------------------------- ops, kernels, bad input

TEST(XnnpackOps, SdpaMetaRejectsMismatchedShapesNamingTheNode) {
  test::GraphBuilder b;
  auto q = b.input("q", {2, 4, 8});
  auto k = b.input("k", {2, 5, 7});
  auto v = b.input("v", {2, 5, 3});
  EXPECT_NE(b.meta(std::string(xnnpack::kSdpaOp), {q, k, v}).find("embedding size"), std::string::npos);
  ir::Node n = b.makeCall(std::string(xnnpack::kSdpaOp), {q, k, v}, {}, "attn_bad");
  std::vector<ir::TensorMeta> out;
  Status st = ops::inferNode(b.g, n, out);
  ASSERT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("attn_bad"), std::string::npos) << st.message();
  auto k2 = b.input("k2", {2, 5, 8});
  EXPECT_EQ(b.meta(std::string(xnnpack::kSdpaOp), {q, k2, v}), "f32[2,4,3]");
}

TEST(XnnpackOps, FusedClampRejectsEmptyRange) {
  test::GraphBuilder b;
  auto x = b.input("x", {2});
  std::string m = b.meta("xnnpack.add_clamp.Tensor", {x, x}, {{"output_min", f(1.0)}, {"output_max", f(0.0)}});
  EXPECT_NE(m.find("empty"), std::string::npos) << m;
  EXPECT_EQ(b.meta("xnnpack.add_clamp.Tensor", {x, x}, {{"output_min", f(0.0)}, {"output_max", f(1.0)}}), "f32[2]");
}

TEST(XnnpackKernels, SdpaMatchesDecomposedAttentionWithMaskAndDefaultScale) {
  test::GraphBuilder b;
  auto q = b.input("q", {2, 3, 4});
  auto k = b.input("k", {2, 5, 4});
  auto v = b.input("v", {2, 5, 6});
  auto m = b.input("m", {3, 5});
  auto o = b.call(std::string(xnnpack::kSdpaOp), {q, k, v, m});
  b.output({o});
  test::GraphBuilder r;  // decomposed reference: softmax(q k^T / 2 + m) v
  auto rq = r.input("q", {2, 3, 4});
  auto rk = r.input("k", {2, 5, 4});
  auto rv = r.input("v", {2, 5, 6});
  auto rm = r.input("m", {3, 5});
  auto kt = r.call("aten.transpose_copy.int", {rk, int64_t(1), int64_t(2)});
  auto s = r.call("aten.bmm.default", {rq, kt});
  auto sc = r.call("aten.div.Tensor", {s, f(2.0)});
  auto sm = r.call("aten.add.Tensor", {sc, rm});
  auto p = r.call("aten._softmax.default", {sm, int64_t(-1), false});
  auto ro = r.call("aten.bmm.default", {p, rv});
  r.output({ro});
  auto v1 = test::verifyLowering(r.g, b.g, 7);
  EXPECT_TRUE(v1.diff.equivalent) << v1.diff.message;
  EXPECT_LT(v1.diff.maxRelToMax, 1e-5);
}

TEST(XnnpackKernels, DelegateWithMissingSubgraphIsAClearError) {
  test::GraphBuilder b;
  auto x = b.input("x", {2});
  ir::Node call = b.makeCall("lowerscope.call_delegate.default", {ir::Arg("xnnpack_delegate_9"), ir::RefList{x}}, {},
                             "xnnpack_delegate_9");
  call.outputs.push_back(ir::TensorMeta(ir::DType::Float32, {2}));
  std::vector<ir::TensorMeta> out;
  Status st = ops::inferNode(b.g, call, out);
  ASSERT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("no subgraph named 'xnnpack_delegate_9'"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace ls
