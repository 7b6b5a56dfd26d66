// Arm TOSA passes in upstream test style: exact op counts before/after, untargeted nodes
// untouched, skipped when absent, bad input rejected with the node's name, and the reference
// executor agreeing before/after. Plus the seed cases: FuseTosaTransposes' four rules
// (incl. a binary op whose non-broadcast-safe operand blocks propagation) and seed 004
// (duplicate output slots after FuseEqualPlaceholders stay distinct with IDENTITY fan-out).
#include <gtest/gtest.h>

#include <set>

#include <cmath>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/tosa/tosa_ops.h"
#include "core/exec/compare.h"
#include "core/exec/executor.h"
#include "core/exec/synth.h"
#include "core/passes/pass_manager.h"
#include "support/graph_builder.h"

namespace ls::arm {
namespace {

using ir::IntList;
using ir::Shape;
using passes::PassStatus;

size_t count(const ir::Graph& g, const std::string& op) { return g.nodesOfOp(ir::internOp(op)).size(); }

/// Adds a constant with data (float32 unless given) and its get_attr node.
ir::ValueRef constant(test::GraphBuilder& b, const std::string& name, Shape s, std::vector<double> v,
                      ir::DType t = ir::DType::Float32) {
  return b.constant(name, t, s, v);
}

/// Deterministic values of a given size.
std::vector<double> ramp(int64_t n, double scale = 0.1) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = scale * std::sin(double(i) * 0.37 + 0.1);
  return v;
}

struct Outcome {
  passes::PassResult result;
  passes::ShouldRun should;
};

Outcome runPass(const std::string& name, ir::Graph& g, passes::Profile profile = passes::Profile::FP) {
  auto p = passes::PassRegistry::instance().create(name);
  EXPECT_NE(p, nullptr) << name;
  static ops::InferenceCache cache;
  passes::PassContext ctx;
  ctx.profile = profile;
  ctx.cache = &cache;
  Outcome o{{}, p->shouldRun(g, ctx)};
  if (!o.should.run) {
    o.result.status = PassStatus::Skipped;
    return o;
  }
  o.result = p->run(g, ctx);
  return o;
}

/// Runs both graphs on the same seeded inputs and returns the max error relative to scale.
double maxRelDiff(const ir::Graph& before, const ir::Graph& after) {
  exec::Executor ex({}, std::make_shared<exec::ConstantCache>());
  auto in = exec::synthesizeInputs(before, 3);
  auto a = ex.run(before, in);
  auto b = ex.run(after, in);
  EXPECT_TRUE(a.isOk()) << a.message();
  EXPECT_TRUE(b.isOk()) << b.message();
  if (!a.isOk() || !b.isOk()) return 1e9;
  return exec::compareOutputs(*b, *a).maxRelToMax;
}

void expectVerified(const ir::Graph& g) {
  Status st = passes::VerifierInstrumentation::verifyGraph(g);
  EXPECT_TRUE(st.isOk()) << st.message();
}

// ====================================================================== TOSA op metas

TEST(TosaMeta, Conv2dShapeAndIdivCheck) {
  test::GraphBuilder b;
  auto x = b.input("x", {1, 9, 9, 3});
  auto w = constant(b, "w", {8, 3, 3, 3}, ramp(8 * 27));
  auto bias = constant(b, "bias", {8}, ramp(8));
  auto zp = constant(b, "zp", {1}, {0.0});
  EXPECT_EQ(b.meta("tosa.CONV2D", {x, w, bias, zp, zp},
                   {{"pad", IntList{1, 1, 1, 1}}, {"stride", IntList{2, 2}}, {"dilation", IntList{1, 1}}, {"acc_type", "FP32"}}),
            "f32[1,5,5,8]{0,2,3,1}");
  // (9 - 1 + 1 + 0 - 2) = 7 is not divisible by 2: TOSA's idiv_check rejects it.
  std::string err = b.meta("tosa.CONV2D", {x, w, bias, zp, zp},
                           {{"pad", IntList{1, 0, 1, 1}}, {"stride", IntList{2, 2}}, {"dilation", IntList{1, 1}}, {"acc_type", "FP32"}});
  EXPECT_NE(err.find("idiv_check"), std::string::npos) << err;
}

TEST(TosaMeta, ElementwiseNeedsEqualRanksAndShapeInputsNeedConstShape) {
  test::GraphBuilder b;
  auto x = b.input("x", {2, 3});
  auto y = b.input("y", {3});
  EXPECT_NE(b.meta("tosa.ADD", {x, y}).find("equal rank"), std::string::npos);
  auto s = b.call("tosa.CONST_SHAPE", {}, {{"values", IntList{3, 2}}});
  EXPECT_EQ(b.meta("tosa.RESHAPE", {x, s}), "f32[3,2]");
  EXPECT_NE(b.meta("tosa.RESHAPE", {x, x}).find("CONST_SHAPE"), std::string::npos);
  EXPECT_NE(b.meta("tosa.TRANSPOSE", {x}, {{"perms", IntList{0, 0}}}).find("not a permutation"), std::string::npos);
}

// ====================================================================== integer kernels

TEST(TosaKernels, RescaleRoundingModesAndSaturation) {
  test::GraphBuilder b;
  auto x = b.input("x", ir::DType::Int32, {4});
  auto mul = constant(b, "m", {1}, {double(1 << 30)}, ir::DType::Int32);  // 0.5 with shift 31
  auto sh = constant(b, "s", {1}, {31.0}, ir::DType::Int8);
  auto izp = constant(b, "izp", {1}, {0.0}, ir::DType::Int32);
  auto ozp = constant(b, "ozp", {1}, {3.0}, ir::DType::Int8);
  auto r = b.call("tosa.RESCALE", {x, mul, sh, izp, ozp},
                  {{"scale32", true}, {"rounding_mode", "SINGLE_ROUND"}, {"per_channel", false}});
  b.output({r});
  exec::Executor ex;
  auto out = ex.run(b.g, {exec::Tensor::fromInts(ir::DType::Int32, {4}, {5, -5, 1000, -3})});
  ASSERT_TRUE(out.isOk()) << out.message();
  // round-half-up of x/2, + output zero point 3, saturated to int8
  EXPECT_EQ((*out)[0].toInts(), (std::vector<int64_t>{6, 1, 127, 2}));
}

TEST(TosaKernels, Int8Conv2dAccumulatesInInt32WithZeroPoints) {
  test::GraphBuilder b;
  auto x = b.input("x", ir::DType::Int8, {1, 2, 2, 1});
  auto w = constant(b, "w", {1, 2, 2, 1}, {1, 2, 3, 4}, ir::DType::Int8);
  auto bias = constant(b, "bias", {1}, {100}, ir::DType::Int32);
  auto izp = constant(b, "izp", {1}, {-1}, ir::DType::Int8);
  auto wzp = constant(b, "wzp", {1}, {0}, ir::DType::Int8);
  auto c = b.call("tosa.CONV2D", {x, w, bias, izp, wzp},
                  {{"pad", IntList{0, 0, 0, 0}}, {"stride", IntList{1, 1}}, {"dilation", IntList{1, 1}}, {"acc_type", "INT32"}});
  b.output({c});
  EXPECT_EQ(b.g.meta(c).dtype, ir::DType::Int32);
  exec::Executor ex;
  auto out = ex.run(b.g, {exec::Tensor::fromInts(ir::DType::Int8, {1, 2, 2, 1}, {10, 20, 30, 40})});
  ASSERT_TRUE(out.isOk()) << out.message();
  // sum((x + 1) * w) + 100 = 11 + 42 + 93 + 164 + 100
  EXPECT_EQ((*out)[0].toInts(), (std::vector<int64_t>{410}));
}

TEST(TosaKernels, Int8TableLooksUpByValuePlus128) {
  test::GraphBuilder b;
  auto x = b.input("x", ir::DType::Int8, {3});
  std::vector<double> t(256);
  for (int i = 0; i < 256; ++i) t[size_t(i)] = double((i - 128) / 2);
  auto table = constant(b, "t", {256}, t, ir::DType::Int8);
  auto y = b.call("tosa.TABLE", {x, table});
  b.output({y});
  exec::Executor ex;
  auto out = ex.run(b.g, {exec::Tensor::fromInts(ir::DType::Int8, {3}, {-128, 7, 127})});
  ASSERT_TRUE(out.isOk()) << out.message();
  EXPECT_EQ((*out)[0].toInts(), (std::vector<int64_t>{-64, 3, 63}));
}

// ====================================================================== decompositions

TEST(ConvertToClampPass, CountsUntouchedAndSkipped) {
  test::GraphBuilder b;
  auto x = b.input("x", {1, 4, 3, 3});
  auto r = b.call("aten.relu.default", {x}, {}, "relu");
  auto h = b.call("aten.hardtanh.default", {r, 0.0, 6.0}, {}, "hardtanh");
  auto s = b.call("aten.sigmoid.default", {h}, {}, "sig");
  auto other = b.call("aten.sigmoid.default", {x}, {}, "sig_untouched");
  b.output({s, other});
  ir::Graph before = b.g;
  EXPECT_EQ(count(b.g, "aten.relu.default") + count(b.g, "aten.hardtanh.default"), 2u);
  EXPECT_EQ(runPass("ConvertToClampPass", b.g).result.status, PassStatus::Changed);
  EXPECT_EQ(count(b.g, "aten.relu.default") + count(b.g, "aten.hardtanh.default"), 0u);
  EXPECT_EQ(count(b.g, "aten.clamp.default"), 2u);
  // Untargeted nodes whose inputs did not change keep their node version (fast-copied).
  EXPECT_EQ(b.g.findPtr(other.node)->get(), before.findPtr(other.node)->get());
  EXPECT_EQ(count(b.g, "aten.sigmoid.default"), 2u);
  expectVerified(b.g);
  EXPECT_LT(maxRelDiff(before, b.g), 1e-6);
  EXPECT_EQ(runPass("ConvertToClampPass", b.g).result.status, PassStatus::Skipped);
}

TEST(DecomposePasses, ActivationsNormsSoftmaxDivAgreeWithExecutor) {
  test::GraphBuilder b;
  auto x = b.input("x", {2, 5, 8});
  auto w = constant(b, "ln_w", {8}, ramp(8, 1.0));
  auto bias = constant(b, "ln_b", {8}, ramp(8));
  auto ln = b.call("aten.native_layer_norm.default", {x, IntList{8}, w, bias, 1e-5}, {}, "ln");
  auto g0 = b.call("operator.getitem", {ln, 0});
  auto ge = b.call("aten.gelu.default", {g0}, {}, "gelu");
  auto hs = b.call("aten.hardswish.default", {ge}, {}, "hs");
  auto si = b.call("aten.silu.default", {hs}, {}, "silu");
  auto dv = b.call("aten.div.Tensor", {si, 8.0}, {}, "div");
  auto sm = b.call("aten._softmax.default", {dv, -1, false}, {}, "softmax");
  auto ls = b.call("aten._log_softmax.default", {dv, 1, false}, {}, "log_softmax");
  auto mn = b.call("aten.mean.dim", {ls, IntList{-1}, true}, {}, "mean");
  b.output({sm, mn});
  ir::Graph before = b.g;
  for (const char* p : {"DecomposeLayerNormPass", "DecomposeGeluPass", "DecomposeHardswishPass", "DecomposeSiluPass",
                        "DecomposeDivPass", "DecomposeSoftmaxPass", "DecomposeLogSoftmaxPass", "DecomposeMeanDimPass"}) {
    Outcome o = runPass(p, b.g);
    EXPECT_EQ(o.result.status, PassStatus::Changed) << p << ": " << o.result.message;
    expectVerified(b.g);
  }
  for (const char* op : {"aten.native_layer_norm.default", "aten.gelu.default", "aten.hardswish.default",
                         "aten.silu.default", "aten.div.Tensor", "aten._softmax.default", "aten._log_softmax.default",
                         "aten.mean.dim"})
    EXPECT_EQ(count(b.g, op), 0u) << op;
  EXPECT_LT(maxRelDiff(before, b.g), 1e-5);
  // Skipped when absent.
  EXPECT_EQ(runPass("DecomposeGeluPass", b.g).result.status, PassStatus::Skipped);
  EXPECT_EQ(runPass("DecomposeGeluPass", b.g).should.reason, passes::SkipReason::NoTargetOps);
}

TEST(DecomposeGeluPass, BadApproximateIsRejectedNamingTheNode) {
  test::GraphBuilder b;
  auto x = b.input("x", {4});
  auto g = b.call("aten.gelu.default", {x}, {{"approximate", "cubic"}}, "my_gelu");
  b.output({g});
  Outcome o = runPass("DecomposeGeluPass", b.g);
  EXPECT_EQ(o.result.status, PassStatus::Failed);
  EXPECT_NE(o.result.message.find("my_gelu"), std::string::npos) << o.result.message;
  EXPECT_NE(o.result.message.find("cubic"), std::string::npos) << o.result.message;
}

TEST(FuseBatchNorm2dPass, FoldsIntoSingleUseConvAndKeepsOthers) {
  test::GraphBuilder b;
  auto x = b.input("x", {1, 3, 6, 6});
  auto w = constant(b, "conv_w", {4, 3, 3, 3}, ramp(108, 0.3));
  auto cb = constant(b, "conv_b", {4}, ramp(4));
  auto c = b.call("aten.convolution.default", {x, w, cb, IntList{1, 1}, IntList{1, 1}, IntList{1, 1}, false, IntList{0, 0}, 1}, {}, "conv");
  auto gw = constant(b, "bn_w", {4}, {1.1, 0.9, 1.0, 1.2});
  auto gb = constant(b, "bn_b", {4}, {0.1, -0.1, 0.0, 0.2});
  auto rm = constant(b, "bn_rm", {4}, {0.05, -0.02, 0.0, 0.1});
  auto rv = constant(b, "bn_rv", {4}, {0.9, 1.1, 1.0, 0.8});
  auto bn = b.call("aten.native_batch_norm.default", {c, gw, gb, rm, rv, false, 0.1, 1e-5}, {}, "bn");
  auto g0 = b.call("operator.getitem", {bn, 0}, {}, "bn_0");
  // A second batch norm after a relu (no conv producer) must be left alone.
  auto relu = b.call("aten.relu.default", {g0}, {}, "relu");
  auto bn2 = b.call("aten.native_batch_norm.default", {relu, gw, gb, rm, rv, false, 0.1, 1e-5}, {}, "bn2");
  auto g1 = b.call("operator.getitem", {bn2, 0}, {}, "bn2_0");
  b.output({g1});
  ir::Graph before = b.g;
  Outcome o = runPass("FuseBatchNorm2dPass", b.g);
  ASSERT_EQ(o.result.status, PassStatus::Changed) << o.result.message;
  EXPECT_EQ(count(b.g, "aten.native_batch_norm.default"), 1u);
  EXPECT_EQ(count(b.g, "aten.convolution.default"), 1u);
  expectVerified(b.g);
  EXPECT_LT(maxRelDiff(before, b.g), 1e-5);
  // The remaining one is decomposed to mul + add.
  ASSERT_EQ(runPass("DecomposeBatchNormNoStatsPass", b.g).result.status, PassStatus::Changed);
  EXPECT_EQ(count(b.g, "aten.native_batch_norm.default"), 0u);
  EXPECT_LT(maxRelDiff(before, b.g), 1e-5);
}

// ====================================================================== ATen -> TOSA

TEST(RewriteConv2dPass, RegularDepthwiseAndStrideFitAgreeWithExecutor) {
  test::GraphBuilder b;
  auto x = b.input("x", {1, 4, 7, 7});
  auto w = constant(b, "w", {6, 4, 3, 3}, ramp(216, 0.2));
  // stride 2, pad 1, 7x7: (7 - 1 + 2 - 2) % 2 == 0 -> fits; next conv has an odd remainder.
  auto c1 = b.call("aten.convolution.default", {x, w, ir::Arg(), IntList{2, 2}, IntList{1, 1}, IntList{1, 1}, false, IntList{0, 0}, 1}, {}, "c1");
  auto dw = constant(b, "dw", {6, 1, 3, 3}, ramp(54, 0.3));
  auto db = constant(b, "db", {6}, ramp(6));
  auto c2 = b.call("aten.convolution.default", {c1, dw, db, IntList{2, 2}, IntList{1, 1}, IntList{1, 1}, false, IntList{0, 0}, 6}, {}, "c2");
  auto r = b.call("aten.relu.default", {c2}, {}, "relu");
  b.output({r});
  ir::Graph before = b.g;
  Outcome o = runPass("RewriteConv2dPass", b.g);
  ASSERT_EQ(o.result.status, PassStatus::Changed) << o.result.message;
  EXPECT_EQ(count(b.g, "aten.convolution.default"), 0u);
  EXPECT_EQ(count(b.g, "tosa.CONV2D"), 1u);
  EXPECT_EQ(count(b.g, "tosa.DEPTHWISE_CONV2D"), 1u);
  EXPECT_EQ(count(b.g, "aten.permute_copy.default"), 4u);  // NHWC in/out around each
  EXPECT_EQ(count(b.g, "aten.relu.default"), 1u);
  expectVerified(b.g);
  EXPECT_LT(maxRelDiff(before, b.g), 1e-5);
}

TEST(RewriteConv2dPass, ThreeDConvolutionBecomesConv3dAndAgreesWithExecutor) {
  test::GraphBuilder b;
  auto x = b.input("x", {1, 3, 4, 6, 5});
  auto w = constant(b, "w", {4, 3, 3, 2, 3}, ramp(216, 0.2));
  auto bias = constant(b, "bias", {4}, ramp(4));
  // stride 2 on depth and width with padding: TOSA's end padding is fitted per dim.
  auto c = b.call("aten.convolution.default", {x, w, bias, IntList{2, 1, 2}, IntList{1, 0, 1}, IntList{1, 2, 1}, false,
                                               IntList{0, 0, 0}, 1}, {}, "c3");
  b.output({c});
  ir::Graph before = b.g;
  Outcome o = runPass("RewriteConv2dPass", b.g);
  ASSERT_EQ(o.result.status, PassStatus::Changed) << o.result.message;
  EXPECT_EQ(count(b.g, "aten.convolution.default"), 0u);
  EXPECT_EQ(count(b.g, "tosa.CONV3D"), 1u);
  expectVerified(b.g);
  EXPECT_LT(maxRelDiff(before, b.g), 1e-5);
}

TEST(RewriteConv2dPass, TransposedOrGrouped3dMustBeDecomposedFirst) {
  for (bool transposed : {true, false}) {
    test::GraphBuilder b;
    auto x = b.input("x", {1, 4, 3, 3, 3});
    auto w = constant(b, "w", {4, transposed ? 4 : 2, 1, 1, 1}, ramp(transposed ? 16 : 8, 0.2));
    auto c = b.call("aten.convolution.default", {x, w, ir::Arg(), IntList{1, 1, 1}, IntList{0, 0, 0}, IntList{1, 1, 1},
                                                 transposed, IntList{0, 0, 0}, transposed ? 1 : 2}, {}, "c3");
    b.output({c});
    Outcome o = runPass("RewriteConv2dPass", b.g);
    EXPECT_EQ(o.result.status, PassStatus::Failed);
    EXPECT_NE(o.result.message.find("must be decomposed first"), std::string::npos) << o.result.message;
  }
}

TEST(RewriteConv2dPass, NonConstantWeightIsABadInput) {
  test::GraphBuilder b;
  auto x = b.input("x", {1, 2, 4, 4});
  auto w = b.input("w", {2, 2, 1, 1});
  auto c = b.call("aten.convolution.default", {x, w, ir::Arg(), IntList{1, 1}, IntList{0, 0}, IntList{1, 1}, false, IntList{0, 0}, 1}, {}, "conv_dyn");
  b.output({c});
  Outcome o = runPass("RewriteConv2dPass", b.g);
  EXPECT_EQ(o.result.status, PassStatus::Failed);
  EXPECT_NE(o.result.message.find("conv_dyn"), std::string::npos) << o.result.message;
  EXPECT_NE(o.result.message.find("constant"), std::string::npos) << o.result.message;
}

TEST(RewritePoolAndUpsample, CeilModeMaxPoolAndResizeModesAgreeWithExecutor) {
  for (int variant = 0; variant < 4; ++variant) {
    test::GraphBuilder b;
    auto x = b.input("x", {1, 3, 7, 9});
    ir::ValueRef y;
    if (variant == 0)
      y = b.call("aten.max_pool2d.default", {x, IntList{3, 3}, IntList{2, 2}, IntList{1, 1}, IntList{1, 1}, true});
    else if (variant == 1)
      y = b.call("aten.upsample_bilinear2d.vec", {x, IntList{14, 20}, false, ir::Arg()});
    else if (variant == 2)
      y = b.call("aten.upsample_bilinear2d.vec", {x, IntList{13, 17}, true, ir::Arg()});
    else
      y = b.call("aten.upsample_nearest2d.vec", {x, IntList{14, 27}, ir::Arg()});
    b.output({y});
    ir::Graph before = b.g;
    const char* pass = variant == 0 ? "RewriteMaxPool2dPass" : "RewriteUpsamplePass";
    Outcome o = runPass(pass, b.g);
    ASSERT_EQ(o.result.status, PassStatus::Changed) << variant << ": " << o.result.message;
    expectVerified(b.g);
    EXPECT_LT(maxRelDiff(before, b.g), 1e-5) << "variant " << variant;
  }
}

TEST(ConvertInt64ConstOpsToInt32Pass, CastOfInt64ConstantBecomesInt32Constant) {
  // Swin's relative_position_index (int64 buffer) read through CAST int32: TOSA has no int64.
  test::GraphBuilder b;
  auto idx = constant(b, "index", {4}, {0, 3, 1, 2}, ir::DType::Int64);
  auto big = constant(b, "big", {2}, {1, 5e9}, ir::DType::Int64);
  auto i32 = ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(ir::DType::Int32)});
  auto c = b.call("tosa.CAST", {idx}, {{"dtype", i32}});
  auto cb = b.call("tosa.CAST", {big}, {{"dtype", i32}});
  b.output({c, cb});
  ir::Graph before = b.g;
  Outcome o = runPass("ConvertInt64ConstOpsToInt32Pass", b.g);
  ASSERT_EQ(o.result.status, PassStatus::Changed) << o.result.message;
  runPass("DeadCodeEliminationPass", b.g);
  EXPECT_EQ(count(b.g, "tosa.CAST"), 1u);  // 5e9 does not fit int32: that CAST stays
  const ir::Node& out = *b.g.outputNode();
  const ir::ValueRef first = out.args[0].asRefList()->at(0);
  EXPECT_EQ(b.g.node(first.node).kind, ir::NodeKind::GetAttr);
  EXPECT_EQ(b.g.meta(first).dtype, ir::DType::Int32);
  EXPECT_LT(maxRelDiff(before, b.g), 1e-12);
  test::GraphBuilder none;
  auto x = none.input("x", {2});
  none.output({none.call("tosa.CAST", {x}, {{"dtype", i32}})});
  EXPECT_EQ(runPass("ConvertInt64ConstOpsToInt32Pass", none.g).result.status, PassStatus::Unchanged);
}

