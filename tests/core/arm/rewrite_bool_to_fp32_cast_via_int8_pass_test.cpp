// RewriteBoolToFp32CastViaInt8Pass (core/backends/arm/passes/rewrite_bool_to_fp32_cast_via_int8_pass.cpp),
// house style: a bool -> float cast becomes bool -> int8 -> float (op counts, dtypes), values
// kept (reference executor), other casts and nodes untouched, skipped without a cast to a
// float, a malformed cast refused naming the node; through the tosa pipeline `mask.float()`
// gives two legal CASTs (FP and INT), computes the source's values and the .tosa validates,
// while without the pass the pipeline's support check rejects the bool -> fp32 CAST.
#include <gtest/gtest.h>

#include "tests/core/arm/pass_cases.h"
#include "tests/core/arm/tosa_file_check.h"

namespace ls::arm {
namespace {

using ir::DType;
using test::opCount;
using test::PassCase;

constexpr const char* kPass = "RewriteBoolToFp32CastViaInt8Pass";
constexpr const char* kCast = "aten._to_copy.default";

ir::Kwarg toDType(DType t) { return {"dtype", ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(t)})}; }

/// (x > 0).to(t) of a [3, 5] input.
ir::ValueRef maskCast(test::GraphBuilder& b, DType t = DType::Float32) {
  auto mask = b.call("aten.gt.Scalar", {b.input("x", {3, 5}), 0.0});
  return b.call(kCast, {mask}, {toDType(t)}, "mask_float");
}

/// The dtypes the casts of `g` read and write, in graph order.
std::vector<std::pair<DType, DType>> casts(const ir::Graph& g) {
  std::vector<std::pair<DType, DType>> out;
  for (ir::NodeId id : g.nodesOfOp(ir::internOp(kCast)))
    out.push_back({g.meta(*g.node(id).args[0].ref()).dtype, g.node(id).meta().dtype});
  return out;
}

TEST(RewriteBoolToFp32CastViaInt8Pass, ChangesWhatItShouldKeepsValuesAndVerifies) {
  for (DType t : {DType::Float32, DType::Float16}) {
    PassCase c{kPass, kCast, [t](test::GraphBuilder& b) { return maskCast(b, t); },
               [t](const ir::Graph&, const ir::Graph& g) {
                 auto cs = casts(g);
                 ASSERT_EQ(cs.size(), 2u);
                 EXPECT_EQ(cs[0], std::make_pair(DType::Bool, DType::Int8));
                 EXPECT_EQ(cs[1], std::make_pair(DType::Int8, t));
               }};
    test::runCase(c);
  }
}

TEST(RewriteBoolToFp32CastViaInt8Pass, TheCastNodeKeepsItsIdAndKwargs) {
  test::GraphBuilder b;
  auto mask = b.call("aten.gt.Scalar", {b.input("x", {4}), 0.0});
  auto c = b.call(kCast, {mask}, {toDType(DType::Float32), {"non_blocking", ir::Arg(false)}});
  b.output({c});
  ir::Graph g = b.g;
  passes::PassContext ctx;
  ASSERT_EQ(passes::PassRegistry::instance().create(kPass)->run(g, ctx).status, passes::PassStatus::Changed);
  ASSERT_TRUE(g.find(c.node));
  EXPECT_EQ(g.node(c.node).kwargs, b.g.node(c.node).kwargs);
  EXPECT_EQ(g.meta(*g.node(c.node).args[0].ref()).dtype, DType::Int8);
}

TEST(RewriteBoolToFp32CastViaInt8Pass, OtherCastsAndNodesAreUntouched) {
  // int32 -> float, bool -> int32 and float -> int8 casts are legal CASTs: kept as they are.
  test::GraphBuilder b;
  auto i = b.call(kCast, {b.input("i", DType::Int32, {4})}, {toDType(DType::Float32)});
  auto mask = b.call("aten.gt.Scalar", {b.input("x", {4}), 0.0});
  auto bi = b.call(kCast, {mask}, {toDType(DType::Int32)});
  auto fi = b.call(kCast, {b.input("y", {4})}, {toDType(DType::Int8)});
  auto bf = b.call(kCast, {mask}, {toDType(DType::Float32)});
  b.output({i, bi, fi, bf});
  ir::Graph g = b.g;
  passes::PassContext ctx;
  ASSERT_EQ(passes::PassRegistry::instance().create(kPass)->run(g, ctx).status, passes::PassStatus::Changed);
  for (ir::ValueRef kept : {i, bi, fi}) {
    ASSERT_TRUE(g.find(kept.node));
    EXPECT_EQ(g.node(kept.node).args, b.g.node(kept.node).args);
  }
  EXPECT_EQ(opCount(g, kCast), 5u);  // the bool -> float one is now two
}

