// Single-precision matrix multiply for the reference executor (convolution, mm, linear).
#pragma once

#include <cstdint>

namespace ls::exec {

/// C[M,N] = A[M,K] * B[K,N] (+ C when `accumulate`), all row-major with leading dimensions
/// lda, ldb, ldc (elements). Cache-blocked with a 4x8 register micro-kernel; splits the work
/// over up to `threads` threads. Accumulates in float, k in increasing order per block.
void gemm(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb, float* C,
          int64_t ldc, bool accumulate, int threads);

}  // namespace ls::exec
