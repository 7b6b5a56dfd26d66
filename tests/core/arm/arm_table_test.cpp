// INT profile: InsertTableOpsPass (quantised unary elementwise ops `dq -> op -> q` become one
// int8 tosa.TABLE) on hand-built PT2E-style graphs, fed every int8 value so the lookup is
// checked bit-exact against the quantised source graph, and on real graphs after the whole
// `tosa` pipeline (no float sigmoid / hardswish island left).
#include <gtest/gtest.h>

#include <ostream>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/tosa/tosa_ops.h"
#include "core/exec/executor.h"
#include "core/exec/synth.h"
#include "core/io/fxjson.h"
#include "core/passes/pass_manager.h"
#include "core/quant/quantizer.h"
#include "support/graph_builder.h"
#include "tests/core/arm/pass_cases.h"

namespace ls::arm {
namespace {

using ir::DType;
using ir::Shape;
using passes::PassStatus;
using passes::SkipReason;

const char* kQ = "quantized_decomposed.quantize_per_tensor.default";
const char* kDq = "quantized_decomposed.dequantize_per_tensor.default";

size_t count(const ir::Graph& g, const std::string& op) { return g.nodesOfOp(ir::internOp(op)).size(); }
ir::Arg dt(DType t) { return ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(t)}); }

struct Outcome {
  passes::ShouldRun should;
  passes::PassResult result;
  std::vector<passes::Statistic> stats;
};

Outcome runTable(ir::Graph& g, passes::Profile profile) {
  auto p = passes::PassRegistry::instance().create("InsertTableOpsPass");
  EXPECT_NE(p, nullptr);
  passes::PassContext ctx;
  ctx.profile = profile;
  Outcome o{p->shouldRun(g, ctx), {}, {}};
  if (!o.should.run) {
    o.result.status = PassStatus::Skipped;
    return o;
  }
  o.result = p->run(g, ctx);
  o.stats = p->statistics();
  return o;
}

int64_t statValue(const Outcome& o, const std::string& name) {
  for (const passes::Statistic& s : o.stats)
    if (s.name == name) return s.value;
  ADD_FAILURE() << "no statistic " << name;
  return -1;
}

/// Every int8 value -128..127, shaped [4, 64].
exec::Tensor everyInt8() {
  std::vector<int64_t> v;
  for (int64_t i = -128; i < 128; ++i) v.push_back(i);
  return exec::Tensor::fromInts(DType::Int8, Shape{4, 64}, v);
}

/// Runs both graphs on every int8 value (input 0) and expects identical int8 outputs.
void expectSameInt8Outputs(const ir::Graph& before, const ir::Graph& after) {
  exec::Executor ex({}, std::make_shared<exec::ConstantCache>());
  auto a = ex.run(before, {everyInt8()});
  auto b = ex.run(after, {everyInt8()});
  ASSERT_TRUE(a.isOk()) << a.message();
  ASSERT_TRUE(b.isOk()) << b.message();
  ASSERT_EQ(a->size(), b->size());
  for (size_t k = 0; k < a->size(); ++k) {
    const exec::Tensor& x = (*a)[k];
    const exec::Tensor& y = (*b)[k];
    ASSERT_EQ(x.dtype(), DType::Int8);
    ASSERT_EQ(y.dtype(), DType::Int8);
    ASSERT_EQ(x.numel(), y.numel());
    for (int64_t i = 0; i < x.numel(); ++i)
      ASSERT_EQ(x.getInt(i), y.getInt(i)) << "output " << k << ", int8 input " << (i - 128);
  }
}

/// x int8 [4, 64] -> dq -> sigmoid -> q, dq -> hardswish -> q, dq -> relu -> q (relu is
/// FoldAndAnnotateQParamsPass's, not a table op).
struct UnaryGraph {
  ir::Graph g;
  ir::NodeId dq, relu, reluQ;
};
UnaryGraph unaryGraph() {
  test::GraphBuilder b;
  auto x = b.input("x", DType::Int8, {4, 64});
  auto dx = b.call(kDq, {x, 0.05, -3, -128, 127, dt(DType::Int8)}, {}, "dx");
  auto sg = b.call("aten.sigmoid.default", {dx}, {}, "sig");
  auto qs = b.call(kQ, {sg, 1.0 / 256, -128, -128, 127, dt(DType::Int8)}, {}, "q_sig");
  auto hs = b.call("aten.hardswish.default", {dx}, {}, "hswish");
  auto qh = b.call(kQ, {hs, 0.031, -40, -128, 127, dt(DType::Int8)}, {}, "q_hswish");
  auto r = b.call("aten.relu.default", {dx}, {}, "relu");
  auto qr = b.call(kQ, {r, 0.05, -128, -128, 127, dt(DType::Int8)}, {}, "q_relu");
  b.output({qs, qh, qr});
  return {b.g, dx.node, r.node, qr.node};
}