TEST(RewriteBoolToFp32CastViaInt8Pass, SkippedWithoutACastToAFloat) {
  test::expectSkippedWithoutTarget({{kPass, kCast, nullptr}});
  test::GraphBuilder b;
  auto mask = b.call("aten.gt.Scalar", {b.input("x", {4}), 0.0});
  b.output({b.call(kCast, {mask}, {toDType(DType::Int32)})});
  passes::PassContext ctx;
  passes::ShouldRun s = passes::PassRegistry::instance().create(kPass)->shouldRun(b.g, ctx);
  EXPECT_FALSE(s.run);
  EXPECT_EQ(s.reason, passes::SkipReason::Precondition);
  EXPECT_NE(s.detail.find("floating"), std::string::npos) << s.detail;
}

TEST(RewriteBoolToFp32CastViaInt8Pass, MalformedCastIsRefusedNamingTheNode) {
  test::GraphBuilder b;
  ir::Node n = b.makeCall(kCast, {ir::Arg(true)}, {toDType(DType::Float32)}, "bad_cast");
  n.outputs.push_back(ir::TensorMeta(DType::Float32, {}));
  b.output({ir::ValueRef{b.g.append(std::move(n)), 0}});
  passes::PassContext ctx;
  passes::PassResult r = passes::PassRegistry::instance().create(kPass)->run(b.g, ctx);
  ASSERT_EQ(r.status, passes::PassStatus::Failed);
  EXPECT_NE(r.message.find("'bad_cast'"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("must be a tensor"), std::string::npos) << r.message;
}

TEST(RewriteBoolToFp32CastViaInt8Pass, TosaPipelineMakesTwoLegalCasts) {
  // mask.float() * x: FP lowers to CAST bool->int8, CAST int8->fp32 and the MUL; INT quantises
  // the product (the cast's values 0/1 stay exact).
  for (passes::Profile p : {passes::Profile::FP, passes::Profile::INT}) {
    SCOPED_TRACE(p == passes::Profile::FP ? "FP" : "INT");
    test::GraphBuilder b;
    auto x = b.input("x", {2, 8});
    auto mask = b.call("aten.gt.Scalar", {x, 0.0});
    auto m = b.call(kCast, {mask}, {toDType(DType::Float32)});
    b.output({b.call("aten.mul.Tensor", {x, m})});
    ir::Graph low = b.g;
    passes::RunResult run = test::lowerTosaWithout(low, p);
    ASSERT_EQ(run.failedIndex, -1) << run.failure;
    if (p == passes::Profile::FP) {
      EXPECT_EQ(opCount(low, "tosa.CAST"), 2u);
      exec::CompareResult r = test::sameInputsCompare(b.g, low, 1);
      EXPECT_TRUE(r.equivalent) << r.message;
      EXPECT_EQ(r.maxSteps, 0);
    }
    test::expectValidTosaFile(low);
  }
}

TEST(RewriteBoolToFp32CastViaInt8Pass, WithoutItTheSupportCheckRejectsTheCast) {
  test::GraphBuilder b;
  b.output({maskCast(b)});
  ir::Graph low = b.g;
  passes::RunResult run = test::lowerTosaWithout(low, passes::Profile::FP, {kPass});
  ASSERT_GE(run.failedIndex, 0);
  EXPECT_EQ(run.records.at(size_t(run.failedIndex)).name, "CheckTosaOperatorSupportPass");
  EXPECT_NE(run.failure.find("CAST"), std::string::npos) << run.failure;
}

}  // namespace
}  // namespace ls::arm
