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

/// The same product with every element one chain of fused multiply-adds over k in increasing
/// order, c = fma(A[i,k], op(B)[k,j], c), started from C (accumulate) or +0: its bytes are
/// fixed by IEEE 754 alone, so they are the same on every CPU and for every thread count (an
/// AVX2 + FMA kernel where the CPU has one, else the portable loop; the two agree bit for bit).
/// Float32 accumulation, about OpenBLAS sgemm's speed, half dgemm's time: the quantizer's
/// calibration uses it, so an INT model's qparams do not depend on the machine.
void gemmOrdered(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb,
                 bool transB, float* C, int64_t ldc, bool accumulate, int threads);
/// gemmOrdered's portable loop (what it runs without AVX2 and FMA; tests compare the two).
void gemmOrderedPortable(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb,
                         bool transB, float* C, int64_t ldc, bool accumulate, int threads);

/// How the executor's float32 products accumulate (ExecOptions picks it).
enum class Accumulation : uint8_t {
  Blas,     ///< gemm: OpenBLAS sgemm, the fastest; the last bits depend on the CPU
  Ordered,  ///< gemmOrdered: one fma chain per element in k order, the same bits on every CPU
  Exact,    ///< gemmExact: double accumulation rounded to float once
};

/// gemm, gemmOrdered or gemmExact.
inline void gemmFor(Accumulation acc, int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B,
                    int64_t ldb, bool transB, float* C, int64_t ldc, bool accumulate, int threads) {
  switch (acc) {
    case Accumulation::Exact: return gemmExact(M, N, K, A, lda, B, ldb, transB, C, ldc, accumulate, threads);
    case Accumulation::Ordered: return gemmOrdered(M, N, K, A, lda, B, ldb, transB, C, ldc, accumulate, threads);
    case Accumulation::Blas: break;
  }
  gemm(M, N, K, A, lda, B, ldb, transB, C, ldc, accumulate, threads);
}
/// In float64 every product accumulates in double already: the mode changes nothing.
inline void gemmFor(Accumulation /*acc*/, int64_t M, int64_t N, int64_t K, const double* A, int64_t lda,
                    const double* B, int64_t ldb, bool transB, double* C, int64_t ldc, bool accumulate, int threads) {
  gemm(M, N, K, A, lda, B, ldb, transB, C, ldc, accumulate, threads);
}

}  // namespace ls::exec
