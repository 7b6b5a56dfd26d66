// INT profile: FoldAndAnnotateQParamsPass (dq -> op -> q folded into qparams, emitted as
// integer TOSA) and DecomposeQuantizeDequantizePass (remaining q/dq as TOSA ops), on small
// hand-built PT2E-style graphs; the reference executor must agree within one quantisation step.
#include <gtest/gtest.h>

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

using ir::DType;
using ir::IntList;
using ir::Shape;
using passes::PassStatus;

const char* kQ = "quantized_decomposed.quantize_per_tensor.default";
const char* kDq = "quantized_decomposed.dequantize_per_tensor.default";
const char* kDqc = "quantized_decomposed.dequantize_per_channel.default";

size_t count(const ir::Graph& g, const std::string& op) { return g.nodesOfOp(ir::internOp(op)).size(); }
ir::Arg dt(DType t) { return ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(t)}); }

ir::ValueRef constant(test::GraphBuilder& b, const std::string& name, Shape s, std::vector<double> v, DType t) {
  return b.constant(name, t, s, v);
}

std::vector<double> ints(int64_t n, int64_t mod, int64_t off, int64_t mul = 37) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(double((i * mul + 11) % mod - off));
  return v;
}

struct QConv {
  ir::ValueRef weight, bias;
};

/// Per-channel int8 weight of shape `ws` (output channels along `axis`: 0, or 1 for a
/// transposed convolution's [in, out, ...]) and int32 bias at scale sx * sw[c], both dequantized.
QConv quantWeight(test::GraphBuilder& b, const std::string& name, Shape ws, double sx, int64_t axis = 0) {
  const int64_t oc = ws[int(axis)];
  std::vector<double> sw;
  for (int64_t c = 0; c < oc; ++c) sw.push_back(0.002 + 0.0007 * double(c));
  std::vector<double> sb;
  for (double s : sw) sb.push_back(s * sx);
  auto w = constant(b, name + "_w", ws, ints(ws.numel(), 255, 127), DType::Int8);
  auto wsc = constant(b, name + "_ws", {oc}, sw, DType::Float32);
  auto wz = constant(b, name + "_wz", {oc}, std::vector<double>(size_t(oc), 0.0), DType::Int64);
  auto bq = constant(b, name + "_b", {oc}, ints(oc, 4001, 2000, 613), DType::Int32);
  auto bs = constant(b, name + "_bs", {oc}, sb, DType::Float32);
  QConv q;
  q.weight = b.call(kDqc, {w, wsc, wz, axis, -127, 127, dt(DType::Int8)});
  q.bias = b.call(kDqc, {bq, bs, wz, 0, INT32_MIN, INT32_MAX, dt(DType::Int32)});
  return q;
}

/// Per-channel int8 weight [oc, ic, k, k] and its int32 bias (quantWeight).
QConv quantConv(test::GraphBuilder& b, const std::string& name, int64_t oc, int64_t ic, int64_t k, double sx) {
  return quantWeight(b, name, Shape{oc, ic, k, k}, sx);
}

/// x int8 -> dq -> conv3x3 -> relu -> q -> dq -> depthwise3x3 s2 -> hardtanh(0,6) -> q;
///   + residual add of (dq -> max_pool 2x2 of the first activation) -> q -> view -> q-out.
ir::Graph quantizedBlock() {
  test::GraphBuilder b;
  const double s0 = 0.04, s1 = 0.03, s2 = 0.025, s3 = 0.05;
  auto x = b.input("x", DType::Int8, {1, 4, 8, 8});
  auto dx = b.call(kDq, {x, s0, 3, -128, 127, dt(DType::Int8)});
  QConv c1 = quantConv(b, "c1", 6, 4, 3, s0);
  auto conv1 = b.call("aten.convolution.default", {dx, c1.weight, c1.bias, IntList{1, 1}, IntList{1, 1}, IntList{1, 1},
                                                   false, IntList{0, 0}, 1});
  auto r1 = b.call("aten.relu.default", {conv1});
  auto q1 = b.call(kQ, {r1, s1, -128, -128, 127, dt(DType::Int8)});
  auto d1 = b.call(kDq, {q1, s1, -128, -128, 127, dt(DType::Int8)});
  QConv c2 = quantConv(b, "c2", 6, 1, 3, s1);
  auto conv2 = b.call("aten.convolution.default", {d1, c2.weight, c2.bias, IntList{2, 2}, IntList{1, 1}, IntList{1, 1},
                                                   false, IntList{0, 0}, 6});
  auto h2 = b.call("aten.hardtanh.default", {conv2, 0.0, 6.0});
  auto q2 = b.call(kQ, {h2, s2, -128, -128, 127, dt(DType::Int8)});
  auto d2 = b.call(kDq, {q2, s2, -128, -128, 127, dt(DType::Int8)});
  auto mp = b.call("aten.max_pool2d.default", {d1, IntList{2, 2}, IntList{2, 2}});
  auto qm = b.call(kQ, {mp, s1, -128, -128, 127, dt(DType::Int8)});
  auto dm = b.call(kDq, {qm, s1, -128, -128, 127, dt(DType::Int8)});
  auto add = b.call("aten.add.Tensor", {d2, dm});
  auto qa = b.call(kQ, {add, s3, -5, -128, 127, dt(DType::Int8)});
  auto da = b.call(kDq, {qa, s3, -5, -128, 127, dt(DType::Int8)});
  auto v = b.call("aten.view_copy.default", {da, IntList{1, 96}});
  auto qv = b.call(kQ, {v, s3, -5, -128, 127, dt(DType::Int8)});
  b.output({qv});
  return b.g;
}

