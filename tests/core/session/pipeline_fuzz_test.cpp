// Deterministic smoke of the pipeline fuzzer (tests/fuzz/pipeline_fuzz.cpp): 200 random valid
// graphs (tests/support/random_graph.h), each through every registered pipeline (FP; the tosa
// pipelines also INT for u55 and u85) with the structural verifier and verify-each. A pass that
// throws, a verifier error, a pass that changes the outputs beyond tolerance or a lowered graph
// that does not run fails the test with the minimised graph written as fxjson and the command
// that reproduces it. The pipelines must also lower most graphs: a fuzzer whose graphs are all
// refused tests nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "core/io/fxjson.h"
#include "core/ops/registry.h"
#include "core/passes/pass_manager.h"
#include "core/util/atomic_file.h"
#include "support/random_graph.h"

namespace ls::fuzz {
namespace {

constexpr uint64_t kGraphs = 200;

/// What a refusal is about, without node names: the ops a pipeline could not lower.
std::string refusalReason(const std::string& m) {
  std::set<std::string> ops;
  for (size_t at = 0; (at = m.find("(aten.", at)) != std::string::npos; ++at)
    ops.insert(m.substr(at + 1, m.find(')', at) - at - 1));
  for (size_t at = 0; (at = m.find("\n  node '", at)) != std::string::npos; ++at) {
    size_t o = m.find("combination of ", at);
    if (o != std::string::npos) ops.insert("tosa " + m.substr(o + 15, m.find(' ', o + 15) - o - 15) + " type");
  }
  if (ops.empty()) return m.substr(0, 160);
  std::string s;
  for (const std::string& o : ops) s += (s.empty() ? "" : ", ") + o;
  return s;
}

TEST(PipelineFuzz, RandomGraphsThroughEveryPipelineWithVerifyEach) {
  const std::vector<RunCase> cases = allRunCases();
  ASSERT_GE(cases.size(), 4u);
  std::map<std::string, std::map<CaseResult::Kind, int>> counts;
  std::map<std::string, std::map<std::string, int>> refusals;  // per case: reason -> graphs
  int findings = 0;
  for (uint64_t seed = 0; seed < kGraphs; ++seed) {
    Entropy e(seed);
    ir::Graph g = randomGraph(e);
    for (const RunCase& c : cases) {
      CaseResult r = runCase(g, c);
      ++counts[c.describe()][r.kind];
      if (r.kind == CaseResult::Kind::Refused) {
        ++refusals[c.describe()][refusalReason(r.message)];
        // LS_PIPELINE_FUZZ_REFUSED=dir keeps each refused graph (what op coverage is missing).
        if (const char* dir = std::getenv("LS_PIPELINE_FUZZ_REFUSED")) {
          std::string tag = c.describe();
          std::replace_if(tag.begin(), tag.end(), [](char ch) { return !std::isalnum((unsigned char)ch); }, '_');
          (void)writeFileAtomic(fmt::format("{}/refused_{}_seed{}.fxjson.json", dir, tag, seed), io::exportFxJson(g));
        }
      }
      if (r.kind != CaseResult::Kind::Finding || findings >= 3) continue;
      ++findings;
      ir::Graph small = minimise(g, [&](const ir::Graph& h) {
        CaseResult x = runCase(h, c);
        return x.kind == CaseResult::Kind::Finding && x.category == r.category;
      });
      const std::string path = (std::filesystem::temp_directory_path() /
                                fmt::format("pipeline_fuzz_seed{}.fxjson.json", seed)).string();
      (void)writeFileAtomic(path, io::exportFxJson(small));
      ADD_FAILURE() << "seed " << seed << ", " << c.describe() << ": " << r.category << ": " << r.message
                    << "\nminimised graph (" << small.size() << " nodes): " << path
                    << "\nreproduce: " << c.command(path);
    }
  }
  for (const auto& entry : counts) {
    const std::string& name = entry.first;
    const std::map<CaseResult::Kind, int>& k = entry.second;
    auto get = [&](CaseResult::Kind kind) { return k.count(kind) ? k.at(kind) : 0; };
    const int lowered = get(CaseResult::Kind::Lowered), refused = get(CaseResult::Kind::Refused);
    std::cout << "[ pipeline-fuzz ] " << name << ": lowered " << lowered << ", refused " << refused
              << ", source does not run " << get(CaseResult::Kind::SourceDoesNotRun) << ", findings "
              << get(CaseResult::Kind::Finding) << "\n";
    for (const auto& [why, n] : refusals[name]) std::cout << "    refused " << n << "x: " << why << "\n";
    EXPECT_GE(lowered, int(kGraphs) / 2) << name << " lowered too few random graphs";
  }
}

/// Every case the fuzzer found (tests/data/fuzz_regress_*.fxjson.json, minimised graphs) runs
/// through every pipeline without a finding.
TEST(PipelineFuzz, FoundCasesStayFixed) {
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(LS_TEST_DATA_DIR)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("fuzz_regress_", 0) != 0) continue;
    ++files;
    auto g = io::importFxJsonFile(entry.path().string());
    ASSERT_TRUE(g.isOk()) << g.message();
    for (const RunCase& c : allRunCases()) {
      CaseResult r = runCase(*g, c);
      EXPECT_NE(r.kind, CaseResult::Kind::Finding) << name << ", " << c.describe() << ": " << r.message;
    }
  }
  EXPECT_GE(files, 1u);
}

