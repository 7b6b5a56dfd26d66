// Shared helpers of the XNNPACK tests: load graphs, run the pipeline (or single passes) and
// verify lowered graphs against their source with the reference executor.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/backends/xnnpack/partitioner.h"
#include "core/backends/xnnpack/xnnpack_passes.h"
#include "core/exec/compare.h"
#include "core/exec/executor.h"
#include "core/exec/synth.h"
#include "core/io/fxjson.h"
#include "core/passes/pass_manager.h"

namespace ls::test {

inline std::string realGraphPath(const std::string& name) {
  return std::string(LS_ASSETS_DIR) + "/graphs/" + name + ".fxjson.json";
}
inline std::string xnnDataPath(const std::string& file) {
  return std::string(LS_TESTS_DIR) + "/data/xnnpack/" + file;
}

inline ir::Graph loadGraph(const std::string& path) {
  auto g = io::importFxJsonFile(path);
  EXPECT_TRUE(g.isOk()) << path << ": " << g.message();
  return g.isOk() ? std::move(g).value() : ir::Graph();
}

inline size_t countOp(const ir::Graph& g, const char* op) { return g.nodesOfOp(ir::internOp(op)).size(); }

/// Count of `op` in `g` and all nested graphs.
inline size_t countOpDeep(const ir::Graph& g, const char* op) {
  size_t n = countOp(g, op);
  for (const auto& [name, sg] : g.subgraphs()) n += countOpDeep(*sg, op);
  return n;
}

/// Runs one pass the way the PassManager does (should_run, then run) with a verifier check.
inline passes::PassResult runOne(passes::Pass& p, ir::Graph& g) {
  static ops::InferenceCache cache;
  passes::PassContext ctx;
  ctx.cache = &cache;
  if (!p.shouldRun(g, ctx).run) return {passes::PassStatus::Skipped, ""};
  passes::PassResult r = p.run(g, ctx);
  Status v = passes::VerifierInstrumentation::verifyGraph(g);
  EXPECT_TRUE(v.isOk()) << p.name() << ": " << v.message();
  return r;
}

struct PipelineOutcome {
  passes::RunResult run;
  xnnpack::PartitionReport report;
};

/// Runs the `xnnpack` pipeline with the verifier after every changed pass.
inline PipelineOutcome runXnnpack(ir::Graph& g, const std::vector<std::string>& disabled = {}) {
  auto pm = passes::PassManager::fromPipeline("xnnpack");
  EXPECT_TRUE(pm.isOk()) << pm.message();
  PipelineOutcome out;
  if (!pm) return out;
  for (const std::string& d : disabled) pm->disable(d);
  passes::VerifierInstrumentation verifier;
  pm->addInstrumentation(&verifier);
  ops::InferenceCache cache;
  passes::PassContext ctx;
  ctx.cache = &cache;
  out.run = pm->run(g, ctx);
  EXPECT_EQ(out.run.failedIndex, -1) << out.run.failure;
  out.report = xnnpack::partitionReport(g);
  return out;
}

struct Verification {
  exec::CompareResult diff;
  int delegateRuns = 0;  ///< nested graphs executed through the DelegateRunner
  bool ok = false;
};

/// Runs `source` and `lowered` on the same seeded inputs (weights synthesised by name, the
/// same in both) and compares the outputs; delegates run their nested graph. An element
/// passes when |a - b| <= 1e-3 * |b| + 1e-5 * max|expected| (scale-relative: batch-norm
/// folding rounds the weights once, measured to compound over ~50 layers to <= 7e-6 of the
/// output scale; elementwise relative error near zero says nothing). Callers also bound
/// diff.maxRelToMax.
inline Verification verifyLowering(const ir::Graph& source, const ir::Graph& lowered, uint64_t seed = 1) {
  Verification v;
  auto constants = std::make_shared<exec::ConstantCache>();
  exec::Executor ex({}, constants);
  auto inputs = exec::synthesizeInputs(source, seed);
  auto expected = ex.run(source, inputs);
  EXPECT_TRUE(expected.isOk()) << expected.message();
  exec::Executor lx({}, constants);
  lx.setDelegateRunner([&v](exec::Executor& e, const ir::Node&, const ir::Graph& sub,
                            const std::vector<exec::Tensor>& ins) -> Result<std::vector<exec::Tensor>> {
    ++v.delegateRuns;
    return e.run(sub, ins);
  });
  auto actual = lx.run(lowered, inputs);
  EXPECT_TRUE(actual.isOk()) << actual.message();
  if (!expected || !actual) return v;
  double scale = 0.0;
  for (const exec::Tensor& t : *expected)
    if (t.defined() && ir::isFloating(t.dtype()))
      for (int64_t i = 0; i < t.numel(); ++i) scale = std::max(scale, std::abs(t.getDouble(i)));
  v.diff = exec::compareOutputs(*actual, *expected,
                                exec::CompareOptions{.rtol = 1e-3, .atol = 1e-5 * std::max(scale, 1.0)});
  v.ok = true;
  return v;
}

}  // namespace ls::test
