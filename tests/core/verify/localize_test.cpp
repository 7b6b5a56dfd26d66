// Numerics localisation: a test-only pass that corrupts one node of a 200-node graph is
// localised to that node (kept in place or replaced by new nodes), downstream nodes are never
// the culprit, a pass that only reassociates float additions flags nothing, a layout change
// is skipped with its reason, and the result survives .lstrace.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "core/exec/synth.h"
#include "core/io/lstrace.h"
#include "core/passes/node_builder.h"
#include "core/passes/retrace.h"
#include "core/trace/trace_recorder.h"
#include "core/transforms/generic_passes.h"
#include "core/verify/localize.h"
#include "core/verify/verify.h"
#include "support/corrupt_pass.h"
#include "support/graph_builder.h"

namespace ls::verify {
namespace {

using passes::NodeBuilder;
using passes::PassManager;
using passes::Rewriter;
using test::CorruptOneAddPass;

// ---------------------------------------------------------------- test-only passes

/// WRONG on purpose: the add named `victim` is replaced by new nodes computing (a + b) * 1.5.
class BiasOneAddPass : public passes::RetracePass {
 public:
  explicit BiasOneAddPass(std::string victim)
      : RetracePass("BiasOneAddPass", "test only: one add rebuilt with a factor (wrong)"), victim_(std::move(victim)) {
    targets({"aten.add.Tensor"});
  }

 protected:
  Status rewrite(Rewriter& rw) override {
    if (rw.node().name != victim_) return Status::ok();
    NodeBuilder nb(rw);
    LS_ASSIGN_OR_RETURN(sum, nb.op("aten.add.Tensor", rw.node().args));
    LS_ASSIGN_OR_RETURN(scaled, nb.op("aten.mul.Scalar", {sum, 1.5}));
    rw.replaceWith(scaled);
    return Status::ok();
  }

 private:
  std::string victim_;
};

/// Correct up to float rounding: add(add(a, b), c) becomes add(a, add(b, c)) (new nodes).
class ReassociateAddsPass : public passes::RetracePass {
 public:
  ReassociateAddsPass() : RetracePass("ReassociateAddsPass", "test only: (a + b) + c -> a + (b + c)") {
    targets({"aten.add.Tensor"});
  }

 protected:
  Status rewrite(Rewriter& rw) override {
    static const ir::OpId kAdd = ir::internOp("aten.add.Tensor");
    const ir::Node& n = rw.node();
    const ir::ValueRef* inner = n.args.size() == 2 ? n.args[0].ref() : nullptr;
    const ir::ValueRef* c = n.args.size() == 2 ? n.args[1].ref() : nullptr;
    if (!inner || !c || !n.kwargs.empty()) return Status::ok();
    const ir::Node& p = rw.graph().node(inner->node);
    if (p.op != kAdd || p.args.size() != 2 || !p.kwargs.empty() || !p.args[0].ref() || !p.args[1].ref())
      return Status::ok();
    NodeBuilder nb(rw);
    LS_ASSIGN_OR_RETURN(bc, nb.op("aten.add.Tensor", {p.args[1], *c}));
    LS_ASSIGN_OR_RETURN(abc, nb.op("aten.add.Tensor", {p.args[0], bc}));
    rw.replaceWith(abc);
    return Status::ok();
  }
};

/// WRONG shape on purpose for comparison: the tanh named `victim` is computed on a transposed
/// value and transposed back, so the node keeps its id but the producer's layout changes.
class TransposeOneTanhInputPass : public passes::RetracePass {
 public:
  explicit TransposeOneTanhInputPass(std::string victim)
      : RetracePass("TransposeOneTanhInputPass", "test only: tanh on a transposed value (layout change)"),
        victim_(std::move(victim)) {
    targets({"aten.tanh.default"});
  }

 protected:
  Status rewrite(Rewriter& rw) override {
    if (rw.node().name != victim_) return Status::ok();
    NodeBuilder nb(rw);
    LS_ASSIGN_OR_RETURN(t, nb.op("aten.permute_copy.default", {rw.node().args[0], ir::IntList{1, 0}}));
    LS_ASSIGN_OR_RETURN(th, nb.op("aten.tanh.default", {t}));
    LS_ASSIGN_OR_RETURN(back, nb.op("aten.permute_copy.default", {th, ir::IntList{1, 0}}));
    rw.replaceWith(back);
    return Status::ok();
  }

