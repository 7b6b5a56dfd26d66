// verify-each, reference comparison (float and quantisation steps) and bisect: a deliberately
// wrong test-only pass is caught and named; the generic pipeline verifies on every real graph.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <iostream>

#include "core/trace/trace_recorder.h"
#include "core/exec/synth.h"
#include "core/verify/verify.h"
#include "core/io/fxjson.h"
#include "core/io/lstrace.h"
#include "core/transforms/generic_passes.h"
#include "core/transforms/constant_folding.h"
#include "core/passes/retrace.h"
#include "support/graph_builder.h"

namespace ls::verify {
using namespace ls::exec;
namespace {

using passes::PassManager;
using passes::Rewriter;

// ---------------------------------------------------------------- test-only passes

/// WRONG on purpose: swaps the operands of every aten.sub.Tensor (a - b becomes b - a).
class SwapSubOperandsPass : public passes::RetracePass {
 public:
  SwapSubOperandsPass() : RetracePass("SwapSubOperandsPass", "test only: swaps sub operands (wrong)") {
    targets({"aten.sub.Tensor"});
  }

 protected:
  Status rewrite(Rewriter& rw) override {
    std::vector<ir::Arg> args = rw.node().args;
    std::swap(args[0], args[1]);
    rw.setArgs(std::move(args));
    return Status::ok();
  }
};

/// WRONG on purpose: turns every aten.add.Tensor into aten.sub.Tensor.
class AddToSubPass : public passes::RetracePass {
 public:
  AddToSubPass() : RetracePass("AddToSubPass", "test only: add becomes sub (wrong)") { targets({"aten.add.Tensor"}); }

 protected:
  Status rewrite(Rewriter& rw) override {
    rw.rewriteInPlace("aten.sub.Tensor", rw.node().args, rw.node().kwargs);
    return Status::ok();
  }
};

/// Correct: rewrites mul(x, y) as mul(y, x) (commutative), so the graph changes but computes
/// the same values.
class SwapMulOperandsPass : public passes::RetracePass {
 public:
  SwapMulOperandsPass() : RetracePass("SwapMulOperandsPass", "test only: swaps mul operands (correct)") {
    targets({"aten.mul.Tensor"});
  }

