// Every real graph lowers with --profile fp to pure TOSA through `tosa` and `tosa-permute`,
// with the verifier clean after every pass, and the reference executor gives the same outputs
// for the source and the lowered graph (same synthesised weights and inputs).
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>

#include "core/backends/arm/tosa/tosa_validate.h"
#include "core/backends/arm/tosa/tosa_ops.h"
#include "core/exec/compare.h"
#include "core/exec/executor.h"
#include "core/exec/synth.h"
#include "core/io/fxjson.h"
#include "core/passes/pass_manager.h"

namespace ls::arm {
namespace {

std::string graphPath(const std::string& name) {
  return std::string(LS_ASSETS_DIR) + "/graphs/" + name + ".fxjson.json";
}

struct Lowered {
  ir::Graph graph;
  passes::RunResult run;
};

Lowered lower(const ir::Graph& src, const std::string& pipeline) {
  Lowered out{src, {}};
  auto pm = passes::PassManager::fromPipeline(pipeline);
  EXPECT_TRUE(pm.isOk()) << pm.message();
  if (!pm.isOk()) return out;
  passes::VerifierInstrumentation verifier;
  pm->addInstrumentation(&verifier);
  ops::InferenceCache cache;
  passes::PassContext ctx;
  ctx.profile = passes::Profile::FP;
  ctx.cache = &cache;
  out.run = pm->run(out.graph, ctx);
  return out;
}

/// Names (and ops) of call nodes that are not TOSA operators.
std::string nonTosa(const ir::Graph& g) {
  std::string s;
  for (const ir::NodePtr& p : g.nodes())
    if (p->isCall() && !isTosaOp(p->op)) s += p->name + " (" + ir::opName(p->op) + ") ";
  return s;
}

size_t countOp(const ir::Graph& g, const char* op) { return g.nodesOfOp(ir::internOp(op)).size(); }

struct Case {
  const char* model;
  const char* pipeline;
  bool execute;  ///< run the executor on source and lowered graph
};

class TosaRealGraph : public ::testing::TestWithParam<Case> {};

TEST_P(TosaRealGraph, LowersToPureTosaWithEqualOutputs) {
  const Case& c = GetParam();
  auto loaded = io::importFxJsonFile(graphPath(c.model));
  ASSERT_TRUE(loaded.isOk()) << loaded.message();
  ir::Graph src = std::move(loaded).value();
  exec::materializeConstants(src);  // weights as data: every pass and run sees the same values
  auto t0 = std::chrono::steady_clock::now();
  Lowered low = lower(src, c.pipeline);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(low.run.failedIndex, -1) << low.run.failure;
  EXPECT_EQ(nonTosa(low.graph), "") << "non-TOSA nodes remain";
  ASSERT_TRUE(passes::VerifierInstrumentation::verifyGraph(low.graph).isOk());
  {  // legal TOSA 1.0 (PRO-FP/PRO-INT) at level 8K
    std::vector<TosaViolation> v = validateTosaGraph(low.graph);
    EXPECT_TRUE(v.empty()) << formatViolations(v, {});
  }
  // FuseTosaTransposesPass invariants on the result: no identity TRANSPOSE and no TRANSPOSE
  // feeding another one (those are cancelled or composed).
  static const ir::OpId tr = ir::internOp("tosa.TRANSPOSE");
  for (ir::NodeId id : low.graph.nodesOfOp(tr)) {
    const ir::Node& t = low.graph.node(id);
    const std::vector<int64_t>& p = *t.kwarg("perms")->asIntList();
    EXPECT_FALSE(isIdentityPerm(p)) << t.name;
    EXPECT_NE(low.graph.node(t.args[0].ref()->node).op, tr) << t.name << " reads another TRANSPOSE";
  }
  std::cout << "[ tosa     ] " << c.model << " / " << c.pipeline << ": " << ms << " ms, " << low.graph.size()
            << " nodes, " << countOp(low.graph, "tosa.TRANSPOSE") << " TRANSPOSE\n";
  if (!c.execute) return;
  auto constants = std::make_shared<exec::ConstantCache>();
  exec::Executor ex({}, constants);
  auto inputs = exec::synthesizeInputs(src, 7);
  auto expected = ex.run(src, inputs);
  ASSERT_TRUE(expected.isOk()) << expected.message();
  auto actual = ex.run(low.graph, inputs);
  ASSERT_TRUE(actual.isOk()) << actual.message();
  // Float reassociation only (BN folding, reciprocal-multiply, different accumulation
  // order): relative to each output's scale the error must stay below 1e-4.
  exec::CompareResult r = exec::compareOutputs(*actual, *expected, exec::CompareOptions{.rtol = 1e-3, .atol = 1e-4});
  std::cout << "[ tosa     ] " << c.model << ": max rel-to-max error " << r.maxRelToMax << ", max abs "
            << r.maxAbsError << "\n";
  EXPECT_LT(r.maxRelToMax, 1e-4) << r.message;
  ASSERT_EQ(actual->size(), expected->size());
}

// The executor runs on every model of assets/graphs; the 10.8k-node ViT only lowers (its
// reference run takes tens of seconds on 2 cores), which is what its size is for.
INSTANTIATE_TEST_SUITE_P(
    Fp, TosaRealGraph,
    ::testing::Values(Case{"mobilenet_v2", "tosa", true}, Case{"mobilenet_v3_small", "tosa", true},
                      Case{"resnet18", "tosa", true}, Case{"squeezenet1_1", "tosa", true},
                      Case{"efficientnet_b0", "tosa", true}, Case{"deeplabv3_mobilenet_v3_large", "tosa", true},
                      Case{"deit_tiny_vit", "tosa", true}, Case{"wav2letter", "tosa", true},
                      Case{"large/vit_tiny_deep200", "tosa", false}, Case{"mobilenet_v2", "tosa-permute", true},
                      Case{"mobilenet_v3_small", "tosa-permute", true}, Case{"resnet18", "tosa-permute", true},
                      Case{"squeezenet1_1", "tosa-permute", true}, Case{"efficientnet_b0", "tosa-permute", true},
                      Case{"deeplabv3_mobilenet_v3_large", "tosa-permute", true},
                      Case{"deit_tiny_vit", "tosa-permute", true}, Case{"wav2letter", "tosa-permute", true}),
    [](const auto& p) {
      std::string s = std::string(p.param.model) + "_" + p.param.pipeline;
      for (char& ch : s)
        if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return s;
    });

}  // namespace
}  // namespace ls::arm