 private:
  std::string victim_;
};

/// WRONG on purpose: rounds the input of every float -> int cast to nearest first, as a bare
/// TOSA CAST does (torch truncates): off by one for about half of the fractional values.
class RoundBeforeIntCastPass : public passes::RetracePass {
 public:
  RoundBeforeIntCastPass() : RetracePass("RoundBeforeIntCastPass", "test only: cast rounds (wrong)") {
    targets({"aten._to_copy.default"});
  }

 protected:
  Status rewrite(Rewriter& rw) override {
    if (ir::isFloating(rw.node().meta().dtype)) return Status::ok();
    NodeBuilder nb(rw);
    LS_ASSIGN_OR_RETURN(r, nb.op("aten.round.default", {rw.node().args[0]}));
    rw.setArgs({r});
    return Status::ok();
  }
};

// ---------------------------------------------------------------- helpers

/// `calls` call nodes over x, y [4, 16] in a cycle of add, add, mul by a scalar, tanh, sub;
/// each reads the previous value and the one three back (values stay bounded, every node
/// feeds the output). Node i is named "<op>_<i>".
ir::Graph chainGraph(int calls) {
  test::GraphBuilder b;
  std::vector<ir::ValueRef> v{b.input("x", {4, 16}), b.input("y", {4, 16})};
  for (int i = 0; i < calls; ++i) {
    const ir::ValueRef a = v.back(), c = v[v.size() >= 3 ? v.size() - 3 : 0];
    switch (i % 5) {
      case 0:
      case 1: v.push_back(b.call("aten.add.Tensor", {a, c}, {}, fmt::format("add_{}", i))); break;
      case 2: v.push_back(b.call("aten.mul.Scalar", {a, 0.75}, {}, fmt::format("mul_{}", i))); break;
      case 3: v.push_back(b.call("aten.tanh.default", {a}, {}, fmt::format("tanh_{}", i))); break;
      default: v.push_back(b.call("aten.sub.Tensor", {a, c}, {}, fmt::format("sub_{}", i))); break;
    }
  }
  b.output({v.back()});
  return std::move(b.g);
}

struct PipelineRun {
  trace::Trace trace;
  std::shared_ptr<const Reference> ref;
  int firstBad = -1;
};

/// Runs `passes` on `g` with verify-each (normwise tolerance, as the CLI) and a trace recorder.
PipelineRun runPipeline(ir::Graph g, std::vector<std::unique_ptr<passes::Pass>> list) {
  PassManager pm;
  for (auto& p : list) pm.add(std::move(p));
  VerifyOptions o;
  o.compare.scaleRelative = true;
  VerifyEachInstrumentation each(o);
  trace::TraceRecorder rec;
  pm.addInstrumentation(&each);
  pm.addInstrumentation(&rec);
  passes::PassContext ctx;
  ops::InferenceCache cache;
  ctx.cache = &cache;
  passes::RunResult res = pm.run(g, ctx);
  EXPECT_EQ(res.failedIndex, -1) << res.failure;
  EXPECT_TRUE(each.setupStatus().isOk()) << each.setupStatus().message();
  PipelineRun r;
  r.trace = rec.take();
  r.ref = std::make_shared<const Reference>(*each.reference());
  if (const PassCheck* f = each.firstFailure()) r.firstBad = f->passIndex;
  return r;
}

template <typename... P>
std::vector<std::unique_ptr<passes::Pass>> passList(std::unique_ptr<P>... p) {
  std::vector<std::unique_ptr<passes::Pass>> v;
  (v.push_back(std::move(p)), ...);
  return v;
}

ir::NodeId idOf(const ir::Graph& g, const std::string& name) {
  for (const ir::NodePtr& p : g.nodes())
    if (p->name == name) return p->id;
  return ir::kInvalidNode;
}

size_t sources(const trace::Localization& l) {
  return size_t(std::count_if(l.nodes.begin(), l.nodes.end(), [](const trace::NodeError& e) { return e.source; }));
}

// ---------------------------------------------------------------- tests

TEST(Localize, CorruptedNodeKeptInPlaceIsTheCulprit) {
  ir::Graph g = chainGraph(200);
  ASSERT_EQ(g.size(), 203u);  // 2 inputs, 200 calls, output
  const ir::NodeId victim = idOf(g, "add_100");
  PipelineRun r = runPipeline(g, passList(std::make_unique<transforms::RemoveNoopClonePass>(),
                                  std::make_unique<CorruptOneAddPass>("add_100"), std::make_unique<ReassociateAddsPass>()));
  ASSERT_EQ(r.firstBad, 1) << "verify-each names the corrupting pass";
  auto loc = localizePass(r.trace, r.firstBad, *r.ref);
  ASSERT_TRUE(loc.isOk()) << loc.message();
  EXPECT_EQ(loc->pass, "CorruptOneAddPass");
  EXPECT_EQ(loc->culprit, victim);
  const trace::NodeError* c = loc->find(victim);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->match, trace::NodeMatch::SameId);
  EXPECT_TRUE(c->exceeds && c->source);
  EXPECT_LE(c->inputError, 1.0);
  // The error flows on: many nodes below exceed, none of them is where it starts.
  EXPECT_GT(loc->exceeding(), 20u);
  EXPECT_EQ(sources(*loc), 1u);
  for (const trace::NodeError& e : loc->nodes) {
    if (e.exceeds && e.id != victim) {
      EXPECT_GT(e.inputError, 1.0) << r.trace.graphAfter(1).node(e.id).name;
    }
    if (e.id < victim) {
      EXPECT_FALSE(e.exceeds) << "above the victim: " << r.trace.graphAfter(1).node(e.id).name;
    }
  }
  // The ranking puts an exceeding node first; every call node was compared or skipped.
  EXPECT_TRUE(loc->nodes[loc->ranked().front()].exceeds);
  EXPECT_EQ(loc->nodes.size() + loc->skipped.size(), r.trace.graphAfter(1).size() - 3);
}

TEST(Localize, IntegerValuesOffByOneAreCaughtAndLocalised) {
  // (x * 2.5).int() + 1: the integers must be equal, so verify-each fails the rounding pass
  // (one unit is no quantisation step), and localisation names the cast, not the add below it.
  test::GraphBuilder b;
  auto scaled = b.call("aten.mul.Tensor", {b.input("x", {4, 16}), 2.5}, {}, "scaled");
  auto toInt = b.call("aten._to_copy.default", {scaled},
                      {{"dtype", ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(ir::DType::Int32)})}}, "to_int");
  auto plusOne = b.call("aten.add.Tensor", {toInt, int64_t(1)}, {}, "plus_one");
  b.output({plusOne});
  PipelineRun r = runPipeline(b.g, passList(std::make_unique<RoundBeforeIntCastPass>()));
  ASSERT_EQ(r.firstBad, 0) << "verify-each names the rounding pass";
  auto loc = localizePass(r.trace, r.firstBad, *r.ref);
  ASSERT_TRUE(loc.isOk()) << loc.message();
  EXPECT_EQ(loc->culprit, toInt.node);
  const trace::NodeError* c = loc->find(toInt.node);
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(std::isinf(c->error)) << c->error;  // any integer difference: no tolerance
  EXPECT_EQ(c->maxAbsError, 1.0);
  const trace::NodeError* below = loc->find(plusOne.node);
  ASSERT_NE(below, nullptr);
  EXPECT_TRUE(below->exceeds && !below->source);
  EXPECT_NE(loc->metric.find("other integers: exact"), std::string::npos) << loc->metric;
}

