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
    if (auto it = pr.reasons.find(u.op); it != pr.reasons.end()) {
      EXPECT_EQ(u.reason, it->second) << u.op;
    }
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

namespace ls::viewmodel {
namespace {

TEST(Delegation, PartitionTintsColourTheNodesEachDelegateWasMadeFrom) {
  viewmodel::TracePtr run = test::pipelineRun("deit_tiny_vit.fxjson.json", "xnnpack");
  ASSERT_TRUE(run);
  const trace::Trace& t = *run;
  int partitionPass = -1;
  for (int i = 0; i < int(t.records.size()); ++i)
    if (t.records[size_t(i)].name == "XnnpackPartitionPass") partitionPass = i;
  ASSERT_GE(partitionPass, 0);
  const Delegation d = delegation(t.graphAfter(partitionPass));
  // After the partitioner: exactly the delegate nodes, each in its own colour.
  std::vector<uint32_t> after = partitionTints(t, partitionPass);
  size_t tinted = 0;
  for (uint32_t c : after) tinted += c != 0;
  EXPECT_EQ(tinted, d.delegates.size());
  for (size_t i = 0; i < d.delegates.size(); ++i) EXPECT_EQ(after[d.delegates[i].node], partitionColour(i) | 0xff000000u);
  // Before it: the call nodes that went into the delegates, in their delegate's colour.
  std::vector<uint32_t> before = partitionTints(t, partitionPass - 1);
  size_t members = 0;
  for (uint32_t c : before) members += c != 0;
  EXPECT_EQ(int64_t(members), d.delegatedNodes);
  // A run without delegates has no tints.
  viewmodel::TracePtr tosa = test::pipelineRun("squeezenet1_1.fxjson.json", "tosa");
  ASSERT_TRUE(tosa);
  EXPECT_TRUE(partitionTints(*tosa, -1).empty());
}

}  // namespace
}  // namespace ls::viewmodel