TEST(InsertTableOpsPass, SigmoidAndHardswishBecomeOneTableEach) {
  UnaryGraph u = unaryGraph();
  ir::Graph& g = u.g;
  const ir::Graph before = g;
  EXPECT_EQ(count(g, "aten.sigmoid.default"), 1u);
  EXPECT_EQ(count(g, "aten.hardswish.default"), 1u);
  EXPECT_EQ(count(g, kQ), 3u);
  EXPECT_EQ(count(g, "tosa.TABLE"), 0u);

  Outcome o = runTable(g, passes::Profile::INT);
  ASSERT_EQ(o.result.status, PassStatus::Changed) << o.result.message;
  EXPECT_EQ(count(g, "aten.sigmoid.default"), 0u);
  EXPECT_EQ(count(g, "aten.hardswish.default"), 0u);
  EXPECT_EQ(count(g, "tosa.TABLE"), 2u);
  EXPECT_EQ(count(g, kQ), 1u);  // only relu's quantize is left
  EXPECT_EQ(statValue(o, "sigmoid"), 1);
  EXPECT_EQ(statValue(o, "hardswish"), 1);
  EXPECT_EQ(statValue(o, "tanh"), 0);
  // Untargeted nodes keep their ids: the dequantize (still read by relu), relu and its quantize.
  ASSERT_TRUE(g.contains(u.dq));
  ASSERT_TRUE(g.contains(u.relu));
  ASSERT_TRUE(g.contains(u.reluQ));
  EXPECT_EQ(g.node(u.relu).args[0].ref()->node, u.dq);

  // TABLE(int8 source, int8[256] constant) with the output qparams recorded.
  const ir::Node& out = *g.outputNode();
  const ir::RefList& slots = *out.args[0].asRefList();
  struct Expect {
    double scale;
    int64_t zp;
  };
  const Expect expect[] = {{1.0 / 256, -128}, {0.031, -40}};
  for (size_t k = 0; k < 2; ++k) {
    const ir::Node& t = g.node(slots[k].node);
    ASSERT_EQ(ir::opName(t.op), "tosa.TABLE") << "output " << k;
    EXPECT_EQ(t.args[0].ref()->node, g.node(u.dq).args[0].ref()->node) << "reads the int8 source";
    const ir::TensorMeta& tm = g.meta(*t.args[1].ref());
    EXPECT_EQ(tm.dtype, DType::Int8);
    EXPECT_EQ(tm.numel(), 256);
    EXPECT_EQ(g.node(t.args[1].ref()->node).kind, ir::NodeKind::GetAttr);
    EXPECT_EQ(t.meta().dtype, DType::Int8);
    EXPECT_EQ(t.meta().shape, (Shape{4, 64}));
    ASSERT_NE(t.meta().quant, nullptr);
    EXPECT_DOUBLE_EQ(t.meta().quant->scales[0], expect[k].scale);
    EXPECT_EQ(t.meta().quant->zeroPoints[0], expect[k].zp);
  }
  Status st = passes::VerifierInstrumentation::verifyGraph(g);
  EXPECT_TRUE(st.isOk()) << st.message();
  expectSameInt8Outputs(before, g);
}