struct Outcome {
  passes::PassResult result;
  passes::ShouldRun should;
};

Outcome runPass(const std::string& name, ir::Graph& g, passes::Profile profile) {
  auto p = passes::PassRegistry::instance().create(name);
  EXPECT_NE(p, nullptr) << name;
  passes::PassContext ctx;
  ctx.profile = profile;
  Outcome o{{}, p->shouldRun(g, ctx)};
  if (!o.should.run) {
    o.result.status = PassStatus::Skipped;
    return o;
  }
  o.result = p->run(g, ctx);
  // The fold leaves the folded float ops dead; in the pipeline DeadCodeEliminationPass follows.
  if (name == "FoldAndAnnotateQParamsPass" && o.result.status == PassStatus::Changed) {
    auto dce = passes::PassRegistry::instance().create("DeadCodeEliminationPass");
    EXPECT_NE(dce->run(g, ctx).status, PassStatus::Failed);
  }
  return o;
}

exec::CompareResult compareRuns(const ir::Graph& before, const ir::Graph& after, uint64_t seed) {
  exec::Executor ex({}, std::make_shared<exec::ConstantCache>());
  auto in = exec::synthesizeInputs(before, seed);
  auto a = ex.run(before, in);
  auto b = ex.run(after, in);
  EXPECT_TRUE(a.isOk()) << a.message();
  EXPECT_TRUE(b.isOk()) << b.message();
  exec::CompareResult r;
  if (!a.isOk() || !b.isOk()) {
    r.maxSteps = 1000;
    return r;
  }
  return exec::compareOutputs(*b, *a);
}

/// No call node of `g` computes in float, `g` verifies, and on seeded inputs it is within
/// `maxSteps` quantisation steps of `before` (the fake-quantised source).
void expectIntegerWithin(const ir::Graph& before, const ir::Graph& g, int maxSteps) {
  for (const ir::NodePtr& p : g.nodes())
    if (p->isCall()) {
      EXPECT_FALSE(ir::isFloating(p->meta().dtype)) << p->name << " computes in float";
    }
  Status st = passes::VerifierInstrumentation::verifyGraph(g);
  EXPECT_TRUE(st.isOk()) << st.message();
  for (uint64_t seed : {1, 2, 3, 4}) {
    exec::CompareResult c = compareRuns(before, g, seed);
    EXPECT_LE(c.maxSteps, maxSteps) << c.message;
  }
}

TEST(FoldAndAnnotateQParamsPass, FoldsQdqIntoIntegerTosaWithQParams) {
  ir::Graph g = quantizedBlock();
  ir::Graph before = g;
  EXPECT_EQ(runPass("FoldAndAnnotateQParamsPass", g, passes::Profile::FP).should.reason, passes::SkipReason::Profile);
  Outcome o = runPass("FoldAndAnnotateQParamsPass", g, passes::Profile::INT);
  ASSERT_EQ(o.result.status, PassStatus::Changed) << o.result.message;
  // q/dq removed around every folded op; the ATen compute ops are gone.
  EXPECT_EQ(count(g, kQ), 0u);
  EXPECT_EQ(count(g, kDq), 0u);
  EXPECT_EQ(count(g, kDqc), 0u);
  EXPECT_EQ(count(g, "aten.convolution.default"), 0u);
  EXPECT_EQ(count(g, "aten.add.Tensor"), 0u);
  EXPECT_EQ(count(g, "aten.max_pool2d.default"), 0u);
  EXPECT_EQ(count(g, "tosa.CONV2D"), 1u);
  EXPECT_EQ(count(g, "tosa.DEPTHWISE_CONV2D"), 1u);
  EXPECT_EQ(count(g, "tosa.MAX_POOL2D"), 1u);
  EXPECT_EQ(count(g, "tosa.ADD"), 1u);
  EXPECT_EQ(count(g, "tosa.CLAMP"), 2u);  // fused relu and hardtanh
  // int8 CONV2D with int32 accumulation, per-channel RESCALE to int8.
  for (ir::NodeId id : g.nodesOfOp(ir::internOp("tosa.CONV2D"))) {
    EXPECT_EQ(g.node(id).meta().dtype, DType::Int32);
    EXPECT_EQ(g.meta(*g.node(id).args[0].ref()).dtype, DType::Int8);
  }
  size_t perChannel = 0;
  for (ir::NodeId id : g.nodesOfOp(ir::internOp("tosa.RESCALE"))) {
    const ir::Arg* pc = g.node(id).kwarg("per_channel");
    if (pc && pc->asBool() && *pc->asBool()) ++perChannel;
  }
  EXPECT_EQ(perChannel, 2u);
  // Output qparams are recorded on the folded values (the graph output: scale 0.05, zp -5).
  const ir::Node& out = *g.outputNode();
  const ir::TensorMeta& om = g.meta(*out.args[0].asRefList()->begin());
  ASSERT_NE(om.quant, nullptr);
  EXPECT_DOUBLE_EQ(om.quant->scales[0], 0.05);
  EXPECT_EQ(om.quant->zeroPoints[0], -5);
  Status st = passes::VerifierInstrumentation::verifyGraph(g);
  EXPECT_TRUE(st.isOk()) << st.message();
  for (uint64_t seed : {1, 2, 3}) {
    exec::CompareResult r = compareRuns(before, g, seed);
    EXPECT_LE(r.maxSteps, 1) << r.message;
  }
}

