// Constant folding of the Arm pipeline and the quantizer's preparation (upstream's
// FuseConstantArgsPass and ConstantFoldingPass; core/transforms/constant_folding.h, option
// anyOp): every op whose inputs are all constants becomes a constant, values kept (reference
// executor); q/dq and quantised compute stay; a weight computed from parameters
// (weight standardisation) is a constant CONV2D weight in FP and a per-channel int8 weight in
// INT; an int64 mask built from arange reaches TOSA as a bool constant, not as int64 ops.
#include <gtest/gtest.h>

#include "core/backends/arm/arm_util.h"
#include "core/backends/arm/tosa/tosa_validate.h"
#include "core/passes/pass_manager.h"
#include "core/quant/quantizer.h"
#include "tests/core/arm/pass_cases.h"

namespace ls::arm {
namespace {

using ir::DType;
using ir::IntList;
using test::opCount;

/// conv(x, (w - mean(w)) / 2 + 0.1): a weight computed from a parameter.
ir::Graph standardisedConv() {
  test::GraphBuilder b;
  auto w = b.constant("w", DType::Float32, {4, 3, 3, 3}, test::ramp(108));
  auto mean = b.call("aten.mean.dim", {w, IntList{1, 2, 3}, true});
  auto centred = b.call("aten.sub.Tensor", {w, mean});
  auto scaled = b.call("aten.div.Tensor", {centred, 2.0});
  auto ws = b.call("aten.add.Tensor", {scaled, 0.1});
  auto bias = b.constant("bias", DType::Float32, {4}, test::ramp(4));
  auto y = b.call("aten.convolution.default", {b.input("x", {1, 3, 8, 8}), ws, bias, IntList{1, 1}, IntList{1, 1},
                                               IntList{1, 1}, false, IntList{0, 0}, int64_t(1)});
  b.output({y});
  return std::move(b.g);
}

/// where(arange(T)[None, :] > arange(T)[:, None], -inf-like, x): a causal mask from int64 arange.
ir::Graph arangeMask() {
  test::GraphBuilder b;
  auto i = b.constant("i", DType::Int64, {4}, {0, 1, 2, 3});
  auto row = b.call("aten.unsqueeze_copy.default", {i, int64_t(0)});
  auto col = b.call("aten.unsqueeze_copy.default", {i, int64_t(1)});
  auto mask = b.call("aten.gt.Tensor", {row, col});
  auto k = b.call("aten.mul.Tensor", {i, int64_t(3)});  // arange * k: int64 arithmetic
  auto kf = b.call("aten._to_copy.default", {k}, {{"dtype", ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(DType::Float32)})}});
  auto x = b.input("x", {4, 4});
  auto shifted = b.call("aten.add.Tensor", {x, kf});
  b.output({b.call("aten.masked_fill.Scalar", {shifted, mask, -1000.0})});
  return std::move(b.g);
}

passes::PassResult runPass(const char* name, ir::Graph& g) {
  auto p = passes::PassRegistry::instance().create(name);
  EXPECT_TRUE(p) << name;
  passes::PassContext ctx;
  return p->run(g, ctx);
}

TEST(FuseConstantArgsPass, FoldsEveryOpOnConstantsKeepingValues) {
  for (const char* pass : {"FuseConstantArgsPass", "ConstantFoldingPass"}) {
    SCOPED_TRACE(pass);
    const ir::Graph before = standardisedConv();
    ir::Graph g = before;
    ASSERT_EQ(runPass(pass, g).status, passes::PassStatus::Changed);
    EXPECT_EQ(opCount(g, "aten.mean.dim"), 0u);
    EXPECT_EQ(opCount(g, "aten.sub.Tensor"), 0u);
    EXPECT_EQ(opCount(g, "aten.add.Tensor"), 0u);
    EXPECT_EQ(opCount(g, "aten.convolution.default"), 1u);  // reads the input: stays
    const ir::Node& conv = g.node(g.nodesOfOp(ir::internOp("aten.convolution.default"))[0]);
    EXPECT_EQ(g.node(conv.args[1].ref()->node).kind, ir::NodeKind::GetAttr);
    EXPECT_EQ(test::sameInputsCompare(before, g, 3).maxRelToMax, 0.0);
    EXPECT_TRUE(passes::VerifierInstrumentation::verifyGraph(g).isOk());
  }
}

