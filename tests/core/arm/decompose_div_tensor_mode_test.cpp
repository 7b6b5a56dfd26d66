// DecomposeDivTensorModePass (core/backends/arm/passes/decompose_div_tensor_mode.cpp), house
// style: div with rounding_mode None / "trunc" / "floor" leaves no div.Tensor_mode (integers:
// tosa.INTDIV; floats: reciprocal + floor and the remainder correction), values kept exactly
// (reference executor; exact quotients such as 49 / 49 and negative operands included),
// untargeted nodes untouched, skipped without such a div, an unknown rounding mode refused
// naming the node; through the tosa pipeline FP and INT the divisions lower, compute the
// source's values (FP) and the .tosa validates.
#include <gtest/gtest.h>

#include "tests/core/arm/pass_cases.h"
#include "tests/core/arm/tosa_file_check.h"

namespace ls::arm {
namespace {

using ir::DType;
using test::opCount;
using test::PassCase;

constexpr const char* kPass = "DecomposeDivTensorModePass";
constexpr const char* kDiv = "aten.div.Tensor_mode";

ir::Kwarg mode(const char* m) { return {"rounding_mode", m ? ir::Arg(std::string(m)) : ir::Arg()}; }
ir::Kwarg toDType(DType t) { return {"dtype", ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(t)})}; }

/// An int32 [3, 5] tensor in -10..10 (x * 10 cast).
ir::ValueRef ints(test::GraphBuilder& b, const char* name = "x") {
  auto s = b.call("aten.mul.Tensor", {b.input(name, {3, 5}), 10.0});
  return b.call("aten._to_copy.default", {s}, {toDType(DType::Int32)});
}

/// A nonzero int32 divisor of shape [5]: -4, 3, -2, 7, 1.
ir::ValueRef intDivisor(test::GraphBuilder& b) { return b.constant("divisor", DType::Int32, {5}, {-4, 3, -2, 7, 1}); }

std::function<void(const ir::Graph&, const ir::Graph&)> expectGone(size_t intdivs, size_t floors) {
  return [=](const ir::Graph&, const ir::Graph& g) {
    EXPECT_EQ(opCount(g, kDiv), 0u);
    EXPECT_EQ(opCount(g, "tosa.INTDIV"), intdivs);
    EXPECT_EQ(opCount(g, "aten.floor.default"), floors);
  };
}

std::vector<PassCase> cases() {
  std::vector<PassCase> v;
  for (const char* m : {"trunc", "floor"}) {
    // float / float tensor (the divisor moved away from 0: seeded inputs are in [-1, 1])
    v.push_back({kPass, kDiv,
                 [m](test::GraphBuilder& b) {
                   auto d = b.call("aten.add.Tensor", {b.input("d", {3, 5}), 1.5});
                   return b.call(kDiv, {b.input("x", {3, 5}), d}, {mode(m)});
                 },
                 expectGone(0, 1)});
    // float / number, broadcast rank: [3, 5] / [5]
    v.push_back({kPass, kDiv, [m](test::GraphBuilder& b) { return b.call(kDiv, {b.input("x", {3, 5}), 0.3}, {mode(m)}); },
                 expectGone(0, 1)});
    v.push_back({kPass, kDiv,
                 [m](test::GraphBuilder& b) {
                   auto d = b.call("aten.add.Tensor", {b.input("d", {5}), 2.0});
                   return b.call(kDiv, {b.input("x", {3, 5}), d}, {mode(m)});
                 },
                 expectGone(0, 1)});
    // int32 / int32 tensor and int32 / int
    v.push_back({kPass, kDiv, [m](test::GraphBuilder& b) { return b.call(kDiv, {ints(b), intDivisor(b)}, {mode(m)}); },
                 expectGone(1, 0)});
    v.push_back({kPass, kDiv, [m](test::GraphBuilder& b) { return b.call(kDiv, {ints(b), int64_t(-3)}, {mode(m)}); },
                 expectGone(1, 0)});
  }
  // rounding_mode None: a true division (int operands: float result)
  v.push_back({kPass, kDiv, [](test::GraphBuilder& b) { return b.call(kDiv, {ints(b), intDivisor(b)}, {mode(nullptr)}); },
               expectGone(0, 0)});
  return v;
}