TEST(Localize, CorruptedNodeReplacedByNewNodesIsFoundThroughProvenance) {
  ir::Graph g = chainGraph(200);
  const ir::NodeId victim = idOf(g, "add_150");
  PipelineRun r = runPipeline(g, passList(std::make_unique<BiasOneAddPass>("add_150")));
  ASSERT_EQ(r.firstBad, 0);
  auto loc = localizePass(r.trace, 0, *r.ref);
  ASSERT_TRUE(loc.isOk()) << loc.message();
  const ir::Graph& after = r.trace.graphAfter(0);
  ASSERT_FALSE(after.contains(victim));
  ASSERT_NE(loc->culprit, ir::kInvalidNode);
  const ir::Node& culprit = after.node(loc->culprit);
  EXPECT_EQ(culprit.target, "aten.mul.Scalar");  // the value that replaces add_150
  EXPECT_EQ(culprit.provenance.derivedFrom, std::vector<ir::NodeId>{victim});
  const trace::NodeError* c = loc->find(loc->culprit);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->match, trace::NodeMatch::Provenance);
  EXPECT_EQ(c->matched, victim);
  EXPECT_EQ(sources(*loc), 1u);
  // The new add inside the rewrite is skipped with the reason, not compared with add_150.
  ASSERT_EQ(loc->skipped.size(), 1u);
  EXPECT_NE(loc->skipped[0].reason.find("inside the rewrite of 'add_150'"), std::string::npos) << loc->skipped[0].reason;
}

