// Benchmarks of the native .lsg format: save and load of the 10.8k-node ViT graph.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "core/io/lsg.h"
#include "core/ir/graph.h"

#include "core/io/fxjson.h"
#include "core/session/lowering_session.h"
#include "core/session/repeat_runs.h"

namespace {

using namespace ls;

const ir::Graph& benchGraph() {
  static const ir::Graph* g = [] {
    auto r = io::importFxJsonFile(std::string(LS_ASSETS_DIR) + "/graphs/large/vit_tiny_deep200.fxjson.json");
    if (!r) {
      std::fprintf(stderr, "io_bench: %s\n", r.message().c_str());
      std::abort();
    }
    return new ir::Graph(std::move(r).value());
  }();
  return *g;
}

const std::string& benchBytes() {
  static const std::string bytes = [] {
    auto r = io::serializeLsg(benchGraph());
    if (!r) {
      std::fprintf(stderr, "io_bench: %s\n", r.message().c_str());
      std::abort();
    }
    return std::move(r).value();
  }();
  return bytes;
}

/// Times io::serializeLsg(g) per iteration; sets file_bytes and bytes processed.
void timeSave(benchmark::State& state, const ir::Graph& g) {
  size_t bytes = 0;
  for (auto _ : state) {
    auto r = io::serializeLsg(g);
    if (!r) state.SkipWithError(r.message().c_str());
    bytes = r ? r->size() : 0;
    benchmark::DoNotOptimize(r);
  }
  state.counters["file_bytes"] = double(bytes);
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
}

void BM_LsgSave(benchmark::State& state) {
  const ir::Graph& g = benchGraph();
  timeSave(state, g);
  state.counters["nodes"] = double(g.size());
  state.counters["nodes/s"] = benchmark::Counter(double(g.size()), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_LsgSave)->Unit(benchmark::kMillisecond);

/// wav2letter lowered by the `tosa` FP pipeline: its weights are shape-only in the asset, so
/// the lowered graph's 13 weight constants are recipes (permutes and folds over synthesised
/// sources) that a save materialises: 105 MB of values made while the file is written.
const ir::Graph& loweredShapeOnlyGraph() {
  static const ir::Graph* graph = [] {
    const auto input = session::RunInput::fromFile(std::string(LS_ASSETS_DIR) + "/graphs/wav2letter.fxjson.json");
    session::SessionConfig cfg;
    cfg.pipeline = "tosa";
    const session::LoweringSession lowering(session::timingConfig(cfg));
    auto g = input.load();
    auto out = g ? lowering.run(std::move(g).value(), "wav2letter") : Result<session::Outcome>(g.status());
    if (!out || out->result.failedIndex >= 0) {
      std::fprintf(stderr, "io_bench: wav2letter did not lower: %s\n", out ? out->result.failure.c_str() : out.message().c_str());
      std::abort();
    }
    return new ir::Graph(std::move(out->finalGraph));
  }();
  return *graph;
}

void BM_LsgSaveLoweredShapeOnly(benchmark::State& state) { timeSave(state, loweredShapeOnlyGraph()); }
BENCHMARK(BM_LsgSaveLoweredShapeOnly)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_LsgLoad(benchmark::State& state) {
  const std::string& bytes = benchBytes();
  size_t nodes = 0;
  for (auto _ : state) {
    std::optional<Result<ir::Graph>> r(io::loadLsgBytes(bytes, "vit_tiny_deep200.lsg"));
    if (!*r) state.SkipWithError(r->message().c_str());
    nodes = *r ? (*r)->size() : 0;
    benchmark::DoNotOptimize(r);
    // Freeing the graph is not part of loading it.
    state.PauseTiming();
    r.reset();
    state.ResumeTiming();
  }
  state.counters["nodes"] = double(nodes);
  state.counters["nodes/s"] = benchmark::Counter(double(nodes), benchmark::Counter::kIsIterationInvariantRate);
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes.size()));
}
BENCHMARK(BM_LsgLoad)->Unit(benchmark::kMillisecond);

/// fxjson import (parse with simdjson, build the IR, check every recorded meta's encoding) of
/// the file's bytes already in memory; arg 0 selects the model.
const char* const kImportModels[] = {"resnet18", "mobilenet_v2", "deit_tiny_vit", "large/vit_tiny_deep200"};

void BM_FxJsonImport(benchmark::State& state) {
  const std::string name = kImportModels[state.range(0)];
  const std::string path = std::string(LS_ASSETS_DIR) + "/graphs/" + name + ".fxjson.json";
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    state.SkipWithError(("cannot open " + path).c_str());
    return;
  }
  std::string text;
  char buf[1 << 16];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
  std::fclose(f);
  size_t nodes = 0;
  for (auto _ : state) {
    std::optional<Result<ir::Graph>> r(io::importFxJson(text, name));
    if (!*r) state.SkipWithError(r->message().c_str());
    nodes = *r ? (*r)->size() : 0;
    benchmark::DoNotOptimize(r);
    state.PauseTiming();
    r.reset();
    state.ResumeTiming();
  }
  state.SetLabel(name);
  state.counters["nodes"] = double(nodes);
  state.counters["per_node"] = benchmark::Counter(double(nodes), benchmark::Counter::kIsIterationInvariantRate |
                                                                    benchmark::Counter::kInvert);
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(text.size()));
}
BENCHMARK(BM_FxJsonImport)->DenseRange(0, 3)->Unit(benchmark::kMillisecond);

}  // namespace
