// Graph: name index across copy-on-write and erasure (a stale string_view key read freed
// memory under ASan: issue 19), op index, users, copies sharing nodes.
#include <gtest/gtest.h>

#include <memory>

#include "core/ir/graph.h"
#include "support/graph_builder.h"

namespace ls {
namespace {

ir::Graph smallGraph() {
  test::GraphBuilder b;
  auto x = b.input("x", {2, 3});
  auto r = b.call("aten.relu.default", {x}, {}, "relu_a_node_with_a_name_longer_than_sso");
  auto n = b.call("aten.neg.default", {r}, {}, "neg_b_node_with_a_name_longer_than_sso");
  b.output({n});
  return std::move(b.g);
}

TEST(GraphNameIndex, SurvivesCopyOnWriteWhenTheOtherOwnerFreesTheNode) {
  ir::Graph g = smallGraph();
  const std::string name = "relu_a_node_with_a_name_longer_than_sso";
  const ir::NodeId id = g.findByName(name);  // builds the index: keys view g's node names
  ASSERT_NE(id, ir::kInvalidNode);
  {
    auto snapshot = std::make_unique<ir::Graph>(g);  // shares every node
    g.mutableNode(id).outputs[0].shape = ir::Shape{2, 3};  // copy-on-write: g gets its own node
    snapshot.reset();  // the shared version is freed here
  }
  // Under ASan the old code read the freed node's name here.
  EXPECT_EQ(g.findByName(name), id);
  EXPECT_EQ(g.findByName("neg_b_node_with_a_name_longer_than_sso"), g.node(g.findByName("neg_b_node_with_a_name_longer_than_sso")).id);
  EXPECT_EQ(g.findByName("no_such_node"), ir::kInvalidNode);
}

TEST(GraphNameIndex, RenameSetOpAndEraseKeepTheIndexInStep) {
  ir::Graph g = smallGraph();
  const ir::NodeId relu = g.findByName("relu_a_node_with_a_name_longer_than_sso");
  ir::Graph copy = g;  // shares nodes, so rename and setOp copy on write
  g.rename(relu, "renamed_relu");
  EXPECT_EQ(g.findByName("renamed_relu"), relu);
  EXPECT_EQ(g.findByName("relu_a_node_with_a_name_longer_than_sso"), ir::kInvalidNode);
  EXPECT_EQ(copy.findByName("relu_a_node_with_a_name_longer_than_sso"), relu) << "the copy keeps its version";
  g.setOp(relu, ir::internOp("aten.sigmoid.default"), "aten.sigmoid.default");
  EXPECT_EQ(g.nodesOfOp(ir::internOp("aten.relu.default")).size(), 0u);
  EXPECT_EQ(g.nodesOfOp(ir::internOp("aten.sigmoid.default")).size(), 1u);
  EXPECT_EQ(copy.nodesOfOp(ir::internOp("aten.relu.default")).size(), 1u);
  const ir::NodeId neg = g.findByName("neg_b_node_with_a_name_longer_than_sso");
  ASSERT_TRUE(g.erase(g.outputNode()->id));
  ASSERT_TRUE(g.erase(neg));
  EXPECT_EQ(g.findByName("neg_b_node_with_a_name_longer_than_sso"), ir::kInvalidNode);
  EXPECT_EQ(copy.findByName("neg_b_node_with_a_name_longer_than_sso"), neg);
}

TEST(GraphUsers, FollowRewiringAndErasure) {
  ir::Graph g = smallGraph();
  const ir::NodeId x = g.findByName("x");
  const ir::NodeId relu = g.findByName("relu_a_node_with_a_name_longer_than_sso");
  ASSERT_EQ(g.users(x).size(), 1u);
  EXPECT_EQ(g.users(x)[0], relu);
  EXPECT_EQ(g.position(x), 0u);
  EXPECT_TRUE(g.contains(relu));
  EXPECT_EQ(g.find(12345), nullptr);
}

}  // namespace
}  // namespace ls
