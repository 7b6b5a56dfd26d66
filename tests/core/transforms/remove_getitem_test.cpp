// RemoveGetItemPass (core/transforms/remove_getitem.h): max_pool2d_with_indices and max.dim
// with unused indices become their single-output forms; used indices keep the node.
#include "core/transforms/remove_getitem.h"

#include <gtest/gtest.h>

#include "transforms_test_util.h"

namespace ls::transforms {
namespace {

using ir::IntList;
using passes::PassStatus;
using test::countOp;
using test::runPassOn;

TEST(RemoveGetItem, MaxPoolAndMaxDimLoseTheirIndices) {
  test::GraphBuilder b;
  auto x = b.input("x", {1, 3, 8, 8});
  auto mp = b.call("aten.max_pool2d_with_indices.default", {x, IntList{2, 2}, IntList{2, 2}}, {}, "pool");
  auto v = b.call("operator.getitem", {mp, int64_t(0)});
  auto m = b.call("aten.max.dim", {v, int64_t(1), true}, {}, "maxd");
  auto mv = b.call("operator.getitem", {m, int64_t(0)});
  b.call("operator.getitem", {m, int64_t(1)});  // unused indices
  auto r = b.call("aten.relu.default", {mv}, {}, "relu");
  b.output({r});
  const ir::Graph before = b.g;
  RemoveGetItemPass p;
  ASSERT_EQ(runPassOn(p, b.g).status, PassStatus::Changed);
  EXPECT_EQ(countOp(b.g, "aten.max_pool2d_with_indices.default") + countOp(b.g, "aten.max.dim"), 0u);
  EXPECT_EQ(countOp(b.g, "operator.getitem"), 0u);
  EXPECT_EQ(countOp(b.g, "aten.max_pool2d.default"), 1u);
  EXPECT_EQ(countOp(b.g, "aten.amax.default"), 1u);
  EXPECT_EQ(b.g.node(r.node).name, "relu");
  EXPECT_EQ(p.statistics()[0].value, 2);
  test::expectVerified(b.g);
  EXPECT_LT(test::maxRelDiff(before, b.g), 1e-6);
  EXPECT_EQ(runPassOn(p, b.g).status, PassStatus::Skipped);
}

TEST(RemoveGetItem, UsedIndicesKeepTheNode) {
  test::GraphBuilder b;
  auto x = b.input("x", {2, 5, 3});
  auto m = b.call("aten.max.dim", {x, int64_t(1), false});
  auto v = b.call("operator.getitem", {m, int64_t(0)});
  auto i = b.call("operator.getitem", {m, int64_t(1)});
  b.output({v, i});
  RemoveGetItemPass p;
  EXPECT_EQ(runPassOn(p, b.g).status, PassStatus::Unchanged);
  EXPECT_EQ(countOp(b.g, "aten.max.dim"), 1u);
}

TEST(RemoveGetItem, RegisteredOnceUnderItsPassName) {
  EXPECT_NE(passes::PassRegistry::instance().create("RemoveGetItemPass"), nullptr);
  EXPECT_EQ(passes::PassRegistry::instance().create("RemoveGetItem"), nullptr);
}

}  // namespace
}  // namespace ls::transforms
