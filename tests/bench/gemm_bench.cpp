// Benchmarks: the reference executor's matrix-product backends side by side on shapes from real
// models (the evidence for the GEMM backend choice in docs/DESIGN.md). Shapes are
// C[M,N] = A[M,K] * B[K,N] as the executor issues them: ViT-B/16 linears (B is the weight
// [N, K], used transposed), attention products, and the im2col products of resnet18 and
// mobilenet_v2 convolutions. Each backend runs with 2 threads (the machine's cores) unless
// its name says serial; `executor_ordered` (gemmOrdered, the calibration's product) is ours. The hand-written GEMM that OpenBLAS replaced is timed by this file as of
// commit d883e9a (BM_Gemm/hand, hand_exact).
//   build/release/tests/ls_bench --benchmark_filter=Gemm --benchmark_repetitions=5
//     --benchmark_report_aggregates_only=true   (one command line)
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <algorithm>
#include <random>
#include <vector>

#include "core/exec/gemm.h"

#ifdef LS_BENCH_DNNL
#include <oneapi/dnnl/dnnl.hpp>
#endif

namespace {

struct Shape {
  const char* name;
  int64_t m, n, k;
  bool transB;  // B stored [N, K] (a linear layer's weight)
};

// clang-format off
const Shape kShapes[] = {
    {"vit_qkv_197x2304x768",   197, 2304, 768, true},
    {"vit_fc1_197x3072x768",   197, 3072, 768, true},
    {"vit_fc2_197x768x3072",   197, 768, 3072, true},
    {"vit_proj_197x768x768",   197, 768, 768, true},
    {"vit_scores_197x197x64",  197, 197, 64, false},
    {"vit_ctx_197x64x197",     197, 64, 197, false},
    {"vit_patch_768x196x768",  768, 196, 768, false},
    {"vit_head_1x1000x768",    1, 1000, 768, true},
    {"r18_conv1_64x12544x147", 64, 12544, 147, false},
    {"r18_l1_64x3136x576",     64, 3136, 576, false},
    {"r18_l4_512x49x4608",     512, 49, 4608, false},
    {"mv2_expand_144x3136x24", 144, 3136, 24, false},
    {"mv2_project_24x3136x144", 24, 3136, 144, false},
    {"mv2_last_1280x49x320",   1280, 49, 320, false},
};
// clang-format on

constexpr int kThreads = 2;

struct Operands {
  std::vector<float> a, b, c;
  explicit Operands(const Shape& s) : a(size_t(s.m * s.k)), b(size_t(s.k * s.n)), c(size_t(s.m * s.n)) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    for (float& x : a) x = d(rng);
    for (float& x : b) x = d(rng);
  }
};

void setFlops(benchmark::State& st, const Shape& s) {
  st.counters["GFLOPS"] = benchmark::Counter(double(st.iterations()) * 2.0 * double(s.m * s.n * s.k),
                                             benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
}

/// The executor's products (core/exec/gemm.h) over kThreads threads: OpenBLAS sgemm in fixed
/// blocks (Blas), the ordered fma chains (Ordered), or dgemm on operands widened to double
/// (Exact).
void BM_GemmExecutor(benchmark::State& st, Shape s, ls::exec::Accumulation acc) {
  Operands o(s);
  const int64_t ldb = s.transB ? s.k : s.n;
  for (auto _ : st) {
    ls::exec::gemmFor(acc, s.m, s.n, s.k, o.a.data(), s.k, o.b.data(), ldb, s.transB, o.c.data(), s.n, false,
                      kThreads);
    benchmark::DoNotOptimize(o.c.data());
  }
  setFlops(st, s);
}

/// Exact mode as gemmExact did before it widened per block: both operands widened whole, the
/// float64 product (the same blocks and dgemm calls), rounded to float (the same bits).
void BM_GemmExactWhole(benchmark::State& st, Shape s) {
  Operands o(s);
  const int64_t ldb = s.transB ? s.k : s.n;
  std::vector<double> a, b, c(o.c.size());
  for (auto _ : st) {
    a.assign(o.a.begin(), o.a.end());
    b.assign(o.b.begin(), o.b.end());
    ls::exec::gemm(s.m, s.n, s.k, a.data(), s.k, b.data(), ldb, s.transB, c.data(), s.n, false, kThreads);
    std::copy(c.begin(), c.end(), o.c.begin());
    benchmark::DoNotOptimize(o.c.data());
  }
  setFlops(st, s);
}

/// OpenBLAS sgemm with its own thread pool (openblas_set_num_threads).
void BM_GemmOpenBlasOwnThreads(benchmark::State& st, Shape s, int threads) {
  Operands o(s);
  openblas_set_num_threads(threads);
  for (auto _ : st) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, s.transB ? CblasTrans : CblasNoTrans, int(s.m), int(s.n), int(s.k), 1.0f,
                o.a.data(), int(s.k), o.b.data(), int(s.transB ? s.k : s.n), 0.0f, o.c.data(), int(s.n));
    benchmark::DoNotOptimize(o.c.data());
  }
  openblas_set_num_threads(1);
  setFlops(st, s);
}

