// A/B comparison over repeats: noise floor, neutral verdicts, "saved X ms", op-count
// differences, and a real interleaved comparison run as the app starts it.
#include "viewers/model/ab_compare.h"

#include <gtest/gtest.h>

#include <map>

#include "core/io/load.h"
#include "core/io/summary.h"
#include "tests/viewers/fixtures.h"
#include "viewers/model/run_job.h"

namespace ls::viewmodel {
namespace {

AbRow rowOf(std::vector<int64_t> a, std::vector<int64_t> b) {
  AbRow r;
  r.a = session::sampleStats(std::move(a));
  r.b = session::sampleStats(std::move(b));
  return r;
}

/// Repeats whose pass i takes times[k][i] in run k.
std::vector<session::RunSample> runs(const trace::Trace& t, const std::vector<std::vector<int64_t>>& times) {
  std::vector<session::RunSample> out;
  for (const auto& run : times) {
    session::RunSample s;
    for (size_t i = 0; i < run.size(); ++i) {
      passes::PassRecord r = t.records[i];
      r.scanNs = 0, r.verifyNs = 0, r.runNs = run[i];
      s.records.push_back(r);
      s.pmNs += run[i];
    }
    out.push_back(std::move(s));
  }
  return out;
}

TEST(AbCompare, VerdictsAreNeutralAndNoiseIsGrey) {
  NoiseFloor floor;
  AbRow faster = rowOf({100'000, 101'000, 99'000}, {140'000, 141'000, 139'000});
  judge(faster, floor);
  EXPECT_EQ(faster.verdict, AbVerdict::AFaster);
  EXPECT_NEAR(faster.factor, 1.4, 1e-9);
  EXPECT_EQ(faster.verdictText(), "A 1.40x faster");
  AbRow slower = rowOf({140'000}, {100'000});
  judge(slower, floor);
  EXPECT_EQ(slower.verdictText(), "B 1.40x faster");
  // 1.5% apart: below the 2% floor.
  AbRow close = rowOf({1'000'000}, {1'015'000});
  judge(close, floor);
  EXPECT_EQ(close.verdict, AbVerdict::Noise);
  EXPECT_EQ(close.verdictText(), "within noise");
  // Nanosecond passes: below the 1 us absolute floor however large the ratio.
  AbRow tiny = rowOf({200}, {900});
  judge(tiny, floor);
  EXPECT_EQ(tiny.verdict, AbVerdict::Noise);
  // 10% apart, but the repeats of A alone vary by 30%: noise.
  AbRow spread = rowOf({1'000'000, 1'300'000, 1'050'000}, {1'100'000, 1'110'000, 1'120'000});
  judge(spread, floor);
  EXPECT_EQ(spread.verdict, AbVerdict::Noise);
  EXPECT_EQ(spread.floorNs, 300'000);
  NoiseFloor noSpread = floor;
  noSpread.spread = false;
  judge(spread, noSpread);
  EXPECT_EQ(spread.verdict, AbVerdict::AFaster);  // medians 1.05 ms vs 1.11 ms
}

TEST(AbCompare, StatsInOneUnit) {
  EXPECT_EQ(formatStats(session::sampleStats({52'200'000, 33'660'000, 56'100'000})), "52.2 (33.7-56.1) ms");
  EXPECT_EQ(formatStats(session::sampleStats({30, 50, 40})), "40 (30-50) ns");
  EXPECT_EQ(formatStats(session::sampleStats({900, 1500})), "1.2 (0.9-1.5) us");
  EXPECT_EQ(formatStats(session::sampleStats({17'200, 16'500, 24'093'000})), "17.2 (16.5-24093) us");  // an outlier
  EXPECT_EQ(formatStats(session::sampleStats({2'345'000})), "2.35 ms");  // one sample: the median alone
}

TEST(AbCompare, SkippedAgainstRanIsSavedTimeNotARegression) {
  trace::Trace a = test::syntheticTrace("csu");
  trace::Trace b = test::syntheticTrace("ccu");  // pass 1 ran in B, skipped in A
  auto ra = runs(a, {{1000, 50, 3000}, {1100, 60, 3100}, {900, 40, 2900}});
  auto rb = runs(b, {{1000, 1'200'000, 3000}, {1000, 1'300'000, 3050}, {1000, 1'250'000, 2950}});
  AbComparison c = compareAb(a, b, ra, rb);
  ASSERT_EQ(c.rows.size(), 3u);
  EXPECT_EQ(c.repeatsA, 3u);
  EXPECT_EQ(c.rows[1].verdict, AbVerdict::SavedInA);
  EXPECT_EQ(c.rows[1].savedNs, 1'250'000 - 50);
  EXPECT_EQ(c.rows[1].verdictText(), "A saved 1.25 ms (skipped)");
  EXPECT_EQ(c.rows[0].verdict, AbVerdict::Noise);
  EXPECT_EQ(c.rows[0].a.median, 1000);
  EXPECT_EQ(c.rows[0].a.min, 900);
  EXPECT_EQ(c.count(AbVerdict::Noise), 2u);
  // The total is the pass-manager time of the repeats.
  EXPECT_EQ(c.total.a.median, 4050);
  EXPECT_EQ(c.total.verdict, AbVerdict::AFaster);
  // The largest difference first.
  EXPECT_EQ(abRowsByDifference(c).front(), 1u);
  EXPECT_EQ(deltaVsBaseline(c.rows[1], 0), 1'250'000 - 50);
  EXPECT_EQ(deltaVsBaseline(c.rows[1], 1), -(1'250'000 - 50));
}

TEST(AbCompare, PassesOfOnePipelineOnlyAndSingleRuns) {
  trace::Trace a = test::syntheticTrace("cuu");
  trace::Trace b = test::syntheticTrace("cu");
  b.records[1].name = "Other";
  AbComparison c = compareAb(a, b, {}, {});  // saved traces: one sample each
  EXPECT_EQ(c.repeatsA, 1u);
  ASSERT_EQ(c.rows.size(), 4u);
  EXPECT_EQ(c.rows[1].verdict, AbVerdict::OnlyA);
  EXPECT_EQ(c.rows[3].verdict, AbVerdict::OnlyB);
  EXPECT_EQ(c.rows[3].verdictText(), "only in B");
  EXPECT_EQ(c.rows[0].a.n, 1u);
  EXPECT_EQ(c.rows[0].a.median, a.records[0].totalNs());
}

TEST(AbCompare, RealRepeatsAndFinalOpCountsTosaVersusTosaPermute) {
  auto src = test::loadedAsset("squeezenet1_1.fxjson.json");
  ASSERT_TRUE(src);
  RunConfig a, b;
  a.pipeline = "tosa", b.pipeline = "tosa-permute";
  auto ta = RunJob::runNow(src, "squeezenet", a, nullptr, {});
  auto tb = RunJob::runNow(src, "squeezenet", b, nullptr, {});
  ASSERT_TRUE(ta.trace.isOk() && tb.trace.isOk());
  size_t progressCalls = 0;
  auto reps = RunJob::runRepeats(*src, "squeezenet", a, b, session::RepeatOptions{3, 1}, nullptr,
                                 [&](size_t, size_t total, const std::string&) {
                                   EXPECT_EQ(total, 8u);
                                   ++progressCalls;
                                 });
  ASSERT_TRUE(reps.isOk()) << reps.message();
  EXPECT_EQ(progressCalls, 8u);
  ASSERT_EQ(reps->runsA.size(), 3u);
  ASSERT_EQ(reps->runsB.size(), 3u);
  AbComparison c = compareAb(*ta.trace.value(), *tb.trace.value(), reps->runsA, reps->runsB);
  EXPECT_EQ(c.total.a.n, 3u);
  EXPECT_LE(c.total.a.min, c.total.a.median);
  EXPECT_LE(c.total.a.median, c.total.a.max);
  for (const AbRow& r : c.rows) {
    if (r.inA() && r.inB()) {
      EXPECT_EQ(r.a.n, 3u) << r.name;
    }
  }
  // The final graphs' op histograms: every listed op differs, and the lists match a direct count.
  for (const OpCountDiff& d : c.opDiffs) EXPECT_NE(d.a, d.b) << d.op;
  std::map<std::string, int64_t> ha = io::opHistogram(ta.trace.value()->finalGraph());
  std::map<std::string, int64_t> hb = io::opHistogram(tb.trace.value()->finalGraph());
  size_t differing = 0;
  for (const auto& [op, n] : ha) differing += !hb.count(op) || hb.at(op) != n;
  for (const auto& [op, n] : hb) differing += !ha.count(op);
  EXPECT_EQ(c.opDiffs.size(), differing);
}

TEST(AbCompare, RepeatsReportBadConfigurations) {
  auto src = test::loadedAsset("squeezenet1_1.fxjson.json");
  ASSERT_TRUE(src);
  RunConfig a, b;
  a.pipeline = "generic", b.pipeline = "no-such-pipeline";
  auto reps = RunJob::runRepeats(*src, "m", a, b, session::RepeatOptions{2, 0}, nullptr, {});
  ASSERT_FALSE(reps.isOk());
  EXPECT_NE(reps.message().find("no-such-pipeline"), std::string::npos) << reps.message();
}

}  // namespace
}  // namespace ls::viewmodel