TEST(PipelineFuzz, GraphsAreValidAndDeterministic) {
  int withNone = 0;
  for (uint64_t seed = 0; seed < 50; ++seed) {
    Entropy a(seed), b(seed);
    ir::Graph x = randomGraph(a), y = randomGraph(b);
    EXPECT_EQ(io::exportFxJson(x), io::exportFxJson(y)) << seed;
    EXPECT_TRUE(passes::VerifierInstrumentation::verifyGraph(x).isOk()) << seed;
    auto back = io::importFxJson(io::exportFxJson(x), "random.json");
    EXPECT_TRUE(back.isOk()) << seed << ": " << back.message();
    for (const ir::ValueRef& r : *x.outputNode()->args[0].asRefList()) withNone += r.isNone();
  }
  EXPECT_GT(withNone, 0) << "no graph returned a None";
}

TEST(PipelineFuzz, MinimiseKeepsTheFailureAndShrinks) {
  // The "failure" is the presence of a mean: minimise keeps one and drops what it does not need.
  for (uint64_t seed = 0; seed < 100; ++seed) {
    Entropy e(seed);
    ir::Graph g = randomGraph(e, GenOptions{12, 6});
    const ir::OpId mean = ir::internOp("aten.mean.dim");
    auto hasMean = [&](const ir::Graph& h) { return !h.nodesOfOp(mean).empty(); };
    if (!hasMean(g) || g.size() < 8) continue;
    ir::Graph m = minimise(g, hasMean);
    EXPECT_TRUE(hasMean(m));
    EXPECT_LT(m.size(), g.size());
    EXPECT_TRUE(passes::VerifierInstrumentation::verifyGraph(m).isOk());
    return;
  }
  GTEST_SKIP() << "no seed produced a large graph with a mean";
}

/// Test-only passes the oracle must catch: one turns relu into neg (values change), one throws,
/// one fails with an error on a graph the pipeline should take.
class BreakReluTestPass : public passes::Pass {
 public:
  BreakReluTestPass() : Pass("BreakReluTestPass", "relu -> neg (wrong on purpose)") {}
  passes::PassResult runImpl(ir::Graph& g, passes::PassContext&) override {
    bool changed = false;
    for (ir::NodeId id : g.nodesOfOp(ir::internOp("aten.relu.default"))) {
      g.setOp(id, ir::internOp("aten.neg.default"), "aten.neg.default");
      changed = true;
    }
    return passes::PassResult::of(changed);
  }
};
class ThrowTestPass : public passes::Pass {
 public:
  ThrowTestPass() : Pass("ThrowTestPass", "throws") {}
  passes::PassResult runImpl(ir::Graph&, passes::PassContext&) override { throw std::runtime_error("boom"); }
};
class FailTestPass : public passes::Pass {
 public:
  FailTestPass() : Pass("FailTestPass", "fails") {}
  passes::PassResult runImpl(ir::Graph&, passes::PassContext&) override {
    return passes::PassResult::failed("rank mismatch");
  }
};

/// INT: moves the zero point of the last dequantize by 6 steps (every output off by 6 steps).
class ShiftZeroPointTestPass : public passes::Pass {
 public:
  ShiftZeroPointTestPass() : Pass("ShiftZeroPointTestPass", "zero point + 6 (wrong on purpose)") {}
  passes::PassResult runImpl(ir::Graph& g, passes::PassContext&) override {
    auto dq = g.nodesOfOp(ir::internOp("quantized_decomposed.dequantize_per_tensor.default"));
    if (dq.empty()) return passes::PassResult::of(false);
    ir::Node& n = g.mutableNode(*std::max_element(dq.begin(), dq.end()));
    n.args[2] = ir::Arg(int64_t(*n.args[2].number()) + 6);
    return passes::PassResult::of(true);
  }
};

