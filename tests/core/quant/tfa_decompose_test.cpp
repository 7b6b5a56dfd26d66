// Transform-for-annotation decompositions of layer_norm, softmax and log_softmax: the op
// sequence each produces, skipped when absent, disallowed nodes untouched, float outputs
// unchanged (including native_layer_norm's mean / rstd read through getitem), every
// primitive annotated (between dq and q, constant operands folded to int8), and the real
// graphs that hold them (deit_tiny_vit, wav2letter) quantised without float islands and close
// to their float outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

#include "core/exec/executor.h"
#include "core/exec/synth.h"
#include "core/verify/verify.h"
#include "core/io/fxjson.h"
#include "core/passes/pass_manager.h"
#include "core/quant/quantizer.h"
#include "core/quant/tfa_passes.h"
#include "support/graph_builder.h"

namespace ls::quant {
namespace {

using ir::IntList;
using passes::PassStatus;

constexpr const char* kQ = "quantized_decomposed.quantize_per_tensor.default";
constexpr const char* kDQ = "quantized_decomposed.dequantize_per_tensor.default";
constexpr const char* kDQC = "quantized_decomposed.dequantize_per_channel.default";

size_t count(const ir::Graph& g, const char* op) { return g.nodesOfOp(ir::internOp(op)).size(); }

passes::PassResult runPass(passes::Pass& p, ir::Graph& g) {
  static ops::InferenceCache cache;
  passes::PassContext ctx;
  ctx.cache = &cache;
  ctx.profile = passes::Profile::INT;
  if (!p.shouldRun(g, ctx).run) return {PassStatus::Skipped, ""};
  return p.run(g, ctx);
}

passes::SkipReason skipReason(passes::Pass& p, const ir::Graph& g) {
  passes::PassContext ctx;
  return p.shouldRun(g, ctx).reason;
}

/// A float parameter `name` of shape `s` (values synthesised by materializeConstants).
ir::ValueRef param(test::GraphBuilder& b, const std::string& name, ir::Shape s) { return b.parameter(name, s); }

ir::ValueRef getitem(test::GraphBuilder& b, ir::ValueRef tuple, int64_t i, const std::string& name) {
  return b.call("operator.getitem", {tuple, i}, {}, name);
}

std::vector<exec::Tensor> run(const ir::Graph& g, uint64_t seed) {
  exec::Executor ex;
  auto out = ex.run(g, exec::synthesizeInputs(g, seed));
  EXPECT_TRUE(out.isOk()) << out.message();
  return out.isOk() ? std::move(out).value() : std::vector<exec::Tensor>();
}

/// The decomposed graph computes what the source computed: every output within 1e-5
/// relative (of the output's largest magnitude: the decompositions reassociate float sums).
void expectSameOutputs(const ir::Graph& src, const ir::Graph& dec) {
  for (uint64_t seed : {3u, 11u}) {
    auto a = run(src, seed), b = run(dec, seed);
    ASSERT_EQ(a.size(), b.size());
    exec::CompareResult c = exec::compareOutputs(b, a, {.rtol = 1e-5, .scaleRelative = true, .atol = 1e-6});
    EXPECT_TRUE(c.equivalent) << "seed " << seed << ": " << c.message;
  }
}

/// x [2, 5, 8] -> native_layer_norm(x, [8], w, b, 1e-5); outputs y, mean * 2 and rstd (the
/// mean and rstd read through getitem 1 / 2).
ir::Graph layerNormGraph(bool weight, bool bias) {
  test::GraphBuilder b;
  auto x = b.input("x", {2, 5, 8});
  ir::Arg w = weight ? ir::Arg(param(b, "ln_weight", {8})) : ir::Arg();
  ir::Arg bi = bias ? ir::Arg(param(b, "ln_bias", {8})) : ir::Arg();
  auto ln = b.call("aten.native_layer_norm.default", {x, IntList{8}, w, bi, 1e-5}, {}, "ln");
  auto y = getitem(b, ln, 0, "y");
  auto mean = getitem(b, ln, 1, "mean");
  auto rstd = getitem(b, ln, 2, "rstd");
  auto m2 = b.call("aten.mul.Tensor", {mean, 2.0}, {}, "mean_x2");
  b.output({y, m2, rstd});
  exec::materializeConstants(b.g);
  return std::move(b.g);
}

// ---------------------------------------------------------------- layer norm

TEST(TfaLayerNorm, DecomposesToMeanVarianceRsqrtAndAffine) {
  ir::Graph src = layerNormGraph(true, true);
  ir::Graph g = src;
  transforms::DecomposeLayerNormPass p(tfaDecomposeOptions());
  ASSERT_EQ(runPass(p, g).status, PassStatus::Changed);
  EXPECT_EQ(p.statistics()[0].value, 1);
  EXPECT_EQ(count(g, "aten.native_layer_norm.default"), 0u);
  EXPECT_EQ(count(g, "operator.getitem"), 0u);  // folded into the mean / rstd values
  EXPECT_EQ(count(g, "aten.sum.dim_IntList"), 2u);  // mean and variance
  EXPECT_EQ(count(g, "aten.sub.Tensor"), 1u);
  // 1/N twice, d * d, d * rstd, * weight; plus the graph's own mean * 2.
  EXPECT_EQ(count(g, "aten.mul.Tensor"), 6u);
  EXPECT_EQ(count(g, "aten.add.Tensor"), 2u);  // + eps, + bias
  EXPECT_EQ(count(g, "aten.rsqrt.default"), 1u);
  // The mean / rstd outputs are the decomposition's values: mean_x2 reads the mean's mul,
  // the graph output #2 the rsqrt.
  const ir::Node& m2 = g.node(g.findByName("mean_x2"));
  EXPECT_EQ(ir::opName(g.node(m2.args[0].ref()->node).op), "aten.mul.Tensor");
  const ir::RefList& outs = *g.outputNode()->args[0].asRefList();
  EXPECT_EQ(ir::opName(g.node(outs[2].node).op), "aten.rsqrt.default");
  EXPECT_TRUE(passes::VerifierInstrumentation::verifyGraph(g).isOk());
  expectSameOutputs(src, g);
}

TEST(TfaLayerNorm, WeightAndBiasAreOptional) {
  for (auto [w, b] : {std::pair{false, false}, std::pair{true, false}, std::pair{false, true}}) {
    SCOPED_TRACE(::testing::Message() << "weight " << w << ", bias " << b);
    ir::Graph src = layerNormGraph(w, b);
    ir::Graph g = src;
    transforms::DecomposeLayerNormPass p(tfaDecomposeOptions());
    ASSERT_EQ(runPass(p, g).status, PassStatus::Changed);
    EXPECT_EQ(count(g, "aten.native_layer_norm.default"), 0u);
    EXPECT_EQ(count(g, "aten.mul.Tensor"), 5u + w);
    EXPECT_EQ(count(g, "aten.add.Tensor"), 1u + b);
    expectSameOutputs(src, g);
  }
}

TEST(TfaLayerNorm, SeveralNormalizedDims) {
  test::GraphBuilder b;
  auto x = b.input("x", {2, 3, 4, 5});
  auto w = param(b, "w", {4, 5});
  auto bias = param(b, "b", {4, 5});
  auto ln = b.call("aten.native_layer_norm.default", {x, IntList{4, 5}, w, bias, 1e-6}, {}, "ln");
  auto y = getitem(b, ln, 0, "y");
  auto rstd = getitem(b, ln, 2, "rstd");
  b.output({y, rstd});
  exec::materializeConstants(b.g);
  ir::Graph src = b.g;
  transforms::DecomposeLayerNormPass p(tfaDecomposeOptions());
  ASSERT_EQ(runPass(p, b.g).status, PassStatus::Changed);
  for (ir::NodeId id : b.g.nodesOfOp(ir::internOp("aten.sum.dim_IntList")))
    EXPECT_EQ(*b.g.node(id).args[1].asIntList(), (IntList{2, 3}));
  EXPECT_EQ(ir::toString(b.g.outputNode()->outputs[1]), "f32[2,3,1,1]");
  expectSameOutputs(src, b.g);
}

TEST(TfaLayerNorm, SkippedWhenAbsentAndDisallowedNodesUntouched) {
  test::GraphBuilder e;
  auto x = e.input("x", {2, 8});
  e.output({e.call("aten.relu.default", {x})});
  transforms::DecomposeLayerNormPass p(tfaDecomposeOptions());
  EXPECT_EQ(skipReason(p, e.g), passes::SkipReason::NoTargetOps);

  test::GraphBuilder b;
  auto in = b.input("x", {2, 5, 8});
  auto ln1 = b.call("aten.native_layer_norm.default", {in, IntList{8}, ir::Arg(), ir::Arg(), 1e-5}, {}, "ln_keep");
  auto y1 = getitem(b, ln1, 0, "y1");
  auto ln2 = b.call("aten.native_layer_norm.default", {y1, IntList{8}, ir::Arg(), ir::Arg(), 1e-5}, {}, "ln_go");
  b.output({getitem(b, ln2, 0, "y2")});
  ir::Node& keep = b.g.mutableNode(b.g.findByName("ln_keep"));
  keep.flags |= ir::kFlagDisallowTransform;
  ir::Graph src = b.g;
  const ir::Node* keptBefore = src.ptrAt(src.position(src.findByName("ln_keep"))).get();
  ASSERT_EQ(runPass(p, b.g).status, PassStatus::Changed);
  EXPECT_EQ(count(b.g, "aten.native_layer_norm.default"), 1u);
  ir::NodeId kept = b.g.findByName("ln_keep");
  ASSERT_NE(kept, ir::kInvalidNode);
  EXPECT_EQ(b.g.ptrAt(b.g.position(kept)).get(), keptBefore);  // same node, shared (untouched)
  EXPECT_EQ(b.g.findByName("ln_go"), ir::kInvalidNode);
  expectSameOutputs(src, b.g);
  // Every target disallowed: the pass is skipped.
  ir::Graph all = src;
  for (ir::NodeId id : all.nodesOfOp(ir::internOp("aten.native_layer_norm.default")))
    all.mutableNode(id).flags |= ir::kFlagDisallowTransform;
  EXPECT_EQ(skipReason(p, all), passes::SkipReason::TargetsDisallowed);
}

TEST(TfaLayerNorm, BadNormalizedShapeIsAnErrorNamingTheNode) {
  test::GraphBuilder b;
  auto x = b.input("x", {2, 8});
  ir::Node n = b.makeCall("aten.native_layer_norm.default", {x, 1e-5, ir::Arg(), ir::Arg(), 1e-5}, {}, "ln_bad");
  n.outputs = {ir::TensorMeta(ir::DType::Float32, {2, 8}), ir::TensorMeta(ir::DType::Float32, {2, 1}),
               ir::TensorMeta(ir::DType::Float32, {2, 1})};
  ir::ValueRef ln{b.g.append(std::move(n)), 0};
  b.output({getitem(b, ln, 0, "y")});
  transforms::DecomposeLayerNormPass p(tfaDecomposeOptions());
  passes::PassResult r = runPass(p, b.g);
  ASSERT_EQ(r.status, PassStatus::Failed);
  EXPECT_NE(r.message.find("'ln_bad'"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("normalized_shape"), std::string::npos) << r.message;
}

// ---------------------------------------------------------------- softmax / log_softmax

/// x [3, 6, 7] * 40 (logits far beyond exp's float range without the max subtraction) ->
/// softmax over dim 1 (`op` is _softmax or softmax.int, or their log variants).
ir::Graph softmaxGraph(const char* op, bool intOverload) {
  test::GraphBuilder b;
  auto x = b.input("x", {3, 6, 7});
  auto big = b.call("aten.mul.Tensor", {x, 40.0}, {}, "scale");
  std::vector<ir::Arg> args{big, int64_t(1)};
  args.push_back(intOverload ? ir::Arg() : ir::Arg(false));
  auto s = b.call(op, std::move(args), {}, "sm");
  b.output({s});
  return std::move(b.g);
}

TEST(TfaSoftmax, DecomposesToTheStableForm) {
  for (auto [op, isInt] : {std::pair{"aten._softmax.default", false}, std::pair{"aten.softmax.int", true}}) {
    SCOPED_TRACE(op);
    ir::Graph src = softmaxGraph(op, isInt);
    ir::Graph g = src;
    transforms::DecomposeSoftmaxPass p(tfaDecomposeOptions());
    ASSERT_EQ(runPass(p, g).status, PassStatus::Changed);
    EXPECT_EQ(p.statistics()[0].value, 1);
    EXPECT_EQ(count(g, op), 0u);
    EXPECT_EQ(count(g, "aten.amax.default"), 1u);
    EXPECT_EQ(count(g, "aten.sub.Tensor"), 1u);
    EXPECT_EQ(count(g, "aten.exp.default"), 1u);
    EXPECT_EQ(count(g, "aten.sum.dim_IntList"), 1u);
    EXPECT_EQ(count(g, "aten.reciprocal.default"), 1u);
    EXPECT_EQ(count(g, "aten.mul.Tensor"), 2u);  // the graph's * 40 and exp * reciprocal
    const ir::Node& amax = g.node(g.nodesOfOp(ir::internOp("aten.amax.default"))[0]);
    EXPECT_EQ(*amax.args[1].asIntList(), IntList{1});
    EXPECT_TRUE(*amax.args[2].asBool());  // keepdim
    expectSameOutputs(src, g);
    for (const exec::Tensor& t : run(g, 5))
      for (int64_t i = 0; i < t.numel(); ++i) ASSERT_TRUE(std::isfinite(t.getDouble(i)));
  }
}

TEST(TfaLogSoftmax, DecomposesToShiftedMinusLogSum) {
  for (auto [op, isInt] : {std::pair{"aten._log_softmax.default", false}, std::pair{"aten.log_softmax.int", true}}) {
    SCOPED_TRACE(op);
    ir::Graph src = softmaxGraph(op, isInt);
    ir::Graph g = src;
    transforms::DecomposeLogSoftmaxPass p(tfaDecomposeOptions());
    ASSERT_EQ(runPass(p, g).status, PassStatus::Changed);
    EXPECT_EQ(p.statistics()[0].value, 1);
    EXPECT_EQ(count(g, op), 0u);
    EXPECT_EQ(count(g, "aten.amax.default"), 1u);
    EXPECT_EQ(count(g, "aten.sub.Tensor"), 2u);  // x - amax, shifted - log(sum)
    EXPECT_EQ(count(g, "aten.exp.default"), 1u);
    EXPECT_EQ(count(g, "aten.sum.dim_IntList"), 1u);
    EXPECT_EQ(count(g, "aten.log.default"), 1u);
    EXPECT_EQ(count(g, "aten.reciprocal.default"), 0u);
    // The output is the second sub, reading the first one (x - amax) and the log.
    const ir::Node& out = g.node(g.outputNode()->args[0].asRefList()->at(0).node);
    EXPECT_EQ(ir::opName(out.op), "aten.sub.Tensor");
    EXPECT_EQ(ir::opName(g.node(out.args[0].ref()->node).op), "aten.sub.Tensor");
    EXPECT_EQ(ir::opName(g.node(out.args[1].ref()->node).op), "aten.log.default");
    expectSameOutputs(src, g);
  }
}

TEST(TfaSoftmax, SkippedWhenAbsentAndDisallowedOrNonFloat32Untouched) {
  test::GraphBuilder e;
  auto x0 = e.input("x", {2, 8});
  e.output({e.call("aten.relu.default", {x0})});
  transforms::DecomposeSoftmaxPass sp(tfaDecomposeOptions());
  transforms::DecomposeLogSoftmaxPass lp(tfaDecomposeOptions());
  EXPECT_EQ(skipReason(sp, e.g), passes::SkipReason::NoTargetOps);
  EXPECT_EQ(skipReason(lp, e.g), passes::SkipReason::NoTargetOps);

  test::GraphBuilder b;
  auto x = b.input("x", {4, 9});
  auto keep = b.call("aten._softmax.default", {x, int64_t(-1), false}, {}, "sm_keep");
  auto go = b.call("aten._softmax.default", {keep, int64_t(0), false}, {}, "sm_go");
  auto lkeep = b.call("aten._log_softmax.default", {go, int64_t(-1), false}, {}, "lsm_keep");
  // softmax.int to float64: a dtype change, not decomposed (nothing to quantise).
  const ir::Arg f64(ir::EnumArg{ir::EnumKind::DType, int32_t(ir::DType::Float64)});
  auto wide = b.call("aten.softmax.int", {x, int64_t(1), f64}, {}, "sm_f64");
  b.output({lkeep, wide});
  b.g.mutableNode(b.g.findByName("sm_keep")).flags |= ir::kFlagDisallowTransform;
  b.g.mutableNode(b.g.findByName("lsm_keep")).flags |= ir::kFlagDisallowTransform;
  EXPECT_EQ(skipReason(lp, b.g), passes::SkipReason::TargetsDisallowed);
  ir::Graph src = b.g;
  ASSERT_EQ(runPass(sp, b.g).status, PassStatus::Changed);
  EXPECT_EQ(sp.statistics()[0].value, 1);
  EXPECT_NE(b.g.findByName("sm_keep"), ir::kInvalidNode);
  EXPECT_NE(b.g.findByName("sm_f64"), ir::kInvalidNode);
  EXPECT_EQ(b.g.findByName("sm_go"), ir::kInvalidNode);
  EXPECT_EQ(count(b.g, "aten._softmax.default"), 1u);
  EXPECT_EQ(runPass(lp, b.g).status, PassStatus::Skipped);
  EXPECT_EQ(count(b.g, "aten._log_softmax.default"), 1u);
  expectSameOutputs(src, b.g);
}

TEST(TfaSoftmax, BadDimIsAnErrorNamingTheNode) {
  test::GraphBuilder b;
  auto x = b.input("x", {2, 8});
  ir::Node n = b.makeCall("aten._softmax.default", {x, int64_t(5), false}, {}, "sm_bad");
  n.outputs = {ir::TensorMeta(ir::DType::Float32, {2, 8})};
  ir::ValueRef s{b.g.append(std::move(n)), 0};
  b.output({s});
  transforms::DecomposeSoftmaxPass p(tfaDecomposeOptions());
  passes::PassResult r = runPass(p, b.g);
  ASSERT_EQ(r.status, PassStatus::Failed);
  EXPECT_NE(r.message.find("'sm_bad'"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("dim 5 out of range"), std::string::npos) << r.message;
}

// ---------------------------------------------------------------- annotation

/// The producer of value `v`'s node, by op name ("" for non-call nodes).
std::string opOf(const ir::Graph& g, ir::NodeId v) {
  const ir::Node& n = g.node(v);
  return n.isCall() ? ir::opName(n.op) : "";
}

/// A value that reaches its reader dequantised: a dq output, or a weight transform (t_copy)
/// of a per-channel dq.
bool dequantised(const ir::Graph& g, ir::NodeId v) {
  const std::string op = opOf(g, v);
  if (op == kDQ || op == kDQC) return true;
  const ir::Node& n = g.node(v);
  if (!n.isCall() || op.starts_with("quantized_decomposed.")) return false;
  bool all = true, any = false;
  n.forEachInput([&](const ir::ValueRef& r) {
    any = true;
    all = all && opOf(g, r.node) == kDQC;
  });
  return any && all;
}

/// True when every use of value `v` is a quantize_per_tensor; a conv/linear output read only
/// by a relu/hardtanh whose output is quantised counts (the fused pattern); for a multi-output
/// node, every getitem of it must be quantised.
bool quantisedOutput(const ir::Graph& g, ir::NodeId v) {
  auto users = g.users(v);
  if (users.empty()) return false;
  if (g.node(v).outputs.size() > 1) {
    for (ir::NodeId u : users)
      if (opOf(g, u) != "operator.getitem" || !quantisedOutput(g, u)) return false;
    return true;
  }
  bool all = true;
  for (ir::NodeId u : users) all = all && opOf(g, u) == kQ;
  if (all || users.size() != 1) return all;
  const std::string uop = opOf(g, users[0]);
  if (uop != "aten.relu.default" && uop != "aten.hardtanh.default") return false;
  auto uu = g.users(users[0]);
  return uu.size() == 1 && opOf(g, uu[0]) == kQ;
}

/// Float aten ops reading a dequantised activation that are not fully annotated: a float
/// (non-dequantised) tensor operand, or an output that is not quantised. One "name (op): why"
/// per entry.
std::vector<std::string> unannotatedOps(const ir::Graph& g) {
  std::vector<std::string> bad;
  for (const ir::NodePtr& p : g.nodes()) {
    const ir::Node& n = *p;
    if (!n.isCall() || n.outputs.empty()) continue;
    bool floatOut = true;
    for (const ir::TensorMeta& m : n.outputs) floatOut = floatOut && m.dtype == ir::DType::Float32;
    const std::string op = ir::opName(n.op);
    if (!floatOut || !op.starts_with("aten.")) continue;
    bool readsActivation = false;
    std::string floatOperand;
    n.forEachInput([&](const ir::ValueRef& r) {
      if (opOf(g, r.node) == kDQ) readsActivation = true;
      if (!dequantised(g, r.node) && floatOperand.empty()) floatOperand = g.node(r.node).name;
    });
    if (!readsActivation) continue;
    if (!floatOperand.empty()) {
      bad.push_back(n.name + " (" + op + "): float operand " + floatOperand);
      continue;
    }
    if (!quantisedOutput(g, n.id)) bad.push_back(n.name + " (" + op + "): output not quantised");
  }
  return bad;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += x + "; ";
  return s;
}

/// x [2, 6, 16] -> * 3 -> layer_norm(w, b) -> softmax(-1) -> log_softmax(1) (mean/rstd unused).
ir::Graph normSoftmaxGraph() {
  test::GraphBuilder b;
  auto x = b.input("x", {2, 6, 16});
  auto w = param(b, "norm_weight", {16});
  auto bias = param(b, "norm_bias", {16});
  auto x3 = b.call("aten.mul.Tensor", {x, 3.0}, {}, "pre");
  auto ln = b.call("aten.native_layer_norm.default", {x3, IntList{16}, w, bias, 1e-5}, {}, "ln");
  auto y = getitem(b, ln, 0, "y");
  auto s = b.call("aten._softmax.default", {y, int64_t(-1), false}, {}, "sm");
  auto l = b.call("aten._log_softmax.default", {s, int64_t(1), false}, {}, "lsm");
  b.output({l});
  exec::materializeConstants(b.g);
  return std::move(b.g);
}

TEST(TfaAnnotation, EveryPrimitiveSitsBetweenDqAndQ) {
  ir::Graph g = normSoftmaxGraph();
  auto rep = quantizeGraph(g);
  ASSERT_TRUE(rep.isOk()) << rep.message();
  EXPECT_EQ(rep->tfaChanged,
            (std::vector<std::string>{"DecomposeLayerNormPass", "DecomposeSoftmaxPass", "DecomposeLogSoftmaxPass"}));
  for (const char* op : {"aten.native_layer_norm.default", "aten._softmax.default", "aten._log_softmax.default"})
    EXPECT_EQ(count(g, op), 0u) << op;
  EXPECT_EQ(unannotatedOps(g), std::vector<std::string>{}) << join(unannotatedOps(g));
  // Every primitive of the decompositions is there and was annotated.
  for (const char* op : {"aten.sum.dim_IntList", "aten.mul.Tensor", "aten.sub.Tensor", "aten.add.Tensor",
                         "aten.rsqrt.default", "aten.amax.default", "aten.exp.default", "aten.reciprocal.default",
                         "aten.log.default"}) {
    ASSERT_GT(count(g, op), 0u) << op;
    for (ir::NodeId id : g.nodesOfOp(ir::internOp(op))) {
      auto users = g.users(id);
      ASSERT_EQ(users.size(), 1u) << g.node(id).name;
      EXPECT_EQ(opOf(g, users[0]), kQ) << g.node(id).name;
    }
  }
  // The layer norm's weight and bias: int8 constants feeding dequantize_per_tensor (folded
  // as convert_pt2e(fold_quantize=True) does), read by the affine mul / add.
  EXPECT_EQ(rep->foldedConstants, 2u);
  size_t constantOperands = 0;
  for (const char* op : {"aten.mul.Tensor", "aten.add.Tensor"})
    for (ir::NodeId id : g.nodesOfOp(ir::internOp(op)))
      for (const ir::Arg& a : g.node(id).args) {
        const ir::ValueRef* r = a.ref();
        if (!r || opOf(g, r->node) != kDQ) continue;
        const ir::Node& src = g.node(g.node(r->node).args[0].ref()->node);
        if (src.kind != ir::NodeKind::GetAttr) continue;
        EXPECT_EQ(src.meta().dtype, ir::DType::Int8) << src.name;
        EXPECT_EQ(ir::toString(src.meta()), "i8[16]") << src.name;
        ++constantOperands;
      }
  EXPECT_EQ(constantOperands, 2u);
  EXPECT_EQ(g.findByName("norm_weight"), ir::kInvalidNode);  // the float weight is gone
  EXPECT_TRUE(passes::VerifierInstrumentation::verifyGraph(g).isOk());

  // The check itself: a layer norm and a log_softmax left float (no config) are reported, the
  // first for its float weight, the second for its unquantised output (the graph output).
  ir::Graph islands = normSoftmaxGraph();
  QuantizeOptions o;
  o.excludeOps = {"aten.native_layer_norm.default", "aten._log_softmax.default"};
  ASSERT_TRUE(quantizeGraph(islands, o).isOk());
  const std::vector<std::string> bad = unannotatedOps(islands);
  ASSERT_EQ(bad.size(), 2u) << join(bad);
  EXPECT_EQ(bad[0], "ln (aten.native_layer_norm.default): float operand norm_weight");
  EXPECT_EQ(bad[1], "lsm (aten._log_softmax.default): output not quantised");
}

TEST(TfaAnnotation, FoldedConstantsComputeWhatQuantizeDequantizeComputes) {
  ir::Graph folded = normSoftmaxGraph(), unfolded = normSoftmaxGraph();
  ASSERT_TRUE(quantizeGraph(folded).isOk());
  QuantizeOptions o;
  o.foldWeightQuantize = false;
  auto rep = quantizeGraph(unfolded, o);
  ASSERT_TRUE(rep.isOk()) << rep.message();
  EXPECT_EQ(rep->foldedConstants, 0u);
  // Unfolded: the float weight and bias go through quantize_per_tensor.
  size_t constantQ = 0;
  for (ir::NodeId id : unfolded.nodesOfOp(ir::internOp(kQ)))
    constantQ += unfolded.node(unfolded.node(id).args[0].ref()->node).kind == ir::NodeKind::GetAttr;
  EXPECT_EQ(constantQ, 2u);
  auto a = run(folded, 9), b = run(unfolded, 9);
  EXPECT_TRUE(exec::compareOutputs(a, b, {.rtol = 0, .atol = 0}).equivalent);
}

// ---------------------------------------------------------------- real graphs

double sqnrDb(const exec::Tensor& ref, const exec::Tensor& q) {
  double s = 0, n = 0;
  for (int64_t i = 0; i < ref.numel(); ++i) {
    const double a = ref.getDouble(i), d = a - q.getDouble(i);
    s += a * a;
    n += d * d;
  }
  return n > 0 ? 10.0 * std::log10(s / n) : INFINITY;
}

struct RealCase {
  const char* model;
  std::vector<const char*> gone;  ///< ops the decompositions must remove
  double minSqnr;                 ///< measured (see the comment at the instantiation) minus a margin
};

class TfaRealGraph : public ::testing::TestWithParam<RealCase> {};

TEST_P(TfaRealGraph, QuantisedWithoutFloatIslandsAndCloseToFloat) {
  const RealCase& c = GetParam();
  auto loaded = io::importFxJsonFile(std::string(LS_ASSETS_DIR) + "/graphs/" + c.model + ".fxjson.json");
  ASSERT_TRUE(loaded.isOk()) << loaded.message();
  ir::Graph fp = std::move(loaded).value();
  exec::materializeConstants(fp);
  for (const char* op : c.gone) ASSERT_GT(count(fp, op), 0u) << op;
  ir::Graph q = fp;
  QuantizeOptions o;
  o.calibrationRuns = 2;
  auto rep = quantizeGraph(q, o);
  ASSERT_TRUE(rep.isOk()) << rep.message();
  for (const char* op : c.gone) EXPECT_EQ(count(q, op), 0u) << op;
  const std::vector<std::string> bad = unannotatedOps(q);
  EXPECT_EQ(bad.size(), 0u) << join(bad);
  // Held-out input (seed 77, not a calibration seed).
  auto inputs = exec::synthesizeInputs(fp, 77);
  exec::Executor ex;
  auto a = ex.run(fp, inputs);
  auto b = ex.run(q, inputs);
  ASSERT_TRUE(a.isOk()) << a.message();
  ASSERT_TRUE(b.isOk()) << b.message();
  const double sqnr = sqnrDb((*a)[0], (*b)[0]);
  exec::CompareResult cr = exec::compareOutputs(*b, *a);
  std::cout << "[ tfa      ] " << c.model << ": SQNR " << sqnr << " dB, max abs error " << cr.maxAbsError
            << ", max error / max |fp| " << cr.maxRelToMax << ", " << bad.size() << " un-annotated ops; "
            << rep->summary() << "\n";
  EXPECT_GT(sqnr, c.minSqnr);
}

// Measured (calibrationRuns 2, held-out seed 77): deit_tiny_vit 18.2 dB with its 25 layer norms
// and 12 softmaxes decomposed and quantised (16.3 dB when they were float islands),
// wav2letter 46.7 dB (47.2 dB with a float log_softmax; max abs error 0.097, was 0.249).
INSTANTIATE_TEST_SUITE_P(
    Tfa, TfaRealGraph,
    ::testing::Values(RealCase{"deit_tiny_vit", {"aten.native_layer_norm.default", "aten._softmax.default"}, 15.0},
                      RealCase{"wav2letter", {"aten._log_softmax.default"}, 42.0}),
    [](const auto& p) { return std::string(p.param.model); });

}  // namespace
}  // namespace ls::quant
