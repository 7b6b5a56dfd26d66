// Matrix products through OpenBLAS (sgemm; dgemm for exact accumulation), cut into fixed blocks
// that the executor's threads share. docs/DESIGN.md has the benchmark behind the choice.
#include "core/exec/gemm.h"

#include <cblas.h>  // declarations only: the library is loaded on first use (blas() below)
#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "core/exec/parallel.h"

namespace ls::exec {
namespace {

/// The OpenBLAS entry points the executor calls.
struct Blas {
  decltype(&cblas_sgemm) sgemm = nullptr;
  decltype(&cblas_dgemm) dgemm = nullptr;
};

/// OpenBLAS, loaded by the first product (on the thread that asks for it, before parallelFor
/// shares the blocks), single-threaded: the executor's parallelFor decides the threads.
/// Not linked: Debian's pthread build starts its thread pool when it loads and the pool spins
/// (sched_yield) for about 0.1 s of a core, in every process that links it, whether it multiplies
/// anything or not; most never do (lowering, `bench`, the app before a run). Loaded here with
/// OPENBLAS_NUM_THREADS=1, it starts no pool at all. docs/DESIGN.md "Matrix products" has the
/// measurement. A missing library is an error naming it, raised by the product that needed it.
const Blas& blas() {
  static const Blas lib = [] {
    constexpr const char* kLibrary = "libopenblas.so.0";  // libopenblas0 (libopenblas-dev's runtime)
    setenv("OPENBLAS_NUM_THREADS", "1", 1);  // read by the library's constructor, in dlopen
    void* h = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
    if (!h)
      throw std::runtime_error(fmt::format("matrix product: cannot load OpenBLAS ({}): {} (install libopenblas0)",
                                           kLibrary, dlerror()));
    Blas b;
    b.sgemm = reinterpret_cast<decltype(b.sgemm)>(dlsym(h, "cblas_sgemm"));
    b.dgemm = reinterpret_cast<decltype(b.dgemm)>(dlsym(h, "cblas_dgemm"));
    auto setThreads = reinterpret_cast<decltype(&openblas_set_num_threads)>(dlsym(h, "openblas_set_num_threads"));
    if (!b.sgemm || !b.dgemm || !setThreads)
      throw std::runtime_error(fmt::format("matrix product: {} has no cblas_sgemm, cblas_dgemm or "
                                           "openblas_set_num_threads",
                                           kLibrary));
    setThreads(1);  // also when the process had loaded it already (a benchmark linking it)
    return b;
  }();
  return lib;
}

/// How a product is cut: along the rows of C (`rows`) or its columns, into `count` blocks of
/// `size` (the last may be shorter). A function of the shape alone, never of the thread count,
/// so every element comes from the same sgemm call whatever the threads.
struct Blocks {
  bool rows = false;
  int64_t count = 1, size = 0;
};

Blocks blocksFor(int64_t M, int64_t N) {
  constexpr int64_t kMinBlock = 64;  // rows or columns per block at least
  constexpr int64_t kMaxBlocks = 16;
  Blocks b;
  b.rows = M > N;
  const int64_t dim = b.rows ? M : N;
  b.count = std::clamp<int64_t>((dim + kMinBlock - 1) / kMinBlock, 1, kMaxBlocks);
  b.size = (dim + b.count - 1) / b.count;
  b.count = (dim + b.size - 1) / b.size;
  return b;
}

/// Calls fn(m0, m, n0, n) for every block of C, on up to `threads` threads.
template <typename Fn>
void forEachBlock(int64_t M, int64_t N, int64_t K, int threads, Fn&& fn) {
  const Blocks b = blocksFor(M, N);
  const int64_t other = b.rows ? N : M;
  parallelFor(threads, b.count, 2 * b.size * other * K, [&](int64_t first, int64_t last) {
    for (int64_t i = first; i < last; ++i) {
      const int64_t d0 = i * b.size, d = std::min(b.size, (b.rows ? M : N) - d0);
      if (b.rows) fn(d0, d, int64_t(0), N);
      else fn(int64_t(0), M, d0, d);
    }
  });
}

/// B's block of columns [n0, n0 + n) (B stored [K, N], or [N, K] when transposed).
template <typename T>
const T* columnsOf(const T* B, int64_t ldb, bool transB, int64_t n0) {
  return transB ? B + n0 * ldb : B + n0;
}

/// `buf` with room for n elements (grown, never shrunk).
double* grown(std::vector<double>& buf, int64_t n) {
  if (buf.size() < size_t(n)) buf.resize(size_t(n));
  return buf.data();
}

/// C = 0 (or unchanged with accumulate) for K = 0, where BLAS need not touch C.
template <typename T>
void emptyProduct(int64_t M, int64_t N, T* C, int64_t ldc, bool accumulate) {
  if (accumulate) return;
  for (int64_t i = 0; i < M; ++i) std::fill(C + i * ldc, C + i * ldc + N, T(0));
}

/// One sgemm / dgemm call for the block of C at (m0, n0) of m x n.
void blasBlock(int64_t m, int64_t n, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb, bool transB,
               float* C, int64_t ldc, bool accumulate) {
  blas().sgemm(CblasRowMajor, CblasNoTrans, transB ? CblasTrans : CblasNoTrans, int(m), int(n), int(K), 1.0f, A,
               int(lda), B, int(ldb), accumulate ? 1.0f : 0.0f, C, int(ldc));
}
void blasBlock(int64_t m, int64_t n, int64_t K, const double* A, int64_t lda, const double* B, int64_t ldb,
               bool transB, double* C, int64_t ldc, bool accumulate) {
  blas().dgemm(CblasRowMajor, CblasNoTrans, transB ? CblasTrans : CblasNoTrans, int(m), int(n), int(K), 1.0, A,
               int(lda), B, int(ldb), accumulate ? 1.0 : 0.0, C, int(ldc));
}

/// The product in T's precision (float: sgemm, double: dgemm), blocks shared over threads.
template <typename T>
void gemmIn(int64_t M, int64_t N, int64_t K, const T* A, int64_t lda, const T* B, int64_t ldb, bool transB, T* C,
            int64_t ldc, bool accumulate, int threads) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) return emptyProduct(M, N, C, ldc, accumulate);
  blas();  // loaded (or its error raised) here, on the calling thread
  forEachBlock(M, N, K, threads, [&](int64_t m0, int64_t m, int64_t n0, int64_t n) {
    blasBlock(m, n, K, A + m0 * lda, lda, columnsOf(B, ldb, transB, n0), ldb, transB, C + m0 * ldc + n0, ldc,
              accumulate);
  });
}

}  // namespace

