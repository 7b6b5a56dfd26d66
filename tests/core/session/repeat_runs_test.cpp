// Repeated, interleaved runs (the schedule bench and the app's A/B share) and their statistics.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "core/session/repeat_runs.h"

namespace ls::session {
namespace {

TEST(SampleStats, MedianMinMaxMean) {
  SampleStats odd = sampleStats({5, 1, 9});
  EXPECT_EQ(odd.median, 5);
  EXPECT_EQ(odd.min, 1);
  EXPECT_EQ(odd.max, 9);
  EXPECT_EQ(odd.n, 3u);
  EXPECT_EQ(odd.spread(), 8);
  SampleStats even = sampleStats({10, 40, 20, 30});
  EXPECT_EQ(even.median, 25);  // mean of the two middle values
  EXPECT_EQ(sampleStats({10, 40, 20, 90}).mean, 40);
  EXPECT_EQ(odd.mean, 5);
  SampleStats none = sampleStats({});
  EXPECT_EQ(none.n, 0u);
  EXPECT_EQ(none.median, 0);
}

TEST(RunInterleaved, AlternatesConfigurationsAndDropsWarmups) {
  std::vector<std::string> order;
  int64_t t = 0;
  auto body = [&](size_t ci, int rep) -> Result<RunSample> {
    order.push_back(std::string(1, char('A' + ci)) + std::to_string(rep));
    RunSample s;
    s.pmNs = ++t;
    return s;
  };
  size_t calls = 0, totalSeen = 0;
  auto runs = runInterleaved(2, RepeatOptions{3, 1}, body, [&](size_t done, size_t total, size_t, int) {
    EXPECT_EQ(done, calls++);
    totalSeen = total;
  });
  ASSERT_TRUE(runs.isOk()) << runs.message();
  EXPECT_EQ(order, (std::vector<std::string>{"A0", "B0", "A1", "B1", "A2", "B2", "A3", "B3"}));
  EXPECT_EQ(totalSeen, 8u);
  ASSERT_EQ(runs->size(), 2u);
  ASSERT_EQ((*runs)[0].size(), 3u);  // the warm-up round is not measured
  EXPECT_EQ((*runs)[0][0].pmNs, 3);
  EXPECT_EQ((*runs)[1][2].pmNs, 8);
  EXPECT_EQ(totalStats((*runs)[0]).median, 5);
}

TEST(RunInterleaved, ErrorsAndCancelStop) {
  int calls = 0;
  auto failing = [&](size_t ci, int rep) -> Result<RunSample> {
    ++calls;
    if (ci == 1 && rep == 1) return Status::error("boom in B");
    return RunSample{};
  };
  auto r = runInterleaved(2, RepeatOptions{5, 0}, failing);
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.message().find("boom in B"), std::string::npos);
  EXPECT_EQ(calls, 4);
  std::atomic<bool> cancel{true};
  auto c = runInterleaved(2, RepeatOptions{}, failing, {}, &cancel);
  EXPECT_FALSE(c.isOk());
  EXPECT_FALSE(runInterleaved(1, RepeatOptions{0, 0}, failing).isOk());
}

TEST(PassStats, PerRecordIndexOverRuns) {
  std::vector<RunSample> runs(3);
  for (size_t k = 0; k < runs.size(); ++k) {
    for (int i = 0; i < 2; ++i) {
      passes::PassRecord r;
      r.index = i;
      r.scanNs = 10;
      r.runNs = int64_t(100 * (i + 1) * (k + 1));
      runs[k].records.push_back(r);
    }
  }
  runs[2].records.pop_back();  // stopped early: pass 1 has two samples
  std::vector<SampleStats> s = passStats(runs);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].median, 210);
  EXPECT_EQ(s[0].min, 110);
  EXPECT_EQ(s[0].max, 310);
  EXPECT_EQ(s[1].n, 2u);
  EXPECT_EQ(s[1].median, (210 + 410) / 2);
}

TEST(TimedRun, RealModelWithoutTraceRecording) {
  auto g = LoweringSession::load(std::string(LS_ASSETS_DIR) + "/graphs/squeezenet1_1.fxjson.json");
  ASSERT_TRUE(g.isOk()) << g.message();
  SessionConfig sc = timingConfig(SessionConfig{});
  EXPECT_FALSE(sc.recordTrace);
  EXPECT_FALSE(sc.statistics);
  const LoweringSession lowering(sc);
  ir::Graph finalGraph;
  auto s = timedRun(lowering, *g, "squeezenet", &finalGraph);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_GT(s->pmNs, 0);
  EXPECT_GE(s->e2eNs, s->pmNs);
  EXPECT_FALSE(s->records.empty());
  EXPECT_TRUE(s->failure.empty());
  EXPECT_GT(finalGraph.size(), 0u);
}

}  // namespace
}  // namespace ls::session
