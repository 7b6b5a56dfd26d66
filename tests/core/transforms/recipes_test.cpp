// Derived constants of the shared transforms: every recipe kind materialises to the bytes the
// same computation gives done eagerly (a fold of permute / reshape / cast / pad / slice / concat
// / elementwise ops against the reference executor running the node, fold_bn against the
// per-channel formula), equal recipes hash equal, other attributes or inputs do not, and the
// passes build recipes (no bytes) that describe where a constant came from.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "core/exec/materialize.h"
#include "core/transforms/batch_norm.h"
#include "core/transforms/constant_folding.h"
#include "core/transforms/constant_values.h"
#include "transforms_test_util.h"

namespace ls::transforms {
namespace {

using ir::IntList;

bool sameBytes(const exec::Tensor& a, const exec::Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.bytes(), b.bytes(), a.nbytes()) == 0;
}

/// The value of node `r` when the reference executor runs the whole graph.
exec::Tensor eagerValue(const ir::Graph& g, ir::ValueRef r) {
  exec::Executor ex;
  auto all = ex.runAll(g, exec::synthesizeInputs(g, 1));
  EXPECT_TRUE(all.isOk()) << all.message();
  return all.isOk() ? all->at(r) : exec::Tensor();
}

exec::Tensor materialized(const ir::Constant& c) {
  auto t = exec::materialize(c);
  EXPECT_TRUE(t.isOk()) << t.message();
  return t.isOk() ? *t : exec::Tensor();
}

TEST(Recipes, FoldOfEveryOpFamilyEqualsTheExecutorsValue) {
  test::GraphBuilder b;
  auto x = b.input("x", {2, 3});
  auto a = b.constant("a", ir::DType::Float32, {2, 3}, test::ramp(6, 0.7));
  auto w = b.parameter("w", {2, 3});  // shape-only: synthesised underneath
  std::vector<std::pair<std::string, ir::ValueRef>> folds = {
      {"permute", b.call("aten.permute_copy.default", {w, IntList{1, 0}}, {}, "perm")},
      {"reshape", b.call("aten.view_copy.default", {a, IntList{3, 2}}, {}, "view")},
      {"cast", b.call("aten._to_copy.default", {a}, {{"dtype", ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(ir::DType::Float16)})}}, "cast")},
      {"pad", b.call("aten.constant_pad_nd.default", {w, IntList{1, 2}, 0.5}, {}, "pad")},
      {"slice", b.call("aten.slice_copy.Tensor", {a, int64_t(1), int64_t(1), int64_t(3), int64_t(1)}, {}, "slice")},
      {"concat", b.call("aten.cat.default", {ir::RefList{a, w}, int64_t(0)}, {}, "cat")},
      {"elementwise", b.call("aten.mul.Tensor", {a, w}, {}, "mul")},
  };
  auto y = b.call("aten.add.Tensor", {x, a}, {}, "y");
  std::vector<ir::ValueRef> outs{y};
  for (auto& [kind, r] : folds) outs.push_back(r);
  b.output(outs);
  for (auto& [kind, r] : folds) {
    SCOPED_TRACE(kind);
    auto c = foldedConstant(b.g, b.g.node(r.node));
    ASSERT_TRUE(c.isOk()) << c.message();
    EXPECT_FALSE(c->hasData());
    EXPECT_TRUE(sameBytes(materialized(*c), eagerValue(b.g, r)));
    EXPECT_EQ(c->valuesKnown(), kind == "reshape" || kind == "cast" || kind == "slice");
  }
  auto cat = foldedConstant(b.g, b.g.node(folds[5].second.node));
  EXPECT_EQ(cat->recipe->describe(), "cat([a, w], 0)");
}

TEST(Recipes, FoldHashEqualForEqualNodesDifferentForOtherAttrsOrInputs) {
  test::GraphBuilder b;
  auto a = b.constant("a", ir::DType::Float32, {2, 3}, test::ramp(6));
  auto a2 = b.constant("a2", ir::DType::Float32, {2, 3}, test::ramp(6));  // same bytes as a
  auto c = b.constant("c", ir::DType::Float32, {2, 3}, test::ramp(6, 0.3));
  auto p1 = b.call("aten.permute_copy.default", {a, IntList{1, 0}}, {}, "p1");
  auto p2 = b.call("aten.permute_copy.default", {a2, IntList{1, 0}}, {}, "p2");
  auto p3 = b.call("aten.permute_copy.default", {c, IntList{1, 0}}, {}, "p3");
  auto s1 = b.call("aten.mul.Tensor", {a, 2.0}, {}, "s1");
  auto s2 = b.call("aten.mul.Tensor", {a, 3.0}, {}, "s2");
  b.output({p1, p2, p3, s1, s2});
  auto recipe = [&](ir::ValueRef r) {
    auto res = foldRecipe(b.g, b.g.node(r.node));
    EXPECT_TRUE(res.isOk()) << res.message();
    return res.isOk() ? res.value() : nullptr;
  };
  auto hash = [&](ir::ValueRef r) { return recipe(r)->hash(); };
  EXPECT_EQ(hash(p1), hash(p2));  // the node's name is not part of the recipe
  EXPECT_TRUE(recipe(p1)->sameAs(*recipe(p2)));
  EXPECT_NE(hash(p1), hash(p3));
  EXPECT_NE(hash(s1), hash(s2));
}