TEST(ConvertInt64ConstOpsToInt32Pass, CastOfInt64ConstantToFloatOrBoolBecomesAConstant) {
  // An arange (int64) read as float or bool: the constant of the CAST's type, values exact.
  test::GraphBuilder b;
  auto idx = constant(b, "index", {4}, {0, -3, 7, 2}, ir::DType::Int64);
  auto f32 = ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(ir::DType::Float32)});
  auto boo = ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(ir::DType::Bool)});
  auto cf = b.call("tosa.CAST", {idx}, {{"dtype", f32}});
  auto cb = b.call("tosa.CAST", {idx}, {{"dtype", boo}});
  b.output({cf, cb});
  ir::Graph before = b.g;
  Outcome o = runPass("ConvertInt64ConstOpsToInt32Pass", b.g);
  ASSERT_EQ(o.result.status, PassStatus::Changed) << o.result.message;
  runPass("DeadCodeEliminationPass", b.g);
  EXPECT_EQ(count(b.g, "tosa.CAST"), 0u);
  EXPECT_EQ(maxRelDiff(before, b.g), 0.0);
}

TEST(ExirToTosaPass, ConcatOfMoreThan64TensorsIsGrouped) {
  // Level 8K: at most 64 tensors per CONCAT list; 70 inputs -> one CONCAT of 64, one of 6, and
  // one of the two results.
  test::GraphBuilder b;
  auto x = b.input("x", {70, 2});
  ir::RefList parts;
  for (int64_t i = 0; i < 70; ++i)
    parts.push_back(b.call("aten.slice_copy.Tensor", {x, int64_t(0), 69 - i, 70 - i, int64_t(1)}));
  b.output({b.call("aten.cat.default", {parts, int64_t(0)})});
  ir::Graph before = b.g;
  Outcome o = runPass("ExirToTosaPass", b.g);
  ASSERT_EQ(o.result.status, PassStatus::Changed) << o.result.message;
  EXPECT_EQ(count(b.g, "tosa.CONCAT"), 3u);
  for (ir::NodeId id : b.g.nodesOfOp(ir::internOp("tosa.CONCAT")))
    EXPECT_LE(b.g.node(id).args[0].asRefList()->size(), 64u);
  expectVerified(b.g);
  EXPECT_EQ(maxRelDiff(before, b.g), 0.0);
}

