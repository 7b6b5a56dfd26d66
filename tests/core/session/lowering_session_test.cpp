// LoweringSession: the one set-up of a lowering run (quantize point and seed, instrumentations,
// pass limit, trace), and the exception boundary: a pass that throws is recorded as failed
// with the exception's message and the caller keeps running.
#include <gtest/gtest.h>

#include <new>
#include <stdexcept>

#include "core/exec/compare.h"
#include "core/io/lstrace.h"
#include "core/quant/quantizer.h"
#include "core/passes/pass_manager.h"
#include "core/session/lowering_session.h"
#include "support/graph_builder.h"

namespace ls {
namespace {

using namespace passes;

ir::Graph reluGraph() {
  test::GraphBuilder b;
  auto x = b.input("x", {1, 4, 8, 8});
  auto r = b.call("aten.relu.default", {x});
  b.output({r});
  return std::move(b.g);
}

ir::Graph realGraph(const std::string& name) {
  auto g = session::LoweringSession::load(std::string(LS_ASSETS_DIR) + "/graphs/" + name);
  EXPECT_TRUE(g.isOk()) << g.message();
  return std::move(g).value();
}

/// Test-only pass that throws from run (std::runtime_error, or bad_alloc).
class ThrowingPass : public Pass {
 public:
  explicit ThrowingPass(bool badAlloc) : Pass("ThrowingTestPass", "throws"), badAlloc_(badAlloc) {}
  PassResult runImpl(ir::Graph& g, PassContext&) override {
    g.modelName = "half-changed";  // a pass that mutated before throwing
    if (badAlloc_) throw std::bad_alloc();
    throw std::runtime_error("boom in the test pass");
  }

