// DecomposeTOSAUnsupportedClampPass (core/backends/arm/passes/decompose_tosa_unsupported_clamp_pass.cpp),
// house style: an int32 clamp / clamp_min and clamp.Tensor become maximum/minimum (op counts), values kept
// (reference executor, NaN and broadcast bounds included), float/int8 scalar clamps and other
// nodes untouched, skipped without a clamp, a bad bound refused naming the node; through the
// tosa pipeline the int32 clamp (idx.clamp(0, n - 1)) and a tensor-bounded clamp lower to
// MAXIMUM/MINIMUM, compute the source's values, and the .tosa validates, while without the
// pass the support check rejects CLAMP i32. Also the op itself: clamp.Tensor's metadata and
// reference kernel against torch's values.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/core/arm/pass_cases.h"
#include "tests/core/arm/tosa_file_check.h"

namespace ls::arm {
namespace {

using ir::DType;
using test::opCount;
using test::PassCase;

constexpr const char* kPass = "DecomposeTOSAUnsupportedClampPass";
constexpr const char* kClamp = "aten.clamp.default";
constexpr const char* kClampT = "aten.clamp.Tensor";
constexpr const char* kMax = "aten.maximum.default";
constexpr const char* kMin = "aten.minimum.default";

ir::Kwarg toDType(DType t) { return {"dtype", ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(t)})}; }

/// An int32 [3, 5] tensor with values in -10..10 (x * 10 cast): the bounds cut both ends.
ir::ValueRef ints(test::GraphBuilder& b, const char* name = "x") {
  auto s = b.call("aten.mul.Tensor", {b.input(name, {3, 5}), 10.0});
  return b.call("aten._to_copy.default", {s}, {toDType(DType::Int32)});
}

std::function<void(const ir::Graph&, const ir::Graph&)> expectChain(size_t maxes, size_t mins) {
  return [=](const ir::Graph&, const ir::Graph& g) {
    EXPECT_EQ(opCount(g, kClamp) + opCount(g, kClampT), 0u);
    EXPECT_EQ(opCount(g, kMax), maxes);
    EXPECT_EQ(opCount(g, kMin), mins);
  };
}

std::vector<PassCase> cases() {
  return {
      {kPass, kClamp, [](test::GraphBuilder& b) { return b.call(kClamp, {ints(b), int64_t(-3), int64_t(4)}); },
       expectChain(1, 1)},
      {kPass, kClamp, [](test::GraphBuilder& b) { return b.call(kClamp, {ints(b), int64_t(0)}); }, expectChain(1, 0)},
      {kPass, kClamp,
       [](test::GraphBuilder& b) { return b.call(kClamp, {ints(b), ir::Arg(), int64_t(2)}); }, expectChain(0, 1)},
      // clamp.Tensor: [3, 5] between a [5] and a [3, 1] bound (broadcast both ways)
      {kPass, kClampT,
       [](test::GraphBuilder& b) {
         return b.call(kClampT, {b.input("x", {3, 5}), b.input("lo", {5}), b.input("hi", {3, 1})});
       },
       expectChain(1, 1)},
      {kPass, kClampT,
       [](test::GraphBuilder& b) { return b.call(kClampT, {b.input("x", {3, 5}), ir::Arg(), b.input("hi", {3, 5})}); },
       expectChain(0, 1)},
      // torch.clamp_min on int32: the same, min only
      {kPass, "aten.clamp_min.default",
       [](test::GraphBuilder& b) { return b.call("aten.clamp_min.default", {ints(b), int64_t(-2)}); },
       [](const ir::Graph&, const ir::Graph& g) {
         EXPECT_EQ(opCount(g, "aten.clamp_min.default"), 0u);
         EXPECT_EQ(opCount(g, kMax), 1u);
       }},
      // an int32 tensor between int32 tensor bounds
      {kPass, kClampT, [](test::GraphBuilder& b) { return b.call(kClampT, {ints(b), ints(b, "lo")}); },
       expectChain(1, 0)},
  };
}

TEST(DecomposeTOSAUnsupportedClampPass, ChangesWhatItShouldKeepsValuesAndVerifies) {
  for (const PassCase& c : cases()) test::runCase(c);
}

TEST(DecomposeTOSAUnsupportedClampPass, ClampTensorMetaAndKernelAreTorchs) {
  // torch.clamp(x, min=lo, max=hi) with x [2, 3], lo [3], hi [2, 1]; NaN in x stays NaN.
  test::GraphBuilder b;
  auto x = b.constant("x", DType::Float32, {2, 3}, {-2, 0.5, NAN, 3, -0.25, 9});
  auto lo = b.constant("lo", DType::Float32, {3}, {-1, 0, 1});
  auto hi = b.constant("hi", DType::Float32, {2, 1}, {2, 0.25});
  b.output({b.call(kClampT, {x, lo, hi})});
  EXPECT_EQ(b.g.outputNode()->meta(0).shape, ir::Shape({2, 3}));
  exec::Executor ex;
  auto out = ex.run(b.g, {});
  ASSERT_TRUE(out.isOk()) << out.message();
  const std::vector<double> want = {-1, 0.5, NAN, 0.25, 0, 0.25};
  for (size_t i = 0; i < want.size(); ++i) {
    const double v = (*out)[0].getDouble(int64_t(i));
    if (std::isnan(want[i])) EXPECT_TRUE(std::isnan(v)) << i;
    else EXPECT_FLOAT_EQ(v, want[i]) << i;
  }
  // int32 x with a float bound: torch promotes to float32; no bound at all is refused.
  test::GraphBuilder c;
  auto i = ints(c);
  EXPECT_EQ(c.meta(kClampT, {i, c.input("f", {5})}), "f32[3,5]");
  EXPECT_NE(c.meta(kClampT, {i}).find("at least one of min and max"), std::string::npos);
}

