// Reference kernels of TOSA operators (core/backends/arm/tosa/tosa_kernels.cpp) against the
// specification's REQUIRE clauses: an element that breaks one makes the result UNPREDICTABLE,
// so the executor refuses the node, naming it and the clause, instead of computing a number.
#include <gtest/gtest.h>

#include <cmath>

#include "core/exec/executor.h"
#include "support/graph_builder.h"

namespace ls::arm {
namespace {

using ir::DType;

/// Runs POW(base, exponent) on [n] float32 inputs; the node is named "pow".
Result<std::vector<exec::Tensor>> runPow(std::vector<float> base, std::vector<float> exponent) {
  test::GraphBuilder b;
  const int64_t n = int64_t(base.size());
  auto x = b.input("x", {n});
  auto y = b.input("y", {n});
  b.output({b.call("tosa.POW", {x, y}, {}, "pow")});
  exec::Executor ex;
  return ex.run(b.g, {exec::Tensor::fromFloats({n}, base), exec::Tensor::fromFloats({n}, exponent)});
}

TEST(TosaPow, DefinedPowersAreComputed) {
  auto out = runPow({4.0f, 2.0f, 0.0f, 9.0f}, {0.5f, -1.0f, 3.0f, 0.0f});
  ASSERT_TRUE(out.isOk()) << out.message();
  EXPECT_FLOAT_EQ((*out)[0].getDouble(0), 2.0);
  EXPECT_FLOAT_EQ((*out)[0].getDouble(1), 0.5);
  EXPECT_FLOAT_EQ((*out)[0].getDouble(2), 0.0);  // 0^y, y > 0
  EXPECT_FLOAT_EQ((*out)[0].getDouble(3), 1.0);  // x^0, x > 0
}

TEST(TosaPow, EachRequireClauseIsRefusedNamingTheNodeAndTheElement) {
  struct Case {
    float x, y;
    const char* clause;
  };
  for (const Case& c : {Case{-2.0f, 2.0f, "value1 >= 0"},  // x.pow(2) as POW: a negative base
                        Case{-0.5f, 0.5f, "value1 >= 0"}, Case{0.0f, 0.0f, "value1 > 0 || value2 > 0"},
                        Case{0.0f, -1.0f, "value1 > 0 || value2 > 0"},
                        Case{2.0f, NAN, "!is_a_NaN(value1) && !is_a_NaN(value2)"},
                        Case{INFINITY, 2.0f, "is_finite(value1) && is_finite(value2)"},
                        Case{2.0f, -INFINITY, "is_finite(value1) && is_finite(value2)"}}) {
    auto out = runPow({1.0f, c.x}, {1.0f, c.y});
    ASSERT_FALSE(out.isOk()) << c.clause;
    const std::string& m = out.message();
    EXPECT_NE(m.find("node 'pow' (tosa.POW)"), std::string::npos) << m;
    EXPECT_NE(m.find("UNPREDICTABLE"), std::string::npos) << m;
    EXPECT_NE(m.find(std::string("requires ") + c.clause), std::string::npos) << m;
    EXPECT_NE(m.find("output element 1"), std::string::npos) << m;
  }
}

TEST(TosaPow, ABroadcastNegativeBaseIsRefusedToo) {
  test::GraphBuilder b;
  auto x = b.input("x", {1, 3});
  auto y = b.constant("two", DType::Float32, {1, 1}, {2.0});
  b.output({b.call("tosa.POW", {x, y}, {}, "square")});
  exec::Executor ex;
  auto out = ex.run(b.g, {exec::Tensor::fromFloats({1, 3}, {0.5f, -0.25f, 1.0f})});
  ASSERT_FALSE(out.isOk());
  EXPECT_NE(out.message().find("node 'square'"), std::string::npos) << out.message();
  EXPECT_NE(out.message().find("input1 = -0.25"), std::string::npos) << out.message();
}

}  // namespace
}  // namespace ls::arm
