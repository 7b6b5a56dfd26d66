// Post-training quantizer: q/dq op counts on a small graph, per-channel symmetric weights and
// int32 biases with derived scales, disallow-transform flags and the transform-for-annotation
// passes honouring them, graphs with q/dq left alone, and every real graph quantised with
// outputs close to float (SQNR).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <iostream>

#include "core/exec/executor.h"
#include "core/exec/materialize.h"
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

size_t count(const ir::Graph& g, const char* op) { return g.nodesOfOp(ir::internOp(op)).size(); }
double sqnrDb(const exec::Tensor& ref, const exec::Tensor& q);

constexpr const char* kQ = "quantized_decomposed.quantize_per_tensor.default";
constexpr const char* kDQ = "quantized_decomposed.dequantize_per_tensor.default";
constexpr const char* kQC = "quantized_decomposed.quantize_per_channel.default";
constexpr const char* kDQC = "quantized_decomposed.dequantize_per_channel.default";

ir::ValueRef param(test::GraphBuilder& b, const std::string& fqn, ir::Shape s) {
  std::string name = fqn;
  for (char& ch : name)
    if (ch == '.') ch = '_';
  return b.parameter(name, s, fqn);
}

ir::ValueRef conv(test::GraphBuilder& b, ir::ValueRef x, ir::ValueRef w, ir::Arg bias, int64_t pad, const std::string& name) {
  return b.call("aten.convolution.default",
                {x, w, bias, IntList{1, 1}, IntList{pad, pad}, IntList{1, 1}, false, IntList{0, 0}, int64_t(1)}, {}, name);
}

/// x -> conv1(+bias) -> relu -> conv2 (no bias) -> add(conv2, relu) -> view -> output.
ir::Graph smallGraph() {
  test::GraphBuilder b;
  auto x = b.input("x", {1, 3, 8, 8});
  auto w1 = param(b, "block.conv1.weight", {4, 3, 3, 3});
  auto b1 = param(b, "block.conv1.bias", {4});
  auto w2 = param(b, "block.conv2.weight", {4, 4, 1, 1});
  auto c1 = conv(b, x, w1, b1, 1, "conv1");
  auto r = b.call("aten.relu.default", {c1}, {}, "relu");
  auto c2 = conv(b, r, w2, ir::Arg(), 0, "conv2");
  auto add = b.call("aten.add.Tensor", {c2, r}, {}, "add");
  auto v = b.call("aten.view_copy.default", {add, IntList{1, 256}}, {}, "view");
  b.output({v});
  return std::move(b.g);
}

const ir::Node* producer(const ir::Graph& g, const ir::Arg& a) {
  const ir::ValueRef* r = a.ref();
  return r ? g.find(r->node) : nullptr;
}

exec::Tensor constantValues(const ir::Graph& g, const ir::Node& getattr) {
  const ir::Constant* c = g.constant(getattr.target);
  EXPECT_NE(c, nullptr);
  EXPECT_TRUE(c && c->valuesKnown());  // bytes, or a recipe over bytes (folded weights: "quantize")
  if (!c || !c->valuesKnown()) return exec::Tensor();
  auto t = exec::materialize(*c);
  EXPECT_TRUE(t.isOk()) << t.message();
  return t.isOk() ? *t : exec::Tensor();
}

