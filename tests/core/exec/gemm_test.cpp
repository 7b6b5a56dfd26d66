// The executor's matrix products (core/exec/gemm.h, OpenBLAS) against a direct definition in
// double: float mode within the float32 summation error bound, exact mode bit-exact on
// quantised (integer-valued) operands, ordered mode bit for bit one fma chain per element in k
// order, float64 products (ExecOptions::float64) within the float64 bound, results independent
// of the thread count.
#include "core/exec/gemm.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <vector>

#include "core/exec/synth.h"

namespace ls::exec {
namespace {

struct Case {
  int64_t m, n, k;
  bool transB = false, accumulate = false;
  int64_t pad = 0;  // extra elements per row of A, B and C (leading dimension > row length)
};

/// Operands of a case, row-major with the case's leading dimensions; B stored [N, K] when transB.
struct Operands {
  Case c;
  int64_t lda, ldb, ldc;
  std::vector<float> a, b, c0;  // c0: C before the product (used when accumulating)

  Operands(const Case& cs, SplitMix64& rng, bool integers) : c(cs) {
    lda = c.k + c.pad;
    ldb = (c.transB ? c.k : c.n) + c.pad;
    ldc = c.n + c.pad;
    a.resize(size_t(std::max<int64_t>(c.m * lda, 1)));
    b.resize(size_t(std::max<int64_t>((c.transB ? c.n : c.k) * ldb, 1)));
    c0.resize(size_t(std::max<int64_t>(c.m * ldc, 1)));
    auto draw = [&] { return integers ? float(std::floor(rng.uniform(-128, 128))) : float(rng.uniform(-1, 1)); };
    for (float& v : a) v = draw();
    for (float& v : b) v = draw();
    for (float& v : c0) v = draw();
  }
  double bAt(int64_t k, int64_t j) const { return c.transB ? b[size_t(j * ldb + k)] : b[size_t(k * ldb + j)]; }
  /// The product in double (k increasing) and the sum of |a||b| (for the error bound).
  void reference(std::vector<double>& ref, std::vector<double>& absSum) const {
    ref.assign(size_t(c.m * c.n), 0.0);
    absSum.assign(size_t(c.m * c.n), 0.0);
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t j = 0; j < c.n; ++j) {
        double s = c.accumulate ? double(c0[size_t(i * ldc + j)]) : 0.0, t = std::abs(s);
        for (int64_t k = 0; k < c.k; ++k) {
          s += double(a[size_t(i * lda + k)]) * bAt(k, j);
          t += std::abs(double(a[size_t(i * lda + k)]) * bAt(k, j));
        }
        ref[size_t(i * c.n + j)] = s;
        absSum[size_t(i * c.n + j)] = t;
      }
  }
  std::vector<float> run(Accumulation acc, int threads) const {
    std::vector<float> out = c0;
    gemmFor(acc, c.m, c.n, c.k, a.data(), lda, b.data(), ldb, c.transB, out.data(), ldc, c.accumulate, threads);
    return out;
  }
  /// The float64 product (ExecOptions::float64) of the same operands widened.
  std::vector<double> runDouble(int threads) const {
    std::vector<double> a64(a.begin(), a.end()), b64(b.begin(), b.end()), out(c0.begin(), c0.end());
    gemm(c.m, c.n, c.k, a64.data(), lda, b64.data(), ldb, c.transB, out.data(), ldc, c.accumulate, threads);
    return out;
  }
};

// Edge shapes (a row, a column, K = 1, K = 0, one element), ViT/conv-like shapes that are cut
// into several blocks along rows or columns, transposed B, accumulation, padded rows.
const std::vector<Case> kCases = {
    {1, 1000, 77},        {1, 1, 1},   {57, 1, 300},         {33, 45, 1},  {7, 9, 0},  {7, 9, 0, false, true},
    {197, 300, 64, true}, {64, 1100, 27}, {513, 49, 130},    {100, 70, 90, true, true, 3},
    {5, 600, 40, false, false, 5}, {130, 130, 200, true},
    // more than one block of k (256), of rows (264) and of columns (256) in the ordered kernel
    {70, 40, 600, true, true, 2}, {300, 270, 520}, {13, 17, 257, true},
};

/// Runs every case (operands drawn from `seed`) in float or exact mode and checks each element
/// of C with ok(case, computed, exact double result, sum of |a_ik b_kj|); the padding between
/// rows of C must stay unwritten.
template <typename Check>
void checkEveryElement(uint64_t seed, bool integers, Accumulation acc, Check ok) {
  SplitMix64 rng(seed);
  for (const Case& cs : kCases) {
    Operands o(cs, rng, integers);
    std::vector<double> ref, absSum;
    o.reference(ref, absSum);
    const std::vector<float> out = o.run(acc, 2);
    for (int64_t i = 0; i < cs.m; ++i)
      for (int64_t j = 0; j < cs.n; ++j) {
        const size_t r = size_t(i * cs.n + j);
        ASSERT_TRUE(ok(cs, out[size_t(i * o.ldc + j)], ref[r], absSum[r]))
            << cs.m << "x" << cs.n << "x" << cs.k << " element " << i << "," << j;
      }
    for (int64_t i = 0; i < cs.m; ++i)
      for (int64_t j = cs.n; j < o.ldc; ++j) ASSERT_EQ(out[size_t(i * o.ldc + j)], o.c0[size_t(i * o.ldc + j)]);
  }
}

/// Whether OpenBLAS is in this process (RTLD_NOLOAD: look, do not load).
bool openBlasLoaded() {
  void* h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_NOLOAD);
  if (h) dlclose(h);  // drops only the reference NOLOAD took
  return h != nullptr;
}