TEST(FoldAndAnnotateQParamsPass, MulAndSubWithBroadcastInInt32) {
  // q(dq(x) * dq(y)) and q(dq(x) - dq(y)) with a broadcast operand, then relu.
  test::GraphBuilder b;
  auto x = b.input("x", DType::Int8, {2, 3, 4});
  auto y = b.input("y", DType::Int8, {1, 3, 1});
  auto dx = b.call(kDq, {x, 0.03, 4, -128, 127, dt(DType::Int8)});
  auto dy = b.call(kDq, {y, 0.07, -9, -128, 127, dt(DType::Int8)});
  auto mul = b.call("aten.mul.Tensor", {dx, dy});
  auto qm = b.call(kQ, {mul, 0.011, 2, -128, 127, dt(DType::Int8)});
  auto sub = b.call("aten.sub.Tensor", {dx, dy});
  auto r = b.call("aten.relu.default", {sub});
  auto qs = b.call(kQ, {r, 0.02, -128, -128, 127, dt(DType::Int8)});
  b.output({qm, qs});
  ir::Graph g = b.g;
  ir::Graph before = g;
  Outcome o = runPass("FoldAndAnnotateQParamsPass", g, passes::Profile::INT);
  ASSERT_EQ(o.result.status, PassStatus::Changed) << o.result.message;
  EXPECT_EQ(count(g, kQ) + count(g, kDq), 0u);
  EXPECT_EQ(count(g, "tosa.MUL"), 1u);
  EXPECT_EQ(count(g, "tosa.SUB"), 1u);
  EXPECT_EQ(count(g, "tosa.CLAMP"), 1u);
  for (uint64_t seed : {1, 2, 3, 4}) {
    exec::CompareResult c = compareRuns(before, g, seed);
    EXPECT_LE(c.maxSteps, 1) << c.message;
  }
}

TEST(FoldAndAnnotateQParamsPass, LinearMatmulSumAndScalarOpsInInteger) {
  // addmm (+ fused relu) and linear with per-channel int8 weights, bmm of two activations,
  // sum over a dim, mul/add by scalars (a negative multiplier too): all integer TOSA.
  test::GraphBuilder b;
  const double sx = 0.05;
  auto x = b.input("x", DType::Int8, {4, 6});
  auto x3 = b.input("x3", DType::Int8, {2, 4, 6});
  auto y3 = b.input("y3", DType::Int8, {2, 6, 5});
  auto dx = b.call(kDq, {x, sx, 3, -128, 127, dt(DType::Int8)});
  auto dx3 = b.call(kDq, {x3, sx, -7, -128, 127, dt(DType::Int8)});
  auto dy3 = b.call(kDq, {y3, 0.08, 5, -128, 127, dt(DType::Int8)});
  QConv fc = quantWeight(b, "fc", {3, 6}, sx);
  auto dw = fc.weight, db = fc.bias;
  auto wt = b.call("aten.t_copy.default", {dw});
  auto mm = b.call("aten.addmm.default", {db, dx, wt});
  auto relu = b.call("aten.relu.default", {mm});
  auto q1 = b.call(kQ, {relu, 0.04, -128, -128, 127, dt(DType::Int8)});
  auto lin = b.call("aten.linear.default", {dx3, dw, db});
  auto q2 = b.call(kQ, {lin, 0.06, 2, -128, 127, dt(DType::Int8)});
  auto bmm = b.call("aten.bmm.default", {dx3, dy3});
  auto q3 = b.call(kQ, {bmm, 0.1, -3, -128, 127, dt(DType::Int8)});
  auto sum = b.call("aten.sum.dim_IntList", {dx3, IntList{-1}, false});
  auto q4 = b.call(kQ, {sum, 0.3, 1, -128, 127, dt(DType::Int8)});
  auto neg = b.call("aten.mul.Tensor", {dx3, -0.75});
  auto q5 = b.call(kQ, {neg, 0.04, 0, -128, 127, dt(DType::Int8)});
  auto pos = b.call("aten.mul.Tensor", {dx3, 0.125});
  auto q6 = b.call(kQ, {pos, 0.007, -1, -128, 127, dt(DType::Int8)});
  auto add = b.call("aten.add.Tensor", {dx3, 1e-1});
  auto q7 = b.call(kQ, {add, 0.05, -9, -128, 127, dt(DType::Int8)});
  b.output({q1, q2, q3, q4, q5, q6, q7});
  ir::Graph g = b.g;
  ir::Graph before = g;
  Outcome o = runPass("FoldAndAnnotateQParamsPass", g, passes::Profile::INT);
  ASSERT_EQ(o.result.status, PassStatus::Changed) << o.result.message;
  EXPECT_EQ(count(g, kQ) + count(g, kDq) + count(g, kDqc), 0u);
  for (const char* op : {"aten.addmm.default", "aten.linear.default", "aten.bmm.default", "aten.sum.dim_IntList",
                         "aten.mul.Tensor", "aten.add.Tensor"})
    EXPECT_EQ(count(g, op), 0u) << op;
  EXPECT_EQ(count(g, "tosa.MATMUL"), 3u);
  EXPECT_EQ(count(g, "tosa.REDUCE_SUM"), 1u);
  for (ir::NodeId id : g.nodesOfOp(ir::internOp("tosa.MATMUL"))) {
    EXPECT_EQ(g.node(id).meta().dtype, DType::Int32);
    EXPECT_EQ(g.meta(*g.node(id).args[0].ref()).dtype, DType::Int8);
  }
  expectIntegerWithin(before, g, 1);
}

