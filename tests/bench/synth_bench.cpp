// Constant materialisation benchmarks: synthesis per element (one thread and all), weight
// permutes (conv OIHW -> OHWI, linear transpose) through the strided copy, interning
// (hash + store) and materializeConstants over a bundled model's shape-only weights.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>

#include "core/exec/kernel_util.h"
#include "core/exec/synth.h"
#include "core/io/fxjson.h"

namespace {

using namespace ls;

ir::Constant weight(ir::Shape s, ir::DType t = ir::DType::Float32) {
  ir::Constant c;
  c.name = "layer4_1_conv2_weight";
  c.fqn = "layer4.1.conv2.weight";
  c.dtype = t;
  c.shape = s;
  return c;
}

/// synthesizeConstant of a 512x512x3x3 conv weight (2.4M elements); arg 0: threads.
void BM_SynthesizeConstant(benchmark::State& st, ir::DType t) {
  const ir::Constant c = weight({512, 512, 3, 3}, t);
  for (auto _ : st) {
    exec::Tensor x = exec::synthesizeConstant(c, int(st.range(0)));
    benchmark::DoNotOptimize(x.bytes());
  }
  st.counters["ns_per_element"] = benchmark::Counter(double(c.numel()), benchmark::Counter::kIsIterationInvariantRate |
                                                                            benchmark::Counter::kInvert);
}
BENCHMARK_CAPTURE(BM_SynthesizeConstant, f32, ir::DType::Float32)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_SynthesizeConstant, bf16, ir::DType::BFloat16)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_SynthesizeConstant, i64, ir::DType::Int64)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

/// A permute of a float tensor as the Arm passes do it (copyStrided into a fresh tensor).
void BM_Permute(benchmark::State& st, ir::Shape in, std::vector<int64_t> perm) {
  exec::Tensor x = exec::synthesizeConstant(weight(in));
  ir::Shape out = in;
  for (size_t d = 0; d < perm.size(); ++d) out[int(d)] = in[int(perm[d])];
  std::vector<int64_t> inStr = exec::contiguousStrides(in), src(perm.size());
  for (size_t d = 0; d < perm.size(); ++d) src[d] = inStr[size_t(perm[d])];
  std::vector<int64_t> dst = exec::contiguousStrides(out);
  for (auto _ : st) {
    exec::Tensor o(x.dtype(), out);
    exec::copyStrided(4, out, x.bytes(), 0, src.data(), o.bytes(), 0, dst.data());
    benchmark::DoNotOptimize(o.bytes());
  }
  st.counters["ns_per_element"] = benchmark::Counter(double(in.numel()), benchmark::Counter::kIsIterationInvariantRate |
                                                                             benchmark::Counter::kInvert);
}
BENCHMARK_CAPTURE(BM_Permute, conv_ohwi_512x512x3x3, ir::Shape{512, 512, 3, 3}, std::vector<int64_t>{0, 2, 3, 1})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Permute, conv1d_ohwi_250x250x1x48, ir::Shape{250, 250, 1, 48}, std::vector<int64_t>{0, 2, 3, 1})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Permute, linear_t_3072x768, ir::Shape{3072, 768}, std::vector<int64_t>{1, 0})->Unit(benchmark::kMillisecond);

/// Interning fresh bytes (hash + insert) of arg 0 bytes; the store is cleared each iteration.
void BM_Intern(benchmark::State& st) {
  const size_t n = size_t(st.range(0));
  std::vector<uint8_t> bytes(n);
  for (size_t i = 0; i < n; ++i) bytes[i] = uint8_t(exec::splitmix64At(5, i));
  for (auto _ : st) {
    st.PauseTiming();
    ir::ConstantStore store;
    std::vector<uint8_t> copy = bytes;
    st.ResumeTiming();
    benchmark::DoNotOptimize(store.intern(std::move(copy)));
  }
  st.SetBytesProcessed(int64_t(st.iterations()) * int64_t(n));
}
BENCHMARK(BM_Intern)->Arg(1 << 20)->Arg(16 << 20)->Unit(benchmark::kMicrosecond);

/// materializeConstants over resnet18's 11.7M shape-only parameters; arg 0: threads.
void BM_MaterializeResnet18(benchmark::State& st) {
  auto r = io::importFxJsonFile(std::string(LS_ASSETS_DIR) + "/graphs/resnet18.fxjson.json");
  if (!r) {
    fprintf(stderr, "%s\n", r.message().c_str());
    std::abort();
  }
  for (auto _ : st) {
    ir::Graph g = *r;
    exec::materializeConstants(g, int(st.range(0)));
    benchmark::DoNotOptimize(g.store().totalBytes());
  }
}
BENCHMARK(BM_MaterializeResnet18)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
