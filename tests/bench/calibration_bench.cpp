// Benchmarks: the quantizer's calibration runs (4 seeded inputs, ordered accumulation, float
// weights as data, as quantizeGraph runs them) one after the other with Executor::run against
// side by side with Executor::runEach (a weight's transpose made once for all runs, the runs
// spread over the threads). Both observe every value, as the min/max observers do.
//   build/dev/tests/ls_bench --benchmark_filter=Calibration --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <map>
#include <string>

#include "core/exec/executor.h"
#include "core/exec/synth.h"
#include "support/bundled_graph.h"

namespace {

using namespace ls;

constexpr int kRuns = 4;  // QuantizeOptions::calibrationRuns

/// The float graph of a bundled model with its weights as data (as the quantizer makes them).
const ir::Graph& floatGraph(const std::string& name) {
  static std::map<std::string, ir::Graph> cache;
  auto it = cache.find(name);
  if (it == cache.end()) {
    ir::Graph g = test::loadBundledGraph(name);
    exec::materializeConstants(g);
    it = cache.emplace(name, std::move(g)).first;
  }
  return it->second;
}

void BM_Calibration(benchmark::State& st, const std::string& name, bool sideBySide) {
  const ir::Graph& g = floatGraph(name);
  std::vector<std::vector<exec::Tensor>> inputs;
  for (int r = 0; r < kRuns; ++r) inputs.push_back(exec::synthesizeInputs(g, uint64_t(r)));
  double sink = 0.0;
  auto observe = [&](const ir::Node&, const std::vector<exec::Tensor>& outs) {
    if (outs.size() == 1 && outs[0].defined() && outs[0].numel() > 0) sink += double(outs[0].bytes()[0]);
  };
  for (auto _ : st) {
    exec::Executor ex(exec::ExecOptions{.orderedAccumulation = true});
    if (sideBySide) {
      auto out = ex.runEach(g, inputs, [&](size_t, const ir::Node& n, const std::vector<exec::Tensor>& o) {
        if (n.id == 0) observe(n, o);  // the observer's own cost is the quantizer's, not timed here
      });
      if (!out) return st.SkipWithError(out.message().c_str());
    } else {
      for (const auto& in : inputs) {
        auto out = ex.run(g, in, [&](const ir::Node& n, const std::vector<exec::Tensor>& o) {
          if (n.id == 0) observe(n, o);
        });
        if (!out) return st.SkipWithError(out.message().c_str());
      }
    }
  }
  benchmark::DoNotOptimize(sink);
}

#define LS_CALIBRATION(model)                                                                            \
  BENCHMARK_CAPTURE(BM_Calibration, model##_sequential, #model, false)                                   \
      ->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);                                       \
  BENCHMARK_CAPTURE(BM_Calibration, model##_runEach, #model, true)                                       \
      ->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0)

LS_CALIBRATION(deit_tiny_vit);
LS_CALIBRATION(resnet18);

}  // namespace
