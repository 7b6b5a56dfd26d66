// Matrix products through OpenBLAS (sgemm; dgemm for exact accumulation), cut into fixed blocks
// that the executor's threads share. docs/DESIGN.md has the benchmark behind the choice.
#include "core/exec/gemm.h"

#include <cblas.h>

#include <algorithm>
#include <mutex>
#include <vector>

#include "core/exec/parallel.h"

namespace ls::exec {
namespace {

/// OpenBLAS runs on the calling thread: the executor's parallelFor decides the threads (once,
/// before the first product; the setting is process-wide).
void singleThreadedBlas() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
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
  cblas_sgemm(CblasRowMajor, CblasNoTrans, transB ? CblasTrans : CblasNoTrans, int(m), int(n), int(K), 1.0f, A,
              int(lda), B, int(ldb), accumulate ? 1.0f : 0.0f, C, int(ldc));
}
void blasBlock(int64_t m, int64_t n, int64_t K, const double* A, int64_t lda, const double* B, int64_t ldb,
               bool transB, double* C, int64_t ldc, bool accumulate) {
  cblas_dgemm(CblasRowMajor, CblasNoTrans, transB ? CblasTrans : CblasNoTrans, int(m), int(n), int(K), 1.0, A,
              int(lda), B, int(ldb), accumulate ? 1.0 : 0.0, C, int(ldc));
}

/// The product in T's precision (float: sgemm, double: dgemm), blocks shared over threads.
template <typename T>
void gemmIn(int64_t M, int64_t N, int64_t K, const T* A, int64_t lda, const T* B, int64_t ldb, bool transB, T* C,
            int64_t ldc, bool accumulate, int threads) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) return emptyProduct(M, N, C, ldc, accumulate);
  singleThreadedBlas();
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
  singleThreadedBlas();
  // Widen the operands (packed: leading dimension K, or for a transposed B, K too) into buffers
  // kept per calling thread: fresh large allocations would cost a page fault per 4 KB each call.
  thread_local std::vector<double> aBuf, bBuf, cBuf;
  double* a = grown(aBuf, M * K);
  double* b = grown(bBuf, K * N);
  double* c = grown(cBuf, M * N);
  const int64_t bRows = transB ? N : K, bCols = transB ? K : N;
  parallelFor(threads, M, K, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) std::copy(A + i * lda, A + i * lda + K, a + i * K);
  });
  parallelFor(threads, bRows, bCols, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) std::copy(B + r * ldb, B + r * ldb + bCols, b + r * bCols);
  });
  if (accumulate)
    for (int64_t i = 0; i < M; ++i) std::copy(C + i * ldc, C + i * ldc + N, c + i * N);
  forEachBlock(M, N, K, threads, [&](int64_t m0, int64_t m, int64_t n0, int64_t n) {
    blasBlock(m, n, K, a + m0 * K, K, columnsOf<double>(b, bCols, transB, n0), bCols, transB, c + m0 * N + n0, N,
              accumulate);
    for (int64_t i = m0; i < m0 + m; ++i)
      for (int64_t j = n0; j < n0 + n; ++j) C[i * ldc + j] = float(c[size_t(i * N + j)]);
  });
}

}  // namespace ls::exec