 protected:
  Status rewrite(Rewriter& rw) override {
    std::vector<ir::Arg> args = rw.node().args;
    std::swap(args[0], args[1]);
    rw.setArgs(std::move(args));
    return Status::ok();
  }
};

ir::Graph load(const std::string& rel) {
  auto g = io::importFxJsonFile(std::string(LS_ASSETS_DIR) + "/graphs/" + rel);
  EXPECT_TRUE(g.isOk()) << g.message();
  return g.isOk() ? std::move(g).value() : ir::Graph();
}

/// x, y -> out0 = x * y (computed twice, swapped by the correct pass), out1 = view(clone(x)) - y.
ir::Graph smallGraph() {
  test::GraphBuilder b;
  auto x = b.input("x", {2, 3});
  auto y = b.input("y", {2, 3});
  auto m = b.call("aten.mul.Tensor", {x, y}, {}, "mul");
  auto c = b.call("aten.clone.default", {x}, {}, "clone");
  auto v = b.call("aten.view_copy.default", {c, ir::IntList{2, 3}}, {}, "view");
  auto s = b.call("aten.sub.Tensor", {v, y}, {}, "sub");
  b.output({m, s});
  return std::move(b.g);
}

/// A pipeline of `n` passes, correct ones everywhere except SwapSubOperands at `bad` (-1: none).
PrefixFactory testPipeline(size_t n, int bad) {
  return [n, bad](size_t limit) -> Result<PassManager> {
    PassManager pm;
    pm.pipelineName = "test";
    for (size_t i = 0; i < std::min(n, limit); ++i) {
      if (int(i) == bad) pm.add(std::make_unique<SwapSubOperandsPass>());
      else if (i % 3 == 0) pm.add(std::make_unique<SwapMulOperandsPass>());
      else if (i % 3 == 1) pm.add(std::make_unique<transforms::RemoveNoopClonePass>());
      else pm.add(std::make_unique<transforms::RemoveNoopViewPass>());
    }
    return pm;
  };
}

passes::RunResult runWith(PassManager& pm, ir::Graph& g, passes::Profile profile = passes::Profile::FP) {
  passes::PassContext ctx;
  ctx.profile = profile;
  ops::InferenceCache cache;
  ctx.cache = &cache;
  return pm.run(g, ctx);
}

// ---------------------------------------------------------------- verify-each

TEST(VerifyEach, CatchesTheWrongPassWithOutputIndexAndError) {
  ir::Graph g = smallGraph();
  PassManager pm = testPipeline(6, 4).operator()(6).value();  // index 4: the swap
  VerifyEachInstrumentation each;
  trace::TraceRecorder rec;
  pm.addInstrumentation(&rec);  // added first on purpose: verify-each still fills its records
  pm.addInstrumentation(&each);
  passes::RunResult res = runWith(pm, g);
  ASSERT_TRUE(each.setupStatus().isOk()) << each.setupStatus().message();
  EXPECT_EQ(res.failedIndex, -1);  // recording mode: the pipeline goes on
  const PassCheck* f = each.firstFailure();
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->passIndex, 4);
  EXPECT_EQ(f->pass, "SwapSubOperandsPass");
  EXPECT_EQ(f->result.semantic.failingOutput, 1);  // out1 = x - y; out0 is untouched
  EXPECT_GT(f->result.semantic.maxAbsError, 0.1);  // |(y - x) - (x - y)| = 2|x - y|
  EXPECT_NE(f->result.message.find("output #1"), std::string::npos) << f->result.message;
  // Earlier changed passes were checked and found equivalent, with exact results.
  int okBefore = 0;
  for (const PassCheck& c : each.checks())
    if (c.passIndex < 4) {
      EXPECT_TRUE(c.result.semantic.equivalent) << c.pass << ": " << c.result.message;
      EXPECT_EQ(c.result.semantic.maxAbsError, 0.0);
      ++okBefore;
    }
  EXPECT_GE(okBefore, 2);  // SwapMul at #0 and RemoveNoopClone at #1 changed the graph
  // The result sits in the pass records (run result and trace), and survives .lstrace.
  ASSERT_EQ(res.records.size(), 6u);
  EXPECT_TRUE(res.records[4].semantic.checked);
  EXPECT_FALSE(res.records[4].semantic.equivalent);
  EXPECT_EQ(res.records[4].semantic.failingOutput, 1);
  trace::Trace t = rec.take();
  ASSERT_EQ(t.records.size(), 6u);
  EXPECT_EQ(t.records[4].semantic, res.records[4].semantic);
  EXPECT_TRUE(t.records[0].semantic.checked && t.records[0].semantic.equivalent);
  auto path = std::filesystem::temp_directory_path() / ("ls_verify_" + std::to_string(::getpid()) + ".lstrace");
  ASSERT_TRUE(io::saveTrace(t, path.string()).isOk());
  auto back = io::loadTrace(path.string());
  std::filesystem::remove(path);
  ASSERT_TRUE(back.isOk()) << back.message();
  for (size_t i = 0; i < t.records.size(); ++i) EXPECT_EQ(back->records[i].semantic, t.records[i].semantic) << i;
}

TEST(VerifyEach, ReportsProgressOverThePipeline) {
  ir::Graph g = smallGraph();
  PassManager pm = testPipeline(6, -1).operator()(6).value();
  VerifyOptions vo;
  std::vector<std::pair<std::string, double>> seen;
  vo.progress = [&](std::string_view stage, double f) { seen.emplace_back(std::string(stage), f); };
  VerifyEachInstrumentation each(vo);
  pm.addInstrumentation(&each);
  passes::RunResult res = runWith(pm, g);
  ASSERT_EQ(res.failedIndex, -1);
  ASSERT_FALSE(each.checks().empty());
  // The reference run first (0 -> 1), then one stage per checked pass with the fraction over
  // the 6 passes: from index / 6 at the start of its check to (index + 1) / 6 at the end.
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.front().first, "verify: reference run");
  size_t i = 0;
  while (i < seen.size() && seen[i].first == "verify: reference run") ++i;
  EXPECT_DOUBLE_EQ(seen[i - 1].second, 1.0);
  for (const PassCheck& c : each.checks()) {
    const std::string stage = "verify-each " + c.pass;
    ASSERT_LT(i, seen.size());
    EXPECT_EQ(seen[i].first, stage);
    EXPECT_DOUBLE_EQ(seen[i].second, c.passIndex / 6.0);
    while (i < seen.size() && seen[i].first == stage) ++i;
    EXPECT_DOUBLE_EQ(seen[i - 1].second, (c.passIndex + 1) / 6.0);
  }
  EXPECT_EQ(i, seen.size());
}

