// Skip + fast-copy against the upstream baseline (`--no-skip --no-fast-copy`) on the `tosa`
// pipeline of bundled models: the pass manager's own time per run (RunResult::totalNs, what
// `lowerscope-cli bench` reports as pm_ms), the graph loaded once and each run lowering a
// copy. The skip_speedup target (>= 2x on every bundled model) is the ratio of the two rows
// of a model; this bench is where a profile of either side starts.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "core/session/lowering_session.h"
#include "core/session/repeat_runs.h"

namespace {

using namespace ls;

const ir::Graph& bundled(const std::string& name) {
  static std::map<std::string, ir::Graph> graphs;
  auto it = graphs.find(name);
  if (it != graphs.end()) return it->second;
  auto r = session::LoweringSession::load(std::string(LS_ASSETS_DIR) + "/graphs/" + name + ".fxjson.json");
  if (!r) {
    std::fprintf(stderr, "skip_bench: %s\n", r.message().c_str());
    std::abort();
  }
  return graphs.emplace(name, std::move(r).value()).first->second;
}

void BM_TosaSkip(benchmark::State& st, const std::string& name, bool optimized) {
  const ir::Graph& src = bundled(name);
  session::SessionConfig cfg;
  cfg.pipeline = "tosa";
  cfg.engine = {optimized, optimized, true};
  const session::LoweringSession lowering(session::timingConfig(cfg));
  std::vector<int64_t> pmNs;
  for (auto _ : st) {
    auto outcome = lowering.run(src, name);
    if (!outcome || outcome->failed()) {
      st.SkipWithError("the tosa pipeline failed");
      break;
    }
    st.SetIterationTime(double(outcome->result.totalNs) / 1e9);
    pmNs.push_back(outcome->result.totalNs);
  }
  st.counters["pm_ms_median"] = double(session::sampleStats(pmNs).median) / 1e6;
}
BENCHMARK_CAPTURE(BM_TosaSkip, wav2letter_baseline, "wav2letter", false)->Unit(benchmark::kMicrosecond)->UseManualTime();
BENCHMARK_CAPTURE(BM_TosaSkip, wav2letter_optimized, "wav2letter", true)->Unit(benchmark::kMicrosecond)->UseManualTime();
BENCHMARK_CAPTURE(BM_TosaSkip, resnet18_baseline, "resnet18", false)->Unit(benchmark::kMicrosecond)->UseManualTime();
BENCHMARK_CAPTURE(BM_TosaSkip, resnet18_optimized, "resnet18", true)->Unit(benchmark::kMicrosecond)->UseManualTime();

}  // namespace
