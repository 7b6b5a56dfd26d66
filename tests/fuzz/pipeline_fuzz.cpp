// libFuzzer target: the bytes decide a random valid graph (tests/support/random_graph.h),
// which runs through every registered pipeline (FP; the tosa pipelines also INT for u55 and
// u85) with the structural verifier and verify-each on. A pass that throws, a verifier error, a
// pass that changes the outputs beyond tolerance or a lowered graph that does not run aborts
// with the minimised graph as fxjson and the command that reproduces it; sanitizer findings
// abort on their own. A pipeline refusing a graph with an error is not a finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "core/io/fxjson.h"
#include "core/session/builtin.h"
#include "core/util/atomic_file.h"
#include "support/random_graph.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)ls::registerBuiltins();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ls::fuzz;
  static const std::vector<RunCase> cases = allRunCases();
  Entropy e(data, size);
  ls::ir::Graph g = randomGraph(e);
  // Sanitizer findings abort inside a pass, before minimisation: LS_PIPELINE_FUZZ_DUMP=path
  // writes each generated graph first, so such a crash can be replayed with lowerscope-cli.
  if (const char* dump = std::getenv("LS_PIPELINE_FUZZ_DUMP"))
    (void)ls::writeFileAtomic(dump, ls::io::exportFxJson(g));
  for (const RunCase& c : cases) {
    CaseResult r = runCase(g, c);
    if (r.kind != CaseResult::Kind::Finding) continue;
    ls::ir::Graph small = minimise(g, [&](const ls::ir::Graph& h) {
      CaseResult x = runCase(h, c);
      return x.kind == CaseResult::Kind::Finding && x.category == r.category;
    });
    const char* path = "pipeline_fuzz_case.fxjson.json";
    (void)ls::writeFileAtomic(path, ls::io::exportFxJson(small));
    std::fprintf(stderr, "pipeline_fuzz: %s: %s: %s\nminimised graph (%zu nodes): %s\nreproduce: %s\n",
                 c.describe().c_str(), r.category.c_str(), r.message.c_str(), small.size(), path,
                 c.command(path).c_str());
    std::abort();
  }
  return 0;
}