TEST(DecomposeDivTensorModePass, ChangesWhatItShouldKeepsValuesAndVerifies) {
  for (const PassCase& c : cases()) test::runCase(c);
}

/// The pass's result against torch's div (the executor's div.Tensor_mode kernel) on constants.
void expectExact(DType t, const std::vector<double>& a, const std::vector<double>& d, const char* m) {
  SCOPED_TRACE(m);
  const int64_t n = int64_t(a.size());
  test::GraphBuilder b;
  b.output({b.call(kDiv, {b.constant("a", t, {n}, a), b.constant("d", t, {n}, d)}, {mode(m)})});
  ir::Graph g = b.g;
  passes::PassContext ctx;
  ASSERT_EQ(passes::PassRegistry::instance().create(kPass)->run(g, ctx).status, passes::PassStatus::Changed);
  exec::Executor ex;
  auto want = ex.run(b.g, {});
  auto got = ex.run(g, {});
  ASSERT_TRUE(want.isOk() && got.isOk()) << want.message() << got.message();
  for (int64_t i = 0; i < n; ++i)
    EXPECT_EQ((*got)[0].getDouble(i), (*want)[0].getDouble(i)) << a[size_t(i)] << " / " << d[size_t(i)];
}

TEST(DecomposeDivTensorModePass, ExactQuotientsAndSignsAreTorchs) {
  // Exact multiples a = b * q (all representable): a * reciprocal(b) lands just off the integer
  // for 16 of them in float32 (41 * (1 / 41) = 0.99999994, -84 * (1 / 7) = -12.000001), which
  // a plain floor or trunc of it gets wrong; mixed signs, halves and a zero dividend besides.
  std::vector<double> a, d;
  for (int q = -12; q <= 12; ++q)
    for (double b : {3.0, 7.0, 11.0, 13.0, 41.0, 49.0, 0.5, -2.5, -7.0, 6.0, 10.0, 100.0, 0.75}) {
      d.push_back(b);
      a.push_back(b * q);
    }
  for (double x : {7.5, -7.5, 0.0, -0.0, 1.0, -1.0}) a.push_back(x), d.push_back(2.0);
  for (const char* m : {"floor", "trunc"}) expectExact(DType::Float32, a, d, m);
  std::vector<double> ia = {7, -7, 7, -7, 0, 6, -6, 1, -1, 100}, id = {2, 2, -2, -2, 3, 3, 3, -5, 5, -7};
  for (const char* m : {"floor", "trunc"}) expectExact(DType::Int32, ia, id, m);
}

TEST(DecomposeDivTensorModePass, OtherNodesAreUntouched) {
  test::GraphBuilder b;
  auto x = b.input("x", {4});
  auto plain = b.call("aten.div.Tensor", {x, b.input("y", {4})});
  auto floored = b.call(kDiv, {x, 2.0}, {mode("floor")});
  b.output({plain, floored});
  ir::Graph g = b.g;
  passes::PassContext ctx;
  ASSERT_EQ(passes::PassRegistry::instance().create(kPass)->run(g, ctx).status, passes::PassStatus::Changed);
  ASSERT_TRUE(g.find(plain.node));
  EXPECT_EQ(g.node(plain.node).args, b.g.node(plain.node).args);
  EXPECT_FALSE(g.find(floored.node));
}