TEST(RewriteSlicePass, SteppedSlicesBecomeSliceReshapeSlice) {
  // Swin's patch merging takes x[:, 0::2, 1::2, :]; odd lengths need the end padded.
  struct Case {
    int64_t dim, start, end, step;
  };
  for (Case c : {Case{1, 0, 8, 2}, Case{2, 1, 7, 2}, Case{1, 1, 8, 3}, Case{2, 0, 7, 3}, Case{3, 2, 5, 2}}) {
    test::GraphBuilder b;
    auto x = b.input("x", {1, 8, 7, 5});
    auto y = b.call("aten.slice_copy.Tensor", {x, c.dim, c.start, c.end, c.step});
    b.output({y});
    ir::Graph before = b.g;
    Outcome o = runPass("RewriteSlicePass", b.g);
    ASSERT_EQ(o.result.status, PassStatus::Changed) << o.result.message;
    for (const ir::NodePtr& p : b.g.nodes())
      if (p->isCall()) {
        EXPECT_TRUE(isTosaOp(p->op)) << p->name;
      }
    EXPECT_LT(maxRelDiff(before, b.g), 1e-7) << "dim " << c.dim << " " << c.start << ":" << c.end << ":" << c.step;
  }
}

TEST(DecomposeAdaptiveAvgPool2dPass, UnequalBinsBecomeSlicesAndMeans) {
  // 5x7 -> 3x2 (overlapping bins) and 2x2 -> 3x3 (repeated rows): PyTorch's bins
  // [floor(o * in / out), ceil((o + 1) * in / out)).
  for (auto [in, out] : std::vector<std::pair<Shape, IntList>>{{Shape{1, 2, 5, 7}, IntList{3, 2}},
                                                               {Shape{1, 3, 2, 2}, IntList{3, 3}}}) {
    test::GraphBuilder b;
    auto x = b.input("x", in);
    auto y = b.call("aten.adaptive_avg_pool2d.default", {x, out});
    b.output({y});
    ir::Graph before = b.g;
    Outcome o = runPass("DecomposeAdaptiveAvgPool2dPass", b.g);
    ASSERT_EQ(o.result.status, PassStatus::Changed) << o.result.message;
    EXPECT_EQ(count(b.g, "aten.adaptive_avg_pool2d.default"), 0u);
    EXPECT_GT(count(b.g, "aten.slice_copy.Tensor"), 0u);
    EXPECT_LT(maxRelDiff(before, b.g), 1e-6);
  }
}