TEST(Recipes, FoldBatchNormEqualsThePerChannelFormula) {
  for (bool withBias : {true, false}) {
    SCOPED_TRACE(withBias);
    test::GraphBuilder b;
    auto x = b.input("x", {1, 3, 5, 5});
    auto w = b.parameter("conv.weight", {4, 3, 3, 3});
    ir::Arg bias = withBias ? ir::Arg(b.constant("conv.bias", ir::DType::Float32, {4}, test::ramp(4))) : ir::Arg();
    auto conv = b.call("aten.convolution.default",
                       {x, w, bias, IntList{1, 1}, IntList{1, 1}, IntList{1, 1}, false, IntList{0, 0}, int64_t(1)}, {}, "conv");
    auto gw = b.constant("bn.weight", ir::DType::Float32, {4}, test::ramp(4, 1.0));
    auto rm = b.constant("bn.running_mean", ir::DType::Float32, {4}, test::ramp(4, 0.05));
    auto rv = b.parameter("bn.running_var", {4});
    auto bn = b.call("aten._native_batch_norm_legit_no_training.default", {conv, gw, ir::Arg(), rm, rv, 0.1, 1e-5}, {}, "bn");
    auto g0 = b.call("operator.getitem", {bn, int64_t(0)}, {}, "bn_0");
    b.output({g0});
    auto m = matchEvalBatchNorm(b.g, b.g.node(bn.node), {});
    ASSERT_TRUE(m.isOk() && m->has_value());
    // Eagerly, as FuseBatchNormPass computed it before recipes.
    const exec::Tensor wv = constantValues(*b.g.constant("conv.weight"));
    std::vector<double> s(4), sh(4);
    const std::vector<double> gv = constantValues(*b.g.constant("bn.weight")).toDoubles();
    const std::vector<double> mv = constantValues(*b.g.constant("bn.running_mean")).toDoubles();
    const std::vector<double> vv = constantValues(*b.g.constant("bn.running_var")).toDoubles();
    for (size_t c = 0; c < 4; ++c) s[c] = gv[c] / std::sqrt(vv[c] + 1e-5), sh[c] = 0.0 - mv[c] * s[c];
    exec::Tensor ew(ir::DType::Float32, wv.shape());
    for (int64_t i = 0; i < ew.numel(); ++i) ew.data<float>()[i] = float(double(wv.data<float>()[i]) * s[size_t(i / 27)]);
    std::vector<double> eb(4, 0.0);
    if (withBias) eb = constantValues(*b.g.constant("conv.bias")).toDoubles();
    for (size_t c = 0; c < 4; ++c) eb[c] = eb[c] * s[c] + sh[c];
    const ir::Constant* bc = withBias ? b.g.constant("conv.bias") : nullptr;
    ir::Constant fw = exec::recipeConstant(foldBatchNormRecipe(true, b.g.constant("conv.weight"), **m, ir::DType::Float32));
    ir::Constant fb = exec::recipeConstant(foldBatchNormRecipe(false, bc, **m, ir::DType::Float32));
    EXPECT_TRUE(sameBytes(materialized(fw), ew));
    EXPECT_TRUE(sameBytes(materialized(fb), exec::Tensor::fromDoubles(ir::DType::Float32, {4}, eb)));
    EXPECT_EQ(fw.recipe->describe(), "fold_bn(conv.weight, bn.*)");
    EXPECT_FALSE(fw.valuesKnown());  // a synthesised weight underneath
    // Weight and bias parts, and another eps, are other recipes.
    EXPECT_NE(fw.contentHash, fb.contentHash);
    EvalBatchNorm other = **m;
    other.eps = 1e-3;
    EXPECT_NE(foldBatchNormRecipe(true, b.g.constant("conv.weight"), other, ir::DType::Float32)->hash(), fw.contentHash);
    EXPECT_EQ(foldBatchNormRecipe(true, b.g.constant("conv.weight"), **m, ir::DType::Float32)->hash(), fw.contentHash);
  }
}

TEST(Recipes, FuseBatchNormBuildsRecipesNotBytes) {
  test::GraphBuilder b;
  auto x = b.input("x", {1, 3, 5, 5});
  auto w = b.parameter("conv.weight", {4, 3, 3, 3});
  auto conv = b.call("aten.convolution.default",
                     {x, w, ir::Arg(), IntList{1, 1}, IntList{1, 1}, IntList{1, 1}, false, IntList{0, 0}, int64_t(1)}, {}, "conv");
  auto gw = b.parameter("bn.weight", {4});
  auto gb = b.parameter("bn.bias", {4});
  auto rm = b.parameter("bn.running_mean", {4});
  auto rv = b.parameter("bn.running_var", {4});
  auto bn = b.call("aten._native_batch_norm_legit_no_training.default", {conv, gw, gb, rm, rv, 0.1, 1e-5}, {}, "bn");
  auto g0 = b.call("operator.getitem", {bn, int64_t(0)}, {}, "bn_0");
  b.output({g0});
  const ir::Graph before = b.g;
  FuseBatchNormPass p("FuseBatchNorm2dPass", {});
  ASSERT_EQ(test::runPassOn(p, b.g).status, passes::PassStatus::Changed);
  int recipes = 0;
  for (const auto& [name, c] : b.g.constants()) {
    if (!c.recipe) continue;
    ++recipes;
    EXPECT_FALSE(c.hasData()) << name;
    EXPECT_EQ(c.recipe->op(), "fold_bn");
  }
  EXPECT_EQ(recipes, 2);
  EXPECT_LT(test::maxRelDiff(before, b.g), 1e-5);
}

}  // namespace
}  // namespace ls::transforms
