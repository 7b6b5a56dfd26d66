// Constant synthesis and materialisation: counter-based values (the same for any thread count
// and fill order), the distribution of each constant role and dtype, zero-copy views of
// constant data, and the strided copy behind permutes against a naive reference.
#include "core/exec/synth.h"

#include <gtest/gtest.h>

#include <functional>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "core/exec/kernel_util.h"
#include "core/exec/materialize.h"
#include "core/exec/synth_fill.h"
#include "core/util/hash.h"
#include "support/constants.h"

namespace ls::exec {
namespace {

using ir::DType;
using ir::Shape;

ir::Constant shapeOnly(const std::string& fqn, Shape s, DType t = DType::Float32) {
  return test::shapeOnlyConstant(fqn, fqn, s, t);
}

/// `n` shape-only conv weights "l<i>_weight" (fqn "l<i>.weight") of [rows(i), cin, 3, 3].
void addLayerWeights(ir::Graph& g, int n, const std::function<int64_t(int)>& rows, int64_t cin) {
  for (int i = 0; i < n; ++i) {
    ir::Constant c = shapeOnly("l" + std::to_string(i) + ".weight", {rows(i), cin, 3, 3});
    c.name = "l" + std::to_string(i) + "_weight";
    g.setConstant(c);
  }
}

bool sameBytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.bytes(), b.bytes(), a.nbytes()) == 0;
}

// ---------------------------------------------------------------- counter-based generator

TEST(SynthGenerator, CounterFormEqualsTheStream) {
  for (uint64_t seed : {uint64_t(0), uint64_t(42), ~uint64_t(0)}) {
    SplitMix64 rng(seed);
    for (uint64_t i = 0; i < 1000; ++i) ASSERT_EQ(rng.next(), splitmix64At(seed, i)) << "seed " << seed << " i " << i;
  }
  EXPECT_NE(splitmix64At(1, 0), splitmix64At(2, 0));
  EXPECT_NE(splitmix64At(1, 0), splitmix64At(1, 1));
}

TEST(SynthGenerator, VectorKernelsMakeThePortableLoopsBytes) {
  // The AVX-512 and AVX2 kernels against the portable loops, over ranges whose starts and
  // lengths leave every remainder of a vector (and the dispatch, which synthesizeConstant uses).
  const std::vector<std::pair<double, double>> ranges = {{-1.0, 2.0}, {-0.0473, 0.0946}, {0.5, 1.0}, {-1e-30, 3e-30}};
  auto sameBytes = [](const auto& a, const auto& b) {  // memcmp is not for empty vectors' null data
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) == 0);
  };
  for (uint64_t seed : {uint64_t(0), uint64_t(12345), ~uint64_t(0)})
    for (auto [lo, scale] : ranges)
      for (int64_t b : {0, 1, 7, 13})
        for (int64_t n : {0, 1, 15, 16, 17, 1000, 4099}) {
          std::vector<float> f(size_t(b + n), -7.f), fp(size_t(b + n), -7.f), fd(size_t(b + n), -7.f);
          std::vector<double> d(size_t(b + n), -7.0), dp(size_t(b + n), -7.0);
          synth_fill::uniformF32Portable(fp.data(), b, b + n, seed, lo, scale);
          synth_fill::uniformF64Portable(dp.data(), b, b + n, seed, lo, scale);
          synth_fill::uniformF32(fd.data(), b, b + n, seed, lo, scale);
          ASSERT_TRUE(sameBytes(fd, fp)) << "dispatch, b " << b << " n " << n;
          if (synth_fill::haveV3()) {
            synth_fill::uniformF32V3(f.data(), b, b + n, seed, lo, scale);
            synth_fill::uniformF64V3(d.data(), b, b + n, seed, lo, scale);
            ASSERT_TRUE(sameBytes(f, fp)) << "AVX2 f32, b " << b << " n " << n;
            ASSERT_TRUE(sameBytes(d, dp)) << "AVX2 f64, b " << b << " n " << n;
          }
          if (synth_fill::haveV4()) {
            std::fill(f.begin(), f.end(), -7.f);
            std::fill(d.begin(), d.end(), -7.0);
            synth_fill::uniformF32V4(f.data(), b, b + n, seed, lo, scale);
            synth_fill::uniformF64V4(d.data(), b, b + n, seed, lo, scale);
            ASSERT_TRUE(sameBytes(f, fp)) << "AVX-512 f32, b " << b << " n " << n;
            ASSERT_TRUE(sameBytes(d, dp)) << "AVX-512 f64, b " << b << " n " << n;
          }
        }
  // A synthesised weight is the portable formula, element by element.
  ir::Constant c;
  c.name = c.fqn = "layer.weight";
  c.dtype = ir::DType::Float32;
  c.shape = {8, 4, 3, 3};
  const exec::Tensor t = exec::synthesizeConstant(c, 2);
  const double bound = std::sqrt(6.0 / 36.0);
  std::vector<float> want(size_t(c.numel()));
  synth_fill::uniformF32Portable(want.data(), 0, c.numel(), hashString(c.name, 0x5eedc0de57ull), -bound, 2 * bound);
  EXPECT_EQ(std::memcmp(t.bytes(), want.data(), t.nbytes()), 0);
}