/// Threads of this process (/proc/self/task).
size_t threadsOfThisProcess() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

// OpenBLAS is loaded by the first product, without its thread pool, not when the process
// starts (ctest runs each test in its own process; run alone it starts unloaded).
TEST(Gemm, OpenBlasIsLoadedByTheFirstProductWithoutAThreadPool) {
  if (openBlasLoaded()) GTEST_SKIP() << "an earlier test in this process multiplied already";
  const size_t threadsBefore = threadsOfThisProcess();
  const float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
  float c[4] = {};
  gemm(2, 2, 2, a, 2, b, 2, false, c, 2, false, 1);
  EXPECT_TRUE(openBlasLoaded());
  EXPECT_EQ(c[0], 19.0f);
  EXPECT_EQ(c[3], 50.0f);
  // OPENBLAS_NUM_THREADS=1 was set before the load: the library started no pool threads.
  EXPECT_EQ(threadsOfThisProcess(), threadsBefore);
}

TEST(Gemm, FloatModeWithinFloat32SummationBound) {
  // |computed - exact| <= 2 (K + 1) u sum |a_ik b_kj| (u = 2^-24): the classic bound for
  // float32 dot products in any order (+1 for the accumulated C).
  checkEveryElement(11, false, Accumulation::Blas, [](const Case& cs, float got, double want, double absSum) {
    const double bound = 2.0 * double(cs.k + 1) * std::ldexp(1.0, -24) * absSum;
    return std::abs(double(got) - want) <= bound ? ::testing::AssertionSuccess()
                                                 : ::testing::AssertionFailure() << got << " vs " << want;
  });
}

TEST(Gemm, ExactModeIsBitExactOnIntegerOperands) {
  // int8-range integers (a quantised tensor's q - zero point): the exact mode must give the
  // integer accumulation itself, whatever the order of summation.
  checkEveryElement(12, true, Accumulation::Exact, [](const Case&, float got, double want, double) {
    return got == float(want) ? ::testing::AssertionSuccess() : ::testing::AssertionFailure() << got << " vs " << want;
  });
}

TEST(Gemm, ExactModeOnFloatsIsTheDoubleSumRoundedOnce) {
  // Products of floats are exact in double; the double sums of two orders differ far below a
  // float32 ulp, so the result is the double sum rounded to float, give or take that rounding.
  checkEveryElement(13, false, Accumulation::Exact, [](const Case&, float got, double want, double) {
    const float w = float(want);
    const double ulp = double(std::nextafter(std::abs(w), INFINITY) - std::abs(w));
    return std::abs(double(got) - double(w)) <= ulp ? ::testing::AssertionSuccess()
                                                     : ::testing::AssertionFailure() << got << " vs " << w;
  });
}

TEST(Gemm, ResultsDoNotDependOnThreadsAndRepeat) {
  SplitMix64 rng(14);
  for (const Case& cs : kCases) {
    Operands o(cs, rng, false);
    for (Accumulation acc : {Accumulation::Blas, Accumulation::Ordered, Accumulation::Exact}) {
      const std::vector<float> one = o.run(acc, 1);
      for (int threads : {1, 2, 3, 4}) {
        const std::vector<float> t = o.run(acc, threads);
        ASSERT_EQ(std::memcmp(one.data(), t.data(), one.size() * sizeof(float)), 0)
            << cs.m << "x" << cs.n << "x" << cs.k << " mode " << int(acc) << ", " << threads << " threads";
      }
    }
  }
}