TEST(Quantizer, SmallGraphGetsTheQdqOpsPt2eWouldInsert) {
  ir::Graph g = smallGraph();
  auto rep = quantizeGraph(g);
  ASSERT_TRUE(rep.isOk()) << rep.message();
  // Observed values: x (conv1's input), relu (fused conv1+relu output), conv2, add and view
  // (add shares conv2's observer with relu; view shares its input's): 5 q/dq pairs, 2 observers.
  EXPECT_EQ(count(g, kQ), 5u);
  EXPECT_EQ(count(g, kDQ), 5u);
  EXPECT_EQ(rep->observers, 2u);
  // Two per-channel weights and one int32 bias, folded (no quantize_per_channel left).
  EXPECT_EQ(count(g, kDQC), 3u);
  EXPECT_EQ(count(g, kQC), 0u);
  EXPECT_EQ(rep->perChannelWeights, 2u);
  EXPECT_EQ(rep->int32Biases, 1u);
  // conv1's float output is not observed (fused with relu): its only user is still the relu.
  ir::NodeId c1 = g.findByName("conv1");
  ASSERT_EQ(g.users(c1).size(), 1u);
  EXPECT_EQ(g.node(g.users(c1)[0]).name, "relu");
  // Every conv reads a dequantised input and a dequantize_per_channel weight.
  for (const char* name : {"conv1", "conv2"}) {
    const ir::Node& n = g.node(g.findByName(name));
    EXPECT_EQ(ir::opName(producer(g, n.args[0])->op), kDQ) << name;
    EXPECT_EQ(ir::opName(producer(g, n.args[1])->op), kDQC) << name;
  }
  // The graph output is a dequantize.
  const ir::Node* out = g.outputNode();
  EXPECT_EQ(ir::opName(producer(g, ir::Arg((*out->args[0].asRefList())[0]))->op), kDQ);
  EXPECT_TRUE(passes::VerifierInstrumentation::verifyGraph(g).isOk());
}

TEST(Quantizer, CalibrationReportsItsProgressPerNode) {
  ir::Graph g = smallGraph();
  const size_t nodes = g.size();
  QuantizeOptions o;
  o.calibrationRuns = 3;
  std::vector<std::pair<std::string, double>> seen;
  o.progress = [&](std::string_view stage, double f) { seen.emplace_back(std::string(stage), f); };
  auto rep = quantizeGraph(g, o);
  ASSERT_TRUE(rep.isOk()) << rep.message();
  // Every node once (the runs go side by side, Executor::runEach), then the conversion.
  ASSERT_EQ(seen.size(), nodes + 1);
  for (size_t i = 0; i + 1 < seen.size(); ++i) {
    EXPECT_EQ(seen[i].first, "quantize: calibration");
    EXPECT_GT(seen[i].second, 0.0);
    if (i > 0) {
      EXPECT_GT(seen[i].second, seen[i - 1].second) << i;
    }
  }
  EXPECT_DOUBLE_EQ(seen[nodes - 1].second, 1.0);
  EXPECT_EQ(seen.back(), std::make_pair(std::string("quantize: converting"), 1.0));
}

TEST(Quantizer, NegSharesItsInputsQParamsAndScalarFormsAreAnnotated) {
  // neg keeps the magnitude of its input's range (upstream: shared input qspec); mul/add/sub
  // .Scalar are annotated as the .Tensor forms with a number operand.
  test::GraphBuilder b;
  auto x = b.input("x", {2, 8});
  auto n = b.call("aten.neg.default", {x}, {}, "neg");
  auto m = b.call("aten.mul.Scalar", {x, 0.5}, {}, "mul");
  auto a = b.call("aten.add.Scalar", {x, 2.0}, {}, "add");
  auto s = b.call("aten.sub.Scalar", {x, 1.0}, {}, "sub");
  b.output({n, m, a, s});
  ir::Graph g = b.g;
  auto rep = quantizeGraph(g);
  ASSERT_TRUE(rep.isOk()) << rep.message();
  EXPECT_EQ(rep->annotatedNodes, 4u);
  for (const char* name : {"neg", "mul", "add", "sub"}) {
    const ir::Node& node = g.node(g.findByName(name));
    EXPECT_EQ(ir::opName(producer(g, node.args[0])->op), kDQ) << name << " reads a dequantized input";
    ASSERT_EQ(g.users(node.id).size(), 1u) << name;
    EXPECT_EQ(ir::opName(g.node(g.users(node.id)[0]).op), kQ) << name << " output is quantized";
  }
  // neg's output quantize has its input's qparams.
  const ir::Node& neg = g.node(g.findByName("neg"));
  const ir::Node& q = g.node(g.users(neg.id)[0]);
  const ir::Node* dq = producer(g, neg.args[0]);
  EXPECT_EQ(q.args[1].number(), dq->args[1].number());
  EXPECT_EQ(q.args[2].number(), dq->args[2].number());
}

