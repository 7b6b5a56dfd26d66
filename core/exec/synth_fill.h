// fillUniform's float kernels, with AVX-512 and AVX2 builds chosen at run time (see
// synth_fill_v4.cpp and synth_fill_v3.cpp).
#pragma once

#include <cstdint>

namespace ls::exec::synth_fill {

/// out[i] = T(uniformDraw(splitmix64At(seed, i), lo, scale)) for i in [b, e): the float32 /
/// float64 draw of a synthesised value. Dispatches to the x86-64-v4 (AVX-512) kernels when the
/// CPU has them, else to the AVX2 ones, else runs the portable loop. The bytes are the same
/// every way: the vector kernels are compiled without floating-point contraction
/// (core/CMakeLists.txt), and each step (integer mix, 53-bit to double, the multiply, the add,
/// the rounding to T) is exact or correctly rounded in all of them.
void uniformF32(float* out, int64_t b, int64_t e, uint64_t seed, double lo, double scale);
void uniformF64(double* out, int64_t b, int64_t e, uint64_t seed, double lo, double scale);

/// The portable loops (what the dispatch falls back to; tests compare the two).
void uniformF32Portable(float* out, int64_t b, int64_t e, uint64_t seed, double lo, double scale);
void uniformF64Portable(double* out, int64_t b, int64_t e, uint64_t seed, double lo, double scale);

/// True when this CPU runs the x86-64-v4 kernels (AVX-512 F, BW, DQ, VL).
bool haveV4();
/// The x86-64-v4 kernels; call only when haveV4().
void uniformF32V4(float* out, int64_t b, int64_t e, uint64_t seed, double lo, double scale);
void uniformF64V4(double* out, int64_t b, int64_t e, uint64_t seed, double lo, double scale);

/// True when this CPU runs the AVX2 kernels.
bool haveV3();
/// The AVX2 kernels; call only when haveV3().
void uniformF32V3(float* out, int64_t b, int64_t e, uint64_t seed, double lo, double scale);
void uniformF64V3(double* out, int64_t b, int64_t e, uint64_t seed, double lo, double scale);

}  // namespace ls::exec::synth_fill