TEST(SynthGenerator, SameValuesWhateverTheThreadCount) {
  // Large enough for parallelFor to split them (> 100k element-operations per thread).
  const Shape s{300, 1000};
  for (DType t : {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16, DType::Int64, DType::Int32,
                  DType::Int8, DType::UInt8, DType::Int16, DType::UInt16, DType::Bool}) {
    ir::Constant c = shapeOnly("blocks.3.attn.weight", s, t);
    Tensor one = synthesizeConstant(c, 1);
    for (int threads : {2, 3, 8}) EXPECT_TRUE(sameBytes(one, synthesizeConstant(c, threads))) << ir::dtypeName(t) << " x" << threads;
  }
}

TEST(SynthGenerator, ElementIDependsOnlyOnNameAndI) {
  // Each element recomputed alone, last to first, from (name seed, i) as synth.h documents it:
  // the fill order cannot matter.
  ir::Constant c = shapeOnly("layer2.0.conv1.weight", {128, 64, 3, 3});
  Tensor t = synthesizeConstant(c);
  const double b = std::sqrt(6.0 / (64 * 9));
  const uint64_t seed = hashString(c.name, 0x5eedc0de57ull);
  const float* p = t.data<float>();
  for (int64_t i = t.numel() - 1; i >= 0; i -= 97)
    ASSERT_EQ(p[i], float(-b + 2 * b * unitDouble(splitmix64At(seed, uint64_t(i))))) << i;
  // A constant of the same name and fan-in but fewer rows holds a prefix of the same values.
  Tensor head = synthesizeConstant(shapeOnly("layer2.0.conv1.weight", {1, 64, 3, 3}), 1);
  EXPECT_EQ(std::memcmp(head.bytes(), t.bytes(), head.nbytes()), 0);
}

TEST(SynthGenerator, MaterializeIsIndependentOfThreadsAndInterningOrder) {
  auto graph = [] {
    ir::Graph g;
    addLayerWeights(g, 12, [](int i) { return int64_t(16 + 40 * i); }, 32);
    g.setConstant(shapeOnly("idx", {1000}, DType::Int64));
    return g;
  };
  ir::Graph a = graph(), b = graph();
  materializeConstants(a, 1);
  materializeConstants(b, 4);
  for (const auto& [name, c] : a.constants()) {
    const ir::Constant* o = b.constant(name);
    ASSERT_TRUE(c.hasData() && o && o->hasData()) << name;
    EXPECT_TRUE(std::ranges::equal(c.data->bytes, o->data->bytes)) << name;
    EXPECT_EQ(c.contentHash, o->contentHash) << name;
    ir::Constant without = c;
    without.data.reset();
    EXPECT_TRUE(sameBytes(constantDataView(c), synthesizeConstant(without))) << name;
  }
}

