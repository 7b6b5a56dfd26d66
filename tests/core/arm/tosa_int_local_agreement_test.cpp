// Local agreement of the INT lowering with its quantised source, quantize by quantize
// (verify::intAgreement, which `verify --profile int` runs to explain steps over its tolerance). The
// source graph runs with every dequantize fed the lowered graph's int8 value of its quantize
// (teacher forcing), so each quantize is computed from the same int8 inputs the integer graph
// used and no difference propagates. The integer ops (int32 accumulation, RESCALE, TABLE) must
// then give the source's quantised values everywhere except where the float32 q/dq arithmetic
// cannot decide a rounding: an element whose value lies within 1e-3 quantisation steps of a .5
// boundary (float32 dequantize, sum, bias add and x * (1 / scale) each round; the integer
// graph rounds the exact value once). Such a near-tie, one element in a million, is where the
// end-to-end step counts of tosa_int_real_models_test come from: one flipped step inside a deep
// network can move an output by several steps, and which elements are near a tie changes with
// any last-bit change of the scales (docs/DESIGN.md, "Matrix products of the reference
// executor"). Run in float64 (ExecOptions::float64, what verify's INT reference does), the
// source rounds the exact values too: a value differs only (rarely) where it lies within
// RESCALE's own precision of a tie (its 31-bit multiplier; an exact tie, which TOSA rounds
// half up and torch.round half to even).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <iostream>

#include "core/exec/executor.h"
#include "core/exec/materialize.h"
#include "core/exec/synth.h"
#include "core/io/fxjson.h"
#include "core/passes/pass_manager.h"
#include "core/quant/quantizer.h"
#include "core/verify/int_agreement.h"
#include "core/verify/verify.h"
#include "support/graph_builder.h"