TEST(InsertTableOpsPass, SkippedWithoutTargetOpsAndInFp) {
  UnaryGraph u = unaryGraph();
  Outcome fp = runTable(u.g, passes::Profile::FP);
  EXPECT_EQ(fp.result.status, PassStatus::Skipped);
  EXPECT_EQ(fp.should.reason, SkipReason::Profile);
  EXPECT_EQ(count(u.g, "aten.sigmoid.default"), 1u);

  test::GraphBuilder b;
  auto x = b.input("x", DType::Int8, {4, 64});
  auto dx = b.call(kDq, {x, 0.05, -3, -128, 127, dt(DType::Int8)});
  auto r = b.call("aten.relu.default", {dx});
  b.output({b.call(kQ, {r, 0.05, -128, -128, 127, dt(DType::Int8)})});
  Outcome none = runTable(b.g, passes::Profile::INT);
  EXPECT_EQ(none.result.status, PassStatus::Skipped);
  EXPECT_EQ(none.should.reason, SkipReason::NoTargetOps);
}

TEST(InsertTableOpsPass, LeavesUnquantisedUnaryOpsAlone) {
  test::GraphBuilder b;
  auto x = b.input("x", DType::Int8, {4, 64});
  auto dx = b.call(kDq, {x, 0.05, -3, -128, 127, dt(DType::Int8)});
  // Output not quantised: dq -> sigmoid -> graph output.
  auto s1 = b.call("aten.sigmoid.default", {dx});
  // Input not a dequantize: float input -> tanh -> q.
  auto f = b.input("f", {4, 64});
  auto t = b.call("aten.tanh.default", {f});
  auto qt = b.call(kQ, {t, 1.0 / 128, 0, -128, 127, dt(DType::Int8)});
  // Input dequantized from uint8, not int8.
  auto u8 = b.input("u8", DType::UInt8, {4, 64});
  auto du = b.call(kDq, {u8, 0.02, 128, 0, 255, dt(DType::UInt8)});
  auto e = b.call("aten.exp.default", {du});
  auto qe = b.call(kQ, {e, 0.1, -128, -128, 127, dt(DType::Int8)});
  // Quantised to int16 (the int8 table needs an int8 output).
  auto h = b.call("aten.hardsigmoid.default", {dx});
  auto qh = b.call(kQ, {h, 1.0 / 32768, 0, -32768, 32767, dt(DType::Int16)});
  // Two users: the quantize and a float consumer.
  auto s2 = b.call("aten.sigmoid.default", {dx});
  auto qs2 = b.call(kQ, {s2, 1.0 / 256, -128, -128, 127, dt(DType::Int8)});
  auto m = b.call("aten.mul.Tensor", {s2, dx});
  // A second tensor operand: pow's exponent read from a tensor is no function of one value.
  auto ex = b.input("exponent", {1});
  auto p = b.call("aten.pow.Tensor_Scalar", {dx, ex});
  auto qp = b.call(kQ, {p, 0.1, 0, -128, 127, dt(DType::Int8)});
  b.output({s1, qt, qe, qh, qs2, m, qp});
  ir::Graph g = b.g;
  std::vector<ir::NodeId> ids;
  for (const ir::NodePtr& n : g.nodes()) ids.push_back(n->id);
  Outcome o = runTable(g, passes::Profile::INT);
  EXPECT_EQ(o.result.status, PassStatus::Unchanged) << o.result.message;
  EXPECT_EQ(count(g, "tosa.TABLE"), 0u);
  std::vector<ir::NodeId> after;
  for (const ir::NodePtr& n : g.nodes()) after.push_back(n->id);
  EXPECT_EQ(after, ids);
}

TEST(InsertTableOpsPass, FailsNamingTheNodeWhenItsTableCannotBeComputed) {
  // A quantize whose range is empty (quant_min > quant_max): the table's quantize cannot run.
  test::GraphBuilder b;
  auto x = b.input("x", DType::Int8, {4, 64});
  auto dx = b.call(kDq, {x, 0.05, -3, -128, 127, dt(DType::Int8)});
  auto s = b.call("aten.sigmoid.default", {dx}, {}, "gate");
  ir::Node q = b.makeCall(kQ, {s, 1.0 / 256, 0, 100, -100, dt(DType::Int8)}, {}, "q_gate");
  q.outputs.push_back(ir::TensorMeta(DType::Int8, Shape{4, 64}));
  ir::ValueRef qr{b.g.append(std::move(q)), 0};
  b.output({qr});
  Outcome o = runTable(b.g, passes::Profile::INT);
  ASSERT_EQ(o.result.status, PassStatus::Failed);
  EXPECT_NE(o.result.message.find("'gate'"), std::string::npos) << o.result.message;
  EXPECT_NE(o.result.message.find("quant_min 100 must not exceed quant_max -100"), std::string::npos)
      << o.result.message;
}