 private:
  bool badAlloc_;
};

/// Throws from should_run.
class ThrowingShouldRunPass : public Pass {
 public:
  ThrowingShouldRunPass() : Pass("ThrowingShouldRunTestPass", "throws in should_run") {}
  ShouldRun shouldRunImpl(const ir::Graph&, const PassContext&) const override { throw std::logic_error("bad scan"); }
  PassResult runImpl(ir::Graph&, PassContext&) override { return PassResult::unchanged(); }
};

TEST(ExceptionBoundary, APassThatThrowsIsRecordedAsFailedAndThePipelineStops) {
  for (bool badAlloc : {false, true}) {
    PassManager pm;
    pm.add(PassRegistry::instance().create("RemoveNoopClonePass"));
    pm.add(std::make_unique<ThrowingPass>(badAlloc));
    pm.add(PassRegistry::instance().create("DeadCodeEliminationPass"));
    VerifierInstrumentation verifier;  // a can-fail instrumentation: the manager keeps a rollback copy
    pm.addInstrumentation(&verifier);
    ir::Graph g = reluGraph();
    g.modelName = "m";
    PassContext ctx;
    RunResult r = pm.run(g, ctx);
    ASSERT_EQ(r.records.size(), 3u);
    EXPECT_EQ(r.failedIndex, 1);
    EXPECT_EQ(r.records[1].status, PassStatus::Failed);
    EXPECT_NE(r.records[1].message.find("pass 'ThrowingTestPass' (#1) failed: threw an exception"), std::string::npos)
        << r.records[1].message;
    EXPECT_NE(r.records[1].message.find(badAlloc ? "bad_alloc" : "boom in the test pass"), std::string::npos)
        << r.records[1].message;
    EXPECT_EQ(r.records[2].reason, SkipReason::NotReached);
    EXPECT_EQ(g.modelName, "m") << "the graph is rolled back to before the throwing pass";
  }
}

TEST(ExceptionBoundary, ShouldRunThatThrowsFailsThePass) {
  PassManager pm;
  pm.add(std::make_unique<ThrowingShouldRunPass>());
  ir::Graph g = reluGraph();
  PassContext ctx;
  RunResult r = pm.run(g, ctx);
  ASSERT_EQ(r.records.size(), 1u);
  EXPECT_EQ(r.records[0].status, PassStatus::Failed);
  EXPECT_NE(r.records[0].message.find("should_run threw: bad scan"), std::string::npos) << r.records[0].message;
}

TEST(LoweringSession, UnknownPipelinePassOrDisabledNameIsAnError) {
  session::SessionConfig c;
  c.pipeline = "no-such-pipeline";
  Status s = session::LoweringSession(c).validate();
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("unknown pipeline 'no-such-pipeline'"), std::string::npos) << s.message();
  c.pipeline = "generic";
  c.disabled = {"NoSuchPass"};
  EXPECT_FALSE(session::LoweringSession(c).validate().isOk());
  c.disabled.clear();
  c.passLimit = 1000;
  s = session::LoweringSession(c).validate();
  EXPECT_NE(s.message().find("has only 5 passes, 1000 requested"), std::string::npos) << s.message();
}

TEST(LoweringSession, TheInferenceCacheIsOptInAndChangesNoResult) {
  session::SessionConfig c;
  c.pipeline = "tosa";
  ASSERT_FALSE(c.engine.cache);
  auto plain = session::LoweringSession(c).lower(realGraph("resnet18.fxjson.json"), "resnet18");
  ASSERT_TRUE(plain.isOk()) << plain.message();
  EXPECT_EQ(plain->cacheHits + plain->cacheMisses, 0u);  // no lookup at all
  c.engine.cache = true;
  auto cached = session::LoweringSession(c).lower(realGraph("resnet18.fxjson.json"), "resnet18");
  ASSERT_TRUE(cached.isOk()) << cached.message();
  EXPECT_GT(cached->cacheHits, 0u);
  ASSERT_EQ(plain->finalGraph.size(), cached->finalGraph.size());
  for (size_t i = 0; i < plain->finalGraph.size(); ++i) {
    const ir::Node& a = *plain->finalGraph.nodes()[i];
    const ir::Node& b = *cached->finalGraph.nodes()[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.op, b.op);
    EXPECT_EQ(a.outputs, b.outputs) << a.name;
  }
}

TEST(LoweringSession, RunsThePipelineWithTraceAndPassLimit) {
  session::SessionConfig c;
  c.pipeline = "tosa";
  c.passLimit = 10;
  c.engine.cache = true;  // the counters below come from the (opt-in) inference cache
  session::LoweringSession s(c);
  auto o = s.lower(realGraph("mobilenet_v2.fxjson.json"), "mobilenet_v2");
  ASSERT_TRUE(o.isOk()) << o.message();
  EXPECT_FALSE(o->failed()) << o->result.failure;
  EXPECT_EQ(o->result.records.size(), 10u);
  ASSERT_TRUE(o->trace);
  EXPECT_EQ(o->trace->records.size(), 10u);
  EXPECT_EQ(o->trace->pipeline, "tosa");
  EXPECT_EQ(o->trace->model, "mobilenet_v2");
  EXPECT_EQ(o->trace->finalGraph().size(), o->finalGraph.size());
  EXPECT_GT(o->cacheHits + o->cacheMisses, 0u);
  c.recordTrace = false;
  auto o2 = session::LoweringSession(c).lower(realGraph("mobilenet_v2.fxjson.json"), "m");
  ASSERT_TRUE(o2.isOk());
  EXPECT_FALSE(o2->trace);
}

TEST(LoweringSession, IntProfileQuantizesAFloatGraphOnceWithTheSeedAndLeavesAQuantizedOneAlone) {
  session::SessionConfig c;
  c.pipeline = "generic";
  c.profile = Profile::INT;
  session::LoweringSession s(c);
  auto p = s.prepare(realGraph("mobilenet_v2.fxjson.json"));
  ASSERT_TRUE(p.isOk()) << p.message();
  EXPECT_TRUE(p->quantized);
  EXPECT_FALSE(p->quantizeSummary.empty());
  EXPECT_TRUE(exec::hasQuantOps(p->graph));
  // Same seed, same program; the prepared graph is left alone the second time.
  auto p2 = s.prepare(realGraph("mobilenet_v2.fxjson.json"));
  ASSERT_TRUE(p2.isOk());
  EXPECT_EQ(p->quantizeSummary, p2->quantizeSummary);
  auto again = s.prepare(p->graph);
  ASSERT_TRUE(again.isOk());
  EXPECT_FALSE(again->quantized);
  EXPECT_TRUE(again->alreadyQuantized);
  // quantize off: the float graph stays float; FP profile never quantizes.
  c.quantize = false;
  auto f = session::LoweringSession(c).prepare(realGraph("mobilenet_v2.fxjson.json"));
  EXPECT_FALSE(exec::hasQuantOps(f->graph));
  c.quantize = true;
  c.profile = Profile::FP;
  auto fp = session::LoweringSession(c).prepare(realGraph("mobilenet_v2.fxjson.json"));
  EXPECT_FALSE(fp->quantized);
}

TEST(LoweringSession, ThePipelinesAnnotationPassesRunInTheQuantizerSoVarLowersToIntegers) {
  // var has no integer lowering of its own: the tosa pipeline's annotation passes decompose it
  // before annotation (as upstream's transform_for_annotation does), so each part is quantised.
  test::GraphBuilder b;
  auto x = b.input("x", {2, 5, 3});
  b.output({b.call("aten.var.correction", {x, ir::IntList{1}}, {{"keepdim", true}})});
  session::SessionConfig c;
  c.pipeline = "tosa";
  c.profile = Profile::INT;
  c.target = Target::U55;
  auto prepared = session::LoweringSession(c).prepare(b.g);
  ASSERT_TRUE(prepared.isOk()) << prepared.message();
  bool decomposed = false;
  for (const PassRecord& r : prepared->quantizePasses)
    decomposed |= r.name == "DecomposeVarPass" && r.status == PassStatus::Changed;
  EXPECT_TRUE(decomposed);
  auto o = session::LoweringSession(c).lower(b.g, "var");
  ASSERT_TRUE(o.isOk()) << o.message();
  ASSERT_FALSE(o->failed()) << o->result.failure;
  for (const ir::NodePtr& p : o->finalGraph.nodes())
    for (const ir::TensorMeta& m : p->outputs) EXPECT_NE(m.dtype, ir::DType::Float32) << p->name;
  // The generic pipeline names none: the quantizer runs only its built-in decompositions.
  c.pipeline = "generic";
  auto g = session::LoweringSession(c).prepare(b.g);
  ASSERT_TRUE(g.isOk()) << g.message();
  for (const PassRecord& r : g->quantizePasses) EXPECT_NE(r.name, "DecomposeVarPass");
}

TEST(LoweringSession, ExtraInstrumentationsRunAndStructuralVerifyCatchesStaleMetadata) {
  struct Counter : Instrumentation {
    int after = 0, skipped = 0;
    Status afterPass(const Pass&, PassRecord&, const ir::Graph&) override {
      ++after;
      return Status::ok();
    }
    void passSkipped(const Pass&, PassRecord&, const ir::Graph&) override { ++skipped; }
  } counter;
  session::SessionConfig c;
  c.pipeline = "generic";
  c.structuralVerify = true;
  session::RunHooks hooks;
  hooks.instrumentations.push_back(&counter);
  auto o = session::LoweringSession(c).run(reluGraph(), "relu", hooks);
  ASSERT_TRUE(o.isOk());
  EXPECT_EQ(counter.after + counter.skipped, 5);
  EXPECT_FALSE(o->failed());
}

TEST(LoweringSession, IntQuantizationIsRecordedAsItsOwnRunOfPassesBeforeThePipeline) {
  session::SessionConfig c;
  c.pipeline = "tosa";
  c.profile = Profile::INT;
  c.passLimit = 3;
  session::LoweringSession s(c);
  session::Prepared prepared;
  auto o = s.lower(realGraph("resnet18.fxjson.json"), "resnet18", {}, &prepared);
  ASSERT_TRUE(o.isOk()) << o.message();
  ASSERT_TRUE(o->trace);
  ASSERT_TRUE(o->trace->preparation);
  const trace::Trace& q = *o->trace->preparation;
  EXPECT_EQ(q.pipeline, quant::kQuantizePipelineName);
  EXPECT_EQ(q.model, "resnet18");
  ASSERT_FALSE(q.records.empty());
  // The quantizer's steps, as passes: the flag pass first, the convert last; resnet18's batch
  // norms are folded by the quantizer's own FuseBatchNorm2dPass.
  EXPECT_EQ(q.records.front().name, "SetDisallowTfaForNodesPass");
  EXPECT_EQ(q.records.back().name, "QuantizePt2ePass");
  EXPECT_EQ(q.records.back().status, PassStatus::Changed);
  bool foldedBn = false;
  for (const auto& r : q.records) foldedBn |= r.name == "FuseBatchNorm2dPass" && r.status == PassStatus::Changed;
  EXPECT_TRUE(foldedBn);
  int64_t qdq = -1;
  for (const auto& st : q.records.back().stats)
    if (st.name == "qdq_pairs") qdq = st.value;
  EXPECT_GT(qdq, 0);
  // Its source is the float graph; its final graph is the pipeline's source.
  EXPECT_FALSE(exec::hasQuantOps(*q.source));
  EXPECT_TRUE(exec::hasQuantOps(*o->trace->source));
  EXPECT_EQ(q.finalGraph().size(), o->trace->source->size());
  // The same records reach callers that do not record traces (CLI table, JSON summary).
  ASSERT_EQ(prepared.quantizePasses.size(), q.records.size());
  for (size_t i = 0; i < q.records.size(); ++i) EXPECT_EQ(prepared.quantizePasses[i].name, q.records[i].name);
  EXPECT_GT(prepared.quantizeNs, 0);

  // .lstrace keeps the preparation run.
  auto bytes = io::serializeTrace(*o->trace);
  ASSERT_TRUE(bytes.isOk()) << bytes.message();
  auto back = io::loadTraceBytes(*bytes, "mem.lstrace");
  ASSERT_TRUE(back.isOk()) << back.message();
  ASSERT_TRUE(back->preparation);
  EXPECT_EQ(back->preparation->pipeline, q.pipeline);
  EXPECT_EQ(back->preparation->model, q.model);
  ASSERT_EQ(back->preparation->records.size(), q.records.size());
  for (size_t i = 0; i < q.records.size(); ++i) {
    EXPECT_EQ(back->preparation->records[i].name, q.records[i].name);
    EXPECT_EQ(back->preparation->records[i].status, q.records[i].status);
    EXPECT_EQ(back->preparation->records[i].stats, q.records[i].stats);
  }
  EXPECT_EQ(back->preparation->snapshots.size(), q.snapshots.size());
  EXPECT_EQ(back->preparation->source->size(), q.source->size());
  EXPECT_EQ(back->preparation->finalGraph().size(), back->source->size());
  EXPECT_EQ(back->records.size(), o->trace->records.size());

  // FP, or a graph that is already quantized: nothing prepared it.
  c.profile = Profile::FP;
  auto fp = session::LoweringSession(c).lower(realGraph("resnet18.fxjson.json"), "resnet18");
  ASSERT_TRUE(fp.isOk());
  EXPECT_FALSE(fp->trace->preparation);
  auto fpBytes = io::serializeTrace(*fp->trace);
  ASSERT_TRUE(fpBytes.isOk());
  auto fpBack = io::loadTraceBytes(*fpBytes, "fp.lstrace");
  ASSERT_TRUE(fpBack.isOk());
  EXPECT_FALSE(fpBack->preparation);
}

TEST(LoweringSession, QuantizeGraphRefusesBadOptionsAndReportsItsPasses) {
  // calibrationRuns < 1 is refused before the run; a good run reports every pass it ran.
  test::GraphBuilder b;
  auto x = b.input("x", {1, 3, 8, 8});
  auto w = b.parameter("w", {4, 3, 3, 3});
  auto y = b.call("aten.convolution.default", {x, w, ir::Arg(), ir::IntList{1, 1}, ir::IntList{1, 1}, ir::IntList{1, 1},
                                                  false, ir::IntList{0, 0}, int64_t(1)});
  b.output({y});
  ir::Graph g = std::move(b.g);
  quant::QuantizeOptions o;
  o.calibrationRuns = 0;
  auto bad = quant::quantizeGraph(g, o);
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.message().find("calibrationRuns"), std::string::npos);
  auto good = quant::quantizeGraph(g);
  ASSERT_TRUE(good.isOk()) << good.message();
  ASSERT_FALSE(good->passes.empty());
  EXPECT_EQ(good->passes.back().name, "QuantizePt2ePass");
  EXPECT_EQ(good->perChannelWeights, 1u);
}

}  // namespace
}  // namespace ls
