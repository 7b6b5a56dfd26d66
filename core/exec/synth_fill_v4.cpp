// The x86-64-v4 (AVX-512) builds of fillUniform's float kernels. This file is compiled with
// -O3 -ffp-contract=off (core/CMakeLists.txt): -O3 so the loops vectorise (the 64-bit
// multiplies of splitmix64 and the 64-bit-integer-to-double conversion need AVX-512 DQ), no
// contraction so `lo + scale * u` stays a multiply then an add, as the portable loop computes it.
// BM_SynthesizeConstant/f32 measures the dispatched kernel (docs/DESIGN.md, "Constant values").
#include "core/exec/synth.h"
#include "core/exec/synth_fill.h"

namespace ls::exec::synth_fill {

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

bool haveV4() {
  static const bool have = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  return have;
}

__attribute__((target("arch=x86-64-v4"))) void uniformF32V4(float* out, int64_t b, int64_t e, uint64_t seed,
                                                             double lo, double scale) {
  for (int64_t i = b; i < e; ++i) out[i] = float(uniformDraw(splitmix64At(seed, uint64_t(i)), lo, scale));
}

__attribute__((target("arch=x86-64-v4"))) void uniformF64V4(double* out, int64_t b, int64_t e, uint64_t seed,
                                                             double lo, double scale) {
  for (int64_t i = b; i < e; ++i) out[i] = uniformDraw(splitmix64At(seed, uint64_t(i)), lo, scale);
}

#else

bool haveV4() { return false; }
void uniformF32V4(float* out, int64_t b, int64_t e, uint64_t seed, double lo, double scale) {
  uniformF32Portable(out, b, e, seed, lo, scale);
}
void uniformF64V4(double* out, int64_t b, int64_t e, uint64_t seed, double lo, double scale) {
  uniformF64Portable(out, b, e, seed, lo, scale);
}

#endif

}  // namespace ls::exec::synth_fill