namespace ls::arm {
namespace {

using exec::Tensor;

/// Agreement of the lowered graph with its quantised source run in float32 ([0]) and with
/// the source run in float64 ([1], ExecOptions::float64, the INT reference of verify).
std::array<verify::IntAgreement, 2> measure(const std::string& model) {
  std::array<verify::IntAgreement, 2> both;
  auto loaded = io::importFxJsonFile(std::string(LS_ASSETS_DIR) + "/graphs/" + model + ".fxjson.json");
  EXPECT_TRUE(loaded.isOk()) << loaded.message();
  if (!loaded) return both;
  ir::Graph src = std::move(loaded).value();
  auto rep = quant::quantizeGraph(src, {});
  EXPECT_TRUE(rep.isOk()) << rep.message();
  exec::materializeConstants(src);
  ir::Graph low = src;
  auto pm = passes::PassManager::fromPipeline("tosa");
  EXPECT_TRUE(pm.isOk()) << pm.message();
  ops::InferenceCache cache;
  passes::PassContext ctx;
  ctx.profile = passes::Profile::INT;
  ctx.cache = &cache;
  auto run = pm->run(low, ctx);
  EXPECT_EQ(run.failedIndex, -1) << run.failure;
  auto shared = std::make_shared<exec::ConstantCache>();
  const std::vector<Tensor> inputs = exec::synthesizeInputs(src, 1);
  for (const bool f64 : {false, true}) {
    auto a = verify::intAgreement(src, low, inputs, verify::AgreementOptions{.float64 = f64}, shared);
    EXPECT_TRUE(a.isOk()) << a.message();
    if (a) both[f64 ? 1 : 0] = std::move(a).value();
  }
  return both;
}

class TosaIntLocalAgreement : public ::testing::TestWithParam<const char*> {};

TEST_P(TosaIntLocalAgreement, IntegerOpsGiveTheSourceQuantisedValuesUpToNearTies) {
  const std::array<verify::IntAgreement, 2> both = measure(GetParam());
  for (int f64 = 0; f64 < 2; ++f64) {
    const verify::IntAgreement& a = both[size_t(f64)];
    std::cout << "[ tosa-int-local ] " << GetParam() << (f64 ? " (float64 source)" : " (float32 source)") << ": "
              << a.compared << " of " << a.quantizes << " quantize nodes compared, " << a.elements << " elements, "
              << a.differ << " differ (" << a.notNearTie << " not at a near-tie, " << a.notTie
              << " farther from a tie than RESCALE resolves, largest difference " << a.maxDiff << ")\n";
  }
  // Evaluated in float64 (the INT reference of verify), the source decides every near-tie that
  // the integer graph resolves as it does: an element may differ only where x / scale lies
  // within RESCALE's own precision (2^-30 relative) of a .5 boundary. deit_tiny_vit: 1 of 18.6 M
  // elements (4e-9 steps from the tie; with float32, 8 elements up to 5e-5 steps away).
  // (Both runs compare the same quantize nodes and elements, checked below.)
  const verify::IntAgreement& exact = both[1];
  EXPECT_EQ(exact.notTie, 0);
  EXPECT_LE(exact.maxDiff, 1);
  EXPECT_TRUE(exact.onlyTies());
  EXPECT_LE(double(exact.differ), 1e-6 * double(exact.elements));
  EXPECT_EQ(exact.compared, both[0].compared);
  EXPECT_EQ(exact.elements, both[0].elements);
  const verify::IntAgreement& a = both[0];
  // Every quantize that rounds (not only moves data) has its lowered value found.
  EXPECT_GE(a.compared * 2, a.quantizes);
  EXPECT_GT(a.elements, 1'000'000);
  // In float32 the source's own rounding error can exceed the near-tie window (float64 above
  // shows the integer graph exact): deit_tiny_vit with histogram-observer qparams, 35 of 14.5 M
  // elements one step apart. Bounded, not zero.
  EXPECT_LE(double(a.notNearTie), 1e-5 * double(a.elements));
  EXPECT_LE(a.maxDiff, 1);
  EXPECT_LE(double(a.differ), 1e-5 * double(a.elements));
}

INSTANTIATE_TEST_SUITE_P(Int, TosaIntLocalAgreement, ::testing::Values("deit_tiny_vit", "mobilenet_v2"),
                         [](const auto& p) { return std::string(p.param); });

/// int8 x -> dequantize -> 2x2 average pool -> quantize (scale `outScale`) -> dequantize. With
/// one scale in and out, a mean of four values lies on a .5 boundary whenever their sum is 2
/// mod 4: TOSA's AVG_POOL2D rounds it up, the source's quantize (torch.round) to even.
ir::Graph avgPoolGraph(double outScale) {
  const char* kQ = "quantized_decomposed.quantize_per_tensor.default";
  const char* kDq = "quantized_decomposed.dequantize_per_tensor.default";
  const ir::Arg i8(ir::EnumArg{ir::EnumKind::DType, int32_t(ir::DType::Int8)});
  test::GraphBuilder b;
  auto x = b.input("x", ir::DType::Int8, {1, 8, 16, 16});
  auto dx = b.call(kDq, {x, 0.05, 3, -128, 127, i8});
  auto ap = b.call("aten.avg_pool2d.default", {dx, ir::IntList{2, 2}, ir::IntList{2, 2}});
  auto q = b.call(kQ, {ap, outScale, 3, -128, 127, i8});
  b.output({b.call(kDq, {q, outScale, 3, -128, 127, i8})});
  return b.g;
}

ir::Graph lowerInt(ir::Graph g) {
  auto pm = passes::PassManager::fromPipeline("tosa");
  EXPECT_TRUE(pm.isOk()) << pm.message();
  passes::PassContext ctx;
  ctx.profile = passes::Profile::INT;
  auto run = pm->run(g, ctx);
  EXPECT_EQ(run.failedIndex, -1) << run.failure;
  return g;
}

TEST(IntAgreement, RoundingTiesOfAnAveragePoolAreOneStepAtATie) {
  const ir::Graph src = avgPoolGraph(0.05);
  const ir::Graph low = lowerInt(src);
  ASSERT_EQ(low.nodesOfOp(ir::internOp("tosa.AVG_POOL2D")).size(), 1u);
  const std::vector<Tensor> inputs = exec::synthesizeInputs(src, 1);
  auto a = verify::intAgreement(src, low, inputs);
  ASSERT_TRUE(a.isOk()) << a.message();
  EXPECT_EQ(a->quantizes, 1u);
  EXPECT_EQ(a->compared, 1u);
  EXPECT_EQ(a->elements, 8 * 8 * 8);
  EXPECT_GT(a->differ, 0);  // some sums are 2 mod 4 with an odd half below them
  EXPECT_EQ(a->notTie, 0);
  EXPECT_EQ(a->maxDiff, 1);
  EXPECT_EQ(a->notNearTie, 0);
  EXPECT_TRUE(a->onlyTies());
  EXPECT_TRUE(a->onlyNearTies());
  ASSERT_EQ(a->nodes.size(), 1u);
  EXPECT_EQ(a->nodes[0].producerOp, "aten.avg_pool2d.default");
  EXPECT_EQ(a->nodes[0].differ, a->differ);
}

TEST(IntAgreement, AValueComputedOtherwiseIsNotATie) {
  // The lowering of one graph against a source whose quantize has another scale: the integer
  // graph's values are not the source's, by more than a tie.
  const ir::Graph low = lowerInt(avgPoolGraph(0.05));
  const ir::Graph other = avgPoolGraph(0.07);
  const std::vector<Tensor> inputs = exec::synthesizeInputs(other, 1);
  auto a = verify::intAgreement(other, low, inputs);
  ASSERT_TRUE(a.isOk()) << a.message();
  EXPECT_EQ(a->compared, 1u);
  EXPECT_GT(a->notTie, 0);
  EXPECT_GT(a->notNearTie, 0);
  EXPECT_FALSE(a->onlyTies());
  EXPECT_FALSE(a->onlyNearTies());
}

TEST(IntAgreement, ComparesAOneDimensionalConvolutionsValueInItsNhwcForm) {
  // A 1-D convolution's output [N, C, W] is computed by the TOSA lowering as a 2-D one in NHWC,
  // [N, 1, W, C]: its quantize must still find that value and compare it element by element
  // (the layouts line up: no difference beyond a rounding tie). Without the NCW form, audio
  // models' convolutions went uncompared and their differences surfaced one op later, where
  // they looked like a lowering error.
  test::GraphBuilder b;
  auto x = b.input("x", ir::DType::Float32, {1, 4, 40});
  std::vector<double> wv(6 * 4 * 3), bv(6);
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = std::sin(double(i) * 0.7) * 0.4;
  for (size_t i = 0; i < bv.size(); ++i) bv[i] = 0.05 * double(i) - 0.1;
  auto w = b.constant("conv_w", ir::DType::Float32, {6, 4, 3}, wv);
  auto cb = b.constant("conv_b", ir::DType::Float32, {6}, bv);
  auto c = b.call("aten.convolution.default",
                  {x, w, cb, ir::IntList{1}, ir::IntList{1}, ir::IntList{1}, false, ir::IntList{0}, 1}, {}, "conv");
  b.output({b.call("aten.relu.default", {c}, {}, "act")});
  ir::Graph src = b.g;
  auto rep = quant::quantizeGraph(src, {});
  ASSERT_TRUE(rep.isOk()) << rep.message();
  exec::materializeConstants(src);
  const ir::Graph low = lowerInt(src);
  ASSERT_EQ(low.nodesOfOp(ir::internOp("tosa.CONV2D")).size(), 1u);
  auto a = verify::intAgreement(src, low, exec::synthesizeInputs(src, 2));
  ASSERT_TRUE(a.isOk()) << a.message();
  // The graph input's quantize runs outside the integer graph; every other one is compared,
  // the convolution's [1, 6, 40] among them.
  EXPECT_EQ(a->compared + 1, a->quantizes);
  EXPECT_GE(a->elements, 6 * 40);
  EXPECT_EQ(a->notTie, 0);
  EXPECT_LE(a->maxDiff, 1);
}

TEST(IntAgreement, AWeightQuantisedInFloat32IsComparedWhereTheLoweringFoldsIt) {
  // x -> dq -> mm with a per-tensor quantised constant [8, 4] -> q -> dq. The lowering folds
  // q(W) into an int8 constant (x * (1 / scale) in float32, as PyTorch's convert), which no
  // lowered node's provenance names: the weight's quantize is compared with that folding, and
  // the product is fed the folded weight. Weights on k + .5 steps in double make float32 and
  // float64 disagree on some of them: those are near-ties at the weight's quantize, and the
  // product's quantize then agrees (before, the product carried them, as if wrong).
  const char* kQ = "quantized_decomposed.quantize_per_tensor.default";
  const char* kDq = "quantized_decomposed.dequantize_per_tensor.default";
  const ir::Arg i8(ir::EnumArg{ir::EnumKind::DType, int32_t(ir::DType::Int8)});
  const double ws = 0.1;
  std::vector<double> wv(8 * 4);
  int64_t disagree = 0;
  for (size_t i = 0; i < wv.size(); ++i) {
    wv[i] = double(float((double(i) - 15.5) * ws));  // about k + .5 steps
    const double exact = std::nearbyint(wv[i] / ws);
    disagree += exec::quantizeValue(float(wv[i]), float(1.0 / ws), 0, -128, 127) != int64_t(exact);
  }
  ASSERT_GT(disagree, 0) << "no weight where float32 and float64 quantisation disagree";
  test::GraphBuilder b;
  auto x = b.input("x", ir::DType::Int8, {5, 8});
  auto dx = b.call(kDq, {x, 0.05, 0, -128, 127, i8});
  auto w = b.constant("w", ir::DType::Float32, {8, 4}, wv);
  auto dw = b.call(kDq, {b.call(kQ, {w, ws, 0, -128, 127, i8}), ws, 0, -128, 127, i8});
  auto mm = b.call("aten.mm.default", {dx, dw});
  auto q = b.call(kQ, {mm, 0.2, 0, -128, 127, i8});
  b.output({b.call(kDq, {q, 0.2, 0, -128, 127, i8})});
  const ir::Graph src = b.g;
  const ir::Graph low = lowerInt(src);
  auto a = verify::intAgreement(src, low, exec::synthesizeInputs(src, 3));
  ASSERT_TRUE(a.isOk()) << a.message();
  EXPECT_EQ(a->quantizes, 2u);
  EXPECT_EQ(a->compared, 2u);
  EXPECT_EQ(a->differ, disagree);
  EXPECT_EQ(a->notNearTie, 0);
  EXPECT_TRUE(a->onlyNearTies());
  ASSERT_EQ(a->nodes.size(), 1u);
  EXPECT_EQ(a->nodes[0].producer, "w");
}

}  // namespace
}  // namespace ls::arm
