// ExtractIOQuantizationPass: INT graphs take and return int8 (the boundary quantize/dequantize
// leave the graph, their qparams recorded on the inputs and outputs), as the TOSA graph
// upstream's partitioner hands to Vela; values keep agreeing with the quantized source.
#include <gtest/gtest.h>

#include "core/backends/arm/arm_passes.h"
#include "core/ir/printer.h"
#include "core/backends/arm/tosa/tosa_import.h"
#include "core/io/lsg.h"
#include "core/backends/arm/tosa/tosa_writer.h"
#include "core/exec/compare.h"
#include "core/exec/executor.h"
#include "core/exec/synth.h"
#include "core/passes/pass_manager.h"
#include "core/session/lowering_session.h"
#include "core/verify/verify.h"
#include "support/graph_builder.h"

namespace ls::arm {
namespace {

using ir::DType;
using passes::PassStatus;

const char* kQ = "quantized_decomposed.quantize_per_tensor.default";
const char* kDq = "quantized_decomposed.dequantize_per_tensor.default";

size_t count(const ir::Graph& g, const std::string& op) { return g.nodesOfOp(ir::internOp(op)).size(); }
ir::Arg dt(DType t) { return ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(t)}); }

/// x -> q -> dq -> relu -> q -> dq -> output (PT2E form of a quantized relu).
struct QRelu {
  ir::Graph g;
  ir::NodeId x, relu, q2;
};
QRelu quantizedRelu(double s1 = 0.02, int64_t z1 = 3, double s2 = 0.01, int64_t z2 = -128) {
  test::GraphBuilder b;
  QRelu r;
  auto x = b.input("x", {1, 4, 6, 6});
  auto q1 = b.call(kQ, {x, s1, z1, -128, 127, dt(DType::Int8)});
  auto d1 = b.call(kDq, {q1, s1, z1, -128, 127, dt(DType::Int8)});
  auto relu = b.call("aten.relu.default", {d1});
  auto q2 = b.call(kQ, {relu, s2, z2, -128, 127, dt(DType::Int8)});
  auto d2 = b.call(kDq, {q2, s2, z2, -128, 127, dt(DType::Int8)});
  b.output({d2});
  r.x = x.node, r.relu = relu.node, r.q2 = q2.node;
  r.g = std::move(b.g);
  return r;
}

passes::PassResult runPass(ir::Graph& g, passes::Profile profile = passes::Profile::INT) {
  ExtractIOQuantizationPass p;
  passes::PassContext ctx;
  ctx.profile = profile;
  passes::ShouldRun sr = p.shouldRun(g, ctx);
  if (!sr.run) return {PassStatus::Skipped, std::string(passes::skipReasonName(sr.reason))};
  return p.run(g, ctx);
}

