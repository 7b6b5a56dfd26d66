// Pass engine tests: skipping with reasons (incl. nested graphs and disallowed targets),
// fast-copy keeping ids and sharing nodes, downstream re-inference, the verifier catching
// stale metadata, disable / failure / must-run-after, provenance, and mode equivalence on
// every real graph and registered pipeline.
#include <gtest/gtest.h>

#include "core/trace/trace_recorder.h"
#include "core/io/fxjson.h"
#include "core/ir/printer.h"
#include "core/passes/editor.h"
#include "core/passes/pass_manager.h"
#include "core/passes/retrace.h"
#include "support/graph_builder.h"

namespace ls {
namespace {

using namespace passes;
using ir::IntList;

ir::Graph loadReal(const std::string& name) {
  auto g = io::importFxJsonFile(std::string(LS_ASSETS_DIR) + "/graphs/" + name);
  EXPECT_TRUE(g.isOk()) << g.message();
  return std::move(g).value();
}

/// relu -> hardtanh(x, 0, inf): an in-place op rewrite, same id.
class ReluToHardtanh : public RetracePass {
 public:
  ReluToHardtanh() : RetracePass("ReluToHardtanh", "test") { targets({"aten.relu.default"}); }
  Status rewrite(Rewriter& rw) override {
    rw.rewriteInPlace("aten.hardtanh.default", {rw.node().args[0], 0.0, INFINITY});
    return Status::ok();
  }
};

/// gelu -> x * sigmoid(1.702 x): emits new nodes and replaces the hot node (1 -> N).
class GeluToSigmoid : public RetracePass {
 public:
  GeluToSigmoid() : RetracePass("GeluToSigmoid", "test") {
    targets({"aten.gelu.default"});
    checkAllowed();
  }
  Status rewrite(Rewriter& rw) override {
    ir::Arg x = rw.node().args[0];
    auto s = rw.emit("aten.mul.Tensor", {x, 1.702});
    if (!s) return s.status();
    auto sg = rw.emit("aten.sigmoid.default", {s.value()});
    if (!sg) return sg.status();
    auto m = rw.emit("aten.mul.Tensor", {x, sg.value()});
    if (!m) return m.status();
    rw.replaceWith(m.value());
    return Status::ok();
  }
};

/// Changes max-pool stride 2 -> 1: downstream shapes change and must be re-inferred.
class PoolStrideOne : public RetracePass {
 public:
  PoolStrideOne() : RetracePass("PoolStrideOne", "test") { targets({"aten.max_pool2d_with_indices.default"}); }
  Status rewrite(Rewriter& rw) override {
    auto args = rw.node().args;
    args[2] = IntList{1, 1};
    rw.setArgs(args);
    return Status::ok();
  }
};

/// A deliberately buggy in-place pass: rewires an add's operand to a value of another shape
/// and does not refresh metadata (the bug seed 002's review found).
class StaleMetaPass : public Pass {
 public:
  StaleMetaPass() : Pass("StaleMetaPass", "test") { targets({"aten.mean.dim"}); }
  PassResult runImpl(ir::Graph& g, PassContext&) override {
    ir::NodeId id = g.nodesOfOp(ir::internOp("aten.mean.dim"))[0];
    ir::Node& n = g.mutableNode(id);
    n.args[2] = false;  // keepdim True -> False, output metadata left as it was
    return PassResult::changed();
  }
};

class FailingPass : public InPlacePass {
 public:
  FailingPass() : InPlacePass("FailingPass", "test") { targets({"aten.convolution.default"}); }
  Status transform(GraphEditor& ed) override {
    ed.setArgs(ed.graph().nodesOfOp(ir::internOp("aten.convolution.default"))[0], {});
    return Status::error("refusing on purpose after a partial edit");
  }
};

PassContext makeCtx(ops::InferenceCache* cache, EngineOptions opt = {}) {
  PassContext ctx;
  ctx.engine = opt;
  ctx.cache = cache;
  return ctx;
}

TEST(ShouldRun, SkippedWithNoTargetOpsOnRealGraph) {
  ir::Graph g = loadReal("resnet18.fxjson.json");  // no gelu in resnet
  GeluToSigmoid p;
  ops::InferenceCache cache;
  PassContext ctx = makeCtx(&cache);
  ShouldRun sr = p.shouldRun(g, ctx);
  EXPECT_FALSE(sr.run);
  EXPECT_EQ(sr.reason, SkipReason::NoTargetOps);
  PassManager pm;
  pm.add(std::make_unique<GeluToSigmoid>());
  auto res = pm.run(g, ctx);
  ASSERT_EQ(res.records.size(), 1u);
  EXPECT_EQ(res.records[0].status, PassStatus::Skipped);
  EXPECT_EQ(skipReasonName(res.records[0].reason), "no-target-ops");
}

TEST(ShouldRun, RunsWhenTheOnlyTargetIsInANestedGraph) {
  test::GraphBuilder outer;
  auto x = outer.input("x", {2, 4});
  auto r = outer.call("aten.relu.default", {x});
  outer.output({r});
  test::GraphBuilder body;
  auto y = body.input("y", {2, 4});
  auto ge = body.call("aten.gelu.default", {y});
  body.output({ge});
  outer.g.subgraphs()["body"] = std::make_shared<ir::Graph>(body.g);
  GeluToSigmoid p;
  ops::InferenceCache cache;
  PassContext ctx = makeCtx(&cache);
  EXPECT_TRUE(p.shouldRun(outer.g, ctx).run);
  PassResult res = p.run(outer.g, ctx);
  EXPECT_EQ(res.status, PassStatus::Changed) << res.message;
  const ir::Graph& nb = *outer.g.subgraphs().at("body");
  EXPECT_TRUE(nb.nodesOfOp(ir::internOp("aten.gelu.default")).empty());
  EXPECT_EQ(nb.nodesOfOp(ir::internOp("aten.sigmoid.default")).size(), 1u);
  EXPECT_TRUE(VerifierInstrumentation::verifyGraph(outer.g).isOk());
}

TEST(ShouldRun, SkippedWhenAllTargetsAreDisallowed) {
  ir::Graph g = loadReal("deit_tiny_vit.fxjson.json");
  for (ir::NodeId id : std::vector<ir::NodeId>(g.nodesOfOp(ir::internOp("aten.gelu.default")).begin(),
                                               g.nodesOfOp(ir::internOp("aten.gelu.default")).end()))
    g.mutableNode(id).flags |= ir::kFlagDisallowTransform;
  GeluToSigmoid p;
  ops::InferenceCache cache;
  PassContext ctx = makeCtx(&cache);
  ShouldRun sr = p.shouldRun(g, ctx);
  EXPECT_FALSE(sr.run);
  EXPECT_EQ(sr.reason, SkipReason::TargetsDisallowed);
  // One allowed node is enough to run, and only it is rewritten.
  ir::NodeId first = g.nodesOfOp(ir::internOp("aten.gelu.default"))[0];
  g.mutableNode(first).flags &= ~uint32_t(ir::kFlagDisallowTransform);
  EXPECT_TRUE(p.shouldRun(g, ctx).run);
  ASSERT_EQ(p.run(g, ctx).status, PassStatus::Changed);
  EXPECT_EQ(g.nodesOfOp(ir::internOp("aten.gelu.default")).size(), 11u);
}

TEST(Retrace, ColdNodesKeepIdsAndAreShared) {
  ir::Graph g = loadReal("resnet18.fxjson.json");
  ir::Graph before = g;
  ReluToHardtanh p;
  ops::InferenceCache cache;
  PassContext ctx = makeCtx(&cache);
  ASSERT_EQ(p.run(g, ctx).status, PassStatus::Changed);
  EXPECT_EQ(g.size(), before.size());
  EXPECT_TRUE(g.nodesOfOp(ir::internOp("aten.relu.default")).empty());
  EXPECT_EQ(g.nodesOfOp(ir::internOp("aten.hardtanh.default")).size(), 17u);
  size_t shared = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    EXPECT_EQ(g.at(i).id, before.at(i).id);
    if (g.ptrAt(i).get() == before.ptrAt(i).get()) ++shared;
  }
  EXPECT_EQ(shared, g.size() - 17);  // every cold node is the same node version
  EXPECT_EQ(ctx.counters.hot, 17u);
  EXPECT_EQ(ctx.counters.reinferred, 0u);  // relu -> hardtanh keeps metadata: nothing downstream re-inferred
  EXPECT_TRUE(VerifierInstrumentation::verifyGraph(g).isOk());
}

TEST(Retrace, HotShapeChangeReinfersDownstream) {
  ir::Graph g = loadReal("resnet18.fxjson.json");
  ir::Graph before = g;
  PoolStrideOne p;
  ops::InferenceCache cache;
  PassContext ctx = makeCtx(&cache);
  ASSERT_EQ(p.run(g, ctx).status, PassStatus::Changed);
  // 112 -> maxpool k3 s1 p1 -> 112; every later spatial tensor doubles; the classifier keeps [1,1000].
  ir::NodeId pool = g.nodesOfOp(ir::internOp("aten.max_pool2d_with_indices.default"))[0];
  EXPECT_EQ(ir::toString(g.node(pool).meta(0)), "f32[1,64,112,112]");
  // Every call node between the pool and the global mean is re-inferred (83 of them)...
  EXPECT_EQ(ctx.counters.reinferred, 83u);
  EXPECT_TRUE(VerifierInstrumentation::verifyGraph(g).isOk()) << VerifierInstrumentation::verifyGraph(g).message();
  ir::NodeId mean = g.nodesOfOp(ir::internOp("aten.mean.dim"))[0];
  EXPECT_EQ(ir::toString(g.node(mean).meta(0)), "f32[1,512,1,1]");
  // ...but after it the metadata is unchanged again, so the classifier is fast-copied.
  ir::NodeId addmm = g.nodesOfOp(ir::internOp("aten.addmm.default"))[0];
  EXPECT_EQ(g.findPtr(addmm)->get(), before.findPtr(addmm)->get());
  const ir::Node* out = g.outputNode();
  EXPECT_EQ(ir::toString(out->outputs[0]), "f32[1,1000]");
}

TEST(Retrace, EmittedNodesRecordProvenance) {
  ir::Graph g = loadReal("deit_tiny_vit.fxjson.json");
  ir::NodeId gelu0 = g.nodesOfOp(ir::internOp("aten.gelu.default"))[0];
  GeluToSigmoid p;
  ops::InferenceCache cache;
  PassContext ctx = makeCtx(&cache);
  ASSERT_EQ(p.run(g, ctx).status, PassStatus::Changed);
  size_t fromGelu0 = 0;
  for (const ir::NodePtr& n : g.nodes()) {
    if (n->provenance.createdBy != "GeluToSigmoid") continue;
    ASSERT_EQ(n->provenance.derivedFrom.size(), 1u);
    if (n->provenance.derivedFrom[0] == gelu0) ++fromGelu0;
  }
  EXPECT_EQ(fromGelu0, 3u);
  EXPECT_EQ(g.nodesOfOp(ir::internOp("aten.sigmoid.default")).size(), 12u);
  EXPECT_TRUE(VerifierInstrumentation::verifyGraph(g).isOk());
}

TEST(Verifier, CatchesStaleMetadataAndNamesThePass) {
  ir::Graph g = loadReal("resnet18.fxjson.json");
  PassManager pm;
  pm.add(std::make_unique<StaleMetaPass>());
  pm.add(std::make_unique<ReluToHardtanh>());
  VerifierInstrumentation verifier;
  pm.addInstrumentation(&verifier);
  ops::InferenceCache cache;
  PassContext ctx = makeCtx(&cache);
  ir::Graph original = g;
  auto res = pm.run(g, ctx);
  ASSERT_EQ(res.records.size(), 2u);
  EXPECT_EQ(res.records[0].status, PassStatus::Failed);
  EXPECT_NE(res.records[0].message.find("verifier failed after pass 'StaleMetaPass' (#0)"), std::string::npos)
      << res.records[0].message;
  EXPECT_NE(res.records[0].message.find("stale metadata"), std::string::npos);
  EXPECT_EQ(res.records[1].status, PassStatus::Skipped);
  EXPECT_EQ(res.records[1].reason, SkipReason::NotReached);
  EXPECT_EQ(ir::printGraph(g), ir::printGraph(original));  // rolled back to the last good graph
}

TEST(Manager, DisabledFailedAndMustRunAfter) {
  ir::Graph g = loadReal("resnet18.fxjson.json");
  ir::Graph original = g;
  PassManager pm;
  pm.add(std::make_unique<ReluToHardtanh>());
  pm.add(std::make_unique<FailingPass>());
  pm.add(std::make_unique<PoolStrideOne>());
  pm.disable("ReluToHardtanh");
  ASSERT_TRUE(pm.validate().isOk());
  trace::TraceRecorder rec;
  pm.addInstrumentation(&rec);
  ops::InferenceCache cache;
  PassContext ctx = makeCtx(&cache);
  auto res = pm.run(g, ctx);
  ASSERT_EQ(res.records.size(), 3u);
  EXPECT_EQ(res.records[0].status, PassStatus::Skipped);
  EXPECT_EQ(res.records[0].reason, SkipReason::Disabled);
  EXPECT_EQ(res.records[1].status, PassStatus::Failed);
  EXPECT_NE(res.records[1].message.find("refusing on purpose"), std::string::npos);
  EXPECT_EQ(res.failedIndex, 1);
  EXPECT_EQ(ir::printGraph(g), ir::printGraph(original));  // the partial edit never reached g
  EXPECT_EQ(rec.trace().records.size(), 3u);
  EXPECT_EQ(ir::printGraph(rec.trace().finalGraph()), ir::printGraph(original));

  PassManager bad;
  class Needs : public ReluToHardtanh {
   public:
    Needs() { runAfter("PoolStrideOne"); }
  };
  bad.add(std::make_unique<Needs>());
  bad.add(std::make_unique<PoolStrideOne>());
  Status st = bad.validate();
  ASSERT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("must run after 'PoolStrideOne'"), std::string::npos) << st.message();
  bad.disable("NoSuchPass");
  EXPECT_NE(bad.validate().message().find("cannot disable 'NoSuchPass'"), std::string::npos);
}