TEST(VerifyEach, StopOnFailureRollsBackTheBadPass) {
  ir::Graph g = smallGraph();
  const ir::Graph source = g;
  PassManager pm = testPipeline(6, 2)(6).value();
  VerifyOptions o;
  o.stopOnFailure = true;
  VerifyEachInstrumentation each(o);
  pm.addInstrumentation(&each);
  passes::RunResult res = runWith(pm, g);
  EXPECT_EQ(res.failedIndex, 2);
  EXPECT_NE(res.failure.find("SwapSubOperandsPass"), std::string::npos) << res.failure;
  EXPECT_NE(res.failure.find("output #1"), std::string::npos) << res.failure;
  // The graph is the last good one: still equivalent to the source.
  auto ref = Reference::compute(source, {});
  ASSERT_TRUE(ref.isOk());
  EXPECT_TRUE(ref->check(g).semantic.equivalent);
}

TEST(VerifyEach, ValueReuseGivesTheSameResultsAsFullRuns) {
  // On a real graph with a wrong pass in the middle: checks with and without reuse agree
  // exactly, and reuse skips work.
  ir::Graph base = load("resnet18.fxjson.json");
  materializeConstants(base);
  std::vector<std::vector<trace::SemanticCheck>> results;
  std::vector<uint64_t> reused;
  for (bool reuse : {true, false}) {
    ir::Graph g = base;
    PassManager pm;
    pm.add(std::make_unique<transforms::RemoveNoopViewPass>());
    pm.add(std::make_unique<transforms::FoldConstantViewsPass>());  // changes the fc weight's t_copy only
    pm.add(std::make_unique<AddToSubPass>());
    pm.add(std::make_unique<transforms::DeadCodeEliminationPass>());
    VerifyOptions o;
    o.reuseValues = reuse;
    VerifyEachInstrumentation each(o);
    pm.addInstrumentation(&each);
    runWith(pm, g);
    ASSERT_TRUE(each.setupStatus().isOk());
    std::vector<trace::SemanticCheck> v;
    for (const PassCheck& c : each.checks()) {
      trace::SemanticCheck s = c.result.semantic;
      s.execNs = 0;
      v.push_back(s);
    }
    results.push_back(v);
    reused.push_back(each.reusedNodes());
    const PassCheck* f = each.firstFailure();
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->pass, "AddToSubPass");
  }
  EXPECT_EQ(results[0], results[1]);
  EXPECT_GT(reused[0], 50u);  // the fold touches only the classifier: the backbone is reused
  EXPECT_EQ(reused[1], 0u);
}

TEST(VerifyEach, RewiredNodesWithUnchangedValuesDoNotInvalidateDownstream) {
  // RemoveNoopClonePass rewires the users of 12 clones in DeiT (new node versions), but their
  // values are bitwise the same: everything further down is reused, not recomputed.
  ir::Graph g = load("deit_tiny_vit.fxjson.json");
  materializeConstants(g);
  PassManager pm;
  pm.add(std::make_unique<transforms::RemoveNoopClonePass>());
  VerifyEachInstrumentation each;
  pm.addInstrumentation(&each);
  runWith(pm, g);
  ASSERT_EQ(each.checks().size(), 1u);
  EXPECT_TRUE(each.checks()[0].result.semantic.equivalent);
  EXPECT_LE(each.computedNodes(), 24u);  // the rewired users (one per removed clone, some twice)
  EXPECT_GT(each.reusedNodes(), 19 * each.computedNodes());  // > 95% of the ~500 call nodes
}

// ---------------------------------------------------------------- comparison in steps