TEST(CheckTosaOperatorSupportPass, IntFloatIslandsCountedAndRejectedForEthosU) {
  // int8 x -> CLAMP -> CAST f32 -> EXP -> CAST int8 -> output: the CAST to f32 and the EXP
  // are float compute between integer ops (the graph output stays int8).
  test::GraphBuilder b;
  auto x = b.input("x", ir::DType::Int8, {1, 4});
  auto c = b.call("tosa.CLAMP", {x}, {{"min_val", int64_t(-100)}, {"max_val", int64_t(100)}, {"nan_mode", "PROPAGATE"}});
  auto f = b.call("tosa.CAST", {c}, {{"dtype", ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(ir::DType::Float32)})}},
                  "to_float");
  auto e = b.call("tosa.EXP", {f}, {}, "exp");
  auto i = b.call("tosa.CAST", {e}, {{"dtype", ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(ir::DType::Int8)})}});
  b.output({i});
  auto run = [&](passes::Profile prof, passes::Target target) {
    ir::Graph g = b.g;
    auto p = passes::PassRegistry::instance().create("CheckTosaOperatorSupportPass");
    passes::PassContext ctx;
    ctx.profile = prof;
    ctx.target = target;
    passes::PassResult r = p->run(g, ctx);
    int64_t islands = -1;
    for (const auto& st : p->statistics())
      if (st.name == "float_islands") islands = st.value;
    return std::make_pair(r, islands);
  };
  auto [fp, fpIslands] = run(passes::Profile::FP, passes::Target::U55);
  EXPECT_EQ(fp.status, passes::PassStatus::Unchanged) << fp.message;  // FP: float is the profile
  EXPECT_EQ(fpIslands, 0);
  auto [gen, genIslands] = run(passes::Profile::INT, passes::Target::Generic);
  EXPECT_EQ(gen.status, passes::PassStatus::Unchanged) << gen.message;
  EXPECT_EQ(genIslands, 2);
  auto [u55, u55Islands] = run(passes::Profile::INT, passes::Target::U55);
  ASSERT_EQ(u55.status, passes::PassStatus::Failed);
  EXPECT_NE(u55.message.find("2 node(s) compute in float"), std::string::npos) << u55.message;
  EXPECT_NE(u55.message.find("Ethos-U55"), std::string::npos) << u55.message;
  EXPECT_NE(u55.message.find("to_float (tosa.CAST), exp (tosa.EXP)"), std::string::npos) << u55.message;
}