#ifdef LS_BENCH_DNNL
/// oneDNN matmul (primitive created once per shape, outside the timed loop; OpenMP threads).
void BM_GemmOneDnn(benchmark::State& st, Shape s) {
  Operands o(s);
  using namespace dnnl;
  engine eng(engine::kind::cpu, 0);
  stream strm(eng);
  memory::desc ad({s.m, s.k}, memory::data_type::f32, memory::format_tag::ab);
  memory::desc bd({s.k, s.n}, memory::data_type::f32, s.transB ? memory::format_tag::ba : memory::format_tag::ab);
  memory::desc cd({s.m, s.n}, memory::data_type::f32, memory::format_tag::ab);
  matmul prim(matmul::primitive_desc(matmul::desc(ad, bd, cd), eng));  // oneDNN 2.x API
  memory am(ad, eng, o.a.data()), bm(bd, eng, o.b.data()), cm(cd, eng, o.c.data());
  for (auto _ : st) {
    prim.execute(strm, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
    strm.wait();
    benchmark::DoNotOptimize(o.c.data());
  }
  setFlops(st, s);
}
#endif

int registerAll() {
  for (const Shape& s : kShapes) {
    const std::string n = s.name;
    using ls::exec::Accumulation;
    benchmark::RegisterBenchmark(("BM_Gemm/executor/" + n).c_str(), BM_GemmExecutor, s, Accumulation::Blas)
        ->Unit(benchmark::kMicrosecond)->UseRealTime();
    benchmark::RegisterBenchmark(("BM_Gemm/executor_ordered/" + n).c_str(), BM_GemmExecutor, s, Accumulation::Ordered)
        ->Unit(benchmark::kMicrosecond)->UseRealTime();
    benchmark::RegisterBenchmark(("BM_Gemm/executor_exact/" + n).c_str(), BM_GemmExecutor, s, Accumulation::Exact)
        ->Unit(benchmark::kMicrosecond)->UseRealTime();
    benchmark::RegisterBenchmark(("BM_Gemm/executor_exact_whole/" + n).c_str(), BM_GemmExactWhole, s)
        ->Unit(benchmark::kMicrosecond)->UseRealTime();
    benchmark::RegisterBenchmark(("BM_Gemm/openblas_pool/" + n).c_str(), BM_GemmOpenBlasOwnThreads, s, kThreads)
        ->Unit(benchmark::kMicrosecond)->UseRealTime();
    benchmark::RegisterBenchmark(("BM_Gemm/openblas_serial/" + n).c_str(), BM_GemmOpenBlasOwnThreads, s, 1)
        ->Unit(benchmark::kMicrosecond)->UseRealTime();
#ifdef LS_BENCH_DNNL
    benchmark::RegisterBenchmark(("BM_Gemm/onednn/" + n).c_str(), BM_GemmOneDnn, s)
        ->Unit(benchmark::kMicrosecond)->UseRealTime();
#endif
  }
  return 0;
}
const int kRegistered = registerAll();

}  // namespace
