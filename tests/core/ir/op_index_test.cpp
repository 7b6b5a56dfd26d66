// OpIndex: node ids by op, checked against a plain map of vectors under random edits.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

#include "core/ir/op_index.h"

namespace ls::ir {
namespace {

void expectSame(const OpIndex& index, const std::map<OpId, std::vector<NodeId>>& model, OpId maxOp) {
  std::vector<OpId> present;
  for (const auto& [op, ids] : model)
    if (!ids.empty()) present.push_back(op);
  EXPECT_EQ(index.present(), present);
  for (OpId op = 0; op <= maxOp; ++op) {
    auto it = model.find(op);
    const std::vector<NodeId> want = it == model.end() ? std::vector<NodeId>{} : it->second;
    const auto got = index.nodes(op);
    ASSERT_EQ(std::vector<NodeId>(got.begin(), got.end()), want) << "op " << op;
  }
}

TEST(OpIndex, MatchesAMapOfVectorsUnderRandomAddsAndRemoves) {
  std::mt19937 rng(7);
  OpIndex index;
  std::map<OpId, std::vector<NodeId>> model;
  // Op ids spread over a wide range (interned ids of a large process) so slots collide and the
  // table grows several times; ids removed both from the middle and the end of a list.
  const OpId maxOp = 5000;
  std::uniform_int_distribution<OpId> anyOp(1, maxOp);
  std::vector<OpId> used;
  for (int i = 0; i < 300; ++i) used.push_back(anyOp(rng));
  NodeId next = 0;
  for (int step = 0; step < 20000; ++step) {
    const OpId op = used[rng() % used.size()];
    std::vector<NodeId>& ids = model[op];
    if (ids.empty() || rng() % 3 != 0) {
      index.add(op, next);
      ids.push_back(next++);
    } else {
      const size_t at = rng() % ids.size();
      index.remove(op, ids[at]);
      ids[at] = ids.back();
      ids.pop_back();
    }
  }
  index.remove(used[0], next + 1);  // absent id: no change
  index.remove(maxOp + 7, 0);       // absent op: no change
  expectSame(index, model, maxOp + 10);
}

TEST(OpIndex, ReserveLikeKeepsOpsFindableAndAddsLandInTheRightList) {
  OpIndex src, fresh, partly;
  for (OpId op = 1; op <= 40; ++op)
    for (NodeId k = 0; k < op % 5 + 1; ++k) src.add(op * 97, op * 100 + k);
  fresh.reserveLike(src);
  EXPECT_TRUE(fresh.present().empty());  // reserved, not filled
  partly.add(3 * 97, 1);
  partly.add(99999, 2);
  partly.reserveLike(src);
  std::map<OpId, std::vector<NodeId>> model{{3 * 97, {1}}, {99999, {2}}};
  for (OpId op = 40; op >= 1; --op) {
    fresh.add(op * 97, op);
    partly.add(op * 97, op);
    model[op * 97].push_back(op);
  }
  std::map<OpId, std::vector<NodeId>> freshModel = model;
  freshModel.erase(99999);
  freshModel[3 * 97] = {3};
  expectSame(fresh, freshModel, 100000);
  expectSame(partly, model, 100000);
}

TEST(OpIndex, EmptyIndexHasNothing) {
  const OpIndex index;
  EXPECT_TRUE(index.nodes(0).empty());
  EXPECT_TRUE(index.nodes(12345).empty());
  EXPECT_TRUE(index.present().empty());
}

}  // namespace
}  // namespace ls::ir