TEST(CheckTosaOperatorSupportPass, ATosaNamedOpOutsideTheTosaOpTableIsNotTosa) {
  // "tosa.RELU" has the namespace but is no TOSA 1.0 operator (not in the op table the
  // registry and the writer share), so the pass rejects it here rather than the writer later.
  test::GraphBuilder b;
  auto x = b.input("x", {1, 4});
  auto e = b.call("tosa.EXP", {x}, {}, "exp");
  auto r = b.call("tosa.RELU", {e}, {}, "relu");
  b.output({r});
  EXPECT_TRUE(isTosaOp(ir::internOp("tosa.EXP")));
  EXPECT_FALSE(isTosaOp(ir::internOp("tosa.RELU")));
  auto p = passes::PassRegistry::instance().create("CheckTosaOperatorSupportPass");
  passes::PassContext ctx;
  passes::PassResult res = p->run(b.g, ctx);
  ASSERT_EQ(res.status, passes::PassStatus::Failed);
  EXPECT_NE(res.message.find("1 node(s) are not TOSA operators: relu (tosa.RELU)"), std::string::npos) << res.message;
}

TEST(TosaPipeline, SmallMlpLowersToPureTosa) {
  test::GraphBuilder b;
  auto x = b.input("x", {2, 6});
  auto w = constant(b, "fc_w", {4, 6}, ramp(24, 0.5));
  auto bias = constant(b, "fc_b", {4}, ramp(4));
  auto wt = b.call("aten.t_copy.default", {w});
  auto mm = b.call("aten.addmm.default", {bias, x, wt}, {}, "addmm");
  auto sp = b.call("aten.split_copy.Tensor", {mm, 2, 1}, {}, "split");
  auto s0 = b.call("operator.getitem", {sp, 0});
  auto s1 = b.call("operator.getitem", {sp, 1});
  auto m = b.call("aten.mul.Tensor", {s0, s1});
  auto e = b.call("aten.expand_copy.default", {m, IntList{3, 2, 2}});
  auto sel = b.call("aten.select_copy.int", {e, 0, 1});
  b.output({sel, m});
  ir::Graph before = b.g;
  auto pm = passes::PassManager::fromPipeline("tosa");
  ASSERT_TRUE(pm.isOk()) << pm.message();
  passes::VerifierInstrumentation v;
  pm->addInstrumentation(&v);
  passes::PassContext ctx;
  auto run = pm->run(b.g, ctx);
  ASSERT_EQ(run.failedIndex, -1) << run.failure;
  for (const ir::NodePtr& p : b.g.nodes())
    if (p->isCall()) {
      EXPECT_TRUE(isTosaOp(p->op)) << p->name << " " << ir::opName(p->op);
    }
  EXPECT_EQ(count(b.g, "tosa.MATMUL"), 1u);
  EXPECT_EQ(count(b.g, "tosa.TILE"), 1u);
  EXPECT_LT(maxRelDiff(before, b.g), 1e-5);
  // INT-only passes are skipped for the FP profile (skip reason: profile), every entry of them.
  const std::set<std::string> intOnly = {"InsertRescalePass", "FuseConsecutiveRescalesPass", "FoldAndAnnotateQParamsPass",
                                         "DecomposeQuantizeDequantizePass", "InsertTableOpsPass", "ExtractIOQuantizationPass"};
  size_t skippedProfile = 0, intEntries = 0;
  for (const auto& rec : run.records) {
    intEntries += intOnly.count(rec.name);
    if (rec.reason == passes::SkipReason::Profile) {
      ++skippedProfile;
      EXPECT_TRUE(intOnly.count(rec.name)) << rec.name;
    }
  }
  EXPECT_GE(intEntries, 8u);  // fold twice, rescale passes twice, q/dq decomposition, tables
  EXPECT_EQ(skippedProfile, intEntries);
}

