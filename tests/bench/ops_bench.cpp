// Benchmarks: full re-inference of real graphs with and without the inference cache.
#include <benchmark/benchmark.h>

#include "core/io/fxjson.h"
#include "core/ops/reinfer.h"

namespace {

using namespace ls;

const ir::Graph& graphNamed(const std::string& name) {
  static std::map<std::string, ir::Graph> cache;
  auto it = cache.find(name);
  if (it == cache.end()) {
    auto g = io::importFxJsonFile(std::string(LS_ASSETS_DIR) + "/graphs/" + name + ".fxjson.json");
    if (!g) {
      fprintf(stderr, "%s\n", g.message().c_str());
      std::abort();
    }
    g->buildIndices();
    it = cache.emplace(name, std::move(g).value()).first;
  }
  return it->second;
}

/// Per-node inference cost: every call node inferred against the graph (inputs' recorded
/// metadata), results discarded. No cache: each node pays its meta function.
void BM_InferEveryNodeNoCache(benchmark::State& st, const std::string& name) {
  const ir::Graph& g = graphNamed(name);
  std::vector<ir::TensorMeta> out;
  size_t calls = 0;
  for (auto _ : st) {
    calls = 0;
    for (const ir::NodePtr& p : g.nodes()) {
      if (p->kind != ir::NodeKind::Call) continue;
      Status s = ops::inferNode(g, *p, out, nullptr);
      benchmark::DoNotOptimize(s);
      ++calls;
    }
  }
  st.counters["nodes"] = double(calls);
  st.counters["ns_per_node"] =
      benchmark::Counter(double(calls), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

/// Same with a warm inference cache (repeated blocks hit).
void BM_InferEveryNodeWarmCache(benchmark::State& st, const std::string& name) {
  const ir::Graph& g = graphNamed(name);
  std::vector<ir::TensorMeta> out;
  ops::InferenceCache cache;
  size_t calls = 0;
  for (auto _ : st) {
    calls = 0;
    for (const ir::NodePtr& p : g.nodes()) {
      if (p->kind != ir::NodeKind::Call) continue;
      Status s = ops::inferNode(g, *p, out, &cache);
      benchmark::DoNotOptimize(s);
      ++calls;
    }
  }
  st.counters["nodes"] = double(calls);
  st.counters["hit_rate"] = double(cache.hits()) / double(std::max<uint64_t>(1, cache.hits() + cache.misses()));
  st.counters["ns_per_node"] =
      benchmark::Counter(double(calls), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

/// The check-shapes path: a copy-on-write graph re-inferred front to back, each node fed the
/// re-inferred metadata of its inputs (includes the copy of every call node).
void BM_ReinferGraph(benchmark::State& st, const std::string& name, bool useCache) {
  const ir::Graph& g = graphNamed(name);
  size_t checked = 0;
  for (auto _ : st) {
    ops::InferenceCache cache;
    auto rep = ops::reinferGraph(g, useCache ? &cache : nullptr);
    checked = rep.checked;
    benchmark::DoNotOptimize(rep);
  }
  st.counters["ns_per_node"] =
      benchmark::Counter(double(checked), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

#define LS_GRAPH_BENCH(fn, ...)                                                                            \
  BENCHMARK_CAPTURE(fn, resnet18, "resnet18" __VA_ARGS__)->Unit(benchmark::kMicrosecond);                  \
  BENCHMARK_CAPTURE(fn, mobilenet_v2, "mobilenet_v2" __VA_ARGS__)->Unit(benchmark::kMicrosecond);          \
  BENCHMARK_CAPTURE(fn, deit_tiny_vit, "deit_tiny_vit" __VA_ARGS__)->Unit(benchmark::kMicrosecond);        \
  BENCHMARK_CAPTURE(fn, vit_tiny_deep200, "large/vit_tiny_deep200" __VA_ARGS__)->Unit(benchmark::kMillisecond)

LS_GRAPH_BENCH(BM_InferEveryNodeNoCache);
LS_GRAPH_BENCH(BM_InferEveryNodeWarmCache);
LS_GRAPH_BENCH(BM_ReinferGraph, , false);
LS_GRAPH_BENCH(BM_ReinferGraph, , true);

}  // namespace
