// Deterministic smoke of the pipeline fuzzer (tests/fuzz/pipeline_fuzz.cpp): 200 random valid
// graphs (tests/support/random_graph.h), each through every registered pipeline (FP; the tosa
// pipelines also INT for u55 and u85) with the structural verifier and verify-each. A pass that
// throws, a verifier error, a pass that changes the outputs beyond tolerance or a lowered graph
// that does not run fails the test with the minimised graph written as fxjson and the command
// that reproduces it. The pipelines must also lower most graphs: a fuzzer whose graphs are all
// refused tests nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "core/io/fxjson.h"
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
      if (r.kind == CaseResult::Kind::Refused) ++refusals[c.describe()][refusalReason(r.message)];
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
  for (const auto& [name, k] : counts) {
    auto get = [&](CaseResult::Kind kind) { return k.count(kind) ? k.at(kind) : 0; };
    const int lowered = get(CaseResult::Kind::Lowered), refused = get(CaseResult::Kind::Refused);
    std::cout << "[ pipeline-fuzz ] " << name << ": lowered " << lowered << ", refused " << refused
              << ", source does not run " << get(CaseResult::Kind::SourceDoesNotRun) << ", findings "
              << get(CaseResult::Kind::Finding) << "\n";
    for (const auto& [why, n] : refusals[name]) std::cout << "    refused " << n << "x: " << why << "\n";
    EXPECT_GE(lowered, int(kGraphs) / 2) << name << " lowered too few random graphs";
  }
}

TEST(PipelineFuzz, GraphsAreValidAndDeterministic) {
  for (uint64_t seed = 0; seed < 50; ++seed) {
    Entropy a(seed), b(seed);
    ir::Graph x = randomGraph(a), y = randomGraph(b);
    EXPECT_EQ(io::exportFxJson(x), io::exportFxJson(y)) << seed;
    EXPECT_TRUE(passes::VerifierInstrumentation::verifyGraph(x).isOk()) << seed;
    auto back = io::importFxJson(io::exportFxJson(x), "random.json");
    EXPECT_TRUE(back.isOk()) << seed << ": " << back.message();
  }
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

}  // namespace
}  // namespace ls::fuzz