void gemm(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb, bool transB,
          float* C, int64_t ldc, bool accumulate, int threads) {
  gemmIn(M, N, K, A, lda, B, ldb, transB, C, ldc, accumulate, threads);
}

void gemm(int64_t M, int64_t N, int64_t K, const double* A, int64_t lda, const double* B, int64_t ldb, bool transB,
          double* C, int64_t ldc, bool accumulate, int threads) {
  gemmIn(M, N, K, A, lda, B, ldb, transB, C, ldc, accumulate, threads);
}

void gemmExact(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb,
               bool transB, float* C, int64_t ldc, bool accumulate, int threads) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) return emptyProduct(M, N, C, ldc, accumulate);
  blas();  // loaded (or its error raised) here, on the calling thread
  // The same dgemm calls (one per block of forEachBlock, over the whole K) on the same values
  // as widening both operands whole, but only the operand every block reads whole (A for
  // blocks of columns, B for blocks of rows) is widened once; each block widens its own rows of
  // A or columns of B, and its part of C, into buffers of the thread running it, so the double
  // copies stay about a block in size (and in cache) instead of the whole weight. Buffers are
  // kept per thread (fresh large allocations would cost a page fault per 4 KB each call): the
  // calling thread's across calls, each block slot's by the calling thread too.
  const Blocks bl = blocksFor(M, N);
  const int64_t bRows = transB ? N : K, bCols = transB ? K : N;
  thread_local std::vector<double> wholeBuf;
  thread_local std::vector<std::vector<double>> slotBufs;
  const int slots = std::max(threads, 1);
  if (slotBufs.size() < size_t(slots)) slotBufs.resize(size_t(slots));
  std::vector<double>* slotBuf = slotBufs.data();  // the calling thread's (a lambda naming a
                                                    // thread_local gets its own thread's)
  double* whole = nullptr;
  if (bl.rows) {
    whole = grown(wholeBuf, bRows * bCols);
    parallelFor(threads, bRows, bCols, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) std::copy(B + r * ldb, B + r * ldb + bCols, whole + r * bCols);
    });
  } else {
    whole = grown(wholeBuf, M * K);
    parallelFor(threads, M, K, [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) std::copy(A + i * lda, A + i * lda + K, whole + i * K);
    });
  }
  std::atomic<int> nextSlot{0};
  const int64_t other = bl.rows ? N : M;
  parallelFor(threads, bl.count, 2 * bl.size * other * K, [&](int64_t first, int64_t last) {
    std::vector<double>& buf = slotBuf[nextSlot++];
    for (int64_t blk = first; blk < last; ++blk) {
      const int64_t d0 = blk * bl.size, d = std::min(bl.size, (bl.rows ? M : N) - d0);
      const int64_t m0 = bl.rows ? d0 : 0, m = bl.rows ? d : M, n0 = bl.rows ? 0 : d0, n = bl.rows ? N : d;
      // This block's operand slice: A's rows [m0, m0 + m), or B's columns [n0, n0 + n) (rows of
      // a transposed B), packed with leading dimension K or n.
      const int64_t slice = bl.rows ? m * K : n * K;
      double* part = grown(buf, slice + m * n);
      double* c = part + slice;
      const double *a = whole, *b = whole;
      int64_t ldbw = bCols;
      if (bl.rows) {
        for (int64_t i = 0; i < m; ++i) std::copy(A + (m0 + i) * lda, A + (m0 + i) * lda + K, part + i * K);
        a = part;
      } else if (transB) {
        for (int64_t j = 0; j < n; ++j) std::copy(B + (n0 + j) * ldb, B + (n0 + j) * ldb + K, part + j * K);
        b = part, ldbw = K;
      } else {
        for (int64_t k = 0; k < K; ++k) std::copy(B + k * ldb + n0, B + k * ldb + n0 + n, part + k * n);
        b = part, ldbw = n;
      }
      if (bl.rows) b = whole;
      if (accumulate)
        for (int64_t i = 0; i < m; ++i) std::copy(C + (m0 + i) * ldc + n0, C + (m0 + i) * ldc + n0 + n, c + i * n);
      blasBlock(m, n, K, a, K, b, ldbw, transB, c, n, accumulate);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) C[(m0 + i) * ldc + n0 + j] = float(c[i * n + j]);
    }
  });
}

}  // namespace ls::exec