TEST(Reference, IntProfileComparesDequantizedOutputsInSteps) {
  test::GraphBuilder b;
  auto x = b.input("x", {4, 8});
  const ir::Arg i8(ir::EnumArg{ir::EnumKind::DType, int32_t(ir::DType::Int8)});
  auto q = b.call("quantized_decomposed.quantize_per_tensor.default", {x, 0.05, int64_t(3), int64_t(-128), int64_t(127), i8});
  auto dq = b.call("quantized_decomposed.dequantize_per_tensor.default",
                   {q, 0.05, int64_t(3), int64_t(-128), int64_t(127), i8});
  b.output({dq, x});
  VerifyOptions o;
  o.quantSteps = true;
  auto ref = Reference::compute(b.g, o);
  ASSERT_TRUE(ref.isOk()) << ref.message();
  ASSERT_EQ(ref->steps().size(), 2u);
  EXPECT_DOUBLE_EQ(ref->steps()[0], 0.05);
  EXPECT_EQ(ref->steps()[1], 0.0);  // a plain float output keeps rtol/atol
  auto shifted = [&](double by) {
    std::vector<Tensor> out = ref->outputs();
    Tensor t = out[0].clone();
    t.setDouble(5, t.getDouble(5) + by);
    out[0] = t;
    return out;
  };
  CheckResult one = ref->compare(shifted(0.05));  // one step: within the default tolerance
  EXPECT_TRUE(one.semantic.equivalent) << one.message;
  EXPECT_NEAR(one.semantic.maxSteps, 1.0, 1e-6);
  CheckResult two = ref->compare(shifted(0.1));
  EXPECT_FALSE(two.semantic.equivalent);
  EXPECT_EQ(two.semantic.failingOutput, 0);
  EXPECT_EQ(two.semantic.failingElement, 5);
  EXPECT_NE(two.message.find("quantisation steps"), std::string::npos) << two.message;
  // Without steps (FP) one step is far beyond rtol/atol.
  auto fp = Reference::compute(b.g, {});
  ASSERT_TRUE(fp.isOk());
  EXPECT_FALSE(fp->compare(shifted(0.05)).semantic.equivalent);
}

TEST(Reference, QuantisedIntegerOutputsAreComparedAgainstDequantisedReference) {
  // A lowering may end in int8 where the source returns dequantize(q): the integers are
  // dequantised with the source's scale and zero point and compared in steps.
  test::GraphBuilder b;
  auto x = b.input("x", {3, 4});
  const ir::Arg i8(ir::EnumArg{ir::EnumKind::DType, int32_t(ir::DType::Int8)});
  auto q = b.call("quantized_decomposed.quantize_per_tensor.default", {x, 0.02, int64_t(-5), int64_t(-128), int64_t(127), i8});
  auto dq = b.call("quantized_decomposed.dequantize_per_tensor.default",
                   {q, 0.02, int64_t(-5), int64_t(-128), int64_t(127), i8});
  b.output({dq});
  VerifyOptions o;
  o.quantSteps = true;
  auto ref = Reference::compute(b.g, o);
  ASSERT_TRUE(ref.isOk()) << ref.message();
  // The integers the quantize produced.
  Executor ex;
  auto all = ex.runAll(b.g, ref->inputs());
  ASSERT_TRUE(all.isOk());
  Tensor ints = all->at(q).clone();
  CheckResult same = ref->compare({ints});
  EXPECT_TRUE(same.semantic.equivalent) << same.message;
  EXPECT_EQ(same.semantic.maxSteps, 0.0);
  ints.setInt(7, ints.getInt(7) + 1);
  EXPECT_TRUE(ref->compare({ints}).semantic.equivalent);  // one step
  ints.setInt(7, ints.getInt(7) + 2);
  CheckResult off = ref->compare({ints});
  EXPECT_FALSE(off.semantic.equivalent);
  EXPECT_EQ(off.semantic.failingElement, 7);
  EXPECT_NEAR(off.semantic.maxSteps, 3.0, 1e-3);
}

