// PromoteBoolOperandsPass (core/backends/arm/passes/promote_bool_operands_pass.cpp), house
// style: a bool operand of mul is cast to the other operand's type (a float through int8),
// bool * bool is computed in int32 and cast back, values kept (reference executor), other
// muls and nodes untouched, skipped without a mul, a malformed mul refused naming the node;
// through the tosa pipeline `x * mask` lowers in FP and INT with legal CASTs only, computes
// the source's values and the .tosa validates.
#include <gtest/gtest.h>

#include "tests/core/arm/pass_cases.h"
#include "tests/core/arm/tosa_file_check.h"

namespace ls::arm {
namespace {

using ir::DType;
using test::opCount;
using test::PassCase;

constexpr const char* kPass = "PromoteBoolOperandsPass";
constexpr const char* kMul = "aten.mul.Tensor";
constexpr const char* kCast = "aten._to_copy.default";

/// The (in, out) dtypes of the casts of `g`, in graph order.
std::vector<std::pair<DType, DType>> casts(const ir::Graph& g) {
  std::vector<std::pair<DType, DType>> out;
  for (ir::NodeId id : g.nodesOfOp(ir::internOp(kCast)))
    out.push_back({g.meta(*g.node(id).args[0].ref()).dtype, g.node(id).meta().dtype});
  return out;
}

ir::ValueRef mask(test::GraphBuilder& b, const char* name, ir::Shape s) {
  return b.call("aten.gt.Scalar", {b.input(name, s), 0.0});
}

/// After the pass: one mul whose operands are not bool, and these casts.
std::function<void(const ir::Graph&, const ir::Graph&)> expectCasts(std::vector<std::pair<DType, DType>> want,
                                                                    size_t muls = 1) {
  return [=](const ir::Graph&, const ir::Graph& g) {
    EXPECT_EQ(opCount(g, kMul), muls);
    for (ir::NodeId id : g.nodesOfOp(ir::internOp(kMul)))
      for (const ir::Arg& a : g.node(id).args)
        if (const ir::ValueRef* r = a.ref()) EXPECT_NE(g.meta(*r).dtype, DType::Bool);
    EXPECT_EQ(casts(g), want);
  };
}

std::vector<PassCase> cases() {
  return {
      // x * mask: the mask through int8 to float32
      {kPass, kMul, [](test::GraphBuilder& b) { return b.call(kMul, {b.input("x", {3, 5}), mask(b, "m", {3, 5})}); },
       expectCasts({{DType::Bool, DType::Int8}, {DType::Int8, DType::Float32}})},
      // mask * x, broadcast: operand order and shapes kept
      {kPass, kMul, [](test::GraphBuilder& b) { return b.call(kMul, {mask(b, "m", {5}), b.input("x", {3, 5})}); },
       expectCasts({{DType::Bool, DType::Int8}, {DType::Int8, DType::Float32}})},
      // int32 * mask: one cast bool -> int32
      {kPass, kMul,
       [](test::GraphBuilder& b) { return b.call(kMul, {b.input("i", DType::Int32, {3, 5}), mask(b, "m", {3, 5})}); },
       expectCasts({{DType::Bool, DType::Int32}})},
      // mask * 0.5: the result's type (float32)
      {kPass, kMul, [](test::GraphBuilder& b) { return b.call(kMul, {mask(b, "m", {3, 5}), 0.5}); },
       expectCasts({{DType::Bool, DType::Int8}, {DType::Int8, DType::Float32}})},
      // mask * mask: int32 product cast back to bool
      {kPass, kMul, [](test::GraphBuilder& b) { return b.call(kMul, {mask(b, "m1", {3, 5}), mask(b, "m2", {3, 5})}); },
       expectCasts({{DType::Bool, DType::Int32}, {DType::Bool, DType::Int32}, {DType::Int32, DType::Bool}})},
  };
}

TEST(PromoteBoolOperandsPass, ChangesWhatItShouldKeepsValuesAndVerifies) {
  for (const PassCase& c : cases()) test::runCase(c);
}

TEST(PromoteBoolOperandsPass, OtherMulsAndNodesAreUntouched) {
  test::GraphBuilder b;
  auto x = b.input("x", {4});
  auto ff = b.call(kMul, {x, b.input("y", {4})});
  auto fs = b.call(kMul, {x, 2.0});
  auto bm = b.call(kMul, {x, mask(b, "m", {4})});
  b.output({ff, fs, bm});
  ir::Graph g = b.g;
  passes::PassContext ctx;
  ASSERT_EQ(passes::PassRegistry::instance().create(kPass)->run(g, ctx).status, passes::PassStatus::Changed);
  for (ir::ValueRef kept : {ff, fs}) {
    ASSERT_TRUE(g.find(kept.node));
    EXPECT_EQ(g.node(kept.node).args, b.g.node(kept.node).args);
  }
  EXPECT_EQ(opCount(g, kCast), 2u);
}

TEST(PromoteBoolOperandsPass, SkippedWithoutAMul) { test::expectSkippedWithoutTarget(cases()); }

TEST(PromoteBoolOperandsPass, MalformedMulIsRefusedNamingTheNode) {
  // A mul whose second operand is a string (no exporter writes it).
  test::GraphBuilder b;
  auto m = mask(b, "m", {4});
  ir::Node n = b.makeCall(kMul, {m, ir::Arg(std::string("two"))}, {}, "bad_mul");
  n.outputs.push_back(ir::TensorMeta(DType::Bool, {4}));
  b.output({ir::ValueRef{b.g.append(std::move(n)), 0}});
  passes::PassContext ctx;
  passes::PassResult r = passes::PassRegistry::instance().create(kPass)->run(b.g, ctx);
  ASSERT_EQ(r.status, passes::PassStatus::Failed);
  EXPECT_NE(r.message.find("'bad_mul'"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("tensor or a number"), std::string::npos) << r.message;
}

TEST(PromoteBoolOperandsPass, TosaPipelineLowersMaskProductsWithLegalCasts) {
  // x * (x > 0) (a relu written with a mask) and x * (y > 0) broadcast, FP and INT.
  for (passes::Profile p : {passes::Profile::FP, passes::Profile::INT}) {
    SCOPED_TRACE(p == passes::Profile::FP ? "FP" : "INT");
    test::GraphBuilder b;
    auto x = b.input("x", {2, 8});
    auto y = b.input("y", {8});
    auto a = b.call(kMul, {x, b.call("aten.gt.Scalar", {x, 0.0})});
    auto c = b.call(kMul, {b.call("aten.gt.Scalar", {y, 0.0}), x});
    b.output({b.call("aten.add.Tensor", {a, c})});
    ir::Graph low = b.g;
    passes::RunResult run = test::lowerTosaWithout(low, p);
    ASSERT_EQ(run.failedIndex, -1) << run.failure;
    if (p == passes::Profile::FP) {
      exec::CompareResult r = test::sameInputsCompare(b.g, low, 1);
      EXPECT_TRUE(r.equivalent) << r.message;
    }
    test::expectValidTosaFile(low);
  }
}

TEST(PromoteBoolOperandsPass, BoolTimesBoolLowersInInt32) {
  test::GraphBuilder b;
  auto x = b.input("x", {2, 8});
  auto m = b.call(kMul, {b.call("aten.gt.Scalar", {x, 0.0}), b.call("aten.lt.Scalar", {x, 0.5})});
  b.output({m});
  ir::Graph low = b.g;
  passes::RunResult run = test::lowerTosaWithout(low, passes::Profile::FP);
  ASSERT_EQ(run.failedIndex, -1) << run.failure;
  EXPECT_EQ(opCount(low, "tosa.MUL"), 1u);
  exec::CompareResult r = test::sameInputsCompare(b.g, low, 1);
  EXPECT_TRUE(r.equivalent) << r.message;
  test::expectValidTosaFile(low);
}

}  // namespace
}  // namespace ls::arm
