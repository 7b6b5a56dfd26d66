// ConvertMinMaxPass (core/backends/arm/passes/convert_minmax_pass.cpp), house style: max.dim /
// min.dim become amax / amin with one kept dim each (+ view without keepdim), used indices
// argmax / argmin, multi-dim amax / amin unrolled (op counts); values kept (reference
// executor); a single kept-dim amax and other nodes untouched; skipped without a target; a
// (values, indices) pair read other than through getitem refused naming the node; through
// the tosa pipeline FP and INT x.min(dim) / x.max(dim) with indices lower to REDUCE_MIN/MAX
// and ARGMAX, compute the source's values (FP) and the .tosa validates.
#include <gtest/gtest.h>

#include "tests/core/arm/pass_cases.h"
#include "tests/core/arm/tosa_file_check.h"

namespace ls::arm {
namespace {

using ir::DType;
using test::opCount;
using test::PassCase;

constexpr const char* kPass = "ConvertMinMaxPass";
constexpr const char* kGet = "operator.getitem";

ir::Kwarg toDType(DType t) { return {"dtype", ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(t)})}; }

/// op(x[2, 3, 4], dim, keepdim) read through getitem: values only, or values + indices (as float).
std::function<ir::ValueRef(test::GraphBuilder&)> minMaxDim(const char* op, int64_t dim, bool keepdim, bool useIndices) {
  return [=](test::GraphBuilder& b) {
    auto m = b.call(op, {b.input("x", {2, 3, 4}), dim, keepdim});
    auto v = b.call(kGet, {m, int64_t(0)});
    if (!useIndices) return v;
    auto i = b.call(kGet, {m, int64_t(1)});
    return b.call("aten.add.Tensor", {v, b.call("aten._to_copy.default", {i}, {toDType(DType::Float32)})});
  };
}

std::function<void(const ir::Graph&, const ir::Graph&)> expect(const char* red, size_t reds, const char* arg, size_t args,
                                                               size_t views) {
  return [=](const ir::Graph&, const ir::Graph& g) {
    EXPECT_EQ(opCount(g, "aten.max.dim") + opCount(g, "aten.min.dim"), 0u);
    EXPECT_EQ(opCount(g, kGet), 0u);
    EXPECT_EQ(opCount(g, red), reds);
    EXPECT_EQ(opCount(g, arg), args);
    EXPECT_EQ(opCount(g, "aten.view_copy.default"), views);
    for (ir::NodeId id : g.nodesOfOp(ir::internOp(red))) {
      EXPECT_EQ(g.node(id).args[1].asIntList()->size(), 1u);
      EXPECT_TRUE(*g.node(id).args[2].asBool());
    }
  };
}

std::vector<PassCase> cases() {
  constexpr const char* kAmin = "aten.amin.default";
  constexpr const char* kAmax = "aten.amax.default";
  return {
      {kPass, "aten.min.dim", minMaxDim("aten.min.dim", 1, false, false), expect(kAmin, 1, "aten.argmin.default", 0, 1)},
      {kPass, "aten.min.dim", minMaxDim("aten.min.dim", -1, true, false), expect(kAmin, 1, "aten.argmin.default", 0, 0)},
      {kPass, "aten.min.dim", minMaxDim("aten.min.dim", 2, false, true), expect(kAmin, 1, "aten.argmin.default", 1, 1)},
      {kPass, "aten.max.dim", minMaxDim("aten.max.dim", 0, true, true), expect(kAmax, 1, "aten.argmax.default", 1, 0)},
      // amax over two dims without keepdim: two kept-dim amaxes + a view
      {kPass, kAmax,
       [](test::GraphBuilder& b) { return b.call(kAmax, {b.input("x", {2, 3, 4}), ir::IntList{0, 2}, false}); },
       expect(kAmax, 2, "aten.argmax.default", 0, 1)},
      // amin over all dims (dim=[]): three + a view to rank 0
      {kPass, kAmin, [](test::GraphBuilder& b) { return b.call(kAmin, {b.input("x", {2, 3, 4}), ir::IntList{}}); },
       expect(kAmin, 3, "aten.argmin.default", 0, 1)},
  };
}

TEST(ConvertMinMaxPass, ChangesWhatItShouldKeepsValuesAndVerifies) {
  for (const PassCase& c : cases()) test::runCase(c);
}

TEST(ConvertMinMaxPass, KeptSingleDimAmaxAndOtherNodesAreUntouched) {
  test::GraphBuilder b;
  auto x = b.input("x", {2, 3});
  auto a = b.call("aten.amax.default", {x, ir::IntList{1}, true});
  auto r = b.call("aten.relu.default", {x});
  b.output({a, r});
  ir::Graph g = b.g;
  passes::PassContext ctx;
  auto p = passes::PassRegistry::instance().create(kPass);
  ASSERT_TRUE(p->shouldRun(g, ctx).run);
  EXPECT_EQ(p->run(g, ctx).status, passes::PassStatus::Unchanged);
  EXPECT_EQ(g.node(a.node).args, b.g.node(a.node).args);
}

TEST(ConvertMinMaxPass, SkippedWithoutAMinOrMax) { test::expectSkippedWithoutTarget(cases()); }

TEST(ConvertMinMaxPass, PairReadOtherThanThroughGetitemIsRefusedNamingTheNode) {
  // A graph output slot holding the (values, indices) node itself (no exporter writes it).
  test::GraphBuilder b;
  auto m = b.call("aten.min.dim", {b.input("x", {2, 3}), int64_t(1)}, {}, "pair");
  b.output({m});
  passes::PassContext ctx;
  passes::PassResult r = passes::PassRegistry::instance().create(kPass)->run(b.g, ctx);
  ASSERT_EQ(r.status, passes::PassStatus::Failed);
  EXPECT_NE(r.message.find("'pair'"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("getitem"), std::string::npos) << r.message;
}

/// values, indices = x.min(1); y = x.max(-1).values; a.amax((0, 2)).
ir::Graph minMaxModel() {
  test::GraphBuilder b;
  auto x = b.input("x", {2, 3, 4});
  auto mn = b.call("aten.min.dim", {x, int64_t(1)});
  auto mx = b.call("aten.max.dim", {x, int64_t(-1), true});
  auto am = b.call("aten.amax.default", {x, ir::IntList{0, 2}});
  b.output({b.call(kGet, {mn, int64_t(0)}), b.call(kGet, {mn, int64_t(1)}), b.call(kGet, {mx, int64_t(0)}), am});
  return std::move(b.g);
}

TEST(ConvertMinMaxPass, TosaPipelineLowersMinWithIndices) {
  for (passes::Profile p : {passes::Profile::FP, passes::Profile::INT}) {
    SCOPED_TRACE(p == passes::Profile::FP ? "FP" : "INT");
    const ir::Graph src = minMaxModel();
    ir::Graph low = src;
    passes::RunResult run = test::lowerTosaWithout(low, p);
    ASSERT_EQ(run.failedIndex, -1) << run.failure;
    EXPECT_EQ(opCount(low, "tosa.REDUCE_MIN"), 1u);
    EXPECT_EQ(opCount(low, "tosa.ARGMAX"), 1u);
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