TEST(Reference, ExecutionFailureIsAFailedCheckNamingTheNode) {
  ir::Graph g = smallGraph();
  auto ref = Reference::compute(g, {});
  ASSERT_TRUE(ref.isOk());
  // Stale metadata on the sub node (as a buggy pass might leave it): the executor refuses.
  ir::NodeId sub = g.findByName("sub");
  g.mutableNode(sub).outputs[0].shape = ir::Shape{3, 2};
  CheckResult r = ref->check(g);
  EXPECT_FALSE(r.semantic.equivalent);
  EXPECT_TRUE(r.executionFailed);
  EXPECT_NE(r.message.find("'sub'"), std::string::npos) << r.message;
}

TEST(Reference, IntegerOutputsThatAreNotQuantisedMustBeEqual) {
  // (x * 2.5).int(): one unit off is a truncation/rounding error, not a quantisation step,
  // whatever --max-steps says (it is for quantised values); the same holds with quantSteps.
  test::GraphBuilder b;
  auto m = b.call("aten.mul.Tensor", {b.input("x", {2, 8}), 2.5});
  b.output({b.call("aten._to_copy.default", {m},
                   {{"dtype", ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(ir::DType::Int32)})}})});
  for (bool quantSteps : {false, true}) {
    VerifyOptions o;
    o.quantSteps = quantSteps;
    o.compare.maxSteps = 3;
    auto ref = Reference::compute(b.g, o);
    ASSERT_TRUE(ref.isOk()) << ref.message();
    EXPECT_EQ(ref->quantisedIntegers(), std::vector<bool>{false});
    EXPECT_TRUE(ref->compare(ref->outputs()).semantic.equivalent);
    std::vector<Tensor> off = {ref->outputs()[0].clone()};
    off[0].setInt(3, off[0].getInt(3) + 1);
    CheckResult r = ref->compare(off);
    EXPECT_FALSE(r.semantic.equivalent) << quantSteps;
    EXPECT_EQ(r.semantic.failingElement, 3);
    EXPECT_NE(r.message.find("int32 values must be equal"), std::string::npos) << r.message;
  }
}

TEST(Reference, QuantisedIntegerOutputsKeepTheirStepTolerance) {
  // The source returns the quantize's int8 values: one step within --max-steps 1, two not.
  test::GraphBuilder b;
  const ir::Arg i8(ir::EnumArg{ir::EnumKind::DType, int32_t(ir::DType::Int8)});
  b.output({b.call("quantized_decomposed.quantize_per_tensor.default",
                   {b.input("x", {3, 4}), 0.02, int64_t(-5), int64_t(-128), int64_t(127), i8})});
  auto ref = Reference::compute(b.g, {});
  ASSERT_TRUE(ref.isOk()) << ref.message();
  EXPECT_EQ(ref->quantisedIntegers(), std::vector<bool>{true});
  std::vector<Tensor> off = {ref->outputs()[0].clone()};
  off[0].setInt(2, off[0].getInt(2) - 1);
  EXPECT_TRUE(ref->compare(off).semantic.equivalent);
  off[0].setInt(2, off[0].getInt(2) - 1);
  CheckResult two = ref->compare(off);
  EXPECT_FALSE(two.semantic.equivalent);
  EXPECT_NE(two.message.find("2 steps > 1"), std::string::npos) << two.message;
}

TEST(Reference, UnpredictableTosaPowIsAFailedCheckNamingTheNode) {
  // x ** 0.5 on inputs in [-1, 1]: the source computes NaN where x < 0; as TOSA POW that is
  // UNPREDICTABLE (REQUIRE(value1 >= 0)), so the lowered graph does not run and verify says so.
  test::GraphBuilder src;
  src.output({src.call("aten.pow.Tensor_Scalar", {src.input("x", {2, 8}), 0.5})});
  auto ref = Reference::compute(src.g, {});
  ASSERT_TRUE(ref.isOk()) << ref.message();
  test::GraphBuilder low;
  auto half = low.constant("half", ir::DType::Float32, {1, 1}, {0.5});
  low.output({low.call("tosa.POW", {low.input("x", {2, 8}), half}, {}, "pow")});
  CheckResult r = ref->check(low.g);
  EXPECT_FALSE(r.semantic.equivalent);
  EXPECT_TRUE(r.executionFailed);
  EXPECT_NE(r.message.find("node 'pow' (tosa.POW): UNPREDICTABLE: POW requires value1 >= 0"), std::string::npos)
      << r.message;
}

