// Lazy constants (core/exec/materialize.h): a materialised permute recipe equals the eager
// permute byte for byte (over bytes, synthesised sources, a view, a chain), recipe hashes are
// content-addressed (equal for equal recipes, different for other attributes or inputs), and the
// shared cache keeps to its bound and gives the same values after eviction.
#include "core/exec/materialize.h"

#include <gtest/gtest.h>

#include <cstring>

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
