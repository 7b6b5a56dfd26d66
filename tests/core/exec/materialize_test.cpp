// Lazy constants (core/exec/materialize.h): a materialised permute recipe equals the eager
// permute byte for byte (over bytes, synthesised sources, a view, a chain), a quantize recipe
// (per channel int8 / int32, per tensor) equals the quantize formula element by element, and
// a chain of every exec kind (quantize -> permute) the eager chain; recipe hashes are
// content-addressed (equal for equal recipes, different for other attributes or inputs), and the
// shared cache keeps to its bound and gives the same values after eviction.
#include "core/exec/materialize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "core/exec/synth.h"

namespace ls::exec {
namespace {

ir::Constant dataConstant(ir::ConstantStore& store, const std::string& name, ir::Shape s, double scale = 0.1) {
  std::vector<double> v(size_t(s.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = scale * double(int64_t(i % 17) - 8);
  Tensor t = Tensor::fromDoubles(ir::DType::Float32, s, v);
  ir::Constant c;
  c.name = c.fqn = name;
  c.shape = s;
  c.data = store.intern(std::move(t).releaseBytes());
  c.contentHash = ir::constantContentHash(c);
  return c;
}

ir::Constant shapeOnly(const std::string& name, ir::Shape s) {
  ir::Constant c;
  c.name = c.fqn = name;
  c.shape = s;
  c.contentHash = ir::constantContentHash(c);
  return c;
}

bool sameBytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.bytes(), b.bytes(), a.nbytes()) == 0;
}

Tensor values(const ir::Constant& c) {
  auto t = materialize(c);
  EXPECT_TRUE(t.isOk()) << t.message();
  return t.isOk() ? *t : Tensor();
}

TEST(Materialize, PermuteOfDataEqualsEagerPermute) {
  ir::ConstantStore store;
  ir::Constant w = dataConstant(store, "conv1.weight", {8, 3, 5, 7});
  ir::Constant p = recipeConstant(permuteRecipe(w, {0, 2, 3, 1}, "permute OHWI"));
  EXPECT_EQ(p.shape, (ir::Shape{8, 5, 7, 3}));
  EXPECT_TRUE(p.valuesKnown());
  EXPECT_FALSE(p.hasData());
  EXPECT_TRUE(sameBytes(values(p), permuteTensor(constantDataView(w), {0, 2, 3, 1})));
  EXPECT_EQ(p.recipe->describe(), "conv1.weight -> permute OHWI");
}

TEST(Materialize, PermuteOfShapeOnlyEqualsPermuteOfSynthesis) {
  ir::Constant w = shapeOnly("layer1.0.conv1.weight", {16, 8, 3, 3});
  ir::Constant p = recipeConstant(permuteRecipe(w, {0, 2, 3, 1}));
  EXPECT_FALSE(p.valuesKnown());  // like shape-only: synthesised values underneath
  EXPECT_TRUE(sameBytes(values(p), permuteTensor(synthesizeConstant(w), {0, 2, 3, 1})));
}

TEST(Materialize, PermuteThroughViewAndChainEqualEager) {
  ir::ConstantStore store;
  ir::Constant w = dataConstant(store, "dw.weight", {6, 1, 3, 3});  // depthwise: [C*M, 1, kh, kw]
  ir::Constant hwcm = recipeConstant(permuteRecipe(w, {2, 3, 0, 1}, "permute HWCM", ir::Shape{6, 1, 3, 3}));
  Tensor eager = permuteTensor(constantDataView(w).reshaped(ir::Shape{6, 1, 3, 3}), {2, 3, 0, 1});
  EXPECT_TRUE(sameBytes(values(hwcm), eager));
  ir::Constant back = recipeConstant(permuteRecipe(hwcm, {2, 3, 0, 1}, "permute back"));
  EXPECT_TRUE(sameBytes(values(back), permuteTensor(eager, {2, 3, 0, 1})));
  EXPECT_EQ(back.recipe->describe(), "dw.weight -> permute HWCM -> permute back");
}

/// quantize_per_channel / _per_tensor as the kernels define it, one element at a time:
/// clamp(round_half_even(x * inv) + zp, qmin, qmax), NaN to the zero point.
int64_t quantizeFormula(double x, float inv, int64_t zp, int64_t qmin, int64_t qmax) {
  const float v = float(x) * inv;
  if (std::isnan(v)) return zp;
  const double r = std::nearbyint(double(v)) + double(zp);
  return int64_t(std::clamp(r, double(qmin), double(qmax)));
}

ir::Constant floatData(ir::ConstantStore& store, const std::string& name, ir::Shape s, std::vector<float> v) {
  ir::Constant c;
  c.name = c.fqn = name;
  c.shape = s;
  c.data = store.intern(Tensor::fromFloats(s, std::move(v)).releaseBytes());
  c.contentHash = ir::constantContentHash(c);
  return c;
}

/// Values with ties at .5 steps, negatives, out-of-range values, an infinity and a NaN.
std::vector<float> awkwardValues(int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = float(int64_t(i * 37 % 101) - 50) * 0.0625f;
  if (n > 3) v[1] = INFINITY, v[2] = NAN, v[3] = 1e9f;
  return v;
}

TEST(Materialize, QuantizePerChannelEqualsTheFormula) {
  ir::ConstantStore store;
  const ir::Shape ws{6, 3, 2, 5};
  ir::Constant w = floatData(store, "conv.weight", ws, awkwardValues(ws.numel()));
  for (int axis : {0, 1}) {
    const int64_t C = ws[axis];
    std::vector<float> sc(static_cast<size_t>(C));
    for (int64_t c = 0; c < C; ++c) sc[size_t(c)] = 0.0125f * float(c + 1) / 3.0f;
    ir::Constant scales = floatData(store, "conv.weight_scales", {C}, sc);
    ir::Constant q = recipeConstant(quantizePerChannelRecipe(w, scales, axis, -127, 127, ir::DType::Int8));
    EXPECT_EQ(q.dtype, ir::DType::Int8);
    EXPECT_TRUE(q.valuesKnown());
    EXPECT_FALSE(q.hasData());
    EXPECT_EQ(q.recipe->describe(), "conv.weight -> quantize per channel int8");
    Tensor got = values(q), x = constantDataView(w);
    ASSERT_EQ(got.shape(), ws);
    int64_t inner = 1;
    for (int d = axis + 1; d < ws.rank(); ++d) inner *= ws[d];
    for (int64_t i = 0; i < ws.numel(); ++i) {
      const int64_t c = (i / inner) % C;
      ASSERT_EQ(got.getInt(i), quantizeFormula(x.getDouble(i), 1.0f / sc[size_t(c)], 0, -127, 127)) << axis << " " << i;
    }
  }
  // int32 storage (a bias at input scale x weight scale), over int32's whole range.
  ir::Constant b = floatData(store, "conv.bias", {6}, {0.5f, -0.25f, 3e9f, -3e9f, 1.0f, 0.0f});
  ir::Constant bs = floatData(store, "conv.bias_scales", {6}, {0.25f, 0.5f, 0.5f, 0.5f, 1e-3f, 1.0f});
  const int64_t lo = std::numeric_limits<int32_t>::min(), hi = int64_t(std::numeric_limits<int32_t>::max()) - 1;
  Tensor bq = values(recipeConstant(quantizePerChannelRecipe(b, bs, 0, lo, hi, ir::DType::Int32)));
  ASSERT_EQ(bq.dtype(), ir::DType::Int32);
  const std::vector<int64_t> want = {2, 0, hi, lo, 1000, 0};  // -0.5 rounds to even 0
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(bq.getInt(i), want[size_t(i)]) << i;
  // Scales that do not match the axis: an error, not a crash.
  ir::Constant wrong = recipeConstant(quantizePerChannelRecipe(w, bs, 1, -127, 127, ir::DType::Int8));
  EXPECT_FALSE(materialize(wrong).isOk());
}

TEST(Materialize, QuantizePerTensorEqualsTheFormula) {
  ir::ConstantStore store;
  ir::Constant x = floatData(store, "ln.weight", {7, 9}, awkwardValues(63));
  const double scale = 0.0371;
  ir::Constant q = recipeConstant(quantizePerTensorRecipe(x, scale, -3, -128, 127));
  EXPECT_EQ(q.recipe->describe(), "ln.weight -> quantize per tensor int8");
  Tensor got = values(q), in = constantDataView(x);
  for (int64_t i = 0; i < 63; ++i)
    ASSERT_EQ(got.getInt(i), quantizeFormula(in.getDouble(i), float(1.0 / scale), -3, -128, 127)) << i;
  // The scale is part of the hash exactly (a last-bit change is another value).
  EXPECT_NE(quantizePerTensorRecipe(x, std::nextafter(scale, 1.0), -3, -128, 127)->hash(), q.contentHash);
  EXPECT_EQ(quantizePerTensorRecipe(x, scale, -3, -128, 127)->hash(), q.contentHash);
  EXPECT_NE(quantizePerTensorRecipe(x, scale, -2, -128, 127)->hash(), q.contentHash);
}

TEST(Materialize, EveryKindChainedEqualsTheEagerChain) {
  // The Arm INT conv weight: a shape-only float weight -> quantize per channel -> permute OHWI
  // (and a linear's -> permute [out, in] -> view + permute KN): the same bytes as quantising the
  // synthesised values and permuting eagerly.
  ir::ConstantStore store;
  ir::Constant w = shapeOnly("features.0.weight", {16, 8, 3, 3});
  std::vector<float> sc(16);
  for (size_t c = 0; c < sc.size(); ++c) sc[c] = 0.01f + 0.001f * float(c);
  ir::Constant scales = floatData(store, "s", {16}, sc);
  ir::Constant q = recipeConstant(quantizePerChannelRecipe(w, scales, 0, -127, 127, ir::DType::Int8));
  EXPECT_FALSE(q.valuesKnown());  // over a synthesised source
  ir::Constant ohwi = recipeConstant(permuteRecipe(q, {0, 2, 3, 1}, "permute OHWI"));
  Tensor eagerQ = quantizePerChannel(synthesizeConstant(w), 0, sc.data(), -127, 127, ir::DType::Int8);
  EXPECT_TRUE(sameBytes(values(ohwi), permuteTensor(eagerQ, {0, 2, 3, 1})));
  EXPECT_EQ(ohwi.recipe->describe(), "features.0.weight -> quantize per channel int8 -> permute OHWI");
  ir::Constant lin = floatData(store, "fc.weight", {5, 16}, awkwardValues(80));
  ir::Constant ls = floatData(store, "fc.s", {5}, {0.1f, 0.2f, 0.3f, 0.4f, 0.5f});
  ir::Constant lq = recipeConstant(quantizePerChannelRecipe(lin, ls, 0, -127, 127, ir::DType::Int8));
  ir::Constant kn = recipeConstant(permuteRecipe(lq, {0, 2, 1}, "permute KN", ir::Shape{1, 5, 16}));
  Tensor eagerL = quantizePerChannel(constantDataView(lin), 0, constantDataView(ls).data<float>(), -127, 127,
                                     ir::DType::Int8);
  EXPECT_TRUE(sameBytes(values(kn), permuteTensor(eagerL, {1, 0}).reshaped(ir::Shape{1, 16, 5})));
}

TEST(Materialize, HashIsContentAddressed) {
  ir::ConstantStore store;
  ir::Constant a = dataConstant(store, "a", {4, 6});
  ir::Constant sameBytesOtherName = dataConstant(store, "b", {4, 6});
  ir::Constant other = dataConstant(store, "c", {4, 6}, 0.2);
  auto r1 = permuteRecipe(a, {1, 0});
  auto r2 = permuteRecipe(a, {1, 0}, "another label");  // the label is display only
  EXPECT_EQ(r1->hash(), r2->hash());
  EXPECT_TRUE(r1->sameAs(*r2));
  EXPECT_EQ(permuteRecipe(sameBytesOtherName, {1, 0})->hash(), r1->hash());  // same bytes, same value
  EXPECT_NE(permuteRecipe(other, {1, 0})->hash(), r1->hash());            // other input
  EXPECT_FALSE(permuteRecipe(other, {1, 0})->sameAs(*r1));
  EXPECT_NE(permuteRecipe(a, {0, 1})->hash(), r1->hash());                // other attribute
  EXPECT_NE(permuteRecipe(a, {1, 0}, {}, ir::Shape{6, 4})->hash(), r1->hash());  // other view
  // Shape-only sources differ by name (their synthesised values do).
  EXPECT_NE(permuteRecipe(shapeOnly("x", {4, 6}), {1, 0})->hash(), permuteRecipe(shapeOnly("y", {4, 6}), {1, 0})->hash());
  // Constants holding equal recipes are the same content.
  ir::Constant c1 = recipeConstant(r1), c2 = recipeConstant(r2);
  c1.name = "one", c2.name = "two";
  EXPECT_EQ(c1.contentHash, c2.contentHash);
  EXPECT_TRUE(ir::sameContent(c1, c2));
  EXPECT_FALSE(ir::sameContent(c1, recipeConstant(permuteRecipe(other, {1, 0}))));
}

TEST(Materialize, CacheBoundRespectedAndValuesSameAfterEviction) {
  MaterializeCache& cache = MaterializeCache::instance();
  const size_t saved = cache.stats().capacity;
  cache.clear();
  const size_t each = 64 * 64 * 4;
  cache.setCapacity(3 * each);
  std::vector<ir::Constant> cs;
  std::vector<Tensor> first;
  for (int i = 0; i < 6; ++i) {
    cs.push_back(recipeConstant(permuteRecipe(shapeOnly("w" + std::to_string(i), {64, 64}), {1, 0})));
    Tensor t = values(cs.back());
    first.push_back(t.clone());
    EXPECT_LE(cache.stats().bytes, cache.stats().capacity);
  }
  EXPECT_EQ(cache.stats().entries, 3u);
  EXPECT_GE(cache.stats().evictions, 3u);
  const uint64_t misses = cache.stats().misses;
  for (size_t i = 0; i < cs.size(); ++i) EXPECT_TRUE(sameBytes(values(cs[i]), first[i])) << i;  // recomputed
  EXPECT_GT(cache.stats().misses, misses);
  EXPECT_LE(cache.stats().bytes, cache.stats().capacity);
  // A value larger than the whole cache is returned, not kept.
  cache.setCapacity(each / 2);
  EXPECT_TRUE(sameBytes(values(cs[0]), first[0]));
  EXPECT_EQ(cache.stats().entries, 0u);
  cache.setCapacity(saved);
  cache.clear();
}

TEST(Materialize, DefaultCapacityFollowsTheMachineAndTheEnvironment) {
  const char* saved = std::getenv("LS_MATERIALIZE_CACHE_MB");
  std::string keep = saved ? saved : "";
  ::unsetenv("LS_MATERIALIZE_CACHE_MB");
  const size_t c = MaterializeCache::defaultCapacity();
  EXPECT_GE(c, size_t(64) << 20);
  EXPECT_LE(c, size_t(1) << 30);
  ::setenv("LS_MATERIALIZE_CACHE_MB", "5", 1);
  EXPECT_EQ(MaterializeCache::defaultCapacity(), size_t(5) << 20);
  if (saved) ::setenv("LS_MATERIALIZE_CACHE_MB", keep.c_str(), 1);
  else ::unsetenv("LS_MATERIALIZE_CACHE_MB");
}

TEST(Materialize, TransientValuesEqualCachedOnesAndAreNotKept) {
  MaterializeCache& cache = MaterializeCache::instance();
  cache.clear();
  ir::Constant p = recipeConstant(permuteRecipe(shapeOnly("t.weight", {32, 16, 3, 3}), {0, 2, 3, 1}));
  auto once = materialize(p, Retain::Transient);
  ASSERT_TRUE(once.isOk()) << once.message();
  EXPECT_EQ(cache.stats().entries, 0u);  // neither the value nor its synthesised source
  EXPECT_EQ(cache.stats().bytes, 0u);
  Tensor kept = values(p);
  EXPECT_TRUE(sameBytes(*once, kept));
  EXPECT_EQ(cache.stats().entries, 1u);  // the value asked for (a recipe's inputs are not kept)
  // A transient read of a cached value is a hit and adds nothing.
  const uint64_t hits = cache.stats().hits;
  auto again = materialize(p, Retain::Transient);
  ASSERT_TRUE(again.isOk());
  EXPECT_TRUE(sameBytes(*again, kept));
  EXPECT_EQ(cache.stats().hits, hits + 1);
  EXPECT_EQ(cache.stats().entries, 1u);
  cache.clear();
}

TEST(Materialize, IntoADestinationEqualsMaterializeForEverySource) {
  // materializeInto (a file writer's buffer): bytes, a synthesised source, a recipe whose last
  // step writes in place (permute, through a view and after a quantize), one that copies
  // (quantize), and a value already cached: the same bytes as materialize().
  MaterializeCache& cache = MaterializeCache::instance();
  cache.clear();
  ir::ConstantStore store;
  ir::Constant data = floatData(store, "d", {4, 6}, awkwardValues(24));
  ir::Constant synth = shapeOnly("conv.weight", {8, 4, 3, 3});
  std::vector<float> sc(8, 0.02f);
  ir::Constant scales = floatData(store, "s", {8}, sc);
  ir::Constant q = recipeConstant(quantizePerChannelRecipe(synth, scales, 0, -127, 127, ir::DType::Int8));
  ir::Constant ohwi = recipeConstant(permuteRecipe(q, {0, 2, 3, 1}, "permute OHWI"));
  ir::Constant kn = recipeConstant(permuteRecipe(data, {0, 2, 1}, "permute KN", ir::Shape{1, 4, 6}));
  for (const ir::Constant* c : {&data, &synth, &q, &ohwi, &kn}) {
    Tensor want = materialize(*c, Retain::Transient).value();
    std::vector<uint8_t> out(want.nbytes(), 0xAB);
    ASSERT_TRUE(materializeInto(*c, out).isOk()) << c->name;
    EXPECT_EQ(std::memcmp(out.data(), want.bytes(), out.size()), 0) << (c->recipe ? c->recipe->describe() : c->name);
  }
  EXPECT_EQ(cache.stats().entries, 0u);  // nothing kept
  Tensor cached = values(ohwi);          // now cached: copied from the cache
  std::vector<uint8_t> out(cached.nbytes());
  ASSERT_TRUE(materializeInto(ohwi, out).isOk());
  EXPECT_EQ(std::memcmp(out.data(), cached.bytes(), out.size()), 0);
  // A destination of another size is an error naming the constant, and nothing is written.
  ohwi.name = "w_ohwi";
  std::vector<uint8_t> small(cached.nbytes() - 1, 0xCD);
  Status st = materializeInto(ohwi, small);
  ASSERT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("w_ohwi"), std::string::npos) << st.message();
  EXPECT_EQ(small.front(), 0xCD);
  cache.clear();
}

TEST(Tensor, UninitializedStorageIsWritableAndReleasedByCopy) {
  Tensor u = Tensor::uninitialized(ir::DType::Int32, {3, 5});
  ASSERT_NE(u.bytes(), nullptr);
  EXPECT_EQ(u.nbytes(), 60u);
  for (int64_t i = 0; i < u.numel(); ++i) u.setInt(i, i * 7 - 3);
  Tensor w = Tensor(u).writable();  // shared: copied
  EXPECT_NE(w.bytes(), u.bytes());
  EXPECT_TRUE(sameBytes(w, u));
  std::vector<uint8_t> released = std::move(u).releaseBytes();  // not a vector: copied out
  ASSERT_EQ(released.size(), 60u);
  EXPECT_EQ(std::memcmp(released.data(), w.bytes(), 60), 0);
  EXPECT_EQ(Tensor::uninitialized(ir::DType::Float32, {0, 4}).nbytes(), 0u);
}

TEST(Materialize, RecipeThatCannotBeEvaluatedIsAnErrorNamingTheConstant) {
  ir::Constant described;
  described.name = "loaded";
  described.shape = {2, 2};
  described.recipe = ir::describedRecipe("fold_bn(conv.weight, bn.*)", ir::DType::Float32, {2, 2});
  described.contentHash = ir::constantContentHash(described);
  ir::Constant p = recipeConstant(permuteRecipe(described, {1, 0}));
  p.name = "permuted";
  auto t = materialize(p);
  ASSERT_FALSE(t.isOk());
  EXPECT_NE(t.message().find("permuted"), std::string::npos) << t.message();
  EXPECT_NE(t.message().find("loaded"), std::string::npos) << t.message();
}

}  // namespace
}  // namespace ls::exec
