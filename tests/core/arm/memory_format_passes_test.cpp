// PropagateTransposesPass (the tosa-permute strategy): TRANSPOSEs sink below layout-agnostic
// TOSA ops (constants permuted at compile time) so that permutes meet and can cancel; values
// are kept (reference executor) and the pass is skipped without a TRANSPOSE.
#include <gtest/gtest.h>

#include "tests/core/arm/pass_cases.h"

namespace ls::arm {
namespace {

using ir::DType;
using ir::IntList;
using test::opCount;
using test::PassCase;
using test::ramp;

/// x -> TRANSPOSE(NCHW -> NHWC) -> SIGMOID -> ADD(constant in NHWC) -> output.
ir::ValueRef transposedChain(test::GraphBuilder& b) {
  auto t = b.call("tosa.TRANSPOSE", {b.input("x", {1, 2, 3, 4})}, {{"perms", ir::Arg(IntList{0, 2, 3, 1})}});
  auto s = b.call("tosa.SIGMOID", {t});
  auto c = b.constant("c", DType::Float32, {1, 3, 4, 2}, ramp(24));
  return b.call("tosa.ADD", {s, c});
}

std::vector<PassCase> cases() {
  return {{"PropagateTransposesPass", "tosa.TRANSPOSE", transposedChain,
           [](const ir::Graph&, const ir::Graph& g) {
             // The TRANSPOSE now comes last: SIGMOID reads the input directly, the ADD reads a
             // permuted constant, and one TRANSPOSE restores the layout at the end.
             const auto sig = g.nodesOfOp(ir::internOp("tosa.SIGMOID"));
             ASSERT_EQ(sig.size(), 1u);
             const ir::Node& s = g.node(sig[0]);
             EXPECT_EQ(g.node(s.args[0].ref()->node).kind, ir::NodeKind::Placeholder);
             EXPECT_EQ(opCount(g, "tosa.TRANSPOSE"), 1u);
             const ir::ValueRef out = (*g.outputNode()->args[0].asRefList())[0];
             EXPECT_EQ(g.node(out.node).op, ir::internOp("tosa.TRANSPOSE"));
           }}};
}

TEST(PropagateTransposesPass, SinksTransposesBelowLayoutAgnosticOpsKeepingValues) {
  for (const PassCase& c : cases()) test::runCase(c);
}

TEST(PropagateTransposesPass, SkippedWithoutATranspose) { test::expectSkippedWithoutTarget(cases()); }

TEST(PropagateTransposesPass, AnOperandThatIsNeitherTransposedNorConstantStopsTheSinking) {
  test::GraphBuilder b;
  auto t = b.call("tosa.TRANSPOSE", {b.input("x", {1, 2, 3, 4})}, {{"perms", ir::Arg(IntList{0, 2, 3, 1})}});
  auto y = b.call("tosa.ADD", {t, b.input("y", {1, 3, 4, 2})});  // y is in NHWC already: cannot move
  b.output({y});
  const size_t before = b.g.size();
  auto p = passes::PassRegistry::instance().create("PropagateTransposesPass");
  passes::PassContext ctx;
  EXPECT_EQ(p->run(b.g, ctx).status, passes::PassStatus::Unchanged);
  EXPECT_EQ(b.g.size(), before);
}

}  // namespace
}  // namespace ls::arm