TEST(SynthGenerator, FreezeFixesWhatMaterializeConstantsGivesWithoutMakingBytes) {
  auto graph = [] {
    ir::Graph g;
    addLayerWeights(g, 4, [](int i) { return int64_t(8 + 8 * i); }, 16);
    g.setConstant(shapeOnly("l0.bias", {8}));
    g.setConstant(shapeOnly("idx", {100}, DType::Int64));
    ir::Constant perm = recipeConstant(permuteRecipe(shapeOnly("p.weight", {4, 2, 3, 3}), {0, 2, 3, 1}));
    perm.name = "p_ohwi";
    g.setConstant(perm);  // derived from a shape-only source: values as data, as materializeConstants
    return g;
  };
  ir::Graph eager = graph(), frozen = graph();
  materializeConstants(eager);
  MaterializeCache::instance().clear();
  freezeConstants(frozen);
  // Only the derived constant's values were made (materializeConstants' cached read).
  EXPECT_EQ(MaterializeCache::instance().stats().entries, 1u);
  ASSERT_EQ(frozen.constants().size(), eager.constants().size());
  for (const auto& [name, c] : frozen.constants()) {
    const ir::Constant* e = eager.constant(name);
    ASSERT_TRUE(e && e->hasData()) << name;
    EXPECT_TRUE(c.valuesKnown()) << name;  // passes treat them as the file's values, as before
    if (name == "p_ohwi") {
      EXPECT_TRUE(c.hasData());
      EXPECT_TRUE(std::ranges::equal(c.data->bytes, e->data->bytes));
      continue;
    }
    ASSERT_TRUE(c.recipe && !c.hasData()) << name;  // nothing made
    EXPECT_FALSE(c.recipe->derived()) << name;
    EXPECT_EQ(c.recipe->describe(), c.fqn) << name;
    EXPECT_EQ(c.kind, e->kind) << name;
    auto v = materialize(c, Retain::Transient);
    ASSERT_TRUE(v.isOk()) << v.message();
    EXPECT_TRUE(sameBytes(*v, constantDataView(*e))) << name;
    // A rename (a pass giving the constant another name) keeps the values: the seed is fixed.
    ir::Constant renamed = c;
    renamed.name = "renamed_" + name;
    EXPECT_TRUE(sameBytes(materialize(renamed, Retain::Transient).value(), *v)) << name;
    // A recipe over it (the quantizer's int8 weight) is known and computes from those values.
    if (c.dtype == DType::Float32 && c.shape.rank() == 4) {
      ir::Constant p = recipeConstant(permuteRecipe(c, {0, 2, 3, 1}));
      EXPECT_TRUE(p.valuesKnown());
      EXPECT_TRUE(sameBytes(materialize(p, Retain::Transient).value(), permuteTensor(*v, {0, 2, 3, 1}))) << name;
    }
  }
  EXPECT_EQ(MaterializeCache::instance().stats().entries, 1u);  // the reads above kept nothing
  // Frozen constants are equal exactly when they would synthesise alike (same seed name, fqn,
  // dtype, shape): the hash is the recipe's.
  ir::Graph again = graph();
  freezeConstants(again);
  EXPECT_EQ(again.constant("l1_weight")->contentHash, frozen.constant("l1_weight")->contentHash);
  EXPECT_NE(frozen.constant("l1_weight")->contentHash, frozen.constant("l2_weight")->contentHash);
}

// ---------------------------------------------------------------- distributions

struct Range {
  double lo, hi, mean;
};
Range rangeOf(const Tensor& t) {
  Range r{INFINITY, -INFINITY, 0.0};
  for (int64_t i = 0; i < t.numel(); ++i) {
    const double v = t.getDouble(i);
    r.lo = std::min(r.lo, v), r.hi = std::max(r.hi, v), r.mean += v;
  }
  r.mean /= double(t.numel());
  return r;
}

TEST(SynthDistribution, EachRoleStaysInItsBoundsAndFillsThem) {
  struct Case {
    std::string fqn;
    Shape shape;
    double lo, hi;
  };
  const double he = std::sqrt(6.0 / (32 * 5 * 5));
  const std::vector<Case> cases = {
      {"bn.running_var", {100000}, 0.5, 1.5},  {"bn.running_mean", {100000}, -0.1, 0.1},
      {"conv.weight", {200, 32, 5, 5}, -he, he}, {"ln.weight", {100000}, 0.8, 1.2},
      {"fc.bias", {100000}, -0.1, 0.1},          {"cls_token", {1, 1000, 100}, -1.0, 1.0},
  };
  for (const Case& k : cases) {
    for (DType t : {DType::Float32, DType::Float64, DType::BFloat16}) {
      ir::Constant c = shapeOnly(k.fqn, k.shape, t);
      Range r = rangeOf(synthesizeConstant(c));
      // Rounding to the dtype may land a value on the far side of a bound by half an ulp.
      const double span = k.hi - k.lo, tol = t == DType::BFloat16 ? span * 0.01 : t == DType::Float32 ? span * 1e-7 : 0.0;
      EXPECT_GE(r.lo, k.lo - tol) << k.fqn << " " << ir::dtypeName(t);
      EXPECT_LE(r.hi, k.hi + tol) << k.fqn << " " << ir::dtypeName(t);
      EXPECT_LT(r.lo, k.lo + 0.01 * span) << k.fqn;  // uses the whole range
      EXPECT_GT(r.hi, k.hi - 0.01 * span) << k.fqn;
      EXPECT_NEAR(r.mean, (k.lo + k.hi) / 2, 0.01 * span) << k.fqn;  // uniform: centred
    }
  }
}