TEST(ExtractIOQuantizationPass, InputsAndOutputsBecomeInt8WithTheirQParams) {
  QRelu r = quantizedRelu();
  const ir::Graph before = r.g;
  ASSERT_EQ(runPass(r.g).status, PassStatus::Changed);
  EXPECT_EQ(count(r.g, kQ), 1u);   // the inner quantize stays
  EXPECT_EQ(count(r.g, kDq), 1u);  // the inner dequantize stays
  const ir::TensorMeta& in = r.g.node(r.x).meta(0);
  EXPECT_EQ(in.dtype, DType::Int8);
  ASSERT_TRUE(in.quant);
  EXPECT_DOUBLE_EQ(in.quant->scales[0], 0.02);
  EXPECT_EQ(in.quant->zeroPoints[0], 3);
  const ir::Node* out = r.g.outputNode();
  const ir::ValueRef slot = (*out->args[0].asRefList())[0];
  EXPECT_EQ(slot.node, r.q2);
  ASSERT_TRUE(r.g.meta(slot).quant);
  EXPECT_DOUBLE_EQ(r.g.meta(slot).quant->scales[0], 0.01);
  EXPECT_EQ(r.g.meta(slot).quant->zeroPoints[0], -128);
  EXPECT_TRUE(r.g.find(r.relu));  // untargeted nodes keep their ids
  EXPECT_TRUE(passes::VerifierInstrumentation::verifyGraph(r.g).isOk());

  // Semantics: the int8 input is exactly the source's own quantize of the float input, and the
  // int8 output is exactly the source's last quantize (bit for bit).
  auto floatIn = exec::synthesizeInputs(before, 7);
  exec::Executor ex;
  auto all = ex.runAll(before, floatIn);
  ASSERT_TRUE(all.isOk()) << all.message();
  auto adapted = exec::adaptInputs(r.g, floatIn);
  ASSERT_EQ(adapted[0].dtype(), DType::Int8);
  auto outs = ex.run(r.g, adapted);
  ASSERT_TRUE(outs.isOk()) << outs.message();
  const exec::Tensor& want = all->at(ir::ValueRef{r.q2, 0});
  ASSERT_EQ(outs->at(0).dtype(), DType::Int8);
  ASSERT_EQ(outs->at(0).numel(), want.numel());
  for (int64_t i = 0; i < want.numel(); ++i) ASSERT_EQ(outs->at(0).getInt(i), want.getInt(i)) << i;
  // Synthesised inputs of the int8 graph are the float graph's, quantized.
  auto synth = exec::synthesizeInputs(r.g, 7);
  for (int64_t i = 0; i < synth[0].numel(); ++i) ASSERT_EQ(synth[0].getInt(i), adapted[0].getInt(i)) << i;
  // verify's reference agrees: the float source vs the int8 graph, compared in steps.
  verify::VerifyOptions vo;
  vo.quantSteps = true;
  auto ref = verify::Reference::compute(before, vo);
  ASSERT_TRUE(ref.isOk()) << ref.message();
  verify::CheckResult c = ref->check(r.g);
  EXPECT_TRUE(c.semantic.equivalent) << c.message;
  EXPECT_EQ(c.semantic.maxSteps, 0.0);
  // Against the float model (x -> relu), the int8 outputs are dequantized with their own qparams:
  // the error is the quantisation error (within a step of either scale), never a silent 0 from
  // comparing int8 with float.
  test::GraphBuilder fb;
  fb.output({fb.call("aten.relu.default", {fb.input("x", {1, 4, 6, 6})})});
  verify::VerifyOptions fo;
  auto fref = verify::Reference::compute(fb.g, fo);
  ASSERT_TRUE(fref.isOk()) << fref.message();
  verify::CheckResult fc = fref->check(r.g);
  ASSERT_FALSE(fc.executionFailed) << fc.message;
  EXPECT_GT(fc.semantic.maxAbsError, 0.0);
  EXPECT_LE(fc.semantic.maxAbsError, 0.02 + 1e-6);
}

TEST(ExtractIOQuantizationPass, InputWithAFloatReaderOrTwoQParamsStaysFloat) {
  for (int variant = 0; variant < 2; ++variant) {
    test::GraphBuilder b;
    auto x = b.input("x", {1, 8});
    auto q1 = b.call(kQ, {x, 0.02, 0, -128, 127, dt(DType::Int8)});
    auto d1 = b.call(kDq, {q1, 0.02, 0, -128, 127, dt(DType::Int8)});
    ir::ValueRef other = variant == 0 ? b.call("aten.relu.default", {x})  // a float reader
                                      : b.call(kDq, {b.call(kQ, {x, 0.05, 0, -128, 127, dt(DType::Int8)}), 0.05, 0,
                                                     -128, 127, dt(DType::Int8)});  // other qparams
    auto add = b.call("aten.add.Tensor", {d1, other});
    b.output({add});
    ir::Graph g = std::move(b.g);
    const size_t nodes = g.size();
    EXPECT_EQ(runPass(g).status, PassStatus::Unchanged) << variant;
    EXPECT_EQ(g.size(), nodes);
    EXPECT_EQ(g.node(x.node).meta(0).dtype, DType::Float32);
  }
}

