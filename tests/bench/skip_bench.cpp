// Skip + fast-copy against the upstream baseline (`--no-skip --no-fast-copy`) on the `tosa`
// pipeline (FP) of every bundled model, side by side: each iteration lowers the model once
// in each configuration (alternating, the graph loaded once), and the counters are the pass
// manager's median time per configuration (RunResult::totalNs, what `lowerscope-cli bench`
// reports as pm_ms) and their ratio, the skip_speedup target (>= 2x on every bundled model).
// The caches are warm here; `lowerscope-cli bench` runs each lowering after loading the file
// and, by default, after the previous run's .lsg write.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/session/lowering_session.h"
#include "core/session/repeat_runs.h"

namespace {

using namespace ls;

void BM_TosaSkipSpeedup(benchmark::State& st, const std::string& name) {
  auto loaded = session::LoweringSession::load(std::string(LS_ASSETS_DIR) + "/graphs/" + name + ".fxjson.json");
  if (!loaded) {
    st.SkipWithError(loaded.message().c_str());
    return;
  }
  const ir::Graph src = std::move(loaded).value();
  auto lowering = [](bool optimized) {
    session::SessionConfig cfg;
    cfg.pipeline = "tosa";
    cfg.engine = {optimized, optimized, false};
    return session::LoweringSession(session::timingConfig(cfg));
  };
  const session::LoweringSession baseline = lowering(false), optimized = lowering(true);
  std::vector<int64_t> baseNs, optNs;
  for (auto _ : st) {
    auto b = baseline.run(src, name);
    auto o = optimized.run(src, name);
    if (!b || b->failed() || !o || o->failed()) {
      st.SkipWithError("the tosa pipeline failed");
      return;
    }
    baseNs.push_back(b->result.totalNs);
    optNs.push_back(o->result.totalNs);
    st.SetIterationTime(double(b->result.totalNs + o->result.totalNs) / 1e9);
  }
  const double base = double(session::sampleStats(baseNs).median), opt = double(session::sampleStats(optNs).median);
  st.counters["baseline_pm_ms"] = base / 1e6;
  st.counters["optimized_pm_ms"] = opt / 1e6;
  st.counters["speedup"] = opt > 0 ? base / opt : 0;
}

const int kRegistered = [] {
  for (const char* m : {"deeplabv3_mobilenet_v3_large", "deit_tiny_vit", "efficientnet_b0", "mobilenet_v2",
                        "mobilenet_v3_small", "resnet18", "squeezenet1_1", "wav2letter"})
    benchmark::RegisterBenchmark((std::string("BM_TosaSkipSpeedup/") + m).c_str(), BM_TosaSkipSpeedup, std::string(m))
        ->Unit(benchmark::kMillisecond)
        ->UseManualTime();
  return 0;
}();

}  // namespace
