// UnsqueezeBeforeRepeatPass (core/backends/arm/passes/unsqueeze_before_repeat_pass.cpp), house
// style: a repeat with more multiples than dims reads a view with leading 1s (same repeat node),
// values kept (reference executor), a rank-keeping repeat and other nodes untouched, skipped
// without a repeat, malformed multiples refused naming the node; through the tosa pipeline FP
// and INT x.repeat(2, 1, 1) on 2-D lowers to RESHAPE + TILE, computes the source's values (FP)
// and the .tosa validates, while without the pass the lowering fails.
#include <gtest/gtest.h>

#include "tests/core/arm/pass_cases.h"
#include "tests/core/arm/tosa_file_check.h"

namespace ls::arm {
namespace {

using ir::DType;
using test::opCount;
using test::PassCase;

constexpr const char* kPass = "UnsqueezeBeforeRepeatPass";
constexpr const char* kRepeat = "aten.repeat.default";

/// After the pass: the repeat reads a view of `shape`.
std::function<void(const ir::Graph&, const ir::Graph&)> readsView(ir::Shape shape) {
  return [=](const ir::Graph&, const ir::Graph& g) {
    auto rs = g.nodesOfOp(ir::internOp(kRepeat));
    ASSERT_EQ(rs.size(), 1u);
    const ir::ValueRef in = *g.node(rs[0]).args[0].ref();
    EXPECT_EQ(g.node(in.node).op, ir::internOp("aten.view_copy.default"));
    EXPECT_EQ(g.meta(in).shape, shape);
  };
}

std::vector<PassCase> cases() {
  return {
      {kPass, kRepeat,
       [](test::GraphBuilder& b) { return b.call(kRepeat, {b.input("x", {3, 4}), ir::IntList{2, 1, 1}}); },
       readsView({1, 3, 4})},
      {kPass, kRepeat,
       [](test::GraphBuilder& b) { return b.call(kRepeat, {b.input("x", {4}), ir::IntList{2, 3, 2}}); },
       readsView({1, 1, 4})},
  };
}

TEST(UnsqueezeBeforeRepeatPass, ChangesWhatItShouldKeepsValuesAndVerifies) {
  for (const PassCase& c : cases()) test::runCase(c);
}

TEST(UnsqueezeBeforeRepeatPass, RankKeepingRepeatAndOtherNodesAreUntouched) {
  test::GraphBuilder b;
  auto r = b.call(kRepeat, {b.input("x", {3, 4}), ir::IntList{2, 1}});
  b.output({r});
  ir::Graph g = b.g;
  passes::PassContext ctx;
  EXPECT_EQ(passes::PassRegistry::instance().create(kPass)->run(g, ctx).status, passes::PassStatus::Unchanged);
  EXPECT_EQ(g.node(r.node).args, b.g.node(r.node).args);
}

TEST(UnsqueezeBeforeRepeatPass, SkippedWithoutARepeat) { test::expectSkippedWithoutTarget(cases()); }

TEST(UnsqueezeBeforeRepeatPass, MalformedMultiplesAreRefusedNamingTheNode) {
  test::GraphBuilder b;
  ir::Node n = b.makeCall(kRepeat, {b.input("x", {3}), int64_t(2)}, {}, "bad_repeat");
  n.outputs.push_back(ir::TensorMeta(DType::Float32, {6}));
  b.output({ir::ValueRef{b.g.append(std::move(n)), 0}});
  passes::PassContext ctx;
  passes::PassResult r = passes::PassRegistry::instance().create(kPass)->run(b.g, ctx);
  ASSERT_EQ(r.status, passes::PassStatus::Failed);
  EXPECT_NE(r.message.find("'bad_repeat'"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("list of ints"), std::string::npos) << r.message;
}

ir::Graph repeatModel() {
  test::GraphBuilder b;
  auto q = b.input("query_embed", {3, 4});
  b.output({b.call("aten.add.Tensor", {b.call(kRepeat, {q, ir::IntList{2, 1, 1}}), b.input("x", {2, 3, 4})})});
  return std::move(b.g);
}

TEST(UnsqueezeBeforeRepeatPass, TosaPipelineLowersARankAddingRepeat) {
  for (passes::Profile p : {passes::Profile::FP, passes::Profile::INT}) {
    SCOPED_TRACE(p == passes::Profile::FP ? "FP" : "INT");
    const ir::Graph src = repeatModel();
    ir::Graph low = src;
    passes::RunResult run = test::lowerTosaWithout(low, p);
    ASSERT_EQ(run.failedIndex, -1) << run.failure;
    EXPECT_EQ(opCount(low, "tosa.TILE"), 1u);
    if (p == passes::Profile::FP) {
      exec::CompareResult r = test::sameInputsCompare(src, low, 1);
      EXPECT_TRUE(r.equivalent) << r.message;
      EXPECT_EQ(r.maxSteps, 0);
    }
    test::expectValidTosaFile(low);
  }
  ir::Graph without = repeatModel();
  EXPECT_GE(test::lowerTosaWithout(without, passes::Profile::FP, {kPass}).failedIndex, 0);
}

}  // namespace
}  // namespace ls::arm