TEST(Quantizer, AValueNeverFiniteOnCalibrationGetsTheZeroRange) {
  // A pipeline-fuzzer finding: linear read a value that is NaN on every calibration run
  // (sqrt of a negative); its bias then had "no calibrated scale" and the graph failed.
  test::GraphBuilder b;
  auto x = b.input("x", {2, 4});
  auto a = b.call("aten.abs.default", {x});
  auto n = b.call("aten.neg.default", {a});
  auto m = b.call("aten.sub.Tensor", {n, 1.0});
  auto r = b.call("aten.sqrt.default", {m});
  auto y = b.call("aten.linear.default", {r, param(b, "fc.weight", {3, 4}), param(b, "fc.bias", {3})}, {}, "fc");
  b.output({y});
  ir::Graph g = b.g;
  auto rep = quantizeGraph(g);
  ASSERT_TRUE(rep.isOk()) << rep.message();
  EXPECT_EQ(rep->int32Biases, 1u);
  EXPECT_TRUE(passes::VerifierInstrumentation::verifyGraph(g).isOk());
}

TEST(Quantizer, WeightsArePerChannelSymmetricInt8AndBiasIsInt32WithDerivedScale) {
  ir::Graph fp = smallGraph();
  exec::materializeConstants(fp);
  ir::Graph g = fp;
  ASSERT_TRUE(quantizeGraph(g).isOk());
  const ir::Node& c1 = g.node(g.findByName("conv1"));
  const ir::Node* wdq = producer(g, c1.args[1]);
  ASSERT_NE(wdq, nullptr);
  const exec::Tensor q = constantValues(g, *producer(g, wdq->args[0]));
  const exec::Tensor scales = constantValues(g, *producer(g, wdq->args[1]));
  const exec::Tensor zps = constantValues(g, *producer(g, wdq->args[2]));
  ASSERT_EQ(q.dtype(), ir::DType::Int8);
  ASSERT_EQ(scales.numel(), 4);
  EXPECT_EQ(*wdq->args[3].asInt(), 0);  // axis: output channels
  EXPECT_EQ(*wdq->args[4].asInt(), -127);
  EXPECT_EQ(*wdq->args[5].asInt(), 127);
  const exec::Tensor w = constantValues(fp, fp.node(fp.findByName("block_conv1_weight")));
  const int64_t per = w.numel() / 4;
  for (int64_t c = 0; c < 4; ++c) {
    EXPECT_EQ(zps.getInt(c), 0);  // symmetric
    double maxAbs = 0;
    int64_t maxQ = 0;
    for (int64_t i = 0; i < per; ++i) {
      maxAbs = std::max(maxAbs, std::abs(w.getDouble(c * per + i)));
      maxQ = std::max<int64_t>(maxQ, std::llabs(q.getInt(c * per + i)));
      // Dequantised weights are within half a step of the float ones.
      EXPECT_LE(std::abs(q.getInt(c * per + i) * scales.getDouble(c) - w.getDouble(c * per + i)),
                0.5 * scales.getDouble(c) + 1e-7);
    }
    EXPECT_NEAR(scales.getDouble(c), maxAbs / 127.0, 1e-6 * maxAbs);  // scale = max|w| / 127
    EXPECT_EQ(maxQ, 127);  // the extreme value maps to +-127
  }
  // Bias: int32, scale = input scale * weight scale per channel, zero point 0.
  const ir::Node* bdq = producer(g, c1.args[2]);
  ASSERT_NE(bdq, nullptr);
  EXPECT_EQ(ir::opName(bdq->op), kDQC);
  const exec::Tensor bq = constantValues(g, *producer(g, bdq->args[0]));
  const exec::Tensor bs = constantValues(g, *producer(g, bdq->args[1]));
  EXPECT_EQ(bq.dtype(), ir::DType::Int32);
  EXPECT_EQ(*bdq->args[4].asInt(), -2147483648LL);
  EXPECT_EQ(*bdq->args[5].asInt(), 2147483646LL);  // upstream: int32 max - 1
  const ir::Node* xdq = producer(g, c1.args[0]);
  const double inScale = *xdq->args[1].asFloat();
  for (int64_t c = 0; c < 4; ++c) EXPECT_NEAR(bs.getDouble(c), inScale * scales.getDouble(c), 1e-12);
  // The input's affine qparams cover the calibrated range of x (uniform [-1, 1)).
  EXPECT_NEAR(inScale, 2.0 / 255.0, 1e-3);
}