TEST(FoldAndAnnotateQParamsPass, MinMaxNegAbsAndScalarFormsInInteger) {
  // rsub.Scalar (both signs of alpha), minimum/maximum and abs (int32 only in PRO-INT: RESCALEd there and back), neg (int8 NEGATE with the
  // zero point on both sides) and the Python-scalar forms mul/add/sub.Scalar: all integer TOSA,
  // within one step of the fake-quantised source (min/max/neg exactly).
  test::GraphBuilder b;
  auto x = b.input("x", DType::Int8, {2, 3, 4});
  auto y = b.input("y", DType::Int8, {3, 4});
  auto dx = b.call(kDq, {x, 0.05, 3, -128, 127, dt(DType::Int8)});
  auto dy = b.call(kDq, {y, 0.05, 3, -128, 127, dt(DType::Int8)});
  auto mn = b.call("aten.minimum.default", {dx, dy});
  auto q1 = b.call(kQ, {mn, 0.05, 3, -128, 127, dt(DType::Int8)});
  auto mx = b.call("aten.maximum.default", {dx, dx});
  auto q2 = b.call(kQ, {mx, 0.05, 3, -128, 127, dt(DType::Int8)});
  auto ng = b.call("aten.neg.default", {dx});
  auto q3 = b.call(kQ, {ng, 0.05, 3, -128, 127, dt(DType::Int8)});
  auto ng2 = b.call("aten.neg.default", {dy});
  auto q4 = b.call(kQ, {ng2, 0.07, -5, -128, 127, dt(DType::Int8)});
  auto ms = b.call("aten.mul.Scalar", {dx, -1.5});
  auto q5 = b.call(kQ, {ms, 0.08, 0, -128, 127, dt(DType::Int8)});
  auto as = b.call("aten.add.Scalar", {dx, 0.3});
  auto q6 = b.call(kQ, {as, 0.05, -2, -128, 127, dt(DType::Int8)});
  auto ss = b.call("aten.sub.Scalar", {dy, 0.3});
  auto q7 = b.call(kQ, {ss, 0.05, 4, -128, 127, dt(DType::Int8)});
  auto ab = b.call("aten.abs.default", {dy});
  auto q8 = b.call(kQ, {ab, 0.03, -128, -128, 127, dt(DType::Int8)});
  auto rs = b.call("aten.rsub.Scalar", {dx, 0.75, 0.5});
  auto q9 = b.call(kQ, {rs, 0.04, 1, -128, 127, dt(DType::Int8)});
  auto rn = b.call("aten.rsub.Scalar", {dy, -1.0, -2.0});
  auto q10 = b.call(kQ, {rn, 0.1, 0, -128, 127, dt(DType::Int8)});
  b.output({q1, q2, q3, q4, q5, q6, q7, q8, q9, q10});
  ir::Graph g = b.g;
  ir::Graph before = g;
  Outcome o = runPass("FoldAndAnnotateQParamsPass", g, passes::Profile::INT);
  ASSERT_EQ(o.result.status, PassStatus::Changed) << o.result.message;
  EXPECT_EQ(count(g, kQ) + count(g, kDq), 0u);
  EXPECT_EQ(count(g, "tosa.ABS"), 1u);
  for (ir::NodeId id : g.nodesOfOp(ir::internOp("tosa.ABS"))) EXPECT_EQ(g.node(id).meta().dtype, DType::Int32);
  EXPECT_EQ(count(g, "tosa.MINIMUM"), 1u);
  EXPECT_EQ(count(g, "tosa.MAXIMUM"), 1u);
  EXPECT_EQ(count(g, "tosa.NEGATE"), 2u);
  for (const char* op : {"tosa.MINIMUM", "tosa.MAXIMUM"})
    for (ir::NodeId id : g.nodesOfOp(ir::internOp(op))) EXPECT_EQ(g.node(id).meta().dtype, DType::Int32) << op;
  for (ir::NodeId id : g.nodesOfOp(ir::internOp("tosa.NEGATE"))) EXPECT_EQ(g.node(id).meta().dtype, DType::Int8);
  expectIntegerWithin(before, g, 1);
}

