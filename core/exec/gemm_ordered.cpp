// The ordered float32 product (gemmOrdered, core/exec/gemm.h): every element of C is one chain
// of fused multiply-adds over k in increasing order, c = fma(a_ik, b_kj, c), started from C
// (accumulate) or +0. The result of such a chain is fixed by IEEE 754 alone, so the bytes are
// the same on every CPU, for every blocking and thread count: the AVX2 micro-kernel runs one
// chain per lane (eight columns per vector, no reassociation), the portable one runs the same
// chains with std::fma, and the blocking below only decides when a chain's float is parked
// in C between two blocks of k (storing and reloading a float is exact).
//
// Blocking: C is cut into tasks of at most kMC rows x kNC columns shared over threads; per
// task and block of kKC values of k, B's columns are packed in panels of kNR columns (k-major,
// zero-padded), and a kMR x kNR micro-kernel walks them: a B panel stays in L1 while it reads
// kMR rows of A in place (the task's rows of A stay in L2; a last panel of fewer rows is copied
// zero-padded). Edge tiles run into a local tile and copy back the valid part.
// This file is built without floating-point contraction (core/CMakeLists.txt): its only
// arithmetic on values is the explicit fma.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/exec/gemm.h"
#include "core/exec/parallel.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define LS_GEMM_AVX2 1
#endif