TEST(Quantizer, UnfoldedWeightsUseQuantizePerChannel) {
  ir::Graph g = smallGraph();
  QuantizeOptions o;
  o.foldWeightQuantize = false;
  ASSERT_TRUE(quantizeGraph(g, o).isOk());
  EXPECT_EQ(count(g, kQC), 3u);
  EXPECT_EQ(count(g, kDQC), 3u);
  // And it computes the same as the folded form.
  ir::Graph f = smallGraph();
  ASSERT_TRUE(quantizeGraph(f).isOk());
  exec::Executor ex;
  auto a = ex.run(g, exec::synthesizeInputs(g, 9));
  auto b = ex.run(f, exec::synthesizeInputs(f, 9));
  ASSERT_TRUE(a.isOk() && b.isOk());
  EXPECT_TRUE(exec::compareOutputs(*a, *b, {.rtol = 0, .atol = 1e-6}).equivalent);
}

TEST(Quantizer, GraphsWithQdqOpsAreLeftAsTheyAre) {
  ir::Graph g = smallGraph();
  ASSERT_TRUE(quantizeGraph(g).isOk());
  ir::Graph before = g;
  auto again = quantizeGraph(g);
  ASSERT_TRUE(again.isOk());
  EXPECT_TRUE(again->alreadyQuantized);
  ASSERT_EQ(g.size(), before.size());
  for (size_t i = 0; i < g.size(); ++i) EXPECT_EQ(g.ptrAt(i).get(), before.ptrAt(i).get());
}

TEST(Quantizer, NodesWithoutConfigAreFlaggedAndStayFloat) {
  ir::Graph g = smallGraph();
  QuantizeOptions o;
  o.excludeModules = {"block.conv2"};  // module of conv2, from its weight's fqn
  EXPECT_EQ(moduleOf(g, g.node(g.findByName("conv2"))), "block.conv2");
  auto rep = quantizeGraph(g, o);
  ASSERT_TRUE(rep.isOk()) << rep.message();
  EXPECT_TRUE(g.node(g.findByName("conv2")).hasFlag(ir::kFlagDisallowTransform));
  EXPECT_FALSE(g.node(g.findByName("conv1")).hasFlag(ir::kFlagDisallowTransform));
  EXPECT_GE(rep->disallowed, 1u);
  // conv2 keeps its float weight.
  const ir::Node& c2 = g.node(g.findByName("conv2"));
  EXPECT_EQ(producer(g, c2.args[1])->kind, ir::NodeKind::GetAttr);
  EXPECT_EQ(rep->perChannelWeights, 1u);
  // Nothing quantised without a global config.
  ir::Graph none = smallGraph();
  QuantizeOptions off;
  off.global = false;
  auto r2 = quantizeGraph(none, off);
  ASSERT_TRUE(r2.isOk());
  EXPECT_EQ(count(none, kQ) + count(none, kDQC), 0u);
  EXPECT_EQ(r2->disallowed, none.size());
  // ... except modules given a config.
  ir::Graph some = smallGraph();
  off.includeModules = {"block.conv1"};
  auto r3 = quantizeGraph(some, off);
  ASSERT_TRUE(r3.isOk());
  EXPECT_EQ(r3->perChannelWeights, 1u);
  EXPECT_FALSE(some.node(some.findByName("conv1")).hasFlag(ir::kFlagDisallowTransform));
}