TEST(FuseConstantArgsPass, PreparationKeepsTransposedWeightsForTheQuantizer) {
  // linear as t + mm: FuseConstantArgsPass folds the t, ConstantFoldingPass (before
  // annotation) leaves it so the quantizer finds the weight's output channels through it.
  test::GraphBuilder b;
  auto w = b.constant("w", DType::Float32, {5, 4}, test::ramp(20));
  auto wt = b.call("aten.t_copy.default", {w});
  b.output({b.call("aten.mm.default", {b.input("x", {2, 4}), wt})});
  ir::Graph kept = b.g, folded = b.g;
  auto r = runPass("ConstantFoldingPass", kept);
  EXPECT_NE(r.status, passes::PassStatus::Changed);
  EXPECT_EQ(opCount(kept, "aten.t_copy.default"), 1u);
  ASSERT_EQ(runPass("FuseConstantArgsPass", folded).status, passes::PassStatus::Changed);
  EXPECT_EQ(opCount(folded, "aten.t_copy.default"), 0u);
}

TEST(FuseConstantArgsPass, FoldsInt64ArithmeticAndComparisons) {
  const ir::Graph before = arangeMask();
  ir::Graph g = before;
  ASSERT_EQ(runPass("FuseConstantArgsPass", g).status, passes::PassStatus::Changed);
  EXPECT_EQ(opCount(g, "aten.gt.Tensor"), 0u);
  EXPECT_EQ(opCount(g, "aten.mul.Tensor"), 0u);
  EXPECT_EQ(opCount(g, "aten._to_copy.default"), 0u);
  EXPECT_EQ(opCount(g, "aten.masked_fill.Scalar"), 1u);
  EXPECT_EQ(test::sameInputsCompare(before, g, 3).maxRelToMax, 0.0);
}

TEST(FuseConstantArgsPass, LeavesQuantizeDequantizeAndInputs) {
  test::GraphBuilder b;
  auto w = b.constant("w", DType::Float32, {3}, {0.5, -0.25, 1.0});
  auto q = b.call(kQ, {w, 0.01, int64_t(0), int64_t(-128), int64_t(127), ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(DType::Int8)})});
  auto dq = b.call(kDq, {q, 0.01, int64_t(0), int64_t(-128), int64_t(127), ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(DType::Int8)})});
  auto x = b.input("x", {3});
  b.output({b.call("aten.mul.Tensor", {x, dq})});
  ir::Graph g = b.g;
  passes::PassContext ctx;
  auto p = passes::PassRegistry::instance().create("FuseConstantArgsPass");
  const passes::ShouldRun s = p->shouldRun(g, ctx);
  EXPECT_FALSE(s.run);
  EXPECT_EQ(s.reason, passes::SkipReason::Precondition);
  EXPECT_EQ(opCount(g, kQ), 1u);
  EXPECT_EQ(opCount(g, kDq), 1u);
}

TEST(FuseConstantArgsPass, ComputedWeightLowersAsConstantInFpAndPerChannelInt8InInt) {
  // FP: one CONV2D whose weight is a CONST, values the source's.
  const ir::Graph src = standardisedConv();
  ir::Graph fp = test::lowerTosa(src, passes::Profile::FP);
  ASSERT_EQ(opCount(fp, "tosa.CONV2D"), 1u);
  const ir::Node& conv = fp.node(fp.nodesOfOp(ir::internOp("tosa.CONV2D"))[0]);
  EXPECT_EQ(fp.node(conv.args[1].ref()->node).kind, ir::NodeKind::GetAttr);
  EXPECT_LE(test::sameInputsCompare(src, fp, 4).maxRelToMax, 1e-5);
  EXPECT_TRUE(validateTosaGraph(fp).empty());

  // INT: the quantizer's preparation folds the weight first, so it is quantised per output
  // channel (dequantize_per_channel before conversion), not as an activation.
  ir::Graph q = src;
  quant::QuantizeOptions o;
  o.extraTfaPasses = passes::PipelineRegistry::instance().find("tosa")->annotationPasses;
  auto rep = quant::quantizeGraph(q, o);
  ASSERT_TRUE(rep.isOk()) << rep.message();
  EXPECT_EQ(rep->perChannelWeights, 1u);
  EXPECT_NE(std::find(rep->tfaChanged.begin(), rep->tfaChanged.end(), "ConstantFoldingPass"), rep->tfaChanged.end());
}

TEST(FuseConstantArgsPass, ArangeMaskReachesTosaAsConstantData) {
  const ir::Graph src = arangeMask();
  ir::Graph g = test::lowerTosa(src, passes::Profile::FP);
  for (const ir::NodePtr& p : g.nodes())
    for (const ir::TensorMeta& m : p->outputs) EXPECT_NE(m.dtype, DType::Int64) << p->name;
  EXPECT_EQ(test::sameInputsCompare(src, g, 4).maxRelToMax, 0.0);
  EXPECT_TRUE(validateTosaGraph(g).empty());
}

}  // namespace
}  // namespace ls::arm