namespace ls::exec {
namespace {

constexpr int64_t kMR = 6, kNR = 16;  // micro-tile: 6 rows x 16 columns (12 AVX2 accumulators)
constexpr int64_t kKC = 256;          // values of k per packed block (a B panel: 16 KB)
constexpr int64_t kMC = 264;          // rows per task at most (A's rows: up to 264 KB, L2)
constexpr int64_t kNC = 256;          // columns per task at most

/// c (kMR x kNR, leading dimension ldc) = the chains over kc values of k of A's rows a (kMR
/// rows, leading dimension lda) and the packed B panel bp (kc x kNR), continued from c when
/// `load`, else started from +0.
using Micro = void (*)(int64_t kc, const float* a, int64_t lda, const float* bp, float* c, int64_t ldc, bool load);

void microPortable(int64_t kc, const float* a, int64_t lda, const float* bp, float* c, int64_t ldc, bool load) {
  float acc[kMR][kNR];
  for (int64_t r = 0; r < kMR; ++r)
    for (int64_t j = 0; j < kNR; ++j) acc[r][j] = load ? c[r * ldc + j] : 0.0f;
  for (int64_t k = 0; k < kc; ++k, bp += kNR)
    for (int64_t r = 0; r < kMR; ++r)
      for (int64_t j = 0; j < kNR; ++j) acc[r][j] = std::fma(a[r * lda + k], bp[j], acc[r][j]);
  for (int64_t r = 0; r < kMR; ++r)
    for (int64_t j = 0; j < kNR; ++j) c[r * ldc + j] = acc[r][j];
}

/// op(B)'s columns [n0, n0 + nc) and k in [k0, k0 + kc) as panels of kNR columns, k-major;
/// columns past the block are zero. Moves values only, so any build of it packs the same.
void packB(const float* B, int64_t ldb, bool transB, int64_t n0, int64_t nc, int64_t k0, int64_t kc, float* packed) {
  float* out = packed;
  for (int64_t q = 0; q < nc; q += kNR, out += kNR * kc) {
    const int64_t w = std::min(kNR, nc - q);
    if (transB) {
      for (int64_t j = 0; j < kNR; ++j) {
        if (j < w) {
          const float* row = B + (n0 + q + j) * ldb + k0;
          for (int64_t k = 0; k < kc; ++k) out[k * kNR + j] = row[k];
        } else {
          for (int64_t k = 0; k < kc; ++k) out[k * kNR + j] = 0.0f;
        }
      }
    } else if (w < kNR) {
      for (int64_t k = 0; k < kc; ++k) {
        const float* row = B + (k0 + k) * ldb + n0 + q;
        for (int64_t j = 0; j < kNR; ++j) out[k * kNR + j] = j < w ? row[j] : 0.0f;
      }
    }
  }
  if (transB) return;
  // Whole panels of a B stored [K, N]: row by row across all panels, so B is read in runs of
  // nc values (a panel at a time would read 64 bytes per row of B, each a new cache line).
  const int64_t whole = nc / kNR;
  for (int64_t k = 0; k < kc; ++k) {
    const float* row = B + (k0 + k) * ldb + n0;
    for (int64_t q = 0; q < whole; ++q)
      for (int64_t j = 0; j < kNR; ++j) packed[(q * kc + k) * kNR + j] = row[q * kNR + j];
  }
}

#ifdef LS_GEMM_AVX2
bool haveAvx2Fma() {
  static const bool have = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return have;
}

__attribute__((target("avx2,fma"))) void microAvx2(int64_t kc, const float* a, int64_t lda, const float* bp, float* c,
                                                   int64_t ldc, bool load) {
  __m256 c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
  if (load) {
    c00 = _mm256_loadu_ps(c + 0 * ldc), c01 = _mm256_loadu_ps(c + 0 * ldc + 8);
    c10 = _mm256_loadu_ps(c + 1 * ldc), c11 = _mm256_loadu_ps(c + 1 * ldc + 8);
    c20 = _mm256_loadu_ps(c + 2 * ldc), c21 = _mm256_loadu_ps(c + 2 * ldc + 8);
    c30 = _mm256_loadu_ps(c + 3 * ldc), c31 = _mm256_loadu_ps(c + 3 * ldc + 8);
    c40 = _mm256_loadu_ps(c + 4 * ldc), c41 = _mm256_loadu_ps(c + 4 * ldc + 8);
    c50 = _mm256_loadu_ps(c + 5 * ldc), c51 = _mm256_loadu_ps(c + 5 * ldc + 8);
  } else {
    c00 = c01 = c10 = c11 = c20 = c21 = c30 = c31 = c40 = c41 = c50 = c51 = _mm256_setzero_ps();
  }
  const float *a0 = a, *a1 = a + lda, *a2 = a + 2 * lda, *a3 = a + 3 * lda, *a4 = a + 4 * lda, *a5 = a + 5 * lda;
  for (int64_t k = 0; k < kc; ++k, bp += kNR) {
    const __m256 b0 = _mm256_load_ps(bp), b1 = _mm256_load_ps(bp + 8);
    __m256 x = _mm256_broadcast_ss(a0 + k);
    c00 = _mm256_fmadd_ps(x, b0, c00), c01 = _mm256_fmadd_ps(x, b1, c01);
    x = _mm256_broadcast_ss(a1 + k);
    c10 = _mm256_fmadd_ps(x, b0, c10), c11 = _mm256_fmadd_ps(x, b1, c11);
    x = _mm256_broadcast_ss(a2 + k);
    c20 = _mm256_fmadd_ps(x, b0, c20), c21 = _mm256_fmadd_ps(x, b1, c21);
    x = _mm256_broadcast_ss(a3 + k);
    c30 = _mm256_fmadd_ps(x, b0, c30), c31 = _mm256_fmadd_ps(x, b1, c31);
    x = _mm256_broadcast_ss(a4 + k);
    c40 = _mm256_fmadd_ps(x, b0, c40), c41 = _mm256_fmadd_ps(x, b1, c41);
    x = _mm256_broadcast_ss(a5 + k);
    c50 = _mm256_fmadd_ps(x, b0, c50), c51 = _mm256_fmadd_ps(x, b1, c51);
  }
  _mm256_storeu_ps(c + 0 * ldc, c00), _mm256_storeu_ps(c + 0 * ldc + 8, c01);
  _mm256_storeu_ps(c + 1 * ldc, c10), _mm256_storeu_ps(c + 1 * ldc + 8, c11);
  _mm256_storeu_ps(c + 2 * ldc, c20), _mm256_storeu_ps(c + 2 * ldc + 8, c21);
  _mm256_storeu_ps(c + 3 * ldc, c30), _mm256_storeu_ps(c + 3 * ldc + 8, c31);
  _mm256_storeu_ps(c + 4 * ldc, c40), _mm256_storeu_ps(c + 4 * ldc + 8, c41);
  _mm256_storeu_ps(c + 5 * ldc, c50), _mm256_storeu_ps(c + 5 * ldc + 8, c51);
}

/// 8 x 8 transpose: rows r[0..7] (8 floats each, from B's rows) to columns.
__attribute__((target("avx2"))) inline void transpose8(__m256 r[8]) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  r[0] = _mm256_permute2f128_ps(u0, u4, 0x20), r[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
  r[2] = _mm256_permute2f128_ps(u2, u6, 0x20), r[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
  r[4] = _mm256_permute2f128_ps(u0, u4, 0x31), r[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
  r[6] = _mm256_permute2f128_ps(u2, u6, 0x31), r[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}

/// packB for a transposed B (rows of B are columns of op(B)) by 8 x 8 transposes: the same
/// layout and values as packB. A short last panel goes through packB, k past a multiple of 8
/// element by element.
__attribute__((target("avx2"))) void packBTransAvx2(const float* B, int64_t ldb, int64_t n0, int64_t nc, int64_t k0,
                                                    int64_t kc, float* out) {
  const int64_t kv = kc / 8 * 8;
  for (int64_t q = 0; q < nc; q += kNR, out += kNR * kc) {
    if (nc - q < kNR) {
      packB(B, ldb, true, n0 + q, nc - q, k0, kc, out);
      continue;
    }
    for (int64_t half = 0; half < kNR; half += 8) {
      const float* rows = B + (n0 + q + half) * ldb + k0;
      for (int64_t k = 0; k < kv; k += 8) {
        __m256 r[8];
        for (int j = 0; j < 8; ++j) r[j] = _mm256_loadu_ps(rows + j * ldb + k);
        transpose8(r);
        for (int i = 0; i < 8; ++i) _mm256_store_ps(out + (k + i) * kNR + half, r[i]);
      }
      for (int64_t j = 0; j < 8; ++j)
        for (int64_t k = kv; k < kc; ++k) out[k * kNR + half + j] = rows[j * ldb + k];
    }
  }
}
#endif

/// `buf` with room for n floats, 32-byte aligned (grown, never shrunk).
float* alignedRoom(std::vector<float>& buf, int64_t n) {
  if (buf.size() < size_t(n + 8)) buf.resize(size_t(n + 8));
  const auto p = reinterpret_cast<uintptr_t>(buf.data());
  return reinterpret_cast<float*>((p + 31) & ~uintptr_t(31));
}

void gemmOrderedWith(bool avx2, int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B,
                     int64_t ldb, bool transB, float* C, int64_t ldc, bool accumulate, int threads) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {
    if (!accumulate)
      for (int64_t i = 0; i < M; ++i) std::fill(C + i * ldc, C + i * ldc + N, 0.0f);
    return;
  }
  Micro micro = microPortable;
#ifdef LS_GEMM_AVX2
  if (avx2) micro = microAvx2;
#else
  (void)avx2;
#endif
  // Tasks: rows cut evenly into blocks of at most kMC (whole panels), columns into kNC.
  const int64_t mBlocks = (M + kMC - 1) / kMC, nBlocks = (N + kNC - 1) / kNC;
  const int64_t mc = ((M + mBlocks - 1) / mBlocks + kMR - 1) / kMR * kMR;
  parallelFor(threads, mBlocks * nBlocks, 2 * std::min(M, mc) * std::min(N, kNC) * K, [&](int64_t first, int64_t last) {
    thread_local std::vector<float> bBuf;
    float* bp = alignedRoom(bBuf, (kNC + kNR) * kKC);
    alignas(32) float tile[kMR * kNR] = {};
    float edgeA[kMR * kKC];  // the last rows of A when fewer than kMR, zero-padded
    for (int64_t t = first; t < last; ++t) {
      const int64_t m0 = (t / nBlocks) * mc, n0 = (t % nBlocks) * kNC;
      const int64_t m = std::min(mc, M - m0), n = std::min(kNC, N - n0);
      if (m <= 0) continue;
      for (int64_t k0 = 0; k0 < K; k0 += kKC) {
        const int64_t kc = std::min(kKC, K - k0);
        const bool load = accumulate || k0 > 0;
#ifdef LS_GEMM_AVX2
        if (avx2 && transB) packBTransAvx2(B, ldb, n0, n, k0, kc, bp);
        else
#endif
          packB(B, ldb, transB, n0, n, k0, kc, bp);
        const int64_t hLast = (m - 1) % kMR + 1;  // rows of the last panel
        if (hLast < kMR) {
          const float* src = A + (m0 + m - hLast) * lda + k0;
          for (int64_t r = 0; r < kMR; ++r)
            for (int64_t k = 0; k < kc; ++k) edgeA[r * kc + k] = r < hLast ? src[r * lda + k] : 0.0f;
        }
        for (int64_t q = 0; q < n; q += kNR) {
          const int64_t w = std::min(kNR, n - q);
          const float* bq = bp + (q / kNR) * kNR * kc;
          for (int64_t p = 0; p < m; p += kMR) {
            const int64_t h = std::min(kMR, m - p);
            float* c = C + (m0 + p) * ldc + n0 + q;
            const float* a = h == kMR ? A + (m0 + p) * lda + k0 : edgeA;
            const int64_t la = h == kMR ? lda : kc;
            if (h == kMR && w == kNR) {
              micro(kc, a, la, bq, c, ldc, load);
              continue;
            }
            if (load)
              for (int64_t r = 0; r < h; ++r) std::copy(c + r * ldc, c + r * ldc + w, tile + r * kNR);
            micro(kc, a, la, bq, tile, kNR, load);
            for (int64_t r = 0; r < h; ++r) std::copy(tile + r * kNR, tile + r * kNR + w, c + r * ldc);
          }
        }
      }
    }
  });
}

}  // namespace

void gemmOrdered(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb,
                 bool transB, float* C, int64_t ldc, bool accumulate, int threads) {
#ifdef LS_GEMM_AVX2
  if (haveAvx2Fma()) return gemmOrderedWith(true, M, N, K, A, lda, B, ldb, transB, C, ldc, accumulate, threads);
#endif
  gemmOrderedWith(false, M, N, K, A, lda, B, ldb, transB, C, ldc, accumulate, threads);
}

void gemmOrderedPortable(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb,
                         bool transB, float* C, int64_t ldc, bool accumulate, int threads) {
  gemmOrderedWith(false, M, N, K, A, lda, B, ldb, transB, C, ldc, accumulate, threads);
}

}  // namespace ls::exec
