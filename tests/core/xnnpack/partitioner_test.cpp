// XNNPACK partitioner: support table reasons, cycle-free grouping, sibling merging, nested
// delegate subgraphs that execute like the source.
#include <gtest/gtest.h>

#include "core/io/lsg.h"
#include "support/graph_builder.h"
#include "xnnpack_test_util.h"

namespace ls {
namespace {

using passes::PassStatus;
using test::countOp;

const ir::Graph& subgraphOf(const ir::Graph& g, ir::NodeId call) {
  return *g.subgraphs().at(*g.node(call).args[0].asString());
}

TEST(XnnpackPartitioner, NeverCreatesACycleThroughAnUnsupportedOp) {
  // a -> silu (unsupported) -> b, and a -> b directly: b cannot join a's delegate.
  test::GraphBuilder b;
  auto x = b.input("x", {1, 8});
  auto a = b.call("aten.relu.default", {x}, {}, "a");
  auto u = b.call("aten.silu.default", {a}, {}, "u");
  auto c = b.call("aten.add.Tensor", {a, u}, {}, "c");
  auto d = b.call("aten.sigmoid.default", {c}, {}, "d");
  b.output({d});
  const ir::Graph src = b.g;
  ir::Graph g = b.g;
  xnnpack::XnnpackPartitionPass p;
  ASSERT_EQ(test::runOne(p, g).status, PassStatus::Changed);
  auto rep = xnnpack::partitionReport(g);
  EXPECT_EQ(rep.delegates, 2);
  EXPECT_EQ(rep.delegatedNodes, 3);
  EXPECT_EQ(rep.undelegated.at("aten.silu.default"), 1);
  EXPECT_EQ(rep.reasons.at("aten.silu.default"), "not in the XNNPACK supported-op table");
  EXPECT_TRUE(g.validate().isOk());
  auto v = test::verifyLowering(src, g);
  EXPECT_EQ(v.delegateRuns, 2);
  EXPECT_TRUE(v.diff.equivalent) << v.diff.message;
}

TEST(XnnpackPartitioner, MergesIndependentSiblingsAtTheirCommonConsumer) {
  // Three branches start after an unsupported op and meet in one add chain: one delegate.
  test::GraphBuilder b;
  auto x = b.input("x", {1, 6});
  auto s = b.call("aten.silu.default", {x});
  auto p1 = b.call("aten.relu.default", {s});
  auto p2 = b.call("aten.sigmoid.default", {s});
  auto p3 = b.call("aten.tanh.default", {s});
  auto a1 = b.call("aten.add.Tensor", {p1, p2});
  auto a2 = b.call("aten.mul.Tensor", {a1, p3});
  b.output({a2, p2});
  const ir::Graph src = b.g;
  ir::Graph g = b.g;
  xnnpack::XnnpackPartitionPass p;
  ASSERT_EQ(test::runOne(p, g).status, PassStatus::Changed);
  ASSERT_EQ(countOp(g, "lowerscope.call_delegate.default"), 1u);
  const ir::NodeId call = g.nodesOfOp(ir::internOp("lowerscope.call_delegate.default"))[0];
  EXPECT_EQ(g.node(call).outputs.size(), 2u);  // a2 and p2 both leave the delegate
  const ir::Graph& sub = subgraphOf(g, call);
  EXPECT_EQ(sub.signature().userInputs.size(), 1u);
  EXPECT_EQ(countOp(sub, "aten.add.Tensor"), 1u);
  auto v = test::verifyLowering(src, g);
  EXPECT_TRUE(v.diff.equivalent) << v.diff.message;
}

TEST(XnnpackPartitioner, ScalarOperandsAndScalarOpsStayOutsideWithReasons) {
  test::GraphBuilder b;
  auto x = b.input("x", {2, 3});
  auto m = b.call("aten.mul.Scalar", {x, ir::Arg(0.5)});
  auto d = b.call("aten.div.Tensor", {m, ir::Arg(3.0)});
  auto i = b.input("i", ir::DType::Int64, {2, 3});
  auto ia = b.call("aten.add.Tensor", {i, i});
  b.output({d, ia});
  ir::Graph g = b.g;
  EXPECT_NE(xnnpack::unsupportedReason(g, g.node(m.node))->find("only aten.mul.Tensor"), std::string::npos);
  EXPECT_NE(xnnpack::unsupportedReason(g, g.node(d.node))->find("Python-scalar"), std::string::npos);
  EXPECT_NE(xnnpack::unsupportedReason(g, g.node(ia.node))->find("int64"), std::string::npos);
  xnnpack::XnnpackPartitionPass p;
  passes::PassContext ctx;
  EXPECT_EQ(p.shouldRun(g, ctx).reason, passes::SkipReason::Precondition);
}

TEST(XnnpackPartitioner, ConstantsAreCopiedIntoTheDelegateAndLeaveTheParent) {
  ir::Graph src = test::loadGraph(test::realGraphPath("squeezenet1_1"));
  ir::Graph g = src;
  auto out = test::runXnnpack(g);
  ASSERT_EQ(out.report.delegates, 1);
  EXPECT_TRUE(out.report.undelegated.empty());
  EXPECT_TRUE(g.constants().empty());
  EXPECT_EQ(g.size(), 3u);  // placeholder, call_delegate, output
  const ir::NodeId call = g.nodesOfOp(ir::internOp("lowerscope.call_delegate.default"))[0];
  const ir::Graph& sub = subgraphOf(g, call);
  EXPECT_EQ(sub.constants().size(), src.constants().size());
  EXPECT_TRUE(passes::VerifierInstrumentation::verifyGraph(g).isOk());
}

TEST(XnnpackPartitioner, DelegatedGraphSurvivesLsgRoundTripAndRuns) {
  const ir::Graph src = test::loadGraph(test::realGraphPath("deit_tiny_vit"));
  ir::Graph g = src;
  auto out = test::runXnnpack(g);
  ASSERT_GT(out.report.delegates, 1);
  auto bytes = io::serializeLsg(g);
  ASSERT_TRUE(bytes.isOk()) << bytes.message();
  auto back = io::loadLsgBytes(*bytes, "deit_xnnpack.lsg");
  ASSERT_TRUE(back.isOk()) << back.message();
  EXPECT_EQ(back->subgraphs().size(), g.subgraphs().size());
  EXPECT_EQ(xnnpack::partitionReport(*back).delegatedNodes, out.report.delegatedNodes);
  auto v = test::verifyLowering(src, *back);
  EXPECT_EQ(v.delegateRuns, out.report.delegates);
  EXPECT_TRUE(v.diff.equivalent) << v.diff.message;
}

}  // namespace
}  // namespace ls