TEST(ExtractIOQuantizationPass, SkippedForFpAndWithoutQuantizeOps) {
  QRelu r = quantizedRelu();
  passes::PassResult fp = runPass(r.g, passes::Profile::FP);
  EXPECT_EQ(fp.status, PassStatus::Skipped);
  EXPECT_EQ(fp.message, "profile");
  test::GraphBuilder b;
  auto x = b.input("x", {2, 3});
  b.output({b.call("aten.relu.default", {x})});
  passes::PassResult none = runPass(b.g);
  EXPECT_EQ(none.status, PassStatus::Skipped);
  EXPECT_EQ(none.message, "no-target-ops");
}

TEST(ExtractIOQuantizationPass, IntTosaOfARealModelHasInt8InputsAndOutputs) {
  session::SessionConfig c;
  c.pipeline = "tosa";
  c.profile = passes::Profile::INT;
  auto g = session::LoweringSession::load(std::string(LS_ASSETS_DIR) + "/graphs/mobilenet_v3_small.fxjson.json");
  ASSERT_TRUE(g.isOk()) << g.message();
  auto o = session::LoweringSession(c).lower(std::move(g).value(), "mobilenet_v3_small");
  ASSERT_TRUE(o.isOk()) << o.message();
  ASSERT_FALSE(o->failed()) << o->result.failure;
  for (const ir::NodePtr& p : o->finalGraph.nodes())
    if (p->kind == ir::NodeKind::Placeholder) {
      EXPECT_EQ(p->meta(0).dtype, DType::Int8) << p->name;
      EXPECT_TRUE(exec::isQuantizedIO(p->meta(0))) << p->name;
    }
  for (const ir::ValueRef& r : *o->finalGraph.outputNode()->args[0].asRefList())
    EXPECT_TRUE(exec::isQuantizedIO(o->finalGraph.meta(r)));
  // No float op remains anywhere in the lowered graph, and the TOSA file's I/O is int8.
  for (const ir::NodePtr& p : o->finalGraph.nodes())
    for (const ir::TensorMeta& m : p->outputs) EXPECT_NE(m.dtype, DType::Float32) << p->name;
  auto bytes = io::serializeTosa(o->finalGraph);
  ASSERT_TRUE(bytes.isOk()) << bytes.message();
  auto info = io::readTosaBytes(*bytes, "mem.tosa");
  ASSERT_TRUE(info.isOk()) << info.message();
  const io::TosaBlockInfo* main = info->mainBlock();
  ASSERT_TRUE(main);
  for (const std::string& n : main->inputs) EXPECT_EQ(main->tensor(n)->dtype, "INT8") << n;
  for (const std::string& n : main->outputs) EXPECT_EQ(main->tensor(n)->dtype, "INT8") << n;
}