TEST(Localize, ReassociationIsNotFlagged) {
  ir::Graph g = chainGraph(200);
  PipelineRun r = runPipeline(g, passList(std::make_unique<ReassociateAddsPass>()));
  EXPECT_EQ(r.firstBad, -1) << "reassociating float additions keeps the outputs within tolerance";
  ASSERT_EQ(r.trace.records.size(), 1u);
  ASSERT_EQ(r.trace.records[0].status, passes::PassStatus::Changed);
  auto loc = localizePass(r.trace, 0, *r.ref);
  ASSERT_TRUE(loc.isOk()) << loc.message();
  EXPECT_EQ(loc->culprit, ir::kInvalidNode);
  EXPECT_EQ(loc->exceeding(), 0u);
  // The pass did change values (float rounding) and its new nodes were compared by provenance.
  size_t byProvenance = 0;
  double worstAbs = 0;
  for (const trace::NodeError& e : loc->nodes) {
    byProvenance += e.match == trace::NodeMatch::Provenance;
    worstAbs = std::max(worstAbs, e.maxAbsError);
  }
  EXPECT_GE(byProvenance, 30u);
  EXPECT_GT(worstAbs, 0.0) << "the rewrite must change some bits for this test to mean anything";
}

TEST(Localize, LayoutChangesAreSkippedWithTheirReason) {
  ir::Graph g = chainGraph(40);
  PipelineRun r = runPipeline(g, passList(std::make_unique<TransposeOneTanhInputPass>("tanh_18")));
  ASSERT_EQ(r.trace.records[0].status, passes::PassStatus::Changed);
  auto loc = localizePass(r.trace, 0, *r.ref);
  ASSERT_TRUE(loc.isOk()) << loc.message();
  EXPECT_EQ(loc->culprit, ir::kInvalidNode);
  // The permute back is the value tanh_18 had: compared; the transposed tanh is not comparable.
  bool transposedSkipped = false;
  for (const trace::SkippedNode& s : loc->skipped)
    transposedSkipped = transposedSkipped || s.reason.find("f32[16,4]") != std::string::npos ||
                        s.reason.find("inside the rewrite") != std::string::npos;
  EXPECT_TRUE(transposedSkipped);
  const ir::Graph& after = r.trace.graphAfter(0);
  const ir::NodeId victim = idOf(r.trace.graphBefore(0), "tanh_18");
  bool backCompared = false;
  for (const trace::NodeError& e : loc->nodes)
    if (e.matched == victim) backCompared = after.node(e.id).target == "aten.permute_copy.default" && !e.exceeds;
  EXPECT_TRUE(backCompared);
}