// ====================================================================== FuseTosaTransposes (seed 002)

struct TGraph {
  test::GraphBuilder b;
  ir::ValueRef x;
  ir::ValueRef t(ir::ValueRef v, IntList p) { return b.call("tosa.TRANSPOSE", {v}, {{"perms", p}}); }
};

TEST(FuseTosaTransposesPass, IdentityIsRemoved) {
  TGraph t;
  t.x = t.b.input("x", {1, 2, 3, 4});
  auto a = t.t(t.x, {0, 1, 2, 3});
  auto s = t.b.call("tosa.SIGMOID", {a});
  t.b.output({s});
  ir::Graph before = t.b.g;
  FuseTosaTransposesPass p;
  ops::InferenceCache cache;
  passes::PassContext ctx;
  ctx.cache = &cache;
  ASSERT_EQ(p.run(t.b.g, ctx).status, PassStatus::Changed);
  EXPECT_EQ(count(t.b.g, "tosa.TRANSPOSE"), 0u);
  EXPECT_EQ(p.statistics()[0].value, 1);  // identity_removed
  expectVerified(t.b.g);
  EXPECT_LT(maxRelDiff(before, t.b.g), 1e-7);
}

TEST(FuseTosaTransposesPass, InversePairCancelsAndCompositionMerges) {
  TGraph t;
  t.x = t.b.input("x", {1, 2, 3, 4});
  auto a = t.t(t.x, {0, 2, 3, 1});
  auto inv = t.t(a, {0, 3, 1, 2});  // inverse: cancels
  auto c = t.t(t.x, {0, 2, 3, 1});
  auto d = t.t(c, {1, 0, 2, 3});  // not inverse: composed into one
  t.b.output({inv, d});
  ir::Graph before = t.b.g;
  FuseTosaTransposesPass p;
  passes::PassContext ctx;
  ASSERT_EQ(p.run(t.b.g, ctx).status, PassStatus::Changed);
  EXPECT_EQ(count(t.b.g, "tosa.TRANSPOSE"), 1u);
  EXPECT_EQ(p.statistics()[1].value, 1);  // inverse_pairs_cancelled
  EXPECT_EQ(p.statistics()[2].value, 1);  // composed
  expectVerified(t.b.g);
  EXPECT_LT(maxRelDiff(before, t.b.g), 1e-7);
  // Output 0 is the input itself now.
  EXPECT_EQ(t.b.g.outputNode()->args[0].asRefList()->at(0), t.x);
}

TEST(FuseTosaTransposesPass, PropagatesThroughUnaryAndBroadcastSafeBinary) {
  TGraph t;
  t.x = t.b.input("x", {1, 3, 4, 5});
  auto a = t.t(t.x, {0, 2, 3, 1});
  auto one = constant(t.b, "one", {1, 1, 1, 1}, {0.5});
  auto add = t.b.call("tosa.ADD", {a, one});
  auto cl = t.b.call("tosa.CLAMP", {add}, {{"min_val", 0.0}, {"max_val", 6.0}});
  auto back = t.t(cl, {0, 3, 1, 2});
  auto s = t.b.call("tosa.SIGMOID", {back});
  t.b.output({s});
  ir::Graph before = t.b.g;
  FuseTosaTransposesPass p;
  passes::PassContext ctx;
  ASSERT_EQ(p.run(t.b.g, ctx).status, PassStatus::Changed);
  EXPECT_EQ(count(t.b.g, "tosa.TRANSPOSE"), 0u);
  EXPECT_EQ(p.statistics()[3].value, 1);  // propagated_cancelled
  // Metadata refreshed: the chain now runs in NCHW shapes.
  EXPECT_EQ(t.b.g.meta({t.b.g.findByName(t.b.g.node(cl.node).name), 0}).shape, (Shape{1, 3, 4, 5}));
  expectVerified(t.b.g);
  EXPECT_LT(maxRelDiff(before, t.b.g), 1e-7);
}

TEST(FuseTosaTransposesPass, NonBroadcastSafeOperandBlocksPropagation) {
  TGraph t;
  t.x = t.b.input("x", {1, 3, 4, 5});
  auto y = t.b.input("y", {1, 4, 5, 3});  // a full tensor: not broadcast-safe
  auto a = t.t(t.x, {0, 2, 3, 1});
  auto add = t.b.call("tosa.ADD", {a, y});
  auto back = t.t(add, {0, 3, 1, 2});
  t.b.output({back});
  ir::Graph before = t.b.g;
  FuseTosaTransposesPass p;
  passes::PassContext ctx;
  EXPECT_EQ(p.run(t.b.g, ctx).status, PassStatus::Unchanged);
  EXPECT_EQ(count(t.b.g, "tosa.TRANSPOSE"), 2u);
  EXPECT_EQ(p.statistics()[3].value, 0);
  EXPECT_LT(maxRelDiff(before, t.b.g), 1e-7);
}