/// One table op with its scalar args and qparams: the TABLE must be bit-exact for every input.
struct OpCase {
  const char* name;
  const char* op;
  std::vector<ir::Arg> extra;
  std::vector<ir::Kwarg> kwargs;
  double sIn;
  int64_t zpIn;
  double sOut;
  int64_t zpOut;
};

void PrintTo(const OpCase& c, std::ostream* os) { *os << c.op; }

class TableOpExact : public ::testing::TestWithParam<OpCase> {};

TEST_P(TableOpExact, MatchesTheQuantisedSourceForEveryInt8Input) {
  const OpCase& c = GetParam();
  test::GraphBuilder b;
  auto x = b.input("x", DType::Int8, {4, 64});
  auto dx = b.call(kDq, {x, c.sIn, c.zpIn, -128, 127, dt(DType::Int8)});
  std::vector<ir::Arg> args{dx};
  for (const ir::Arg& a : c.extra) args.push_back(a);
  auto y = b.call(c.op, args, c.kwargs);
  b.output({b.call(kQ, {y, c.sOut, c.zpOut, -128, 127, dt(DType::Int8)})});
  ir::Graph g = b.g;
  const ir::Graph before = g;
  Outcome o = runTable(g, passes::Profile::INT);
  ASSERT_EQ(o.result.status, PassStatus::Changed) << o.result.message;
  EXPECT_EQ(count(g, c.op), 0u);
  EXPECT_EQ(count(g, "tosa.TABLE"), 1u);
  EXPECT_EQ(statValue(o, c.name), 1);
  expectSameInt8Outputs(before, g);
}

INSTANTIATE_TEST_SUITE_P(
    Int, TableOpExact,
    ::testing::Values(OpCase{"sigmoid", "aten.sigmoid.default", {}, {}, 0.07, 5, 1.0 / 256, -128},
                      OpCase{"tanh", "aten.tanh.default", {}, {}, 0.03, 0, 1.0 / 128, 0},
                      OpCase{"hardswish", "aten.hardswish.default", {}, {}, 0.06, 20, 0.04, -100},
                      OpCase{"hardsigmoid", "aten.hardsigmoid.default", {}, {}, 0.05, -7, 1.0 / 255, -128},
                      OpCase{"silu", "aten.silu.default", {}, {}, 0.05, 10, 0.035, -120},
                      OpCase{"gelu", "aten.gelu.default", {}, {{"approximate", "tanh"}}, 0.04, 0, 0.03, -110},
                      OpCase{"elu", "aten.elu.default", {0.5}, {}, 0.04, 0, 0.03, 30},
                      OpCase{"exp", "aten.exp.default", {}, {}, 0.02, 0, 0.06, -128},
                      OpCase{"log", "aten.log.default", {}, {}, 0.1, -128, 0.02, 0},
                      OpCase{"erf", "aten.erf.default", {}, {}, 0.02, 0, 1.0 / 128, 0},
                      OpCase{"reciprocal", "aten.reciprocal.default", {}, {}, 0.1, -128, 0.05, -128},
                      OpCase{"rsqrt", "aten.rsqrt.default", {}, {}, 0.1, -128, 0.02, -128},
                      OpCase{"sin", "aten.sin.default", {}, {}, 0.05, 0, 1.0 / 128, 0},
                      OpCase{"cos", "aten.cos.default", {}, {}, 0.05, 0, 1.0 / 128, 0},
                      OpCase{"floor", "aten.floor.default", {}, {}, 0.07, 3, 0.1, 0},
                      OpCase{"ceil", "aten.ceil.default", {}, {}, 0.07, 3, 0.1, 0},
                      OpCase{"pow", "aten.pow.Tensor_Scalar", {2.0}, {}, 0.03, 0, 0.06, -128},
                      OpCase{"leaky_relu", "aten.leaky_relu.default", {0.1}, {}, 0.04, 0, 0.03, -20},
                      OpCase{"round", "aten.round.default", {}, {}, 0.05, 0, 0.5, 0},
                      OpCase{"tan", "aten.tan.default", {}, {}, 0.01, 0, 0.05, 0},
                      OpCase{"sinh", "aten.sinh.default", {}, {}, 0.02, 0, 0.05, 0},
                      OpCase{"cosh", "aten.cosh.default", {}, {}, 0.02, 0, 0.03, -128},
                      OpCase{"asin", "aten.asin.default", {}, {}, 1.0 / 128, 0, 0.0125, 0},
                      OpCase{"acos", "aten.acos.default", {}, {}, 1.0 / 128, 0, 0.0125, -128},
                      OpCase{"atan", "aten.atan.default", {}, {}, 0.05, 0, 0.0125, 0},
                      OpCase{"asinh", "aten.asinh.default", {}, {}, 0.05, 0, 0.02, 0},
                      OpCase{"acosh", "aten.acosh.default", {}, {}, 0.05, -128, 0.02, -128},
                      OpCase{"atanh", "aten.atanh.default", {}, {}, 1.0 / 128, 0, 0.025, 0},
                      OpCase{"expm1", "aten.expm1.default", {}, {}, 0.02, 0, 0.05, -100},
                      OpCase{"log1p", "aten.log1p.default", {}, {}, 0.05, -128, 0.02, -128},
                      OpCase{"sign", "aten.sign.default", {}, {}, 0.05, 3, 1.0 / 127, 0}),
    [](const auto& p) { return std::string(p.param.name); });