TEST(SynthDistribution, IntegersCoverTheirRangeAndNothingElse) {
  struct Case {
    DType t;
    int64_t lo, hi;
  };
  for (Case k : {Case{DType::Int64, 0, 3}, Case{DType::Int32, 0, 3}, Case{DType::Int8, -8, 8},
                 Case{DType::Int16, -8, 8}, Case{DType::UInt8, 0, 16}, Case{DType::UInt16, 0, 16},
                 Case{DType::Bool, 0, 1}}) {
    Tensor t = synthesizeConstant(shapeOnly("table", {20000}, k.t));
    std::vector<int64_t> seen(size_t(k.hi - k.lo + 1), 0);
    for (int64_t v : t.toInts()) {
      ASSERT_GE(v, k.lo) << ir::dtypeName(k.t);
      ASSERT_LE(v, k.hi) << ir::dtypeName(k.t);
      ++seen[size_t(v - k.lo)];
    }
    for (size_t i = 0; i < seen.size(); ++i) {
      const double expected = 20000.0 / double(seen.size());
      EXPECT_NEAR(double(seen[i]), expected, 0.15 * expected) << ir::dtypeName(k.t) << " value " << k.lo + int64_t(i);
    }
  }
}

TEST(SynthDistribution, InputsAreUniformInMinusOneOne) {
  Tensor a = synthesizeInput(ir::TensorMeta(DType::Float32, {1, 3, 224, 224}), 7);
  Tensor b = synthesizeInput(ir::TensorMeta(DType::Float32, {1, 3, 224, 224}), 7);
  EXPECT_TRUE(sameBytes(a, b));
  Range r = rangeOf(a);
  EXPECT_GE(r.lo, -1.0);
  EXPECT_LT(r.hi, 1.0);
  EXPECT_NEAR(r.mean, 0.0, 0.01);
  EXPECT_FALSE(sameBytes(a, synthesizeInput(ir::TensorMeta(DType::Float32, {1, 3, 224, 224}), 8)));
}

// ---------------------------------------------------------------- views of constant data

TEST(ConstantData, ViewSharesTheBlobAndCopiesOnlyToWrite) {
  ir::ConstantStore store;
  std::vector<uint8_t> bytes(64);
  std::iota(bytes.begin(), bytes.end(), uint8_t(0));
  ir::Constant c = shapeOnly("w", {16});
  c.data = store.intern(bytes);
  Tensor v = constantDataView(c);
  ASSERT_TRUE(v.defined());
  EXPECT_TRUE(v.isView());
  EXPECT_EQ(v.bytes(), c.data->bytes.data());  // no copy
  Tensor w = Tensor(v).writable();
  EXPECT_NE(w.bytes(), c.data->bytes.data());  // writing needs a copy
  EXPECT_TRUE(sameBytes(v, w));
  std::vector<uint8_t> released = Tensor(v).releaseBytes();
  EXPECT_EQ(released, bytes);
  EXPECT_TRUE(std::ranges::equal(c.data->bytes, bytes));  // the blob is intact
  // Wrong size or no data: no view.
  ir::Constant bad = c;
  bad.shape = Shape{8};
  EXPECT_FALSE(constantDataView(bad).defined());
  EXPECT_FALSE(constantDataView(shapeOnly("s", {16})).defined());
  // A tensor that alone owns its bytes hands them over without a copy.
  Tensor own = Tensor::fromBytes(DType::Float32, {16}, bytes);
  const uint8_t* at = own.bytes();
  Tensor alias = own;
  EXPECT_NE(Tensor(own).releaseBytes().data(), at);  // shared: copied
  alias = Tensor();
  std::vector<uint8_t> moved = std::move(own).releaseBytes();
  EXPECT_EQ(moved.data(), at);
  EXPECT_FALSE(own.defined());  // NOLINT(bugprone-use-after-move): documented state
}

