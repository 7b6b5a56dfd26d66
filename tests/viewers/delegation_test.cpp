// Delegation view model: delegates and undelegated ops of a real XNNPACK run agree with the
// partitioner's own report (what `lowerscope-cli lower --pipeline xnnpack` prints).
#include "viewers/model/delegation.h"

#include <set>

#include <gtest/gtest.h>

#include "core/backends/xnnpack/partitioner.h"
#include "tests/viewers/fixtures.h"

namespace ls::viewmodel {
namespace {

TEST(Delegation, RealXnnpackRunMatchesThePartitionReport) {
  viewmodel::TracePtr run = test::pipelineRun("deit_tiny_vit.fxjson.json", "xnnpack");
  ASSERT_TRUE(run);
  const ir::Graph& g = run->finalGraph();
  Delegation d = delegation(g);
  xnnpack::PartitionReport pr = xnnpack::partitionReport(g);
  ASSERT_GT(pr.delegates, 1);
  ASSERT_FALSE(pr.undelegated.empty());
  EXPECT_EQ(int64_t(d.delegates.size()), pr.delegates);
  EXPECT_EQ(d.delegatedNodes, pr.delegatedNodes);
  int64_t sum = 0;
  for (const DelegateRow& r : d.delegates) {
    EXPECT_NE(g.find(r.node), nullptr);
    EXPECT_TRUE(g.subgraphs().count(r.name)) << r.name;
    int64_t ops = 0;
    for (const auto& [op, n] : r.ops) ops += n;
    EXPECT_EQ(ops, r.nodes) << r.name;
    sum += r.nodes;
  }
  EXPECT_EQ(sum, d.delegatedNodes);
  // Undelegated ops: the report's ops and counts, each with its reason and nodes.
  std::map<std::string, int64_t> got;
  for (const UndelegatedRow& u : d.undelegated) {
    EXPECT_EQ(int64_t(u.nodes.size()), u.count) << u.op;
    EXPECT_FALSE(u.reason.empty()) << u.op;
    got[u.op] = u.count;
    if (auto it = pr.reasons.find(u.op); it != pr.reasons.end()) EXPECT_EQ(u.reason, it->second) << u.op;
  }
  EXPECT_EQ(got, pr.undelegated);
}

TEST(Delegation, PartitionColoursDiffer) {
  std::set<uint32_t> seen;
  for (size_t i = 0; i < 32; ++i) seen.insert(partitionColour(i));
  EXPECT_EQ(seen.size(), 32u);
}

}  // namespace
}  // namespace ls::viewmodel