TEST(FoldAndAnnotateQParamsPass, ComparisonsInInt32AndWhereAsInt8Select) {
  // gt/lt of two int8 values with different qparams, ge/eq against numbers: int32 comparisons
  // (PRO-INT), each giving the bool the fake-quantised source gives; where over int8 values is
  // an int8 SELECT.
  test::GraphBuilder b;
  auto x = b.input("x", DType::Int8, {2, 3, 4});
  auto y = b.input("y", DType::Int8, {3, 4});
  auto dx = b.call(kDq, {x, 0.05, 3, -128, 127, dt(DType::Int8)});
  auto dy = b.call(kDq, {y, 0.03, -7, -128, 127, dt(DType::Int8)});
  auto gt = b.call("aten.gt.Tensor", {dx, dy});
  auto lt = b.call("aten.lt.Tensor", {dx, dy});
  auto ge = b.call("aten.ge.Scalar", {dx, 0.25});
  auto eq = b.call("aten.eq.Scalar", {dx, 0.0});
  auto dy2 = b.call(kDq, {y, 0.05, 3, -128, 127, dt(DType::Int8)});
  auto w = b.call("aten.where.self", {gt, dx, dy2});
  auto qw = b.call(kQ, {w, 0.05, 3, -128, 127, dt(DType::Int8)});
  b.output({gt, lt, ge, eq, qw});
  ir::Graph g = b.g;
  ir::Graph before = g;
  Outcome o = runPass("FoldAndAnnotateQParamsPass", g, passes::Profile::INT);
  ASSERT_EQ(o.result.status, PassStatus::Changed) << o.result.message;
  EXPECT_EQ(count(g, kQ) + count(g, kDq), 0u);
  EXPECT_EQ(count(g, "tosa.GREATER"), 2u);
  EXPECT_EQ(count(g, "tosa.GREATER_EQUAL"), 1u);
  EXPECT_EQ(count(g, "tosa.EQUAL"), 1u);
  EXPECT_EQ(count(g, "tosa.SELECT"), 1u);
  for (const char* op : {"tosa.GREATER", "tosa.GREATER_EQUAL", "tosa.EQUAL"})
    for (ir::NodeId id : g.nodesOfOp(ir::internOp(op))) {
      EXPECT_EQ(g.node(id).meta().dtype, DType::Bool);
      EXPECT_EQ(g.meta(*g.node(id).args[0].ref()).dtype, DType::Int32) << op;
    }
  for (ir::NodeId id : g.nodesOfOp(ir::internOp("tosa.SELECT"))) EXPECT_EQ(g.node(id).meta().dtype, DType::Int8);
  expectIntegerWithin(before, g, 0);  // bools identical, the select exact
}

TEST(FoldAndAnnotateQParamsPass, AddmmWithAnInOutWeightPerChannelAlongDim1) {
  // addmm(bias, x, W) with a constant [in, out] W (no transpose node): the quantizer quantizes W
  // per output channel along dim 1; the fold reads it as [out, in] and lowers to int8 MATMUL.
  test::GraphBuilder b;
  const double sx = 0.05;
  const int64_t K = 6, O = 4;
  auto x = b.input("x", DType::Int8, {3, K});
  auto dx = b.call(kDq, {x, sx, 3, -128, 127, dt(DType::Int8)});
  std::vector<double> sw, sb;
  for (int64_t c = 0; c < O; ++c) sw.push_back(0.002 + 0.0007 * double(c)), sb.push_back(sw.back() * sx);
  auto w = constant(b, "w", {K, O}, ints(K * O, 255, 127), DType::Int8);
  auto wsc = constant(b, "ws", {O}, sw, DType::Float32);
  auto wz = constant(b, "wz", {O}, std::vector<double>(size_t(O), 0.0), DType::Int64);
  auto bq = constant(b, "bq", {O}, ints(O, 4001, 2000, 613), DType::Int32);
  auto bs = constant(b, "bs", {O}, sb, DType::Float32);
  auto dw = b.call(kDqc, {w, wsc, wz, 1, -127, 127, dt(DType::Int8)});
  auto db = b.call(kDqc, {bq, bs, wz, 0, INT32_MIN, INT32_MAX, dt(DType::Int32)});
  auto mm = b.call("aten.addmm.default", {db, dx, dw});
  auto q = b.call(kQ, {mm, 0.04, -2, -128, 127, dt(DType::Int8)});
  b.output({q});
  ir::Graph g = b.g;
  ir::Graph before = g;
  Outcome o = runPass("FoldAndAnnotateQParamsPass", g, passes::Profile::INT);
  ASSERT_EQ(o.result.status, PassStatus::Changed) << o.result.message;
  EXPECT_EQ(count(g, "aten.addmm.default"), 0u);
  EXPECT_EQ(count(g, "tosa.MATMUL"), 1u);
  expectIntegerWithin(before, g, 1);
}

TEST(FoldAndAnnotateQParamsPass, PoolsWithUnreadRowsAndCountedPaddingInInteger) {
  // max pool 2x2/2 over 7x3 (the last row and column are in no window: sliced off so TOSA's
  // exact division holds) and avg pool 3x3/1 pad 1 counting the padding (explicit int8 zero
  // point padding): int8 pools, exact against the fake-quantised source.
  test::GraphBuilder b;
  auto x = b.input("x", DType::Int8, {1, 2, 7, 3});
  auto dx = b.call(kDq, {x, 0.05, 3, -128, 127, dt(DType::Int8)});
  auto mp = b.call("aten.max_pool2d.default", {dx, IntList{2, 2}, IntList{2, 2}});
  auto q1 = b.call(kQ, {mp, 0.05, 3, -128, 127, dt(DType::Int8)});
  auto ap = b.call("aten.avg_pool2d.default", {dx, IntList{3, 3}, IntList{1, 1}, IntList{1, 1}});
  auto q2 = b.call(kQ, {ap, 0.05, 3, -128, 127, dt(DType::Int8)});
  b.output({q1, q2});
  ir::Graph g = b.g;
  ir::Graph before = g;
  Outcome o = runPass("FoldAndAnnotateQParamsPass", g, passes::Profile::INT);
  ASSERT_EQ(o.result.status, PassStatus::Changed) << o.result.message;
  EXPECT_EQ(count(g, "tosa.MAX_POOL2D"), 1u);
  EXPECT_EQ(count(g, "tosa.AVG_POOL2D"), 1u);
  EXPECT_EQ(count(g, "aten.constant_pad_nd.default"), 1u);
  EXPECT_EQ(count(g, "aten.slice_copy.Tensor"), 2u);
  for (const char* op : {"tosa.MAX_POOL2D", "tosa.AVG_POOL2D"})
    for (ir::NodeId id : g.nodesOfOp(ir::internOp(op))) {
      EXPECT_EQ(g.node(id).meta().dtype, DType::Int8) << op;
      const ir::IntList* pad = nullptr;
      for (const ir::Kwarg& k : g.node(id).kwargs)
        if (k.name == "pad") pad = k.value.asIntList();
      ASSERT_NE(pad, nullptr) << op;
      EXPECT_EQ(*pad, (ir::IntList{0, 0, 0, 0})) << op;
    }
  expectIntegerWithin(before, g, 1);
}

