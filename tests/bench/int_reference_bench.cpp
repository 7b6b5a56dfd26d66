// Benchmarks: what the float64 INT reference costs. The quantised source graph (calibrated as
// `verify --profile int` does) runs through the reference executor with exact accumulation, as
// float32 (the reference before ExecOptions::float64) and as float64 (verify's INT reference),
// side by side on the same inputs. docs/DESIGN.md quotes the figures.
//   build/release/tests/ls_bench --benchmark_filter=IntReference --benchmark_repetitions=5
//     --benchmark_report_aggregates_only=true (one line)
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "core/exec/executor.h"
#include "core/exec/synth.h"
#include "core/io/fxjson.h"
#include "core/quant/quantizer.h"
#include "support/bundled_graph.h"

namespace {

using namespace ls;

/// The quantised graph of a bundled model (weights materialised), made once.
const ir::Graph& quantisedGraph(const std::string& name) {
  static std::map<std::string, ir::Graph> cache;
  auto it = cache.find(name);
  if (it == cache.end()) {
    ir::Graph g = test::loadBundledGraph(name);
    auto rep = quant::quantizeGraph(g, {});
    if (!rep) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), rep.message().c_str());
      std::abort();
    }
    exec::materializeConstants(g);
    g.buildIndices();
    it = cache.emplace(name, std::move(g)).first;
  }
  return it->second;
}

void BM_IntReference(benchmark::State& st, const std::string& name, bool float64) {
  const ir::Graph& g = quantisedGraph(name);
  const std::vector<exec::Tensor> inputs = exec::synthesizeInputs(g, 1);
  auto constants = std::make_shared<exec::ConstantCache>();
  exec::Executor ex(exec::ExecOptions{.exactAccumulation = true, .float64 = float64}, constants);
  for (auto _ : st) {
    auto out = ex.run(g, inputs);
    if (!out) {
      st.SkipWithError(out.message().c_str());
      return;
    }
    benchmark::DoNotOptimize(out->data());
  }
}

#define LS_INT_REFERENCE(model)                                                                              \
  BENCHMARK_CAPTURE(BM_IntReference, model##_f32, #model, false)->Unit(benchmark::kMillisecond)->MinTime(2.0); \
  BENCHMARK_CAPTURE(BM_IntReference, model##_f64, #model, true)->Unit(benchmark::kMillisecond)->MinTime(2.0)

LS_INT_REFERENCE(deit_tiny_vit);
LS_INT_REFERENCE(mobilenet_v2);

}  // namespace