TEST(Editor, InsertReplaceEraseAndRefresh) {
  test::GraphBuilder b;
  auto x = b.input("x", {1, 4, 8, 8});
  auto r = b.call("aten.relu.default", {x}, {}, "r");
  auto m = b.call("aten.mean.dim", {r, IntList{-1, -2}, true}, {}, "m");
  b.output({m});
  class Insert : public InPlacePass {
   public:
    Insert() : InPlacePass("Insert", "test") {}
    Status transform(GraphEditor& ed) override {
      ir::NodeId r = ed.graph().findByName("r");
      ir::NodeId m = ed.graph().findByName("m");
      // pool before the mean: the mean's input shape changes and its metadata is refreshed
      auto p = ed.insertAfter(r, "aten.avg_pool2d.default", {ir::ValueRef{r, 0}, IntList{2, 2}}, {}, "pool", {r});
      if (!p) return p.status();
      ed.replaceUse(m, {r, 0}, p.value());
      return Status::ok();
    }
  } pass;
  ops::InferenceCache cache;
  PassContext ctx = makeCtx(&cache);
  ASSERT_EQ(pass.run(b.g, ctx).status, PassStatus::Changed);
  EXPECT_EQ(ir::printNode(b.g, b.g.node(b.g.findByName("pool"))),
            "%pool = aten.avg_pool2d.default(%r, [2, 2]) : f32[1,4,4,4]");
  EXPECT_EQ(b.g.node(b.g.findByName("pool")).provenance.createdBy, "Insert");
  EXPECT_TRUE(VerifierInstrumentation::verifyGraph(b.g).isOk()) << VerifierInstrumentation::verifyGraph(b.g).message();
}

