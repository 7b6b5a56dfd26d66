// Blocked SGEMM: B is packed into 8-column panels per (K block, N block); a 4x8 micro-kernel
// keeps the C tile in registers (GCC/Clang vector extensions, 4 lanes: plain SSE2/NEON).
#include "core/exec/gemm.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/exec/parallel.h"

namespace ls::exec {
namespace {

constexpr int64_t kMR = 4;    // rows of the register tile
constexpr int64_t kNR = 8;    // columns of the register tile (two 4-lane vectors)
constexpr int64_t kKC = 256;  // K block: a packed panel is kKC x kNR floats (8 KB)
constexpr int64_t kNC = 512;  // N block: the packed B block is kKC x kNC floats (512 KB)

typedef float V4 __attribute__((vector_size(16)));

inline V4 load4(const float* p) {
  V4 v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline void addStore4(float* p, V4 v) {
  V4 o = load4(p);
  o += v;
  std::memcpy(p, &o, sizeof(o));
}

// C[0..4, 0..8) += A[0..4, 0..kc) * panel[kc][8].
void micro4x8(int64_t kc, const float* a, int64_t lda, const float* panel, float* c, int64_t ldc) {
  V4 c00{}, c01{}, c10{}, c11{}, c20{}, c21{}, c30{}, c31{};
  const float* a0 = a;
  const float* a1 = a + lda;
  const float* a2 = a + 2 * lda;
  const float* a3 = a + 3 * lda;
  for (int64_t k = 0; k < kc; ++k) {
    V4 b0 = load4(panel + k * kNR), b1 = load4(panel + k * kNR + 4);
    c00 += a0[k] * b0;
    c01 += a0[k] * b1;
    c10 += a1[k] * b0;
    c11 += a1[k] * b1;
    c20 += a2[k] * b0;
    c21 += a2[k] * b1;
    c30 += a3[k] * b0;
    c31 += a3[k] * b1;
  }
  addStore4(c, c00);
  addStore4(c + 4, c01);
  addStore4(c + ldc, c10);
  addStore4(c + ldc + 4, c11);
  addStore4(c + 2 * ldc, c20);
  addStore4(c + 2 * ldc + 4, c21);
  addStore4(c + 3 * ldc, c30);
  addStore4(c + 3 * ldc + 4, c31);
}

// C[0, 0..8) += A[0, 0..kc) * panel[kc][8].
void micro1x8(int64_t kc, const float* a, const float* panel, float* c) {
  V4 c0{}, c1{};
  for (int64_t k = 0; k < kc; ++k) {
    c0 += a[k] * load4(panel + k * kNR);
    c1 += a[k] * load4(panel + k * kNR + 4);
  }
  addStore4(c, c0);
  addStore4(c + 4, c1);
}

// Packs B[0..kc, 0..nc) into ceil(nc/8) panels of kc x 8, zero-padding the last panel.
void packB(int64_t kc, int64_t nc, const float* b, int64_t ldb, float* out) {
  for (int64_t j = 0; j < nc; j += kNR) {
    int64_t w = std::min(kNR, nc - j);
    float* panel = out + (j / kNR) * kc * kNR;
    for (int64_t k = 0; k < kc; ++k) {
      const float* src = b + k * ldb + j;
      float* dst = panel + k * kNR;
      if (w == kNR) {
        std::memcpy(dst, src, sizeof(float) * kNR);
      } else {
        for (int64_t x = 0; x < kNR; ++x) dst[x] = x < w ? src[x] : 0.0f;
      }
    }
  }
}

// Rows [m0, m1) x columns [n0, n1) of C.
void gemmRange(int64_t m0, int64_t m1, int64_t n0, int64_t n1, int64_t K, const float* A, int64_t lda,
               const float* B, int64_t ldb, float* C, int64_t ldc, bool accumulate) {
  if (!accumulate)
    for (int64_t i = m0; i < m1; ++i) std::fill(C + i * ldc + n0, C + i * ldc + n1, 0.0f);
  if (m1 - m0 < kMR) {  // a few rows (e.g. a batch-1 linear layer): no packing, row axpy
    for (int64_t i = m0; i < m1; ++i) {
      float* c = C + i * ldc;
      for (int64_t k = 0; k < K; ++k) {
        const float a = A[i * lda + k];
        const float* b = B + k * ldb;
        for (int64_t j = n0; j < n1; ++j) c[j] += a * b[j];
      }
    }
    return;
  }
  std::vector<float> pack(size_t(kKC * (kNC + kNR)));
  float tile[kMR * kNR];
  for (int64_t pc = 0; pc < K; pc += kKC) {
    const int64_t kc = std::min(kKC, K - pc);
    for (int64_t jc = n0; jc < n1; jc += kNC) {
      const int64_t nc = std::min(kNC, n1 - jc);
      packB(kc, nc, B + pc * ldb + jc, ldb, pack.data());
      for (int64_t jr = 0; jr < nc; jr += kNR) {
        const int64_t nr = std::min(kNR, nc - jr);
        const float* panel = pack.data() + (jr / kNR) * kc * kNR;
        float* cCol = C + jc + jr;
        int64_t i = m0;
        for (; i + kMR <= m1; i += kMR) {
          const float* a = A + i * lda + pc;
          if (nr == kNR) {
            micro4x8(kc, a, lda, panel, cCol + i * ldc, ldc);
          } else {
            std::fill(tile, tile + kMR * kNR, 0.0f);
            micro4x8(kc, a, lda, panel, tile, kNR);
            for (int64_t r = 0; r < kMR; ++r)
              for (int64_t x = 0; x < nr; ++x) cCol[(i + r) * ldc + x] += tile[r * kNR + x];
          }
        }
        for (; i < m1; ++i) {
          const float* a = A + i * lda + pc;
          if (nr == kNR) {
            micro1x8(kc, a, panel, cCol + i * ldc);
          } else {
            std::fill(tile, tile + kNR, 0.0f);
            micro1x8(kc, a, panel, tile);
            for (int64_t x = 0; x < nr; ++x) cCol[i * ldc + x] += tile[x];
          }
        }
      }
    }
  }
}

}  // namespace

void gemm(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb, float* C,
          int64_t ldc, bool accumulate, int threads) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {
    if (!accumulate)
      for (int64_t i = 0; i < M; ++i) std::fill(C + i * ldc, C + i * ldc + N, 0.0f);
    return;
  }
  const int64_t cost = M * K;  // per column
  if (N >= 4 * kNR * threads || M < 2 * kMR) {
    // Split columns (in whole panels) across threads.
    int64_t panels = (N + kNR - 1) / kNR;
    parallelFor(threads, panels, cost * kNR, [&](int64_t b, int64_t e) {
      gemmRange(0, M, b * kNR, std::min(N, e * kNR), K, A, lda, B, ldb, C, ldc, accumulate);
    });
  } else {
    int64_t tiles = (M + kMR - 1) / kMR;
    parallelFor(threads, tiles, N * K * kMR, [&](int64_t b, int64_t e) {
      gemmRange(b * kMR, std::min(M, e * kMR), 0, N, K, A, lda, B, ldb, C, ldc, accumulate);
    });
  }
}

void gemmExact(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb, float* C,
               int64_t ldc, bool accumulate, int threads) {
  if (M <= 0 || N <= 0) return;
  parallelFor(threads, M, N * K, [&](int64_t m0, int64_t m1) {
    std::vector<double> acc(static_cast<size_t>(N));
    for (int64_t i = m0; i < m1; ++i) {
      float* c = C + i * ldc;
      for (int64_t j = 0; j < N; ++j) acc[size_t(j)] = accumulate ? double(c[j]) : 0.0;
      for (int64_t k = 0; k < K; ++k) {
        const double a = A[i * lda + k];
        if (a == 0.0) continue;
        const float* b = B + k * ldb;
        for (int64_t j = 0; j < N; ++j) acc[size_t(j)] += a * double(b[j]);
      }
      for (int64_t j = 0; j < N; ++j) c[j] = float(acc[size_t(j)]);
    }
  });
}

}  // namespace ls::exec
