// Single-precision matrix multiply for the reference executor (convolution, mm, linear).
#pragma once

#include <cstdint>

namespace ls::exec {

/// C[M,N] = A[M,K] * B[K,N] (+ C when `accumulate`), all row-major with leading dimensions
/// lda, ldb, ldc (elements). Cache-blocked with a 4x8 register micro-kernel; splits the work
/// over up to `threads` threads. Accumulates in float, k in increasing order per block.
void gemm(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb, float* C,
          int64_t ldc, bool accumulate, int threads);

/// The same product accumulated in double (one row of C at a time, k in increasing order) and
/// rounded to float once: what an exact integer accumulation of quantised operands computes,
/// up to that final rounding. Slower; used when ExecOptions::exactAccumulation is set.
void gemmExact(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb, float* C,
               int64_t ldc, bool accumulate, int threads);

/// gemm or gemmExact.
inline void gemmFor(bool exact, int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B,
                    int64_t ldb, float* C, int64_t ldc, bool accumulate, int threads) {
  if (exact) gemmExact(M, N, K, A, lda, B, ldb, C, ldc, accumulate, threads);
  else gemm(M, N, K, A, lda, B, ldb, C, ldc, accumulate, threads);
}

}  // namespace ls::exec