TEST(FoldAndAnnotateQParamsPass, Conv1dRunsAsInt8Conv2dOfHeightOne) {
  test::GraphBuilder b;
  auto x = b.input("x", DType::Int8, {1, 4, 20});
  auto dx = b.call(kDq, {x, 0.03, -2, -128, 127, dt(DType::Int8)});
  QConv c1 = quantWeight(b, "c", {5, 4, 3}, 0.03);
  auto dw = c1.weight, db = c1.bias;
  auto conv = b.call("aten.convolution.default",
                     {dx, dw, db, IntList{2}, IntList{1}, IntList{1}, false, IntList{0}, 1});
  auto r = b.call("aten.relu.default", {conv});
  auto q = b.call(kQ, {r, 0.02, -128, -128, 127, dt(DType::Int8)});
  b.output({q});
  ir::Graph g = b.g;
  ir::Graph before = g;
  Outcome o = runPass("FoldAndAnnotateQParamsPass", g, passes::Profile::INT);
  ASSERT_EQ(o.result.status, PassStatus::Changed) << o.result.message;
  EXPECT_EQ(count(g, "aten.convolution.default"), 0u);
  ASSERT_EQ(count(g, "tosa.CONV2D"), 1u);
  const ir::Node& c = g.node(*g.nodesOfOp(ir::internOp("tosa.CONV2D")).begin());
  EXPECT_EQ(g.meta(*c.args[0].ref()).dtype, DType::Int8);
  EXPECT_EQ(c.meta().shape, (Shape{1, 1, 10, 5}));  // NHWC, height 1
  EXPECT_EQ(g.meta(*g.outputNode()->args[0].asRefList()->begin()).shape, (Shape{1, 5, 10}));
  for (uint64_t seed : {1, 2, 3}) {
    exec::CompareResult cr = compareRuns(before, g, seed);
    EXPECT_LE(cr.maxSteps, 1) << cr.message;
  }
}

TEST(FoldAndAnnotateQParamsPass, GroupedConvRunsAsOneInt8Conv2dPerGroup) {
  // groups 2 (not depthwise): 4 -> 6 channels, stride 2, fused relu (ResNeXt/RegNet blocks).
  test::GraphBuilder b;
  auto x = b.input("x", DType::Int8, {1, 4, 7, 7});
  auto dx = b.call(kDq, {x, 0.03, 5, -128, 127, dt(DType::Int8)});
  QConv c = quantConv(b, "g", 6, 2, 3, 0.03);
  auto conv = b.call("aten.convolution.default",
                     {dx, c.weight, c.bias, IntList{2, 2}, IntList{1, 1}, IntList{1, 1}, false, IntList{0, 0}, 2});
  auto r = b.call("aten.relu.default", {conv});
  auto q = b.call(kQ, {r, 0.02, -128, -128, 127, dt(DType::Int8)});
  b.output({q});
  ir::Graph g = b.g;
  ir::Graph before = g;
  Outcome o = runPass("FoldAndAnnotateQParamsPass", g, passes::Profile::INT);
  ASSERT_EQ(o.result.status, PassStatus::Changed) << o.result.message;
  EXPECT_EQ(count(g, "aten.convolution.default"), 0u);
  EXPECT_EQ(count(g, "tosa.CONV2D"), 2u);
  for (ir::NodeId id : g.nodesOfOp(ir::internOp("tosa.CONV2D"))) {
    EXPECT_EQ(g.meta(*g.node(id).args[0].ref()).dtype, DType::Int8);
    EXPECT_EQ(g.node(id).meta().shape, (Shape{1, 4, 4, 3}));  // NHWC, 3 output channels per group
  }
  for (uint64_t seed : {1, 2, 3}) {
    exec::CompareResult cr = compareRuns(before, g, seed);
    EXPECT_LE(cr.maxSteps, 1) << cr.message;
  }
}

TEST(FoldAndAnnotateQParamsPass, Conv3dRunsAsInt8Conv3dOnePerGroup) {
  // 3-D, groups 2, stride 2 on depth: TOSA has no depthwise 3-D op, so one CONV3D per group.
  test::GraphBuilder b;
  auto x = b.input("x", DType::Int8, {1, 4, 5, 6, 6});
  auto dx = b.call(kDq, {x, 0.03, 5, -128, 127, dt(DType::Int8)});
  QConv c = quantWeight(b, "g", {6, 2, 3, 3, 3}, 0.03);
  auto conv = b.call("aten.convolution.default", {dx, c.weight, c.bias, IntList{2, 1, 1}, IntList{1, 1, 0},
                                                  IntList{1, 1, 1}, false, IntList{0, 0, 0}, 2});
  auto q = b.call(kQ, {conv, 0.02, -3, -128, 127, dt(DType::Int8)});
  b.output({q});
  ir::Graph g = b.g;
  ir::Graph before = g;
  Outcome o = runPass("FoldAndAnnotateQParamsPass", g, passes::Profile::INT);
  ASSERT_EQ(o.result.status, PassStatus::Changed) << o.result.message;
  EXPECT_EQ(count(g, "aten.convolution.default"), 0u);
  EXPECT_EQ(count(g, "tosa.CONV3D"), 2u);
  for (ir::NodeId id : g.nodesOfOp(ir::internOp("tosa.CONV3D"))) {
    EXPECT_EQ(g.meta(*g.node(id).args[0].ref()).dtype, DType::Int8);
    EXPECT_EQ(g.node(id).meta().shape, (Shape{1, 3, 6, 4, 3}));  // NDHWC, 3 output channels per group
  }
  expectIntegerWithin(before, g, 1);
}