// ====================================================================== seed 004

TEST(Seed004, DuplicateOutputSlotsStayDistinctWithIdentityFanOut) {
  test::GraphBuilder b;
  auto x = b.input("x", {1, 2, 2, 2});
  auto c1 = constant(b, "c1", {1, 2, 2, 2}, ramp(8));
  auto c2 = constant(b, "c2", {1, 2, 2, 2}, ramp(8));   // same bytes as c1
  auto c3 = constant(b, "c3", {1, 2, 2, 2}, ramp(8, 0.2));  // same shape, other bytes
  auto a1 = b.call("tosa.ADD", {x, c1});
  b.output({c1, c2, a1, c3});
  ir::Graph before = b.g;
  Outcome o = runPass("FuseEqualPlaceholdersPass", b.g);
  ASSERT_EQ(o.result.status, PassStatus::Changed) << o.result.message;
  const ir::RefList slots = *b.g.outputNode()->args[0].asRefList();
  EXPECT_EQ(slots[0], slots[1]) << "c1 and c2 merged: one node fills two slots";
  EXPECT_NE(slots[3], slots[0]) << "different bytes are never merged";
  Outcome e = runPass("EnsureUniqueOutputNodesPass", b.g);
  ASSERT_EQ(e.result.status, PassStatus::Changed) << e.result.message;
  const ir::RefList after = *b.g.outputNode()->args[0].asRefList();
  std::set<ir::NodeId> distinct;
  for (const ir::ValueRef& r : after) distinct.insert(r.node);
  EXPECT_EQ(distinct.size(), after.size());
  EXPECT_EQ(count(b.g, "tosa.IDENTITY"), 1u);
  expectVerified(b.g);
  EXPECT_LT(maxRelDiff(before, b.g), 1e-7);
  // Nothing left to do: both passes skip on the precondition.
  EXPECT_EQ(runPass("EnsureUniqueOutputNodesPass", b.g).should.reason, passes::SkipReason::Precondition);
}

TEST(Seed004, SharedNhwcProducerGetsOneBoundaryTransposePerProducer) {
  // A conv output (NHWC producer) fills two output slots: the memory-format pass must give
  // the producer exactly one boundary TRANSPOSE and keep both slots, and the IDENTITY
  // fan-out then makes the slots distinct nodes.
  test::GraphBuilder b;
  auto x = b.input("x", {1, 2, 5, 5});
  auto w = constant(b, "w", {3, 2, 3, 3}, ramp(54, 0.3));
  auto c = b.call("aten.convolution.default", {x, w, ir::Arg(), IntList{1, 1}, IntList{1, 1}, IntList{1, 1}, false, IntList{0, 0}, 1});
  auto r = b.call("aten.relu.default", {c});
  b.output({r, r, c});
  ir::Graph before = b.g;
  for (const char* p : {"ConvertToClampPass", "RewriteConv2dPass", "ExirToTosaPass", "ToTosaMemoryFormatPass",
                        "FuseTosaTransposesPass", "DeadCodeEliminationPass", "EnsureUniqueOutputNodesPass"}) {
    Outcome o = runPass(p, b.g);
    ASSERT_NE(o.result.status, PassStatus::Failed) << p << ": " << o.result.message;
    expectVerified(b.g);
  }
  const ir::RefList slots = *b.g.outputNode()->args[0].asRefList();
  std::set<ir::NodeId> distinct;
  for (const ir::ValueRef& s : slots) distinct.insert(s.node);
  EXPECT_EQ(distinct.size(), 3u);
  // One input boundary + one per output producer (clamp, conv): 3 transposes.
  EXPECT_EQ(count(b.g, "tosa.TRANSPOSE"), 3u);
  EXPECT_EQ(count(b.g, "tosa.CLAMP"), 1u);
  EXPECT_LT(maxRelDiff(before, b.g), 1e-5);
}

}  // namespace
}  // namespace ls::arm

namespace ls::arm {
namespace {

// ====================================================================== INT profile

ir::Arg dt(ir::DType t) { return ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(t)}); }

/// x (int8) -> dq(s0, 0) -> q(s1, z1, mid) -> dq(s1, z1) -> q(s2, 0) -> output
ir::Graph requantChain(double s0, double s1, int64_t z1, double s2, ir::DType mid = ir::DType::Int32) {
  test::GraphBuilder b;
  auto x = b.input("x", ir::DType::Int8, {1, 8});
  const int64_t lo = mid == ir::DType::Int32 ? INT32_MIN : -128, hi = mid == ir::DType::Int32 ? INT32_MAX : 127;
  auto d0 = b.call("quantized_decomposed.dequantize_per_tensor.default", {x, s0, 0, -128, 127, dt(ir::DType::Int8)});
  auto q1 = b.call("quantized_decomposed.quantize_per_tensor.default", {d0, s1, z1, lo, hi, dt(mid)});
  auto d1 = b.call("quantized_decomposed.dequantize_per_tensor.default", {q1, s1, z1, lo, hi, dt(mid)});
  auto q2 = b.call("quantized_decomposed.quantize_per_tensor.default", {d1, s2, 0, -128, 127, dt(ir::DType::Int8)});
  b.output({q2});
  return b.g;
}

int64_t maxSteps(const ir::Graph& before, const ir::Graph& after) {
  exec::Executor ex;
  std::vector<int64_t> v;
  for (int i = 0; i < 8; ++i) v.push_back(i * 31 - 120);
  std::vector<exec::Tensor> in = {exec::Tensor::fromInts(ir::DType::Int8, {1, 8}, v)};
  auto a = ex.run(before, in);
  auto b = ex.run(after, in);
  EXPECT_TRUE(a.isOk() && b.isOk()) << a.message() << b.message();
  if (!a.isOk() || !b.isOk()) return 1000;
  return exec::compareOutputs(*b, *a).maxSteps;
}

TEST(InsertRescalePass, DqQPairsBecomeRescalesOnlyWithIntProfile) {
  ir::Graph g = requantChain(0.1, 0.05, 3, 0.07);
  ir::Graph before = g;
  Outcome fp = runPass("InsertRescalePass", g, passes::Profile::FP);
  EXPECT_EQ(fp.result.status, PassStatus::Skipped);
  EXPECT_EQ(fp.should.reason, passes::SkipReason::Profile);
  Outcome o = runPass("InsertRescalePass", g, passes::Profile::INT);
  ASSERT_EQ(o.result.status, PassStatus::Changed) << o.result.message;
  EXPECT_EQ(count(g, "tosa.RESCALE"), 2u);
  EXPECT_EQ(count(g, "quantized_decomposed.quantize_per_tensor.default"), 0u);
  runPass("DeadCodeEliminationPass", g);
  EXPECT_EQ(count(g, "quantized_decomposed.dequantize_per_tensor.default"), 0u);
  expectVerified(g);
  EXPECT_LE(maxSteps(before, g), 1);  // ties round half up in TOSA, half to even in torch
}