// ---------------------------------------------------------------- bisect

TEST(Bisect, NamesTheWrongPassAtEveryPosition) {
  ir::Graph g = smallGraph();
  const size_t n = 11;
  for (int bad = 0; bad < int(n); ++bad) {
    auto r = bisect(g, n, testPipeline(n, bad), passes::PassContext{});
    ASSERT_TRUE(r.isOk()) << r.message();
    EXPECT_TRUE(r->fullPipelineFails);
    EXPECT_EQ(r->culprit, bad);
    EXPECT_EQ(r->culpritName, "SwapSubOperandsPass");
    EXPECT_NE(r->detail.find("output #1"), std::string::npos) << r->detail;
    EXPECT_LE(r->probes.size(), 1u + 4u);  // full run + ceil(log2(11)) halvings
  }
}

TEST(Bisect, NothingToBisectWhenThePipelineIsCorrect) {
  ir::Graph g = smallGraph();
  auto r = bisect(g, 9, testPipeline(9, -1), passes::PassContext{});
  ASSERT_TRUE(r.isOk());
  EXPECT_FALSE(r->fullPipelineFails);
  EXPECT_EQ(r->culprit, -1);
  EXPECT_EQ(r->probes.size(), 1u);
}

TEST(Bisect, RegistryPrefixesRejectUnknownPipelinesAndPasses) {
  size_t n = 0;
  EXPECT_FALSE(registryPrefixes("no-such-pipeline", {}, &n).isOk());
  auto bad = registryPrefixes("generic", {"NoSuchPass"}, &n);
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.message().find("NoSuchPass"), std::string::npos);
  auto ok = registryPrefixes("generic", {"DeadCodeEliminationPass"}, &n);
  ASSERT_TRUE(ok.isOk());
  EXPECT_EQ(n, 5u);
  auto pm = (*ok)(3);
  ASSERT_TRUE(pm.isOk());
  EXPECT_EQ(pm->passes().size(), 3u);
}

// ---------------------------------------------------------------- real graphs

class GenericOnRealGraph : public ::testing::TestWithParam<const char*> {};

TEST_P(GenericOnRealGraph, VerifiesAfterEveryPass) {
  ir::Graph g = load(GetParam());
  ASSERT_GT(g.size(), 0u);
  materializeConstants(g);
  auto pm = PassManager::fromPipeline("generic");
  ASSERT_TRUE(pm.isOk());
  VerifyEachInstrumentation each;
  passes::VerifierInstrumentation verifier;
  pm->addInstrumentation(&verifier);
  pm->addInstrumentation(&each);
  auto t0 = std::chrono::steady_clock::now();
  passes::RunResult res = runWith(*pm, g);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(each.setupStatus().isOk()) << each.setupStatus().message();
  EXPECT_EQ(res.failedIndex, -1) << res.failure;
  EXPECT_EQ(each.firstFailure(), nullptr) << each.firstFailure()->pass << ": " << each.firstFailure()->result.message;
  for (const PassCheck& c : each.checks()) EXPECT_LT(c.result.semantic.maxRelError, 1e-4) << c.pass;
  std::cout << "[ verify   ] " << GetParam() << ": " << each.checks().size() << " changed passes checked in " << s
            << " s, reused " << each.reusedNodes() << " / " << each.reusedNodes() + each.computedNodes() << "\n";
}

INSTANTIATE_TEST_SUITE_P(Exec, GenericOnRealGraph,
                         ::testing::Values("mobilenet_v2.fxjson.json", "mobilenet_v3_small.fxjson.json",
                                           "resnet18.fxjson.json", "squeezenet1_1.fxjson.json",
                                           "efficientnet_b0.fxjson.json", "deeplabv3_mobilenet_v3_large.fxjson.json",
                                           "deit_tiny_vit.fxjson.json", "wav2letter.fxjson.json"),
                         [](const auto& p) {
                           return std::filesystem::path(p.param).stem().stem().string();
                         });

}  // namespace
}  // namespace ls::verify
