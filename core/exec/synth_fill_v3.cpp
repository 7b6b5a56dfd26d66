// The x86-64-v3 (AVX2) builds of fillUniform's float kernels, for CPUs without AVX-512 (where
// synth_fill_v4.cpp's auto-vectorised loops need AVX-512 DQ's 64-bit multiply and 64-bit
// integer-to-double conversion). Written with intrinsics, four 64-bit lanes at a time:
// - splitmix64's multiplies by constants as three 32 x 32 -> 64-bit multiplies (the product
//   modulo 2^64, as the scalar multiply);
// - the draw's top 53 bits to double exactly: its high 21 and low 32 bits each become a double
//   by the 2^52 exponent trick (exact below 2^52), then high * 2^32 + low (exact below 2^53);
// - `lo + scale * u` as a multiply then an add (no FMA: the target has none, and the file is
//   built without contraction, core/CMakeLists.txt), then rounded to float by cvtpd2ps in the
//   default rounding mode, as the scalar conversion rounds.
// Every step is exact or correctly rounded as in the portable loop, so the bytes are the same
// (SynthGenerator.VectorKernelsMakeThePortableLoopsBytes).
#include "core/exec/synth.h"
#include "core/exec/synth_fill.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

namespace ls::exec::synth_fill {

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

bool haveV3() {
  static const bool have = __builtin_cpu_supports("avx2");
  return have;
}

namespace {

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;

/// a * c modulo 2^64 per lane: lo(a) lo(c) + ((hi(a) lo(c) + lo(a) hi(c)) << 32).
__attribute__((target("avx2"))) inline __m256i mulConst(__m256i a, __m256i cLo, __m256i cHi) {
  const __m256i low = _mm256_mul_epu32(a, cLo);
  const __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), cLo), _mm256_mul_epu32(a, cHi));
  return _mm256_add_epi64(low, _mm256_slli_epi64(cross, 32));
}

/// The four uniformDraw values of the splitmix64 states x (before mixing).
struct Drawer {
  __m256i c1Lo, c1Hi, c2Lo, c2Hi, low32, magic;
  __m256d two52, two32, unit, lo, scale;

  __attribute__((target("avx2"))) Drawer(double lo_, double scale_)
      : c1Lo(_mm256_set1_epi64x(int64_t(0xBF58476D1CE4E5B9ull & 0xffffffffu))),
        c1Hi(_mm256_set1_epi64x(int64_t(0xBF58476D1CE4E5B9ull >> 32))),
        c2Lo(_mm256_set1_epi64x(int64_t(0x94D049BB133111EBull & 0xffffffffu))),
        c2Hi(_mm256_set1_epi64x(int64_t(0x94D049BB133111EBull >> 32))),
        low32(_mm256_set1_epi64x(int64_t(0xffffffffu))),
        magic(_mm256_set1_epi64x(int64_t(0x4330000000000000ull))),  // the bits of 2^52
        two52(_mm256_set1_pd(0x1.0p52)),
        two32(_mm256_set1_pd(0x1.0p32)),
        unit(_mm256_set1_pd(0x1.0p-53)),
        lo(_mm256_set1_pd(lo_)),
        scale(_mm256_set1_pd(scale_)) {}

  __attribute__((target("avx2"))) __m256d draw(__m256i z) const {
    z = mulConst(_mm256_xor_si256(z, _mm256_srli_epi64(z, 30)), c1Lo, c1Hi);
    z = mulConst(_mm256_xor_si256(z, _mm256_srli_epi64(z, 27)), c2Lo, c2Hi);
    z = _mm256_xor_si256(z, _mm256_srli_epi64(z, 31));
    const __m256i top = _mm256_srli_epi64(z, 11);  // 53 bits
    const __m256d hi = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(_mm256_srli_epi64(top, 32), magic)), two52);
    const __m256d low = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(_mm256_and_si256(top, low32), magic)), two52);
    const __m256d u = _mm256_mul_pd(_mm256_add_pd(_mm256_mul_pd(hi, two32), low), unit);
    return _mm256_add_pd(lo, _mm256_mul_pd(scale, u));
  }
};

/// Four draws stored as T.
__attribute__((target("avx2"))) inline void store4(float* out, __m256d v) { _mm_storeu_ps(out, _mm256_cvtpd_ps(v)); }
__attribute__((target("avx2"))) inline void store4(double* out, __m256d v) { _mm256_storeu_pd(out, v); }

/// out[i] for i in [b, e): four elements a step, the remainder by the portable loop.
template <typename T, typename Tail>
__attribute__((target("avx2"))) void uniformV3(T* out, int64_t b, int64_t e, uint64_t seed, double lo, double scale,
                                               Tail tail) {
  const Drawer d(lo, scale);
  const __m256i step = _mm256_set1_epi64x(int64_t(4 * kGolden));
  int64_t i = b;
  if (e - i >= 4) {
    // the splitmix64 states of elements i .. i + 3
    const uint64_t x0 = seed + (uint64_t(i) + 1) * kGolden;
    __m256i x = _mm256_set_epi64x(int64_t(x0 + 3 * kGolden), int64_t(x0 + 2 * kGolden), int64_t(x0 + kGolden),
                                  int64_t(x0));
    for (; i + 4 <= e; i += 4) {
      store4(out + i, d.draw(x));
      x = _mm256_add_epi64(x, step);
    }
  }
  tail(out, i, e, seed, lo, scale);
}

}  // namespace

void uniformF32V3(float* out, int64_t b, int64_t e, uint64_t seed, double lo, double scale) {
  uniformV3(out, b, e, seed, lo, scale, uniformF32Portable);
}

void uniformF64V3(double* out, int64_t b, int64_t e, uint64_t seed, double lo, double scale) {
  uniformV3(out, b, e, seed, lo, scale, uniformF64Portable);
}

#else

bool haveV3() { return false; }
void uniformF32V3(float* out, int64_t b, int64_t e, uint64_t seed, double lo, double scale) {
  uniformF32Portable(out, b, e, seed, lo, scale);
}
void uniformF64V3(double* out, int64_t b, int64_t e, uint64_t seed, double lo, double scale) {
  uniformF64Portable(out, b, e, seed, lo, scale);
}

#endif

}  // namespace ls::exec::synth_fill