TEST(InsertInt32CastsAfterInt64PlaceholdersPass, Int64InputsBecomeInt32AndTheTosaFileIsLegal) {
  // embedding(w, ids) with int64 token ids: the lowered graph takes int32 ids (TOSA has no
  // int64), computes what the source computes on the same ids, and its file is legal.
  test::GraphBuilder b;
  auto w = b.constant("w", DType::Float32, {10, 4}, std::vector<double>(40, 0.5));
  auto ids = b.input("ids", DType::Int64, {2, 3});
  auto e = b.call("aten.embedding.default", {w, ids});
  b.output({e, b.call("aten.add.Tensor", {ids, int64_t(1)})});
  const ir::Graph source = b.g;
  ir::Graph g = source;
  auto run = [](ir::Graph& h) {
    InsertInt32CastsAfterInt64PlaceholdersPass p;
    passes::PassContext ctx;
    passes::ShouldRun sr = p.shouldRun(h, ctx);
    if (!sr.run) return passes::PassResult{PassStatus::Skipped, std::string(passes::skipReasonName(sr.reason))};
    return p.run(h, ctx);
  };
  passes::PassResult r = run(g);
  ASSERT_EQ(r.status, PassStatus::Changed) << r.message;
  for (const ir::NodePtr& p : g.nodes())
    if (p->kind == ir::NodeKind::Placeholder) {
      EXPECT_EQ(p->meta(0).dtype, DType::Int32) << p->name;
    }
  EXPECT_EQ(count(g, "aten._to_copy.default"), 1u);  // int32 -> int32, removed by RemoveNoopClonePass
  // Skipped when no input is int64.
  ir::Graph again = g;
  EXPECT_EQ(run(again).status, PassStatus::Skipped);
  // The whole pipeline: equivalent to the source (int64 outputs compared as computed in int32),
  // and the TOSA file has an int32 input.
  session::SessionConfig c;
  c.pipeline = "tosa";
  auto o = session::LoweringSession(c).lower(source, "embedding");
  ASSERT_TRUE(o.isOk()) << o.message();
  ASSERT_FALSE(o->failed()) << o->result.failure;
  verify::VerifyOptions vo;
  auto ref = verify::Reference::compute(source, vo);
  ASSERT_TRUE(ref.isOk()) << ref.message();
  verify::CheckResult cr = ref->check(o->finalGraph);
  EXPECT_TRUE(cr.semantic.equivalent) << cr.message;
  auto bytes = io::serializeTosa(o->finalGraph);
  ASSERT_TRUE(bytes.isOk()) << bytes.message();
  auto info = io::readTosaBytes(*bytes, "mem.tosa");
  ASSERT_TRUE(info.isOk()) << info.message();
  for (const std::string& n : info->mainBlock()->inputs) EXPECT_EQ(info->mainBlock()->tensor(n)->dtype, "INT32") << n;
}

TEST(TosaWriter, AReturnedNoneIsOmittedFromTheFileAndKeptThroughLsg) {
  // (y, None): every stage keeps the empty slot; the TOSA file has the one tensor output
  // (docs/FXJSON.md), and `verify --tosa`'s read-back lines the two up.
  test::GraphBuilder b;
  auto x = b.input("x", {2, 3});
  auto y = b.call("aten.relu.default", {x});
  b.output({y});
  ir::Graph src = b.g;
  ir::Node& out = src.mutableNode(src.outputNode()->id);
  out.args[0] = ir::Arg(ir::RefList{*out.args[0].asRefList()->begin(), ir::ValueRef{}});
  out.outputs.push_back(ir::TensorMeta());
  ASSERT_TRUE(passes::VerifierInstrumentation::verifyGraph(src).isOk());
  auto lsg = io::serializeLsg(src);
  ASSERT_TRUE(lsg.isOk()) << lsg.message();
  auto back = io::loadLsgBytes(*lsg, "mem.lsg");
  ASSERT_TRUE(back.isOk()) << back.message();
  EXPECT_EQ(ir::printGraph(*back), ir::printGraph(src));
  session::SessionConfig c;
  c.pipeline = "tosa";
  auto o = session::LoweringSession(c).lower(src, "none");
  ASSERT_TRUE(o.isOk()) << o.message();
  ASSERT_FALSE(o->failed()) << o->result.failure;
  EXPECT_TRUE(o->finalGraph.outputNode()->args[0].asRefList()->at(1).isNone());
  auto bytes = io::serializeTosa(o->finalGraph);
  ASSERT_TRUE(bytes.isOk()) << bytes.message();
  auto info = io::readTosaBytes(*bytes, "mem.tosa");
  ASSERT_TRUE(info.isOk()) << info.message();
  EXPECT_EQ(info->mainBlock()->outputs.size(), 1u);
  auto run = runTosaFileAgainst(o->finalGraph, *bytes, "mem.tosa", exec::synthesizeInputs(o->finalGraph, 1));
  ASSERT_TRUE(run.isOk()) << run.message();
  EXPECT_TRUE(run->identical) << run->message;
}

}  // namespace
}  // namespace ls::arm
