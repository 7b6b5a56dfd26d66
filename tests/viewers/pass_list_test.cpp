// Pipeline view model: filters and stepping keys.
#include "viewers/model/pass_list.h"

#include <gtest/gtest.h>

#include "tests/viewers/fixtures.h"

namespace ls::viewmodel {
namespace {

using V = std::vector<int>;

TEST(PassList, FiltersHideSkippedAndUnchangedButNeverFailed) {
  trace::Trace t = test::syntheticTrace("cusufs");
  EXPECT_EQ(visiblePasses(t, {}), (V{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(visiblePasses(t, {true, false, ""}), (V{0, 1, 3, 4}));
  EXPECT_EQ(visiblePasses(t, {false, true, ""}), (V{0, 2, 4, 5}));
  EXPECT_EQ(visiblePasses(t, {true, true, ""}), (V{0, 4}));
}

TEST(PassList, SearchIsCaseInsensitiveSubstring) {
  trace::Trace t = test::syntheticTrace("cusu");
  t.records[2].name = "FuseTosaTransposes";
  EXPECT_EQ(visiblePasses(t, {false, false, "tosa"}), (V{2}));
  EXPECT_EQ(visiblePasses(t, {false, false, "PASS"}), (V{0, 1, 3}));
  EXPECT_EQ(visiblePasses(t, {true, false, "fuse"}), (V{}));  // skipped and hidden
  EXPECT_TRUE(containsNoCase("abc", ""));
  EXPECT_FALSE(containsNoCase("ab", "abc"));
}

TEST(PassList, UpDownWalkVisiblePassesAndTheSourceRow) {
  trace::Trace t = test::syntheticTrace("cusuc");
  V vis = visiblePasses(t, {true, false, ""});  // 0 1 3 4
  EXPECT_EQ(step(t, vis, -1, StepKey::Next), 0);
  EXPECT_EQ(step(t, vis, 1, StepKey::Next), 3);  // skips hidden 2
  EXPECT_EQ(step(t, vis, 4, StepKey::Next), 4);  // end: stays
  EXPECT_EQ(step(t, vis, 3, StepKey::Prev), 1);
  EXPECT_EQ(step(t, vis, 0, StepKey::Prev), -1);  // back to the source row
  EXPECT_EQ(step(t, vis, -1, StepKey::Prev), -1);
  // From a pass the filter hides: its visible neighbours.
  EXPECT_EQ(step(t, vis, 2, StepKey::Next), 3);
  EXPECT_EQ(step(t, vis, 2, StepKey::Prev), 1);
}

TEST(PassList, ShiftStepsGoToChangedPassesOnly) {
  trace::Trace t = test::syntheticTrace("cuusuc");
  V vis = visiblePasses(t, {});
  EXPECT_EQ(step(t, vis, -1, StepKey::NextChanged), 0);
  EXPECT_EQ(step(t, vis, 0, StepKey::NextChanged), 5);
  EXPECT_EQ(step(t, vis, 5, StepKey::NextChanged), 5);  // none after: stays
  EXPECT_EQ(step(t, vis, 4, StepKey::PrevChanged), 0);
  EXPECT_EQ(step(t, vis, 0, StepKey::PrevChanged), 0);  // none before: stays
  // A changed pass hidden by the search is not a target.
  V searched = visiblePasses(t, {false, false, "Pass5"});
  EXPECT_EQ(step(t, searched, -1, StepKey::NextChanged), 5);
  EXPECT_EQ(step(t, searched, 5, StepKey::PrevChanged), 5);
}

TEST(PassList, HomeEnd) {
  trace::Trace t = test::syntheticTrace("cusu");
  V vis = visiblePasses(t, {false, true, ""});  // 0 2
  EXPECT_EQ(step(t, vis, 2, StepKey::First), -1);
  EXPECT_EQ(step(t, vis, -1, StepKey::Last), 2);
  EXPECT_EQ(step(t, V{}, 1, StepKey::Last), 1);
}

TEST(PassList, NodeDeltaAndMaxTime) {
  trace::Trace t = test::syntheticTrace("cscu");
  EXPECT_EQ(nodeDelta(t.records[0]), 0);  // changed but same count (index 0)
  EXPECT_EQ(nodeDelta(t.records[2]), -2);
  EXPECT_EQ(nodeDelta(t.records[1]), 0);  // skipped
  EXPECT_EQ(maxPassNs(t), t.records[3].totalNs());
  EXPECT_EQ(maxPassNs(trace::Trace{}), 1);
}

TEST(PassList, RealRunFiltersKeepPipelineOrder) {
  auto t = test::realRun("deit_tiny_vit.fxjson.json");
  ASSERT_TRUE(t);
  V all = visiblePasses(*t, {});
  ASSERT_EQ(all.size(), t->records.size());
  V ran = visiblePasses(*t, {true, false, ""});
  for (int i : ran) EXPECT_NE(t->records[size_t(i)].status, passes::PassStatus::Skipped);
  EXPECT_TRUE(std::is_sorted(ran.begin(), ran.end()));
  // Stepping through changed passes visits exactly the changed ones.
  int cur = -1, visits = 0;
  for (;;) {
    int next = step(*t, all, cur, StepKey::NextChanged);
    if (next == cur) break;
    EXPECT_EQ(t->records[size_t(next)].status, passes::PassStatus::Changed);
    cur = next;
    ++visits;
  }
  EXPECT_EQ(visits, t->totals().changed);
}

}  // namespace
}  // namespace ls::viewmodel