// Every registered pipeline on every real graph: the final printed graph is identical with
// skipping, fast-copy and the cache each switched off.
class Equivalence : public ::testing::TestWithParam<std::string> {};

TEST_P(Equivalence, AllEngineModesGiveIdenticalResults) {
  ir::Graph src = loadReal(GetParam());
  for (const std::string& pipeline : PipelineRegistry::instance().names()) {
    std::vector<std::string> printed;
    std::vector<EngineOptions> modes = {{true, true, true}, {false, true, true}, {true, false, true},
                                        {true, true, false}, {false, false, false}};
    for (const EngineOptions& opt : modes) {
      ir::Graph g = src;
      auto pm = PassManager::fromPipeline(pipeline);
      ASSERT_TRUE(pm.isOk()) << pm.message();
      VerifierInstrumentation verifier;
      pm->addInstrumentation(&verifier);
      ops::InferenceCache cache;
      PassContext ctx = makeCtx(&cache, opt);
      auto res = pm->run(g, ctx);
      ASSERT_EQ(res.failedIndex, -1) << pipeline << ": " << res.failure;
      printed.push_back(ir::printGraph(g));
    }
    for (size_t i = 1; i < printed.size(); ++i)
      EXPECT_EQ(printed[0], printed[i]) << GetParam() << " pipeline " << pipeline << " mode " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(RealGraphs, Equivalence,
                         ::testing::Values("mobilenet_v2.fxjson.json", "mobilenet_v3_small.fxjson.json",
                                           "resnet18.fxjson.json", "squeezenet1_1.fxjson.json",
                                           "efficientnet_b0.fxjson.json", "deeplabv3_mobilenet_v3_large.fxjson.json",
                                           "deit_tiny_vit.fxjson.json", "wav2letter.fxjson.json"),
                         [](const auto& pinfo) { return pinfo.param.substr(0, pinfo.param.find('.')); });

}  // namespace
}  // namespace ls