TEST(FoldAndAnnotateQParamsPass, TransposedConvRunsAsInt8TransposeConv2d) {
  // Weight [in, out, kh, kw] quantised per output channel along dim 1; stride 2, padding and
  // output padding (the out_pad attribute).
  test::GraphBuilder b;
  const double sx = 0.03;
  auto x = b.input("x", DType::Int8, {1, 3, 5, 4});
  auto dx = b.call(kDq, {x, sx, 4, -128, 127, dt(DType::Int8)});
  QConv c = quantWeight(b, "t", {3, 4, 3, 3}, sx, 1);
  auto dw = c.weight, db = c.bias;
  auto conv = b.call("aten.convolution.default",
                     {dx, dw, db, IntList{2, 2}, IntList{1, 0}, IntList{1, 1}, true, IntList{1, 1}, 1});
  auto q = b.call(kQ, {conv, 0.02, 2, -128, 127, dt(DType::Int8)});
  b.output({q});
  ir::Graph g = b.g;
  ir::Graph before = g;
  Outcome o = runPass("FoldAndAnnotateQParamsPass", g, passes::Profile::INT);
  ASSERT_EQ(o.result.status, PassStatus::Changed) << o.result.message;
  EXPECT_EQ(count(g, "aten.convolution.default"), 0u);
  ASSERT_EQ(count(g, "tosa.TRANSPOSE_CONV2D"), 1u);
  expectIntegerWithin(before, g, 1);
}

TEST(FoldAndAnnotateQParamsPass, ConstantPaddingIsTheQuantisedValue) {
  // Zero point 7: padding with 0.0 is 7 in int8, padding with 0.3 at scale 0.05 is 13.
  for (double value : {0.0, 0.3}) {
    test::GraphBuilder b;
    auto x = b.input("x", DType::Int8, {1, 2, 3, 3});
    auto dx = b.call(kDq, {x, 0.05, 7, -128, 127, dt(DType::Int8)});
    auto p = b.call("aten.constant_pad_nd.default", {dx, IntList{1, 2, 0, 1}, value});
    auto q = b.call(kQ, {p, 0.05, 7, -128, 127, dt(DType::Int8)});
    b.output({q});
    ir::Graph g = b.g;
    ir::Graph before = g;
    Outcome o = runPass("FoldAndAnnotateQParamsPass", g, passes::Profile::INT);
    ASSERT_EQ(o.result.status, PassStatus::Changed) << o.result.message;
    expectIntegerWithin(before, g, 0);
  }
}

TEST(FoldAndAnnotateQParamsPass, AdaptivePoolWithUnequalBinsInInt32) {
  // 5x7 -> 3x2: bins of 2 and 3 rows, 4 columns; int32 sums scaled to a common count.
  test::GraphBuilder b;
  auto x = b.input("x", DType::Int8, {1, 3, 5, 7});
  auto dx = b.call(kDq, {x, 0.05, -20, -128, 127, dt(DType::Int8)});
  auto p = b.call("aten.adaptive_avg_pool2d.default", {dx, IntList{3, 2}});
  auto q = b.call(kQ, {p, 0.03, 4, -128, 127, dt(DType::Int8)});
  b.output({q});
  ir::Graph g = b.g;
  ir::Graph before = g;
  Outcome o = runPass("FoldAndAnnotateQParamsPass", g, passes::Profile::INT);
  ASSERT_EQ(o.result.status, PassStatus::Changed) << o.result.message;
  EXPECT_EQ(count(g, "aten.adaptive_avg_pool2d.default") + count(g, kQ) + count(g, kDq), 0u);
  EXPECT_GT(count(g, "tosa.REDUCE_SUM"), 0u);
  for (const ir::NodePtr& n : g.nodes())
    if (n->isCall()) {
      EXPECT_FALSE(ir::isFloating(n->meta().dtype)) << n->name;
    }
  for (uint64_t seed : {1, 2, 3, 4}) {
    exec::CompareResult cr = compareRuns(before, g, seed);
    EXPECT_LE(cr.maxSteps, 1) << cr.message;
  }
}