TEST(FuseConsecutiveRescalesPass, RemovesIdentityRoundTripsOnly) {
  // 0.1 -> 0.05 -> 0.1: the two RESCALEs (x2, x0.5, zero points 0/3/3/0) cancel.
  ir::Graph g = requantChain(0.1, 0.05, 3, 0.1);
  ir::Graph before = g;
  ASSERT_EQ(runPass("InsertRescalePass", g, passes::Profile::INT).result.status, PassStatus::Changed);
  Outcome o = runPass("FuseConsecutiveRescalesPass", g, passes::Profile::INT);
  ASSERT_EQ(o.result.status, PassStatus::Changed) << o.result.message;
  EXPECT_EQ(count(g, "tosa.RESCALE"), 0u);
  expectVerified(g);
  EXPECT_LE(maxSteps(before, g), 1);
  // A non-identity pair (0.1 -> 0.05 -> 0.07) is left alone.
  ir::Graph h = requantChain(0.1, 0.05, 3, 0.07);
  ASSERT_EQ(runPass("InsertRescalePass", h, passes::Profile::INT).result.status, PassStatus::Changed);
  auto p = passes::PassRegistry::instance().create("FuseConsecutiveRescalesPass");
  passes::PassContext ctx;
  ctx.profile = passes::Profile::INT;
  EXPECT_EQ(p->run(h, ctx).status, PassStatus::Unchanged);
  EXPECT_EQ(count(h, "tosa.RESCALE"), 2u);
  EXPECT_EQ(p->statistics()[1].value, 1);  // non_identity_pairs_kept
  // An int8 intermediate saturates (x2 of values up to 127), so that round trip is no identity.
  ir::Graph k = requantChain(0.1, 0.05, 3, 0.1, ir::DType::Int8);
  ASSERT_EQ(runPass("InsertRescalePass", k, passes::Profile::INT).result.status, PassStatus::Changed);
  EXPECT_EQ(runPass("FuseConsecutiveRescalesPass", k, passes::Profile::INT).result.status, PassStatus::Unchanged);
  EXPECT_EQ(count(k, "tosa.RESCALE"), 2u);
  // FP profile: the pass does not apply.
  EXPECT_EQ(runPass("FuseConsecutiveRescalesPass", h, passes::Profile::FP).should.reason, passes::SkipReason::Profile);
}

TEST(QuantizeScale, MultiplierAndShiftRepresentTheScale) {
  for (double s : {1.0, 0.5, 2.0, 0.0123, 1e-5, 3.7}) {
    auto r = quantizeScale(s);
    ASSERT_TRUE(r.isOk()) << s;
    EXPECT_NEAR(double(r->first) * std::ldexp(1.0, -int(r->second)), s, s * 1e-9) << s;
    EXPECT_GE(r->second, 2);
    EXPECT_LE(r->second, 62);
  }
  EXPECT_FALSE(quantizeScale(0.0).isOk());
  EXPECT_FALSE(quantizeScale(-1.0).isOk());
}

}  // namespace
}  // namespace ls::arm

namespace ls::arm {
namespace {

TEST(TosaPipeline, OtherFxjsonOpsLowerToPureTosa) {
  test::GraphBuilder b;
  auto x = b.input("x", {2, 3, 4});
  auto as = b.call("aten.as_strided_copy.default", {x, IntList{2, 3, 4}, IntList{12, 4, 1}}, {}, "as_strided");
  auto ne = b.call("aten.ne.Scalar", {as, 0.25}, {}, "ne");
  auto gt = b.call("aten.gt.Scalar", {as, 0.0}, {}, "gt");
  auto mf = b.call("aten.masked_fill.Scalar", {as, gt, -1.5}, {}, "masked_fill");
  auto rl = b.call("aten.roll.default", {mf, IntList{1, -1}, IntList{1, 2}}, {}, "roll");
  auto z = b.call("aten.new_zeros.default", {x, IntList{2, 1, 4}}, {}, "new_zeros");
  auto ss = b.call("aten.slice_scatter.default", {rl, z, 1, 1, 2, 1}, {}, "slice_scatter");
  auto v = b.call("aten.select_copy.int", {x, 2, 0}, {}, "sel");  // [2, 3]
  auto v0 = b.call("aten.select_copy.int", {v, 0, 1});
  auto v1 = b.call("aten.select_copy.int", {v0, 0, 2});           // 0-d
  auto f = b.call("aten.fill.Tensor", {ss, v1}, {}, "fill");
  auto sum = b.call("aten.add.Tensor", {f, ss});
  auto idx = constant(b, "idx", {2, 2}, {3, 0, -1, 2}, ir::DType::Int64);
  auto gat = b.call("aten.index.Tensor", {sum, ir::RefList{ir::ValueRef{}, ir::ValueRef{}, idx}}, {}, "index");
  b.output({gat, ne});
  ir::Graph before = b.g;
  auto pm = passes::PassManager::fromPipeline("tosa");
  ASSERT_TRUE(pm.isOk());
  passes::VerifierInstrumentation ver;
  pm->addInstrumentation(&ver);
  passes::PassContext ctx;
  auto run = pm->run(b.g, ctx);
  ASSERT_EQ(run.failedIndex, -1) << run.failure;
  for (const ir::NodePtr& p : b.g.nodes())
    if (p->isCall()) {
      EXPECT_TRUE(isTosaOp(p->op)) << p->name << " " << ir::opName(p->op);
    }
  EXPECT_GE(count(b.g, "tosa.SELECT"), 1u);
  EXPECT_GE(count(b.g, "tosa.LOGICAL_NOT"), 1u);
  EXPECT_EQ(count(b.g, "tosa.GATHER"), 1u);
  exec::Executor ex;
  auto in = exec::synthesizeInputs(before, 5);
  auto a = ex.run(before, in);
  auto c = ex.run(b.g, in);
  ASSERT_TRUE(a.isOk() && c.isOk()) << a.message() << c.message();
  exec::CompareResult r = exec::compareOutputs(*c, *a, exec::CompareOptions{.maxSteps = 0});
  EXPECT_TRUE(r.equivalent) << r.message;
}

}  // namespace
}  // namespace ls::arm