TEST(Gemm, ExactModeIsTheWholeOperandsDgemmRoundedBitForBit) {
  // gemmExact widens only a block's slice of one operand at a time; its dgemm calls must still
  // see the same values in the same blocks as the float64 product of both operands widened
  // whole (what it did before), so every element is that product rounded to float, bit for bit.
  SplitMix64 rng(15);
  for (const Case& cs : kCases) {
    Operands o(cs, rng, false);
    for (int threads : {1, 2, 3}) {
      const std::vector<float> got = o.run(Accumulation::Exact, threads);
      const std::vector<double> wide = o.runDouble(threads);
      for (int64_t i = 0; i < cs.m; ++i)
        for (int64_t j = 0; j < o.ldc; ++j) {
          const size_t r = size_t(i * o.ldc + j);
          const float want = j < cs.n ? float(wide[r]) : o.c0[r];  // padding stays unwritten
          ASSERT_EQ(std::memcmp(&got[r], &want, sizeof(float)), 0)
              << cs.m << "x" << cs.n << "x" << cs.k << " element " << i << "," << j << ", " << threads << " threads";
        }
    }
  }
}

TEST(Gemm, OrderedModeIsOneFmaChainPerElementInKOrder) {
  // Each element of gemmOrdered (the AVX2 kernel on a CPU that has it) and of its portable
  // loop is, bit for bit, c = fma(a_ik, b_kj, c) for k = 0, 1, ... from C or +0; the padding of
  // C stays unwritten. Signed zeros and an infinity are among the operands (an IEEE chain
  // decides the signs of zeros and where NaNs arise; not a NaN's payload).
  SplitMix64 rng(16);
  for (const Case& cs : kCases) {
    Operands o(cs, rng, false);
    for (size_t i = 0; i < o.a.size(); i += 37) o.a[i] = (i / 37) % 2 ? -0.0f : 0.0f;
    if (o.b.size() > 50) o.b[50] = INFINITY;
    std::vector<float> want = o.c0;
    for (int64_t i = 0; i < cs.m; ++i)
      for (int64_t j = 0; j < cs.n; ++j) {
        float c = cs.accumulate ? o.c0[size_t(i * o.ldc + j)] : 0.0f;
        for (int64_t k = 0; k < cs.k; ++k) c = std::fma(o.a[size_t(i * o.lda + k)], float(o.bAt(k, j)), c);
        want[size_t(i * o.ldc + j)] = c;
      }
    for (int threads : {1, 2, 3}) {
      for (bool portable : {false, true}) {
        std::vector<float> got = o.c0;
        (portable ? gemmOrderedPortable : gemmOrdered)(cs.m, cs.n, cs.k, o.a.data(), o.lda, o.b.data(), o.ldb,
                                                       cs.transB, got.data(), o.ldc, cs.accumulate, threads);
        for (size_t r = 0; r < got.size(); ++r)  // a NaN's payload is not IEEE's to fix
          ASSERT_TRUE(std::isnan(got[r]) ? std::isnan(want[r]) : std::memcmp(&got[r], &want[r], sizeof(float)) == 0)
              << cs.m << "x" << cs.n << "x" << cs.k << " element " << r / size_t(o.ldc) << "," << r % size_t(o.ldc)
              << (portable ? " portable" : " dispatched") << ", " << threads << " threads: " << got[r] << " vs "
              << want[r];
      }
    }
  }
}

TEST(Gemm, Float64ModeWithinFloat64SummationBoundAndThreadIndependent) {
  // The float64 product (dgemm) of kernels evaluated in float64: within 2 (K + 1) u sum
  // |a_ik b_kj| (u = 2^-53) of the exact sum, the padding of C unwritten, and bit for bit the
  // same for 1-4 threads.
  SplitMix64 rng(15);
  for (const Case& cs : kCases) {
    Operands o(cs, rng, false);
    std::vector<double> ref, absSum;
    o.reference(ref, absSum);
    const std::vector<double> out = o.runDouble(1);
    for (int64_t i = 0; i < cs.m; ++i) {
      for (int64_t j = 0; j < cs.n; ++j) {
        const size_t r = size_t(i * cs.n + j);
        const double bound = 2.0 * double(cs.k + 1) * std::ldexp(1.0, -53) * absSum[r];
        ASSERT_LE(std::abs(out[size_t(i * o.ldc + j)] - ref[r]), bound)
            << cs.m << "x" << cs.n << "x" << cs.k << " element " << i << "," << j;
      }
      for (int64_t j = cs.n; j < o.ldc; ++j) ASSERT_EQ(out[size_t(i * o.ldc + j)], double(o.c0[size_t(i * o.ldc + j)]));
    }
    for (int threads : {2, 3, 4}) {
      const std::vector<double> t = o.runDouble(threads);
      ASSERT_EQ(std::memcmp(out.data(), t.data(), out.size() * sizeof(double)), 0)
          << cs.m << "x" << cs.n << "x" << cs.k << ", " << threads << " threads";
    }
  }
}

}  // namespace
}  // namespace ls::exec