TEST(FoldAndAnnotateQParamsPass, UpsampleRunsAsIntegerResize) {
  // Bilinear (int8 -> int32 RESIZE, zero point removed, RESCALE) and nearest (int8 RESIZE).
  test::GraphBuilder b;
  auto x = b.input("x", DType::Int8, {1, 3, 5, 7});
  auto dx = b.call(kDq, {x, 0.02, -17, -128, 127, dt(DType::Int8)});
  auto bl = b.call("aten.upsample_bilinear2d.vec", {dx, IntList{15, 14}, false, ir::Arg()});
  auto qb = b.call(kQ, {bl, 0.03, 4, -128, 127, dt(DType::Int8)});
  auto ac = b.call("aten.upsample_bilinear2d.vec", {dx, IntList{9, 13}, true, ir::Arg()});
  auto qa = b.call(kQ, {ac, 0.02, -17, -128, 127, dt(DType::Int8)});
  auto nn = b.call("aten.upsample_nearest2d.vec", {dx, IntList{10, 21}, ir::Arg()});
  auto qn = b.call(kQ, {nn, 0.025, 0, -128, 127, dt(DType::Int8)});
  b.output({qb, qa, qn});
  ir::Graph g = b.g;
  ir::Graph before = g;
  Outcome o = runPass("FoldAndAnnotateQParamsPass", g, passes::Profile::INT);
  ASSERT_EQ(o.result.status, PassStatus::Changed) << o.result.message;
  EXPECT_EQ(count(g, "aten.upsample_bilinear2d.vec") + count(g, "aten.upsample_nearest2d.vec"), 0u);
  EXPECT_EQ(count(g, kQ) + count(g, kDq), 0u);
  ASSERT_EQ(count(g, "tosa.RESIZE"), 3u);
  for (ir::NodeId id : g.nodesOfOp(ir::internOp("tosa.RESIZE"))) {
    const ir::Node& r = g.node(id);
    const bool bilinear = *r.kwarg("mode")->asString() == "BILINEAR";
    EXPECT_EQ(r.meta().dtype, bilinear ? DType::Int32 : DType::Int8) << r.name;
  }
  for (uint64_t seed : {1, 2, 3}) {
    exec::CompareResult c = compareRuns(before, g, seed);
    EXPECT_LE(c.maxSteps, 1) << c.message;
  }
}

TEST(FoldAndAnnotateQParamsPass, LeavesUnquantisedOpsAlone) {
  // dq -> conv -> float output: no quantize after the op, nothing to fold.
  test::GraphBuilder b;
  auto x = b.input("x", DType::Int8, {1, 4, 6, 6});
  auto dx = b.call(kDq, {x, 0.04, 0, -128, 127, dt(DType::Int8)});
  QConv c = quantConv(b, "c", 3, 4, 3, 0.04);
  auto conv = b.call("aten.convolution.default",
                     {dx, c.weight, c.bias, IntList{1, 1}, IntList{0, 0}, IntList{1, 1}, false, IntList{0, 0}, 1});
  // A graph-input quantize (no quantised op in front of it) is not a pattern either.
  auto y = b.input("y", {1, 4});
  auto qy = b.call(kQ, {y, 0.04, 0, -128, 127, dt(DType::Int8)});
  b.output({conv, qy});
  ir::Graph g = b.g;
  Outcome o = runPass("FoldAndAnnotateQParamsPass", g, passes::Profile::INT);
  EXPECT_EQ(o.result.status, PassStatus::Unchanged) << o.result.message;
  EXPECT_EQ(count(g, kQ), 1u);
  EXPECT_EQ(count(g, "aten.convolution.default"), 1u);
}

TEST(DecomposeQuantizeDequantizePass, RemainingQdqBecomeTosaOps) {
  // float x -> q -> dq -> float islands (layer_norm stays float in PT2E) -> output; plus a
  // dequantized per-channel constant, folded to a float constant.
  test::GraphBuilder b;
  auto x = b.input("x", {2, 3, 5});
  auto q = b.call(kQ, {x, 0.02, 7, -128, 127, dt(DType::Int8)});
  auto d = b.call(kDq, {q, 0.02, 7, -128, 127, dt(DType::Int8)});
  auto w = constant(b, "w", {3, 5}, ints(15, 255, 127), DType::Int8);
  auto ws = constant(b, "ws", {3}, {0.01, 0.02, 0.03}, DType::Float32);
  auto wz = constant(b, "wz", {3}, {0, 0, 0}, DType::Int64);
  auto dw = b.call(kDqc, {w, ws, wz, 0, -127, 127, dt(DType::Int8)});
  auto m = b.call("aten.mul.Tensor", {d, dw});
  b.output({m, q});
  ir::Graph g = b.g;
  ir::Graph before = g;
  EXPECT_EQ(runPass("DecomposeQuantizeDequantizePass", g, passes::Profile::FP).should.reason, passes::SkipReason::Profile);
  Outcome o = runPass("DecomposeQuantizeDequantizePass", g, passes::Profile::INT);
  ASSERT_EQ(o.result.status, PassStatus::Changed) << o.result.message;
  runPass("DeadCodeEliminationPass", g, passes::Profile::INT);
  EXPECT_EQ(count(g, kQ) + count(g, kDq) + count(g, kDqc), 0u);
  EXPECT_GE(count(g, "tosa.CAST"), 2u);
  // The int8 value the quantize became keeps the quantize's qparams.
  const ir::TensorMeta& qm = g.meta(g.outputNode()->args[0].asRefList()->at(1));
  EXPECT_EQ(qm.dtype, DType::Int8);
  ASSERT_NE(qm.quant, nullptr);
  EXPECT_DOUBLE_EQ(qm.quant->scales[0], 0.02);
  EXPECT_EQ(qm.quant->zeroPoints[0], 7);
  for (ir::NodeId id : g.nodesOfOp(ir::internOp("aten.mul.Tensor")))  // the weight is a float constant now
    EXPECT_EQ(g.node(g.node(id).args[1].ref()->node).kind, ir::NodeKind::GetAttr);
  for (uint64_t seed : {1, 5}) {
    exec::CompareResult r = compareRuns(before, g, seed);
    EXPECT_LE(r.maxSteps, 1) << r.message;  // int8 output: ties round half to even in both
    EXPECT_LT(r.maxRelToMax, 1e-5) << r.message;
  }
}

}  // namespace
}  // namespace ls::arm