TEST(DecomposeDivTensorModePass, BeforeAnnotationIntegerDivisionsStay) {
  // In the quantizer's transform for annotation (the pass honours the disallow flag there) an
  // integer division is left for the pipeline, a float one is decomposed in upstream's form.
  test::GraphBuilder b;
  auto id = b.call(kDiv, {ints(b), int64_t(3)}, {mode("floor")});
  auto fd = b.call(kDiv, {b.input("f", {3, 5}), 0.5}, {mode("floor")});
  b.output({id, fd});
  ir::Graph g = b.g;
  auto p = passes::PassRegistry::instance().create(kPass);
  p->honourDisallowFlag();
  passes::PassContext ctx;
  ctx.profile = passes::Profile::INT;
  ASSERT_EQ(p->run(g, ctx).status, passes::PassStatus::Changed);
  ASSERT_TRUE(g.find(id.node));
  EXPECT_EQ(g.node(id.node).op, ir::internOp(kDiv));
  EXPECT_FALSE(g.find(fd.node));
  EXPECT_EQ(opCount(g, "tosa.INTDIV"), 0u);
  // upstream's plain floor(a / b) for the float one (DecomposeDivPass splits the div later)
  EXPECT_EQ(opCount(g, "aten.div.Tensor"), 1u);
  EXPECT_EQ(opCount(g, "aten.floor.default"), 1u);
  EXPECT_EQ(opCount(g, "aten.where.self"), 0u);
  exec::CompareResult r = test::sameInputsCompare(b.g, g, 3);
  EXPECT_TRUE(r.equivalent) << r.message;
}

TEST(DecomposeDivTensorModePass, SkippedWithoutADivWithMode) { test::expectSkippedWithoutTarget(cases()); }

TEST(DecomposeDivTensorModePass, UnknownRoundingModeIsRefusedNamingTheNode) {
  test::GraphBuilder b;
  auto x = b.input("x", {4});
  ir::Node n = b.makeCall(kDiv, {x, 2.0}, {mode("round")}, "bad_div");
  n.outputs.push_back(ir::TensorMeta(DType::Float32, {4}));
  b.output({ir::ValueRef{b.g.append(std::move(n)), 0}});
  passes::PassContext ctx;
  passes::PassResult r = passes::PassRegistry::instance().create(kPass)->run(b.g, ctx);
  ASSERT_EQ(r.status, passes::PassStatus::Failed);
  EXPECT_NE(r.message.find("'bad_div'"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("'round'"), std::string::npos) << r.message;
}

/// torch.div(x, d, rounding_mode=...) for floats and ints, as a model would write them.
ir::Graph divModel() {
  test::GraphBuilder b;
  auto x = b.input("x", {3, 5});
  auto d = b.call("aten.add.Tensor", {b.input("d", {5}), 1.5});
  auto fl = b.call(kDiv, {x, d}, {mode("floor")});
  auto tr = b.call(kDiv, {x, 0.25}, {mode("trunc")});
  auto i = ints(b, "i");
  auto ifl = b.call(kDiv, {i, intDivisor(b)}, {mode("floor")});
  auto itr = b.call(kDiv, {i, int64_t(4)}, {mode("trunc")});
  b.output({b.call("aten.add.Tensor", {fl, tr}), b.call("aten.add.Tensor", {ifl, itr})});
  return std::move(b.g);
}

TEST(DecomposeDivTensorModePass, TosaPipelineLowersRoundedDivisions) {
  for (passes::Profile p : {passes::Profile::FP, passes::Profile::INT}) {
    SCOPED_TRACE(p == passes::Profile::FP ? "FP" : "INT");
    const ir::Graph src = divModel();
    ir::Graph low = src;
    passes::RunResult run = test::lowerTosaWithout(low, p);
    ASSERT_EQ(run.failedIndex, -1) << run.failure;
    EXPECT_EQ(opCount(low, "tosa.INTDIV"), 2u);
    if (p == passes::Profile::FP) {
      exec::CompareResult r = test::sameInputsCompare(src, low, 1);
      EXPECT_TRUE(r.equivalent) << r.message;
      EXPECT_EQ(r.maxSteps, 0);
    }
    test::expectValidTosaFile(low);
  }
}

}  // namespace
}  // namespace ls::arm
