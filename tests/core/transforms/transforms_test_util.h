// Helpers of the core/transforms tests: run one pass as the manager would, count ops, compare
// a graph with its transformed copy on the reference executor, verify metadata.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/exec/compare.h"
#include "core/exec/executor.h"
#include "core/exec/synth.h"
#include "core/passes/pass_manager.h"
#include "support/graph_builder.h"

namespace ls::test {

inline size_t countOp(const ir::Graph& g, const std::string& op) { return g.nodesOfOp(ir::internOp(op)).size(); }

/// should_run, then run (a skipped pass reports Skipped with its reason in `message`).
inline passes::PassResult runPassOn(passes::Pass& p, ir::Graph& g) {
  static ops::InferenceCache cache;
  passes::PassContext ctx;
  ctx.cache = &cache;
  passes::ShouldRun s = p.shouldRun(g, ctx);
  if (!s.run) return {passes::PassStatus::Skipped, std::string(passes::skipReasonName(s.reason))};
  return p.run(g, ctx);
}

/// Max error of `after` relative to the outputs' scale, both run on the same seeded inputs.
inline double maxRelDiff(const ir::Graph& before, const ir::Graph& after) {
  exec::Executor ex({}, std::make_shared<exec::ConstantCache>());
  auto in = exec::synthesizeInputs(before, 3);
  auto a = ex.run(before, in);
  auto b = ex.run(after, in);
  EXPECT_TRUE(a.isOk()) << a.message();
  EXPECT_TRUE(b.isOk()) << b.message();
  if (!a.isOk() || !b.isOk()) return 1e9;
  return exec::compareOutputs(*b, *a).maxRelToMax;
}

inline void expectVerified(const ir::Graph& g) {
  Status st = passes::VerifierInstrumentation::verifyGraph(g);
  EXPECT_TRUE(st.isOk()) << st.message();
}

/// Deterministic values of a given size.
inline std::vector<double> ramp(int64_t n, double scale = 0.1) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = scale * std::sin(double(i) * 0.37 + 0.1);
  return v;
}

}  // namespace ls::test
