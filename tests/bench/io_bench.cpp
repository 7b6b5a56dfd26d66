// Benchmarks of the native .lsg format: save and load of the 10.8k-node ViT graph.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "core/io/lsg.h"
#include "core/ir/graph.h"

#if __has_include("core/io/fxjson.h")
#include "core/io/fxjson.h"
#define LS_BENCH_HAVE_FXJSON 1
#endif

namespace {

using namespace ls;

/// Synthetic stand-in with the same shape of work (~10.8k nodes, ViT-like op mix), used only
/// when the fxjson importer is not available.
ir::Graph syntheticGraph(int layers) {
  ir::Graph g;
  g.modelName = "synthetic_vit";
  auto add = [&](ir::NodeKind kind, std::string name, const char* op, std::vector<ir::Arg> args,
                 ir::TensorMeta m) {
    ir::Node n;
    n.kind = kind;
    n.name = std::move(name);
    if (op) {
      n.op = ir::internOp(op);
      n.target = op;
    } else {
      n.target = n.name;
    }
    n.args = std::move(args);
    n.outputs.push_back(std::move(m));
    return g.append(std::move(n));
  };
  ir::TensorMeta act(ir::DType::Float32, {1, 65, 192});
  ir::NodeId x = add(ir::NodeKind::Placeholder, "x", nullptr, {}, act);
  for (int l = 0; l < layers; ++l) {
    std::string p = "l" + std::to_string(l) + "_";
    ir::NodeId w = add(ir::NodeKind::GetAttr, p + "w", nullptr, {}, ir::TensorMeta(ir::DType::Float32, {192, 192}));
    ir::NodeId cur = x;
    for (int k = 0; k < 50; ++k) {
      std::string nm = p + std::to_string(k);
      if (k % 5 == 0)
        cur = add(ir::NodeKind::Call, nm, "aten.view_copy.default", {ir::ValueRef{cur, 0}, ir::IntList{65, 192}},
                  ir::TensorMeta(ir::DType::Float32, {65, 192}));
      else if (k % 5 == 1)
        cur = add(ir::NodeKind::Call, nm, "aten.mm.default", {ir::ValueRef{cur, 0}, ir::ValueRef{w, 0}},
                  ir::TensorMeta(ir::DType::Float32, {65, 192}));
      else
        cur = add(ir::NodeKind::Call, nm, "aten.add.Tensor", {ir::ValueRef{cur, 0}, ir::ValueRef{x, 0}},
                  act);
    }
    x = cur;
  }
  ir::Node out;
  out.kind = ir::NodeKind::Output;
  out.name = "output";
  out.target = "output";
  out.args.push_back(ir::RefList{ir::ValueRef{x, 0}});
  g.append(std::move(out));
  return g;
}

const ir::Graph& benchGraph() {
  static const ir::Graph* g = [] {
#ifdef LS_BENCH_HAVE_FXJSON
    auto r = io::importFxJsonFile(std::string(LS_ASSETS_DIR) + "/graphs/large/vit_tiny_deep200.fxjson.json");
    if (!r) {
      std::fprintf(stderr, "io_bench: %s\n", r.message().c_str());
      std::abort();
    }
    return new ir::Graph(std::move(r).value());
#else
    std::fprintf(stderr, "io_bench: fxjson importer unavailable, using a synthetic 10.6k-node graph\n");
    return new ir::Graph(syntheticGraph(210));
#endif
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

void BM_LsgSave(benchmark::State& state) {
  const ir::Graph& g = benchGraph();
  size_t bytes = 0;
  for (auto _ : state) {
    auto r = io::serializeLsg(g);
    if (!r) state.SkipWithError(r.message().c_str());
    bytes = r ? r->size() : 0;
    benchmark::DoNotOptimize(r);
  }
  state.counters["nodes"] = double(g.size());
  state.counters["nodes/s"] = benchmark::Counter(double(g.size()), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["file_bytes"] = double(bytes);
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
}
BENCHMARK(BM_LsgSave)->Unit(benchmark::kMillisecond);

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

}  // namespace
