// DecomposeIntPowPass (core/backends/arm/passes/decompose_int_pow_pass.cpp), house style: pow by an
// integral scalar becomes MULs (op counts), the values are the source graph's on negative
// bases too (reference executor), untargeted pows and other nodes keep their ids, the pass is
// skipped without a pow or without an integral exponent, an integer base raised to a negative
// integer is refused naming the node; through the tosa pipeline no POW is left for these pows
// in FP, and a quantised pow is still one TABLE in INT.
#include <gtest/gtest.h>

#include "core/exec/compare.h"
#include "core/exec/executor.h"
#include "core/exec/synth.h"
#include "core/passes/pass_manager.h"
#include "core/quant/quantizer.h"
#include "tests/core/arm/pass_cases.h"

namespace ls::arm {
namespace {

using ir::DType;
using test::opCount;
using test::lowerTosa;
using test::PassCase;

constexpr const char* kPow = "aten.pow.Tensor_Scalar";
constexpr const char* kMul = "aten.mul.Tensor";

/// x ** e of a [3, 5] input (the executor's seeded inputs lie in [-1, 1]: half the bases are
/// negative).
std::function<ir::ValueRef(test::GraphBuilder&)> powOf(ir::Arg e, DType t = DType::Float32) {
  return [e, t](test::GraphBuilder& b) { return b.call(kPow, {b.input("x", t, {3, 5}), e}); };
}

/// After the pass: no pow, `muls` MULs, `recips` RECIPROCALs.
std::function<void(const ir::Graph&, const ir::Graph&)> expectChain(size_t muls, size_t recips = 0) {
  return [=](const ir::Graph&, const ir::Graph& g) {
    EXPECT_EQ(opCount(g, kPow), 0u);
    EXPECT_EQ(opCount(g, kMul), muls);
    EXPECT_EQ(opCount(g, "aten.reciprocal.default"), recips);
  };
}

std::vector<PassCase> cases() {
  return {
      {"DecomposeIntPowPass", kPow, powOf(int64_t(2)), expectChain(1)},       // x.pow(2): x * x
      {"DecomposeIntPowPass", kPow, powOf(int64_t(3)), expectChain(2)},       // x ** 3
      {"DecomposeIntPowPass", kPow, powOf(2.0), expectChain(1)},              // pow(x, 2.0)
      {"DecomposeIntPowPass", kPow, powOf(4.0), expectChain(3)},
      {"DecomposeIntPowPass", kPow, powOf(int64_t(-2)), expectChain(1, 1)},   // 1/x * 1/x
      {"DecomposeIntPowPass", kPow, powOf(int64_t(-1)), expectChain(0, 1)},   // 1/x
      {"DecomposeIntPowPass", kPow, powOf(int64_t(1)), expectChain(1)},       // x * 1
      {"DecomposeIntPowPass", kPow, powOf(int64_t(0)),                        // ones
       [](const ir::Graph&, const ir::Graph& g) {
         EXPECT_EQ(opCount(g, kPow), 0u);
         EXPECT_EQ(opCount(g, "aten.full_like.default"), 1u);
       }},
      {"DecomposeIntPowPass", kPow, powOf(0.0),                               // pow(x, 0.0): ones
       [](const ir::Graph&, const ir::Graph& g) {
         EXPECT_EQ(opCount(g, kPow), 0u);
         EXPECT_EQ(opCount(g, "aten.full_like.default"), 1u);
       }},
  };
}

TEST(DecomposeIntPowPass, ChangesWhatItShouldKeepsValuesAndVerifies) {
  for (const PassCase& c : cases()) test::runCase(c);
}

TEST(DecomposeIntPowPass, ValuesOnNegativeBasesAreTorchs) {
  // Exact values, signs included: (-1.5)^3 = -3.375, (-2)^-2 = 0.25, (-0.5)^0 = 1.
  struct Case {
    ir::Arg e;
    std::vector<double> want;
  };
  const std::vector<double> x = {-1.5, -2.0, -0.5, 0.0, 3.0};
  for (const Case& c : {Case{int64_t(2), {2.25, 4, 0.25, 0, 9}}, Case{int64_t(3), {-3.375, -8, -0.125, 0, 27}},
                        Case{2.0, {2.25, 4, 0.25, 0, 9}}, Case{int64_t(-2), {1 / 2.25, 0.25, 4, INFINITY, 1 / 9.0}},
                        Case{int64_t(0), {1, 1, 1, 1, 1}}}) {
    test::GraphBuilder b;
    b.output({b.call(kPow, {b.constant("x", DType::Float32, {5}, x), c.e})});
    ir::Graph g = b.g;
    auto p = passes::PassRegistry::instance().create("DecomposeIntPowPass");
    passes::PassContext ctx;
    ASSERT_EQ(p->run(g, ctx).status, passes::PassStatus::Changed);
    exec::Executor ex;
    auto out = ex.run(g, {});
    ASSERT_TRUE(out.isOk()) << out.message();
    for (size_t i = 0; i < x.size(); ++i) EXPECT_FLOAT_EQ((*out)[0].getDouble(int64_t(i)), c.want[i]) << i;
  }
}

TEST(DecomposeIntPowPass, IntegerBaseStaysInteger) {
  // int32 x ** 3: integer MULs, the exact integers (the executor's int32 pow).
  PassCase c{"DecomposeIntPowPass", kPow, powOf(int64_t(3), DType::Int32), expectChain(2)};
  test::runCase(c);
  test::GraphBuilder b;
  b.output({powOf(int64_t(3), DType::Int32)(b)});
  ir::Graph g = b.g;
  auto p = passes::PassRegistry::instance().create("DecomposeIntPowPass");
  passes::PassContext ctx;
  ASSERT_EQ(p->run(g, ctx).status, passes::PassStatus::Changed);
  EXPECT_EQ(g.outputNode()->meta(0).dtype, DType::Int32);
  exec::CompareResult r = test::sameInputsCompare(b.g, g, 2);
  EXPECT_TRUE(r.equivalent) << r.message;
  EXPECT_EQ(r.maxSteps, 0);
}

TEST(DecomposeIntPowPass, OtherPowsAndNodesAreUntouched) {
  // pow(x, 0.5), pow(x, 2.5), pow(x, -2.0) (a negative float: upstream decomposes only exact
  // positive floats) and pow.Tensor_Tensor keep their node; the integral pow beside them goes.
  test::GraphBuilder b;
  auto x = b.input("x", {4});
  auto half = b.call(kPow, {x, 0.5});
  auto frac = b.call(kPow, {x, 2.5});
  auto negf = b.call(kPow, {x, -2.0});
  auto tt = b.call("aten.pow.Tensor_Tensor", {x, b.input("e", {4})});
  auto sq = b.call(kPow, {x, int64_t(2)});
  b.output({half, frac, negf, tt, sq});
  ir::Graph g = b.g;
  auto p = passes::PassRegistry::instance().create("DecomposeIntPowPass");
  passes::PassContext ctx;
  ASSERT_EQ(p->run(g, ctx).status, passes::PassStatus::Changed);
  for (ir::ValueRef kept : {half, frac, negf, tt}) {
    ASSERT_TRUE(g.find(kept.node));
    EXPECT_EQ(g.node(kept.node).op, b.g.node(kept.node).op);
    EXPECT_EQ(g.node(kept.node).args, b.g.node(kept.node).args);
  }
  EXPECT_FALSE(g.find(sq.node));
  EXPECT_EQ(opCount(g, kPow), 3u);
  EXPECT_EQ(opCount(g, kMul), 1u);
}

TEST(DecomposeIntPowPass, SkippedWithoutAPowByAnIntegralScalar) {
  test::expectSkippedWithoutTarget(cases());
  // Only fractional exponents: nothing to decompose, skipped as a precondition that says why.
  test::GraphBuilder b;
  auto x = b.input("x", {4});
  b.output({b.call(kPow, {x, 0.5}), b.call(kPow, {x, 1e30})});
  auto p = passes::PassRegistry::instance().create("DecomposeIntPowPass");
  passes::PassContext ctx;
  passes::ShouldRun s = p->shouldRun(b.g, ctx);
  EXPECT_FALSE(s.run);
  EXPECT_EQ(s.reason, passes::SkipReason::Precondition);
  EXPECT_NE(s.detail.find("integral"), std::string::npos) << s.detail;
}

TEST(DecomposeIntPowPass, IntegerBaseToANegativePowerIsRefusedNamingTheNode) {
  // torch: "Integers to negative integer powers are not allowed".
  std::string m = test::failureOf("DecomposeIntPowPass", [](test::GraphBuilder& b) {
    return b.call(kPow, {b.input("x", DType::Int32, {4}), int64_t(-2)}, {}, "int_pow");
  });
  EXPECT_NE(m.find("'int_pow'"), std::string::npos) << m;
  EXPECT_NE(m.find("negative integer"), std::string::npos) << m;
}


TEST(DecomposeIntPowPass, TosaPipelineFpLeavesNoPowAndComputesTorchsValues) {
  // x.pow(2), x ** 3 and pow(x, 2.0) on inputs in [-1, 1]: MULs, no POW (whose negative base
  // the specification leaves UNPREDICTABLE), and the lowered graph computes the source's values.
  for (ir::Arg e : {ir::Arg(int64_t(2)), ir::Arg(int64_t(3)), ir::Arg(2.0)}) {
    test::GraphBuilder b;
    b.output({b.call(kPow, {b.input("x", {2, 8}), e})});
    ir::Graph low = lowerTosa(b.g, passes::Profile::FP);
    EXPECT_EQ(opCount(low, "tosa.POW"), 0u);
    EXPECT_GE(opCount(low, "tosa.MUL"), 1u);
    exec::CompareResult r = test::sameInputsCompare(b.g, low, 1);
    EXPECT_TRUE(r.equivalent) << r.message;
  }
}

TEST(DecomposeIntPowPass, QuantisedPowIsStillOneTable) {
  // INT: the quantised pow is a TABLE (InsertTableOpsPass runs first); no MUL chain, no POW.
  test::GraphBuilder b;
  b.output({b.call(kPow, {b.input("x", {2, 8}), int64_t(2)})});
  ir::Graph low = lowerTosa(b.g, passes::Profile::INT);
  EXPECT_EQ(opCount(low, "tosa.TABLE"), 1u);
  EXPECT_EQ(opCount(low, "tosa.MUL"), 0u);
  EXPECT_EQ(opCount(low, "tosa.POW"), 0u);
}

}  // namespace
}  // namespace ls::arm
