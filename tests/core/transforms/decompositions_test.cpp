// The shared decompositions (core/transforms/decompositions.h): op counts before/after,
// semantics kept (reference executor), untargeted nodes untouched, skipped when absent, each
// option's behaviour, and bad input rejected with the node's name.
#include "core/transforms/decompositions.h"

#include <gtest/gtest.h>

#include <cmath>

#include "transforms_test_util.h"

namespace ls::transforms {
namespace {

using ir::IntList;
using passes::PassStatus;
using test::countOp;
using test::runPassOn;

/// x[2,5,8] -> relu -> <op>(relu, extra...) -> output.
struct OneOp {
  test::GraphBuilder b;
  ir::ValueRef relu, y;
};
OneOp oneOp(const std::string& op, std::vector<ir::Arg> extra, ir::DType t = ir::DType::Float32,
            std::vector<ir::Kwarg> kwargs = {}) {
  OneOp o;
  auto x = o.b.input("x", t, {2, 5, 8});
  o.relu = o.b.call("aten.relu.default", {x}, {}, "relu");
  std::vector<ir::Arg> args{o.relu};
  for (auto& a : extra) args.push_back(a);
  o.y = o.b.call(op, args, std::move(kwargs), "target");
  o.b.output({o.y});
  return o;
}

struct Case {
  std::function<std::unique_ptr<passes::Pass>()> make;
  std::string op;
  std::vector<ir::Arg> extra;
  std::vector<std::pair<std::string, size_t>> after;  // op -> count after the pass
};

TEST(Decompositions, EachReplacesItsOpAndKeepsValues) {
  const std::vector<Case> cases = {
      {[] { return std::make_unique<DecomposeSiluPass>(); }, "aten.silu.default", {},
       {{"aten.sigmoid.default", 1}, {"aten.mul.Tensor", 1}}},
      {[] { return std::make_unique<DecomposeHardswishPass>(); }, "aten.hardswish.default", {},
       {{"aten.clamp.default", 1}, {"aten.mul.Tensor", 2}, {"aten.add.Tensor", 1}}},
      {[] { return std::make_unique<DecomposeHardsigmoidPass>(); }, "aten.hardsigmoid.default", {},
       {{"aten.clamp.default", 1}, {"aten.mul.Tensor", 1}, {"aten.add.Tensor", 1}}},
      {[] { return std::make_unique<DecomposeMeanDimPass>(); }, "aten.mean.dim", {IntList{-1, 1}, true},
       {{"aten.sum.dim_IntList", 1}, {"aten.mul.Tensor", 1}}},
      {[] { return std::make_unique<DecomposeMeanDimPass>(); }, "aten.mean.default", {},
       {{"aten.sum.dim_IntList", 1}, {"aten.mul.Tensor", 1}}},
      {[] { return std::make_unique<DecomposeSoftmaxPass>(); }, "aten._softmax.default", {int64_t(-1), false},
       {{"aten.amax.default", 1}, {"aten.exp.default", 1}, {"aten.reciprocal.default", 1}}},
      {[] { return std::make_unique<DecomposeLogSoftmaxPass>(); }, "aten._log_softmax.default", {int64_t(1), false},
       {{"aten.amax.default", 1}, {"aten.log.default", 1}, {"aten.sub.Tensor", 2}}},
      {[] { return std::make_unique<DecomposeDivPass>(); }, "aten.div.Tensor", {8.0}, {{"aten.mul.Tensor", 1}}},
  };
  for (const Case& c : cases) {
    OneOp o = oneOp(c.op, c.extra);
    const ir::Graph before = o.b.g;
    auto p = c.make();
    ASSERT_EQ(runPassOn(*p, o.b.g).status, PassStatus::Changed) << c.op;
    EXPECT_EQ(countOp(o.b.g, c.op), 0u) << c.op;
    for (const auto& [op, n] : c.after) EXPECT_EQ(countOp(o.b.g, op), n) << c.op << " -> " << op;
    EXPECT_EQ(p->statistics()[0].name, "decomposed");
    EXPECT_EQ(p->statistics()[0].value, 1) << c.op;
    EXPECT_EQ(o.b.g.node(o.relu.node).name, "relu") << c.op;  // untargeted node kept with its id
    test::expectVerified(o.b.g);
    EXPECT_LT(test::maxRelDiff(before, o.b.g), 1e-5) << c.op;
    // Nothing left to do: skipped as no-target-ops.
    passes::PassResult again = runPassOn(*p, o.b.g);
    EXPECT_EQ(again.status, PassStatus::Skipped) << c.op;
    EXPECT_EQ(again.message, "no-target-ops");
  }
}

TEST(Decompositions, LayerNormRewiresMeanAndRstdOutputs) {
  test::GraphBuilder b;
  auto x = b.input("x", {2, 5, 8});
  auto w = b.constant("w", ir::DType::Float32, {8}, test::ramp(8, 1.0));
  auto bias = b.constant("b", ir::DType::Float32, {8}, test::ramp(8));
  auto ln = b.call("aten.native_layer_norm.default", {x, IntList{8}, w, bias, 1e-5}, {}, "ln");
  auto y = b.call("operator.getitem", {ln, int64_t(0)});
  auto mean = b.call("operator.getitem", {ln, int64_t(1)});
  auto rstd = b.call("operator.getitem", {ln, int64_t(2)});
  b.output({y, mean, rstd});
  const ir::Graph before = b.g;
  DecomposeLayerNormPass p;
  ASSERT_EQ(runPassOn(p, b.g).status, PassStatus::Changed);
  EXPECT_EQ(countOp(b.g, "aten.native_layer_norm.default"), 0u);
  EXPECT_EQ(countOp(b.g, "aten.rsqrt.default"), 1u);
  EXPECT_EQ(countOp(b.g, "aten.sum.dim_IntList"), 2u);
  test::expectVerified(b.g);
  EXPECT_LT(test::maxRelDiff(before, b.g), 1e-5);
}

TEST(Decompositions, DisallowFlagIsHonouredOnlyWhenAsked) {
  OneOp o = oneOp("aten.silu.default", {});
  ir::Node& n = o.b.g.mutableNode(o.y.node);
  n.flags |= ir::kFlagDisallowTransform;
  DecomposeOptions honour;
  honour.honourDisallowFlag = true;
  DecomposeSiluPass quantizer(honour);
  EXPECT_EQ(quantizer.shouldRun(o.b.g, passes::PassContext{}).reason, passes::SkipReason::TargetsDisallowed);
  ir::Graph g = o.b.g;
  DecomposeSiluPass arm;  // default: the flag is not a reason to keep a node the backend cannot run
  ASSERT_EQ(runPassOn(arm, g).status, PassStatus::Changed);
  EXPECT_EQ(countOp(g, "aten.silu.default"), 0u);
}

TEST(Decompositions, Float32OnlyKeepsOtherFloatDtypes) {
  OneOp o = oneOp("aten.silu.default", {}, ir::DType::Float64);
  DecomposeOptions f32;
  f32.float32Only = true;
  f32.rejectUnsupported = false;
  ir::Graph g = o.b.g;
  DecomposeSiluPass quantizer(f32);
  EXPECT_EQ(runPassOn(quantizer, g).status, PassStatus::Unchanged);
  EXPECT_EQ(countOp(g, "aten.silu.default"), 1u);
  DecomposeSiluPass any;
  ASSERT_EQ(runPassOn(any, g).status, PassStatus::Changed);
  EXPECT_EQ(countOp(g, "aten.sigmoid.default"), 1u);
}

TEST(Decompositions, DivisionByALiteralZeroIsMultiplicationByInfinity) {
  // x / +-0 = x * +-inf in IEEE arithmetic (a pipeline-fuzzer finding: remainder(x, 0.0)
  // decomposed to a division the pass refused).
  for (double zero : {0.0, -0.0}) {
    OneOp o = oneOp("aten.div.Tensor", {zero});
    ir::Graph g = o.b.g;
    DecomposeDivPass p;
    ASSERT_EQ(runPassOn(p, g).status, PassStatus::Changed);
    auto muls = g.nodesOfOp(ir::internOp("aten.mul.Tensor"));
    ASSERT_EQ(muls.size(), 1u);
    auto r = g.node(muls[0]).args[1].number();
    ASSERT_TRUE(r);
    EXPECT_TRUE(std::isinf(*r));
    EXPECT_EQ(std::signbit(*r), std::signbit(zero));
  }
}

TEST(Decompositions, TrueDivisionPromotesAnIntegerOperandAsTorch) {
  // cumsum(x) / arange(1, T + 1): a float divided by an int64 tensor is float division (issue 37).
  for (const bool intNumerator : {false, true}) {
    SCOPED_TRACE(intNumerator);
    test::GraphBuilder b;
    auto x = intNumerator ? b.constant("n", ir::DType::Int64, {4}, {3, -7, 10, 1}) : b.input("x", {4});
    auto k = intNumerator ? b.input("k", {4}) : b.constant("k", ir::DType::Int64, {4}, {1, 2, 3, 4});
    ir::Node n = b.makeCall("aten.div.Tensor", {x, k}, {}, "div");
    n.outputs = {ir::TensorMeta(ir::DType::Float32, {4})};
    ir::ValueRef d{b.g.append(std::move(n)), 0};
    b.output({d});
    const ir::Graph before = b.g;
    ir::Graph g = b.g;
    DecomposeDivPass p;
    ASSERT_EQ(runPassOn(p, g).status, PassStatus::Changed);
    EXPECT_EQ(countOp(g, "aten.div.Tensor"), 0u);
    EXPECT_EQ(countOp(g, "aten._to_copy.default"), 1u);  // the integer operand, to float32
    EXPECT_LE(test::maxRelDiff(before, g), 1e-6);
    test::expectVerified(g);
  }
}

TEST(Decompositions, UnsupportedNodesFailNamingTheNodeOrStay) {
  // A division with a rounding mode is not DecomposeDivPass's: it stays, strict or not, for
  // the Arm DecomposeDivTensorModePass (or the support check, which names it).
  OneOp o = oneOp("aten.div.Tensor_mode", {2.0}, ir::DType::Float32, {{"rounding_mode", "floor"}});
  ir::Graph g = o.b.g;
  DecomposeDivPass strict;
  EXPECT_EQ(runPassOn(strict, g).status, PassStatus::Unchanged);
  EXPECT_EQ(countOp(g, "aten.div.Tensor_mode"), 1u);
  DecomposeOptions keep;
  keep.rejectUnsupported = false;
  DecomposeDivPass lenient(keep);
  EXPECT_EQ(runPassOn(lenient, g).status, PassStatus::Unchanged);
  EXPECT_EQ(countOp(g, "aten.div.Tensor_mode"), 1u);
  // An integer mean (metadata as recorded): rejected by default, naming the node.
  test::GraphBuilder b;
  auto x = b.input("x", ir::DType::Int32, {2, 5});
  ir::Node n = b.makeCall("aten.mean.dim", {x, IntList{1}, false}, {}, "imean");
  n.outputs = {ir::TensorMeta(ir::DType::Int32, {2})};
  ir::ValueRef m{b.g.append(std::move(n)), 0};
  b.output({m});
  DecomposeMeanDimPass strictMean;
  passes::PassResult r = runPassOn(strictMean, b.g);
  ASSERT_EQ(r.status, PassStatus::Failed);
  EXPECT_NE(r.message.find("'imean'"), std::string::npos) << r.message;
}

TEST(Decompositions, BadInputIsAnErrorWhateverTheOptions) {
  DecomposeOptions lenient;
  lenient.rejectUnsupported = false;
  test::GraphBuilder b;
  auto x = b.input("x", {2, 5, 8});
  ir::Node n = b.makeCall("aten.native_layer_norm.default", {x, IntList{}, ir::Arg(), ir::Arg(), 1e-5}, {}, "ln_bad");
  n.outputs = {ir::TensorMeta(ir::DType::Float32, {2, 5, 8}), ir::TensorMeta(ir::DType::Float32, {2, 5, 1}),
               ir::TensorMeta(ir::DType::Float32, {2, 5, 1})};
  ir::ValueRef ln{b.g.append(std::move(n)), 0};
  b.output({ln});
  DecomposeLayerNormPass p(lenient);
  passes::PassResult r = runPassOn(p, b.g);
  ASSERT_EQ(r.status, PassStatus::Failed);
  EXPECT_NE(r.message.find("'ln_bad'"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("normalized_shape"), std::string::npos) << r.message;
}

TEST(Decompositions, NamingAndHardsigmoidFormOptions) {
  OneOp o = oneOp("aten.hardsigmoid.default", {});
  const ir::Graph before = o.b.g;
  DecomposeOptions x;
  x.nameAfterNode = true;
  x.hardsigmoid = HardsigmoidForm::DivConstants;
  ir::Graph g = o.b.g;
  DecomposeHardsigmoidPass p(x);
  ASSERT_EQ(runPassOn(p, g).status, PassStatus::Changed);
  EXPECT_EQ(countOp(g, "aten.div.Tensor"), 1u);
  EXPECT_EQ(countOp(g, "aten.mul.Tensor"), 0u);
  EXPECT_NE(g.findByName("target_clamp"), ir::kInvalidNode);
  ASSERT_NE(g.constant("target_six"), nullptr);
  EXPECT_EQ(g.constant("target_six")->shape.rank(), 0);
  EXPECT_LT(test::maxRelDiff(before, g), 1e-6);
  // The default: op-named nodes, Python-number operands, multiply by 1/6.
  ir::Graph h = o.b.g;
  DecomposeHardsigmoidPass d;
  ASSERT_EQ(runPassOn(d, h).status, PassStatus::Changed);
  EXPECT_EQ(countOp(h, "aten.div.Tensor"), 0u);
  EXPECT_NE(h.findByName("clamp"), ir::kInvalidNode);
  EXPECT_LT(test::maxRelDiff(before, h), 1e-6);
}

}  // namespace
}  // namespace ls::transforms