/// Real graph, quantised and lowered through `tosa` with the INT profile.
ir::Graph lowerInt(const std::string& model) {
  auto loaded = io::importFxJsonFile(std::string(LS_ASSETS_DIR) + "/graphs/" + model + ".fxjson.json");
  EXPECT_TRUE(loaded.isOk()) << loaded.message();
  if (!loaded.isOk()) return {};
  return test::lowerTosa(std::move(loaded).value(), passes::Profile::INT);
}

/// Float TOSA elementwise unary ops left in g (the islands TABLE replaces).
size_t floatUnaryOps(const ir::Graph& g) {
  size_t n = 0;
  for (const char* op : {"tosa.SIGMOID", "tosa.TANH", "tosa.ERF", "tosa.EXP", "tosa.LOG", "tosa.RECIPROCAL",
                         "tosa.RSQRT", "tosa.SIN", "tosa.COS", "tosa.FLOOR", "tosa.CEIL", "tosa.CLAMP"})
    for (ir::NodeId id : g.nodesOfOp(ir::internOp(op)))
      if (ir::isFloating(g.node(id).meta().dtype)) ++n;
  return n;
}

/// Every TABLE reads an int8 value and an int8[256] table.
void expectInt8Tables(const ir::Graph& g) {
  for (ir::NodeId id : g.nodesOfOp(ir::internOp("tosa.TABLE"))) {
    const ir::Node& t = g.node(id);
    EXPECT_EQ(t.meta().dtype, DType::Int8) << t.name;
    EXPECT_EQ(g.meta(*t.args[0].ref()).dtype, DType::Int8) << t.name;
    EXPECT_EQ(g.meta(*t.args[1].ref()).numel(), 256) << t.name;
  }
}

TEST(InsertTableOpsPass, EfficientNetSigmoidsAreTables) {
  // 16 squeeze-excitation sigmoids + 49 silu (x * sigmoid(x) after the quantizer's decomposition).
  ir::Graph g = lowerInt("efficientnet_b0");
  EXPECT_EQ(count(g, "tosa.SIGMOID"), 0u);
  EXPECT_EQ(count(g, "tosa.TABLE"), 65u);
  EXPECT_EQ(floatUnaryOps(g), 0u);
  expectInt8Tables(g);
}

TEST(InsertTableOpsPass, MobileNetV3HardswishAndHardsigmoidAreTables) {
  // 19 hardswish + 9 hardsigmoid; before InsertTableOpsPass they were float ADD/CLAMP/MUL.
  ir::Graph g = lowerInt("mobilenet_v3_small");
  EXPECT_EQ(count(g, "tosa.TABLE"), 28u);
  EXPECT_EQ(floatUnaryOps(g), 0u);
  expectInt8Tables(g);
}

}  // namespace
}  // namespace ls::arm