TEST(ConstantStore, InternDeduplicatesByBytesWhateverTheLength) {
  ir::ConstantStore store;
  for (size_t n : {size_t(0), size_t(7), size_t(64), size_t(255), size_t(256), size_t(1000), size_t(4099)}) {
    std::vector<uint8_t> a(n);
    for (size_t i = 0; i < n; ++i) a[i] = uint8_t(i * 131 + n);
    auto x = store.intern(a), y = store.intern(a);
    EXPECT_EQ(x, y) << n;
    for (size_t at = 0; at < n; at += std::max<size_t>(1, n / 37)) {  // any changed byte: another blob
      std::vector<uint8_t> b = a;
      b[at] ^= 0x10;
      auto z = store.intern(b);
      EXPECT_NE(z, x) << n << " @" << at;
      EXPECT_TRUE(std::ranges::equal(z->bytes, b));
      EXPECT_NE(z->hash, x->hash) << n << " @" << at;
    }
  }
}

// ---------------------------------------------------------------- strided copy / permute

Shape permuteShape(const Shape& s, const std::vector<int64_t>& perm) {
  Shape o = s;
  for (size_t d = 0; d < perm.size(); ++d) o[int(d)] = s[int(perm[d])];
  return o;
}

/// out[j] = in[sum(idx_d * inStride[perm[d]])] for the row-major multi-index idx of j.
std::vector<uint8_t> naivePermute(const std::vector<uint8_t>& in, const Shape& inShape, const std::vector<int64_t>& perm,
                                  int es) {
  std::vector<int64_t> st = contiguousStrides(inShape);
  Shape out = permuteShape(inShape, perm);
  std::vector<uint8_t> res(in.size());
  std::vector<int64_t> idx(perm.size(), 0);
  for (int64_t j = 0; j < out.numel(); ++j) {
    int64_t rem = j, src = 0;
    for (int d = out.rank() - 1; d >= 0; --d) {
      idx[size_t(d)] = rem % out[d];
      rem /= out[d];
    }
    for (size_t d = 0; d < perm.size(); ++d) src += idx[d] * st[size_t(perm[d])];
    std::memcpy(&res[size_t(j * es)], &in[size_t(src * es)], size_t(es));
  }
  return res;
}

TEST(StridedCopy, PermutesEqualANaiveReferenceByteForByte) {
  struct Case {
    Shape shape;
    std::vector<int64_t> perm;
  };
  const std::vector<Case> cases = {
      {{64, 32, 3, 3}, {0, 2, 3, 1}},    // OIHW -> OHWI (conv weights)
      {{96, 1, 3, 3}, {2, 3, 0, 1}},     // depthwise -> HWCM
      {{40, 24, 1, 11}, {0, 2, 3, 1}},   // conv1d as 2-D
      {{130, 70}, {1, 0}},               // linear weights -> [in, out], small: plain loop
      {{1000, 70}, {1, 0}},              // large (4- and 8-byte elements): tiled, ragged tiles
      {{9, 200, 67}, {2, 1, 0}},         // tiled over the source's innermost dim, a middle one of the output
      {{5, 66, 7, 9}, {1, 2, 3, 0}},     // innermost read with the largest stride
      {{3, 4, 5, 6, 7}, {4, 0, 3, 1, 2}},
      {{8, 8}, {1, 0}},
  };
  for (int es : {1, 2, 4, 8}) {
    for (const Case& k : cases) {
      std::vector<uint8_t> in(size_t(k.shape.numel() * es));
      for (size_t i = 0; i < in.size(); ++i) in[i] = uint8_t(splitmix64At(99, i));
      const Shape out = permuteShape(k.shape, k.perm);
      std::vector<int64_t> st = contiguousStrides(k.shape), src(k.perm.size());
      for (size_t d = 0; d < k.perm.size(); ++d) src[d] = st[size_t(k.perm[d])];
      std::vector<int64_t> dst = contiguousStrides(out);
      std::vector<uint8_t> got(in.size(), 0xAB);
      copyStrided(es, out, in.data(), 0, src.data(), got.data(), 0, dst.data());
      EXPECT_EQ(got, naivePermute(in, k.shape, k.perm, es)) << ir::toString(ir::TensorMeta(DType::Float32, k.shape)) << " es " << es;
    }
  }
}

}  // namespace
}  // namespace ls::exec