TEST(Localize, DirectComparisonSkipsShapeChangesAndNamesTheGraphThatFails) {
  // Same node id, different shape: not comparable, skipped with both metas.
  test::GraphBuilder b;
  auto x = b.input("x", {2, 3});
  auto t = b.call("aten.tanh.default", {x}, {}, "t");
  b.output({t});
  ir::Graph before = b.g;
  ir::Graph after = b.g;
  {
    ir::Node& n = after.mutableNode(t.node);
    n.target = "aten.permute_copy.default";
    n.op = ir::internOp(n.target);
    n.args = {x, ir::IntList{1, 0}};
    n.outputs = {ir::TensorMeta(ir::DType::Float32, {3, 2})};
    ir::Node& out = after.mutableNode(after.at(after.size() - 1).id);
    out.outputs = {ir::TensorMeta(ir::DType::Float32, {3, 2})};
  }
  auto inputs = exec::synthesizeInputs(before, 1);
  auto loc = localize(before, after, inputs, {});
  ASSERT_TRUE(loc.isOk()) << loc.message();
  ASSERT_EQ(loc->skipped.size(), 1u);
  EXPECT_NE(loc->skipped[0].reason.find("f32[3,2] vs f32[2,3]"), std::string::npos) << loc->skipped[0].reason;
  // A graph that does not run: the error says which one.
  ir::Graph broken = before;
  broken.mutableNode(t.node).outputs = {ir::TensorMeta(ir::DType::Float32, {5, 5})};
  auto bad = localize(before, broken, inputs, {});
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.message().find("after the pass does not run"), std::string::npos) << bad.message();
}

TEST(Localize, SurvivesTheTraceFile) {
  ir::Graph g = chainGraph(200);
  PipelineRun r = runPipeline(g, passList(std::make_unique<BiasOneAddPass>("add_60")));
  auto loc = localizePass(r.trace, 0, *r.ref);
  ASSERT_TRUE(loc.isOk()) << loc.message();
  r.trace.localization = std::make_shared<const trace::Localization>(*loc);
  auto bytes = io::serializeTrace(r.trace);
  ASSERT_TRUE(bytes.isOk()) << bytes.message();
  auto back = io::loadTraceBytes(*bytes, "loc.lstrace");
  ASSERT_TRUE(back.isOk()) << back.message();
  ASSERT_TRUE(back->localization);
  EXPECT_EQ(*back->localization, *loc);
  // A trace without localisation stays without one.
  r.trace.localization.reset();
  auto plainBytes = io::serializeTrace(r.trace);
  ASSERT_TRUE(plainBytes.isOk()) << plainBytes.message();
  auto plain = io::loadTraceBytes(*plainBytes, "plain.lstrace");
  ASSERT_TRUE(plain.isOk());
  EXPECT_FALSE(plain->localization);
  // A localisation naming a node the graph does not have is an error naming the file.
  trace::Localization wrong = *loc;
  wrong.nodes[0].id = 99999;
  r.trace.localization = std::make_shared<const trace::Localization>(wrong);
  auto wrongBytes = io::serializeTrace(r.trace);
  ASSERT_TRUE(wrongBytes.isOk()) << wrongBytes.message();
  auto rejected = io::loadTraceBytes(*wrongBytes, "wrong.lstrace");
  ASSERT_FALSE(rejected.isOk());
  EXPECT_NE(rejected.message().find("wrong.lstrace (localisation)"), std::string::npos) << rejected.message();
}

TEST(Localize, RealModelThroughTheGenericPipelineWithACorruptedResidualAdd) {
  auto model = test::modelWithAdds("resnet18.fxjson.json");
  ASSERT_TRUE(model.isOk()) << model.message();
  const ir::Graph& g = model->graph;
  const std::vector<std::string>& adds = model->adds;
  ASSERT_GE(adds.size(), 4u);
  // The middle residual add of the network.
  const std::string victim = adds[adds.size() / 2];
  auto list = passList(std::make_unique<transforms::RemoveNoopClonePass>(), std::make_unique<transforms::RemoveNoopViewPass>(),
                       std::make_unique<CorruptOneAddPass>(victim), std::make_unique<transforms::DeadCodeEliminationPass>());
  PipelineRun r = runPipeline(g, std::move(list));
  ASSERT_GE(r.firstBad, 0);
  EXPECT_EQ(r.trace.records[size_t(r.firstBad)].name, "CorruptOneAddPass");
  auto loc = localizePass(r.trace, r.firstBad, *r.ref);
  ASSERT_TRUE(loc.isOk()) << loc.message();
  ASSERT_NE(loc->culprit, ir::kInvalidNode);
  EXPECT_EQ(r.trace.graphAfter(r.firstBad).node(loc->culprit).name, victim);
  EXPECT_EQ(sources(*loc), 1u);
}

}  // namespace
}  // namespace ls::verify