TEST(TransformForAnnotation, DecompositionsSkipDisallowedNodes) {
  test::GraphBuilder b;
  auto x = b.input("x", {2, 5});
  auto s1 = b.call("aten.silu.default", {x}, {}, "silu_a");
  auto s2 = b.call("aten.silu.default", {s1}, {}, "silu_b");
  auto d = b.call("aten.div.Tensor", {s2, 4.0}, {}, "div");
  b.output({d});
  ir::Graph src = b.g;
  QuantizeOptions o;
  o.excludeNodes = {"silu_b"};
  QuantizeReport rep;
  ASSERT_TRUE(transformForAnnotation(b.g, o, rep).isOk());
  EXPECT_EQ(count(b.g, "aten.silu.default"), 1u);  // silu_b: disallowed, untouched
  EXPECT_TRUE(b.g.node(b.g.findByName("silu_b")).hasFlag(ir::kFlagDisallowTransform));
  EXPECT_EQ(count(b.g, "aten.sigmoid.default"), 1u);
  EXPECT_EQ(count(b.g, "aten.div.Tensor"), 0u);
  EXPECT_EQ(rep.tfaChanged, (std::vector<std::string>{"DecomposeDivPass", "DecomposeSiluPass"}));
  // Semantics kept.
  auto ref = verify::Reference::compute(src, {});
  ASSERT_TRUE(ref.isOk());
  verify::CheckResult c = ref->check(b.g);
  EXPECT_TRUE(c.semantic.equivalent) << c.message;
  // All targets disallowed: the pass is skipped with targets-disallowed.
  o.excludeOps = {"aten.silu.default"};
  ir::Graph g2 = src;
  QuantizeReport rep2;
  ASSERT_TRUE(transformForAnnotation(g2, o, rep2).isOk());
  EXPECT_EQ(count(g2, "aten.silu.default"), 2u);
  transforms::DecomposeSiluPass p(tfaDecomposeOptions());
  passes::PassContext ctx;
  EXPECT_EQ(p.shouldRun(g2, ctx).reason, passes::SkipReason::TargetsDisallowed);
}

TEST(Quantizer, BatchNormWithoutAConvBecomesQuantizedMulAdd) {
  // Pre-activation order (DenseNet): relu -> batch norm -> conv. The batch norm has no conv to
  // fold into; it becomes x * scale + shift with [C, 1, 1] constants, quantized like a mul/add.
  test::GraphBuilder b;
  auto x = b.input("x", {1, 4, 6, 6});
  auto r = b.call("aten.relu.default", {x}, {}, "relu");
  auto gamma = param(b, "bn.weight", {4}), beta = param(b, "bn.bias", {4});
  auto mean = param(b, "bn.running_mean", {4}), var = param(b, "bn.running_var", {4});
  auto bn = b.call("aten._native_batch_norm_legit_no_training.default", {r, gamma, beta, mean, var, 0.1, 1e-5}, {}, "bn");
  auto y = b.call("operator.getitem", {bn, int64_t(0)});
  auto w = param(b, "conv.weight", {3, 4, 1, 1});
  auto c = conv(b, y, w, ir::Arg(), 0, "conv");
  b.output({c});
  ir::Graph fp = std::move(b.g);
  exec::materializeConstants(fp);
  ir::Graph q = fp;
  auto rep = quantizeGraph(q, {});
  ASSERT_TRUE(rep.isOk()) << rep.message();
  EXPECT_EQ(rep->batchNormsFolded, 0u);
  EXPECT_EQ(rep->batchNormsDecomposed, 1u);
  EXPECT_NE(rep->summary().find("1 more as mul + add"), std::string::npos) << rep->summary();
  EXPECT_EQ(count(q, "aten._native_batch_norm_legit_no_training.default"), 0u);
  ASSERT_EQ(count(q, "aten.mul.Tensor"), 1u);
  // The mul and the add read dequantized values and feed quantizes.
  for (const char* op : {"aten.mul.Tensor", "aten.add.Tensor"}) {
    const ir::Node& n = q.node(*q.nodesOfOp(ir::internOp(op)).begin());
    EXPECT_EQ(ir::opName(producer(q, n.args[0])->op), kDQ) << op;
    EXPECT_EQ(ir::opName(producer(q, n.args[1])->op), kDQ) << op;
    ASSERT_EQ(q.users(n.id).size(), 1u);
    EXPECT_EQ(ir::opName(q.node(q.users(n.id)[0]).op), kQ) << op;
  }
  exec::Executor ex;
  auto inputs = exec::synthesizeInputs(fp, 5);
  auto a = ex.run(fp, inputs), qa = ex.run(q, inputs);
  ASSERT_TRUE(a.isOk() && qa.isOk());
  EXPECT_GT(sqnrDb((*a)[0], (*qa)[0]), 20.0);
}