TEST(DecomposeTOSAUnsupportedClampPass, FloatAndInt8ClampsAndOtherNodesAreUntouched) {
  test::GraphBuilder b;
  auto f = b.call(kClamp, {b.input("x", {4}), -1.0, 1.0});
  auto i8 = b.call(kClamp, {b.call("aten._to_copy.default", {b.input("y", {4})}, {toDType(DType::Int8)}),
                            int64_t(0), int64_t(5)});
  auto i32 = b.call(kClamp, {b.call("aten._to_copy.default", {b.input("z", {4})}, {toDType(DType::Int32)}),
                             int64_t(0), int64_t(5)});
  b.output({f, i8, i32});
  ir::Graph g = b.g;
  passes::PassContext ctx;
  ASSERT_EQ(passes::PassRegistry::instance().create(kPass)->run(g, ctx).status, passes::PassStatus::Changed);
  for (ir::ValueRef kept : {f, i8}) {
    ASSERT_TRUE(g.find(kept.node));
    EXPECT_EQ(g.node(kept.node).args, b.g.node(kept.node).args);
  }
  EXPECT_FALSE(g.find(i32.node));
  EXPECT_EQ(opCount(g, kClamp), 2u);
}

TEST(DecomposeTOSAUnsupportedClampPass, SkippedWithoutAClamp) { test::expectSkippedWithoutTarget(cases()); }

TEST(DecomposeTOSAUnsupportedClampPass, FractionalBoundOfAnInt32ClampIsRefusedNamingTheNode) {
  // clamp(int32, 0, 2.5) would be float in torch; a graph claiming int32 is malformed.
  test::GraphBuilder b;
  auto i = ints(b);
  ir::Node n = b.makeCall(kClamp, {i, int64_t(0), 2.5}, {}, "bad_clamp");
  n.outputs.push_back(ir::TensorMeta(DType::Int32, {3, 5}));
  b.output({ir::ValueRef{b.g.append(std::move(n)), 0}});
  passes::PassContext ctx;
  passes::PassResult r = passes::PassRegistry::instance().create(kPass)->run(b.g, ctx);
  ASSERT_EQ(r.status, passes::PassStatus::Failed);
  EXPECT_NE(r.message.find("'bad_clamp'"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("not an integer"), std::string::npos) << r.message;
}

/// idx.clamp(0, 7) on int32 and clamp(x, lo, hi) with tensor bounds.
ir::Graph clampModel() {
  test::GraphBuilder b;
  auto idx = b.call(kClamp, {ints(b), int64_t(0), int64_t(7)});
  idx = b.call("aten.clamp_min.default", {idx, int64_t(1)});
  auto t = b.call(kClampT, {b.input("f", {3, 5}), b.input("lo", {5}), b.input("hi", {3, 1})});
  b.output({idx, t});
  return std::move(b.g);
}

TEST(DecomposeTOSAUnsupportedClampPass, TosaPipelineLowersToMaximumMinimum) {
  for (passes::Profile p : {passes::Profile::FP, passes::Profile::INT}) {
    SCOPED_TRACE(p == passes::Profile::FP ? "FP" : "INT");
    const ir::Graph src = clampModel();
    ir::Graph low = src;
    passes::RunResult run = test::lowerTosaWithout(low, p);
    ASSERT_EQ(run.failedIndex, -1) << run.failure;
    EXPECT_GE(opCount(low, "tosa.MAXIMUM"), 1u);
    EXPECT_GE(opCount(low, "tosa.MINIMUM"), 1u);
    if (p == passes::Profile::FP) {
      EXPECT_EQ(opCount(low, "tosa.CLAMP"), 0u);
      exec::CompareResult r = test::sameInputsCompare(src, low, 1);
      EXPECT_TRUE(r.equivalent) << r.message;
      EXPECT_EQ(r.maxSteps, 0);
    }
    test::expectValidTosaFile(low);
  }
}

TEST(DecomposeTOSAUnsupportedClampPass, WithoutItAnInt32ClampIsRejected) {
  test::GraphBuilder b;
  b.output({b.call(kClamp, {ints(b), int64_t(0), int64_t(7)})});
  ir::Graph low = b.g;
  passes::RunResult run = test::lowerTosaWithout(low, passes::Profile::FP, {kPass});
  ASSERT_GE(run.failedIndex, 0);
  EXPECT_NE(run.failure.find("CLAMP"), std::string::npos) << run.failure;
}

}  // namespace
}  // namespace ls::arm
