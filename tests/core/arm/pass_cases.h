// Table-driven focused pass tests (house style): a pass on a small graph built for it changes
// what it should (its check), keeps the graph's values (reference executor), leaves the graph
// valid (structural verifier) and keeps untargeted nodes (same ids); on a graph without its
// target it is skipped with no-target-ops.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "core/exec/compare.h"
#include "core/exec/executor.h"
#include "core/exec/synth.h"
#include "core/passes/pass_manager.h"
#include "core/quant/quantizer.h"
#include "support/graph_builder.h"

namespace ls::test {

inline size_t opCount(const ir::Graph& g, const char* op) { return g.nodesOfOp(ir::internOp(op)).size(); }

struct PassCase {
  const char* pass;
  const char* target;  ///< one node of this op is built; by default the pass must remove it
  std::function<ir::ValueRef(GraphBuilder&)> build;
  /// What must hold after the pass (default: no `target` node left).
  std::function<void(const ir::Graph& before, const ir::Graph& after)> check = nullptr;
  double maxRelToMax = 1e-6;
};

inline std::vector<double> ramp(int64_t n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = 0.1 * double((i * 7) % 13) - 0.5;
  return v;
}

/// Builds the case's graph as output 0, with an untargeted relu on a second input as output 1.
inline ir::Graph buildCase(const PassCase& c, ir::NodeId* untouched) {
  GraphBuilder b;
  ir::ValueRef v = c.build(b);
  ir::ValueRef r = b.call("aten.relu.default", {b.input("bystander", {3})});
  *untouched = r.node;
  b.output({v, r});
  return std::move(b.g);
}

/// Runs `before` and `after` with the reference executor on the same seeded inputs and compares
/// their outputs (`after`'s against `before`'s); a graph that does not run fails the test.
inline exec::CompareResult sameInputsCompare(const ir::Graph& before, const ir::Graph& after, uint64_t seed) {
  exec::Executor ex({}, std::make_shared<exec::ConstantCache>());
  auto in = exec::synthesizeInputs(before, seed);
  auto want = ex.run(before, in);
  auto got = ex.run(after, in);
  EXPECT_TRUE(want.isOk()) << want.message();
  EXPECT_TRUE(got.isOk()) << got.message();
  if (!want.isOk() || !got.isOk()) return {};
  return exec::compareOutputs(*got, *want);
}

inline void runCase(const PassCase& c) {
  SCOPED_TRACE(c.pass);
  ir::NodeId untouched = ir::kInvalidNode;
  const ir::Graph before = buildCase(c, &untouched);
  ir::Graph g = before;
  ASSERT_GE(opCount(g, c.target), 1u);
  auto p = passes::PassRegistry::instance().create(c.pass);
  ASSERT_TRUE(p);
  ops::InferenceCache cache;
  passes::PassContext ctx;
  ctx.cache = &cache;
  ASSERT_TRUE(p->shouldRun(g, ctx).run);
  passes::PassResult r = p->run(g, ctx);
  ASSERT_EQ(r.status, passes::PassStatus::Changed) << r.message;
  if (c.check) c.check(before, g);
  else EXPECT_EQ(opCount(g, c.target), 0u);
  Status st = passes::VerifierInstrumentation::verifyGraph(g);
  EXPECT_TRUE(st.isOk()) << st.message();
  ASSERT_TRUE(g.find(untouched));
  EXPECT_EQ(g.node(untouched).op, ir::internOp("aten.relu.default"));
  exec::CompareResult cmp = sameInputsCompare(before, g, 5);
  EXPECT_LE(cmp.maxRelToMax, c.maxRelToMax) << cmp.message;
  EXPECT_EQ(g.outputNode()->meta(0).shape, before.outputNode()->meta(0).shape);
  EXPECT_EQ(g.outputNode()->meta(0).dtype, before.outputNode()->meta(0).dtype);
}

inline void expectSkippedWithoutTarget(const std::vector<PassCase>& cases) {
  GraphBuilder b;
  b.output({b.call("aten.relu.default", {b.input("x", {2, 3})})});
  for (const PassCase& c : cases) {
    auto p = passes::PassRegistry::instance().create(c.pass);
    ASSERT_TRUE(p) << c.pass;
    passes::PassContext ctx;
    passes::ShouldRun s = p->shouldRun(b.g, ctx);
    EXPECT_FALSE(s.run) << c.pass;
    EXPECT_EQ(s.reason, passes::SkipReason::NoTargetOps) << c.pass;
  }
}

/// Runs `pass` on the graph `build` makes and returns the failure message ("" if it did not fail).
inline std::string failureOf(const char* pass, const std::function<ir::ValueRef(GraphBuilder&)>& build) {
  GraphBuilder b;
  b.output({build(b)});
  auto p = passes::PassRegistry::instance().create(pass);
  passes::PassContext ctx;
  passes::PassResult r = p->run(b.g, ctx);
  return r.status == passes::PassStatus::Failed ? r.message : "";
}

/// `g` through the tosa pipeline under `profile` (INT: quantized first, seeded calibration);
/// a failing pass fails the test.
inline ir::Graph lowerTosa(ir::Graph g, passes::Profile profile) {
  if (profile == passes::Profile::INT) {
    auto rep = quant::quantizeGraph(g, {});
    EXPECT_TRUE(rep.isOk()) << rep.message();
  }
  auto pm = passes::PassManager::fromPipeline("tosa");
  EXPECT_TRUE(pm.isOk()) << pm.message();
  if (!pm.isOk()) return {};
  ops::InferenceCache cache;
  passes::PassContext ctx;
  ctx.profile = profile;
  ctx.cache = &cache;
  auto run = pm->run(g, ctx);
  EXPECT_EQ(run.failedIndex, -1) << run.failure;
  return g;
}

}  // namespace ls::test
