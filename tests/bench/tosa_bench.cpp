// Benchmarks of the TOSA flatbuffer writer and reader on a synthetic ~10k-node TOSA graph
// (2000 blocks of MATMUL + bias ADD + CLAMP + RESHAPE, each with its own weight constant:
// the size of the 10.8k-node ViT after lowering, with 33 MB of weights).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/backends/arm/tosa/tosa_validate.h"
#include "core/backends/arm/tosa/tosa_writer.h"
#include "core/ir/graph.h"

namespace {

using namespace ls;

ir::ValueRef add(ir::Graph& g, ir::NodeKind kind, const std::string& name, const std::string& target,
                 std::vector<ir::Arg> args, std::vector<ir::Kwarg> kwargs, ir::TensorMeta out) {
  ir::Node n;
  n.kind = kind;
  n.name = name;
  n.target = target;
  if (kind == ir::NodeKind::Call) {
    n.op = ir::internOp(target);
    n.flags |= ir::kFlagOpaque;
  }
  n.args = std::move(args);
  n.kwargs = std::move(kwargs);
  n.outputs.push_back(out);
  return {g.append(std::move(n)), 0};
}

const ir::Graph& benchGraph() {
  static const ir::Graph* graph = [] {
    auto* g = new ir::Graph;
    constexpr int kBlocks = 2000, kDim = 64;
    ir::TensorMeta act(ir::DType::Float32, {1, 1, kDim});
    ir::ValueRef x = add(*g, ir::NodeKind::Placeholder, "x", "x", {}, {}, act);
    ir::ValueRef zp = add(*g, ir::NodeKind::Call, "zp", "tosa.CONST", {}, {{"values", 0.0}},
                          ir::TensorMeta(ir::DType::Float32, {1}));
    ir::ValueRef shape = add(*g, ir::NodeKind::Call, "shape", "tosa.CONST_SHAPE", {},
                             {{"values", ir::IntList{1, 1, kDim}}}, ir::TensorMeta(ir::DType::Int64, {3}));
    for (int i = 0; i < kBlocks; ++i) {
      std::string w = "w" + std::to_string(i), b = "b" + std::to_string(i);
      std::vector<uint8_t> wb(size_t(kDim) * kDim * 4);
      for (size_t k = 0; k < wb.size(); ++k) wb[k] = uint8_t(k * 31 + size_t(i));
      ir::Constant c;
      c.name = w;
      c.dtype = ir::DType::Float32;
      c.shape = {1, kDim, kDim};
      c.data = g->store().intern(std::move(wb));
      g->setConstant(c);
      ir::ValueRef wv = add(*g, ir::NodeKind::GetAttr, w, w, {}, {}, ir::TensorMeta(ir::DType::Float32, {1, kDim, kDim}));
      ir::ValueRef mm = add(*g, ir::NodeKind::Call, "mm" + std::to_string(i), "tosa.MATMUL", {x, wv, zp, zp}, {}, act);
      ir::ValueRef bv = add(*g, ir::NodeKind::Call, b, "tosa.CONST", {}, {{"values", ir::FloatList(kDim, 0.5)}}, act);
      ir::ValueRef s = add(*g, ir::NodeKind::Call, "add" + std::to_string(i), "tosa.ADD", {mm, bv}, {}, act);
      ir::ValueRef cl = add(*g, ir::NodeKind::Call, "clamp" + std::to_string(i), "tosa.CLAMP", {s},
                            {{"min_val", 0.0}, {"max_val", 6.0}}, act);
      x = add(*g, ir::NodeKind::Call, "reshape" + std::to_string(i), "tosa.RESHAPE", {cl, shape}, {}, act);
    }
    ir::Node out;
    out.kind = ir::NodeKind::Output;
    out.name = "output";
    out.target = "output";
    out.args.push_back(ir::Arg(ir::RefList{x}));
    out.outputs.push_back(g->meta(x));
    g->append(std::move(out));
    return g;
  }();
  return *graph;
}

void BM_TosaWrite(benchmark::State& state) {
  const ir::Graph& g = benchGraph();
  size_t bytes = 0;
  for (auto _ : state) {
    auto r = io::serializeTosa(g);
    if (!r) state.SkipWithError(r.message().c_str());
    bytes = r ? r->size() : 0;
    benchmark::DoNotOptimize(r);
  }
  state.counters["nodes"] = double(g.size());
  state.counters["file_bytes"] = double(bytes);
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
}
BENCHMARK(BM_TosaWrite)->Unit(benchmark::kMillisecond);

void BM_TosaReadVerify(benchmark::State& state) {
  static const std::string bytes = [] {
    auto r = io::serializeTosa(benchGraph());
    if (!r) {
      std::fprintf(stderr, "tosa_bench: %s\n", r.message().c_str());
      std::abort();
    }
    return std::move(r).value();
  }();
  size_t ops = 0;
  for (auto _ : state) {
    auto r = io::readTosaBytes(bytes, "bench.tosa");
    if (!r) state.SkipWithError(r.message().c_str());
    ops = r ? r->mainBlock()->operators.size() : 0;
    benchmark::DoNotOptimize(r);
  }
  state.counters["operators"] = double(ops);
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes.size()));
}
BENCHMARK(BM_TosaReadVerify)->Unit(benchmark::kMillisecond);

/// The TOSA 1.0 legality check (what CheckTosaOperatorSupportPass runs at the end of every
/// `tosa` pipeline, and the writer before it writes) over the same graph: per node.
void BM_TosaCheckGraph(benchmark::State& state) {
  const ir::Graph& g = benchGraph();
  size_t violations = 0;
  for (auto _ : state) {
    std::vector<arm::TosaViolation> v = arm::validateTosaGraph(g);
    violations = v.size();
    benchmark::DoNotOptimize(v);
  }
  if (violations) state.SkipWithError("the bench graph should be legal TOSA 1.0");
  state.counters["ns_per_node"] =
      benchmark::Counter(double(g.size()), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_TosaCheckGraph)->Unit(benchmark::kMicrosecond);

}  // namespace