TEST(Quantizer, AGraphThatDoesNotRunIsAnErrorNamingTheNode) {
  ir::Graph g = smallGraph();
  g.mutableNode(g.findByName("add")).outputs[0].shape = ir::Shape{1, 4, 8, 9};  // stale metadata
  auto r = quantizeGraph(g);
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.message().find("'add'"), std::string::npos) << r.message();
}

TEST(Quantizer, UnknownExtraTfaPassIsAnError) {
  ir::Graph g = smallGraph();
  QuantizeOptions o;
  o.extraTfaPasses = {"NoSuchPass"};
  auto r = quantizeGraph(g, o);
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.message().find("NoSuchPass"), std::string::npos);
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

class QuantizeRealGraph : public ::testing::TestWithParam<const char*> {};

TEST_P(QuantizeRealGraph, OutputsStayCloseToFloat) {
  auto loaded = io::importFxJsonFile(std::string(LS_ASSETS_DIR) + "/graphs/" + GetParam() + ".fxjson.json");
  ASSERT_TRUE(loaded.isOk()) << loaded.message();
  ir::Graph fp = std::move(loaded).value();
  exec::materializeConstants(fp);
  ir::Graph q = fp;
  QuantizeOptions o;
  o.calibrationRuns = 2;
  auto rep = quantizeGraph(q, o);
  ASSERT_TRUE(rep.isOk()) << rep.message();
  EXPECT_GT(rep->quantizePerTensor, 0u);
  EXPECT_GT(rep->perChannelWeights, 0u);
  // Every conv / linear-addmm weight is int8 per channel.
  for (const char* op : {"aten.convolution.default", "aten.addmm.default"})
    for (ir::NodeId id : q.nodesOfOp(ir::internOp(op))) {
      const ir::Node& n = q.node(id);
      const ir::Node* w = producer(q, n.args[op[5] == 'c' ? 1 : 2]);
      if (op[5] == 'a') w = producer(q, w->args[0]);  // addmm reads t_copy(weight)
      EXPECT_EQ(ir::opName(w->op), kDQC) << n.name;
    }
  // Held-out input (seed 77, not a calibration seed): compare with the float graph.
  exec::Executor ex;
  auto inputs = exec::synthesizeInputs(fp, 77);
  auto a = ex.run(fp, inputs);
  auto b = ex.run(q, inputs);
  ASSERT_TRUE(a.isOk()) << a.message();
  ASSERT_TRUE(b.isOk()) << b.message();
  const double sqnr = sqnrDb((*a)[0], (*b)[0]);
  exec::CompareResult cr = exec::compareOutputs(*b, *a);
  std::cout << "[ quant    ] " << GetParam() << ": SQNR " << sqnr << " dB, max abs error " << cr.maxAbsError
            << ", max error / max |fp| " << cr.maxRelToMax << "; " << rep->summary() << "\n";
  // int8 through the whole network with synthetic weights, min/max observers: measured 10 dB
  // (deeplabv3: 15 squeeze-excite blocks, noise accumulates) to 47 dB (wav2letter). A wrong
  // scale, zero point or bias scale drops this below 0 dB.
  EXPECT_GT(sqnr, 8.0);
}

INSTANTIATE_TEST_SUITE_P(Quant, QuantizeRealGraph,
                         ::testing::Values("mobilenet_v2", "mobilenet_v3_small", "resnet18", "squeezenet1_1",
                                           "efficientnet_b0", "deeplabv3_mobilenet_v3_large", "deit_tiny_vit",
                                           "wav2letter"),
                         [](const auto& p) { return std::string(p.param); });

}  // namespace
}  // namespace ls::quant
