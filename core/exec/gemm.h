// Matrix multiply for the reference executor (convolution, mm, bmm, addmm, linear, attention):
// OpenBLAS, single-threaded inside, split over the executor's threads by parallelFor.
#pragma once

#include <cstdint>

namespace ls::exec {

/// C[M,N] = A[M,K] * op(B) (+ C when `accumulate`), row-major with leading dimensions lda,
/// ldb, ldc (elements). op(B) is B[K,N], or with `transB` the transpose of B stored [N,K] (a
/// linear layer's weight, used in place). Float32 throughout (OpenBLAS sgemm).
///
/// Threads: the product is cut into fixed blocks of rows or columns (the cut depends on the
/// shape only) that up to `threads` threads compute; OpenBLAS itself runs single-threaded, so
/// it never competes with parallelFor. Every element is computed by one sgemm call over the
/// whole K, so results do not depend on `threads` and are the same run to run (the last bits
/// may differ between CPUs: OpenBLAS picks its kernels by CPU at run time).
void gemm(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb, bool transB,
          float* C, int64_t ldc, bool accumulate, int threads);

/// The same product accumulated in double (OpenBLAS dgemm on the operands widened to double)
/// and rounded to float once: what an exact integer accumulation of quantised operands
/// computes, up to that final rounding (products of two floats are exact in double). Used when
/// ExecOptions::exactAccumulation is set (INT verification). Same thread and determinism rules.
void gemmExact(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb,
               bool transB, float* C, int64_t ldc, bool accumulate, int threads);

/// The same product in float64 (OpenBLAS dgemm), for kernels evaluated in float64
/// (ExecOptions::float64). Same thread and determinism rules.
void gemm(int64_t M, int64_t N, int64_t K, const double* A, int64_t lda, const double* B, int64_t ldb, bool transB,
          double* C, int64_t ldc, bool accumulate, int threads);

/// gemm or gemmExact.
inline void gemmFor(bool exact, int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B,
                    int64_t ldb, bool transB, float* C, int64_t ldc, bool accumulate, int threads) {
  if (exact) gemmExact(M, N, K, A, lda, B, ldb, transB, C, ldc, accumulate, threads);
  else gemm(M, N, K, A, lda, B, ldb, transB, C, ldc, accumulate, threads);
}
/// In float64 every product accumulates in double already: `exact` changes nothing.
inline void gemmFor(bool /*exact*/, int64_t M, int64_t N, int64_t K, const double* A, int64_t lda, const double* B,
                    int64_t ldb, bool transB, double* C, int64_t ldc, bool accumulate, int threads) {
  gemm(M, N, K, A, lda, B, ldb, transB, C, ldc, accumulate, threads);
}

}  // namespace ls::exec
