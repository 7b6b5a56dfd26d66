// Constant values for the inspector: which node reads which constant, values from bytes or
// synthesised the way the executor does, statistics that skip non-finite values.
#include "viewers/model/constant_values.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "core/exec/materialize.h"
#include "core/exec/synth.h"
#include "tests/support/graph_builder.h"

namespace ls::viewmodel {
namespace {

TEST(ConstantValues, ValuesFromBytesWithStatistics) {
  test::GraphBuilder b;
  ir::ValueRef w = b.constant("w", ir::DType::Int8, {2, 3}, {-4, 1, 2, 7, 0, -1});
  const ir::Constant* c = constantOf(b.g, b.g.node(w.node));
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->name, "w");
  EXPECT_NE(constantSource(*c).find("6 bytes in the file"), std::string::npos);
  auto v = constantValues(*c, 4);
  ASSERT_TRUE(v.isOk()) << v.message();
  EXPECT_FALSE(v->synthesized);
  EXPECT_EQ(v->numel, 6);
  EXPECT_EQ(v->first, (std::vector<double>{-4, 1, 2, 7}));
  EXPECT_DOUBLE_EQ(v->min, -4);
  EXPECT_DOUBLE_EQ(v->max, 7);
  EXPECT_DOUBLE_EQ(v->mean, 5.0 / 6.0);
  EXPECT_EQ(formatValues(*v, 2), "[-4, 1,\n2, 7, ... (6 total)]");
}

TEST(ConstantValues, NonFiniteValuesAreCountedNotAveraged) {
  test::GraphBuilder b;
  double inf = std::numeric_limits<double>::infinity();
  ir::ValueRef w = b.constant("w", ir::DType::Float32, {4}, {1, inf, std::nan(""), 3});
  auto v = constantValues(*constantOf(b.g, b.g.node(w.node)));
  ASSERT_TRUE(v.isOk());
  EXPECT_EQ(v->nonFinite, 2);
  EXPECT_DOUBLE_EQ(v->min, 1);
  EXPECT_DOUBLE_EQ(v->max, 3);
  EXPECT_DOUBLE_EQ(v->mean, 2);
}

TEST(ConstantValues, ShapeOnlyConstantsShowWhatTheExecutorSynthesises) {
  test::GraphBuilder b;
  ir::ValueRef p = b.parameter("conv.weight", {8, 3, 3, 3});
  const ir::Constant* c = constantOf(b.g, b.g.node(p.node));
  ASSERT_NE(c, nullptr);
  EXPECT_NE(constantSource(*c).find("shape-only"), std::string::npos);
  auto v = constantValues(*c, 1000);
  ASSERT_TRUE(v.isOk());
  EXPECT_TRUE(v->synthesized);
  exec::Tensor t = exec::synthesizeConstant(*c);
  ASSERT_EQ(v->numel, t.numel());
  ASSERT_EQ(int64_t(v->first.size()), t.numel());
  for (int64_t i = 0; i < t.numel(); ++i) EXPECT_EQ(v->first[size_t(i)], t.getDouble(i)) << i;
  EXPECT_LE(v->min, v->max);
}

TEST(ConstantValues, TruncatedBytesAreAnErrorNamingTheConstant) {
  ir::Constant c;
  c.name = "broken";
  c.dtype = ir::DType::Float32;
  c.shape = ir::Shape{4};
  auto bytes = std::make_shared<const std::vector<uint8_t>>(8);
  auto blob = std::make_shared<ir::Blob>();
  blob->bytes = *bytes;
  blob->owner = bytes;
  c.data = blob;
  auto v = constantValues(c);
  ASSERT_FALSE(v.isOk());
  EXPECT_NE(v.message().find("broken"), std::string::npos);
  EXPECT_NE(v.message().find("expected 16"), std::string::npos);
}

TEST(ConstantValues, OnlyConstantReadersHaveAConstant) {
  test::GraphBuilder b;
  ir::ValueRef x = b.input("x", {1, 4});
  ir::Node r = b.makeCall("aten.relu.default", {x}, {}, "r");
  EXPECT_EQ(constantOf(b.g, r), nullptr);
  EXPECT_EQ(constantOf(b.g, b.g.node(x.node)), nullptr);  // a graph input, not a constant
}

TEST(ConstantValues, DerivedConstantsShowTheirRecipeAndMaterialisedValues) {
  test::GraphBuilder b;
  ir::ValueRef p = b.parameter("conv.weight", {8, 3, 3, 3});
  const ir::Constant* w = constantOf(b.g, b.g.node(p.node));
  ASSERT_NE(w, nullptr);
  EXPECT_FALSE(constantRecipe(*w).has_value());
  ir::Constant d = exec::recipeConstant(exec::permuteRecipe(*w, {0, 2, 3, 1}, "permute OHWI"));
  d.name = "weight_ohwi";
  EXPECT_EQ(constantRecipe(d), std::optional<std::string>("conv.weight -> permute OHWI"));
  EXPECT_NE(constantSource(d).find("derived"), std::string::npos);
  auto v = constantValues(d, 1000);
  ASSERT_TRUE(v.isOk()) << v.message();
  EXPECT_TRUE(v->synthesized);  // over a shape-only weight
  exec::Tensor t = exec::permuteTensor(exec::synthesizeConstant(*w), {0, 2, 3, 1});
  ASSERT_EQ(v->numel, t.numel());
  for (int64_t i = 0; i < t.numel(); ++i) EXPECT_EQ(v->first[size_t(i)], t.getDouble(i)) << i;
}

}  // namespace
}  // namespace ls::viewmodel