TEST(PipelineFuzz, TheOracleCatchesAWrongPassAThrowingPassAndAFailingPass) {
  auto& passes = passes::PassRegistry::instance();
  passes.add("BreakReluTestPass", [] { return std::make_unique<BreakReluTestPass>(); });
  passes.add("ThrowTestPass", [] { return std::make_unique<ThrowTestPass>(); });
  passes.add("FailTestPass", [] { return std::make_unique<FailTestPass>(); });
  passes.add("ShiftZeroPointTestPass", [] { return std::make_unique<ShiftZeroPointTestPass>(); });
  auto& pipelines = passes::PipelineRegistry::instance();
  pipelines.add({"fuzz-oracle-wrong", "test", {"BreakReluTestPass"}});
  pipelines.add({"fuzz-oracle-throw", "test", {"ThrowTestPass"}});
  pipelines.add({"fuzz-oracle-fail", "test", {"FailTestPass"}});
  pipelines.add({"fuzz-oracle-zp", "test", {"ShiftZeroPointTestPass"}});
  (void)passes.takeErrors();
  (void)pipelines.takeErrors();
  // x -> relu -> (sum with a second input) -> output, built by hand so the relu is live.
  ir::Graph g;
  auto placeholder = [&](const std::string& name) {
    ir::Node n;
    n.kind = ir::NodeKind::Placeholder;
    n.name = n.target = name;
    n.outputs.push_back(ir::TensorMeta(ir::DType::Float32, ir::Shape({2, 8})));
    return ir::ValueRef{g.append(std::move(n)), 0};
  };
  ir::ValueRef x = placeholder("x"), y = placeholder("y");
  auto callOp = [&](const std::string& op, std::vector<ir::Arg> args) {
    ir::Node n;
    n.kind = ir::NodeKind::Call;
    n.op = ir::internOp(op);
    n.target = op;
    n.name = g.uniqueName("n");
    n.args = std::move(args);
    EXPECT_TRUE(ops::inferNode(g, n, n.outputs).isOk());
    return ir::ValueRef{g.append(std::move(n)), 0};
  };
  ir::ValueRef r = callOp("aten.relu.default", {x});
  ir::ValueRef s = callOp("aten.add.Tensor", {r, y});
  ir::Node out;
  out.kind = ir::NodeKind::Output;
  out.name = out.target = "output";
  out.args.push_back(ir::Arg(ir::RefList{s}));
  out.outputs.push_back(g.meta(s));
  g.append(std::move(out));

  EXPECT_EQ(runCase(g, {"generic"}).kind, CaseResult::Kind::Lowered);
  CaseResult wrong = runCase(g, {"fuzz-oracle-wrong"});
  EXPECT_EQ(wrong.kind, CaseResult::Kind::Finding) << wrong.message;
  EXPECT_EQ(wrong.category, "semantic") << wrong.message;
  CaseResult thrown = runCase(g, {"fuzz-oracle-throw"});
  EXPECT_EQ(thrown.category, "threw") << thrown.message;
  CaseResult failed = runCase(g, {"fuzz-oracle-fail"});
  EXPECT_EQ(failed.category, "pass-error") << failed.message;
  // INT: a lowering 6 steps off is caught; the tolerance for ill-conditioned graphs (the
  // quantized source's own change for one step of rounding in its intermediates) stays below.
  const RunCase intCase{"fuzz-oracle-zp", passes::Profile::INT, passes::Target::U55};
  EXPECT_EQ(runCase(g, {"generic", passes::Profile::INT, passes::Target::U55}).kind, CaseResult::Kind::Lowered);
  CaseResult shifted = runCase(g, intCase);
  EXPECT_EQ(shifted.kind, CaseResult::Kind::Finding) << shifted.message;
  EXPECT_EQ(shifted.category, "semantic") << shifted.message;
  // The minimiser keeps the relu (the failure needs it).
  ir::Graph m = minimise(g, [](const ir::Graph& h) { return runCase(h, {"fuzz-oracle-wrong"}).kind == CaseResult::Kind::Finding; });
  EXPECT_FALSE(m.nodesOfOp(ir::internOp("aten.relu.default")).empty());
}

}  // namespace
}  // namespace ls::fuzz
