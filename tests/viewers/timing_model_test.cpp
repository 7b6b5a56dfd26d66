// Timing view model: rows, totals, comparison order, formatting.
#include "viewers/model/timing_model.h"

#include <gtest/gtest.h>

#include "tests/viewers/fixtures.h"

namespace ls::viewmodel {
namespace {

TEST(TimingModel, RowsInPipelineOrSlowestOrder) {
  trace::Trace t = test::syntheticTrace("cusu");
  auto rows = timingRows(t, TimingOrder::Pipeline);
  ASSERT_EQ(rows.size(), 4u);
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i].index, int(i));
  EXPECT_EQ(rows[2].runNs, 0);  // skipped: scan only
  auto slow = timingRows(t, TimingOrder::Slowest);
  for (size_t i = 1; i < slow.size(); ++i) EXPECT_GE(slow[i - 1].totalNs(), slow[i].totalNs());
  EXPECT_EQ(slow.front().index, 3);
}

TEST(TimingModel, PhaseTotalsSumRecords) {
  trace::Trace t = test::syntheticTrace("cucf");
  PhaseTotals p = phaseTotals(t);
  int64_t scan = 0, run = 0, verify = 0;
  for (const auto& r : t.records) scan += r.scanNs, run += r.runNs, verify += r.verifyNs;
  EXPECT_EQ(p.scanNs, scan);
  EXPECT_EQ(p.runNs, run);
  EXPECT_EQ(p.verifyNs, verify);
  EXPECT_EQ(p.totalNs(), scan + run + verify);
}

TEST(TimingModel, CompareOrders) {
  trace::Trace a = test::syntheticTrace("cuuu");
  trace::Trace b = a;
  // B: pass 1 three times slower, pass 2 twice faster, pass 3 absent from B.
  b.records[1].runNs *= 3;
  b.records[2].runNs /= 4;
  b.records.pop_back();
  a.totalNs = 10000, b.totalNs = 12000;
  trace::TraceComparison c = trace::compareTraces(a, b);
  ASSERT_EQ(c.rows.size(), 4u);
  auto worst = compareOrder(c, CompareOrder::WorstRatio);
  EXPECT_EQ(c.rows[worst.front()].name, "Pass1");
  EXPECT_EQ(c.rows[worst.back()].name, "Pass3");  // no ratio: last
  auto best = compareOrder(c, CompareOrder::BestRatio);
  EXPECT_EQ(c.rows[best.front()].name, "Pass2");
  auto delta = compareOrder(c, CompareOrder::LargestDelta);
  EXPECT_EQ(c.rows[delta.front()].name, "Pass3");  // 4000 ns absent in B
  auto pipe = compareOrder(c, CompareOrder::Pipeline);
  for (size_t i = 0; i < pipe.size(); ++i) EXPECT_EQ(pipe[i], i);
}

TEST(TimingModel, Formatting) {
  EXPECT_EQ(formatDuration(512), "512 ns");
  EXPECT_EQ(formatDuration(1500), "1.5 us");
  EXPECT_EQ(formatDuration(2'345'000), "2.35 ms");
  EXPECT_EQ(formatDuration(3'000'000'000), "3.00 s");
  EXPECT_EQ(formatRatio(1.234), "1.23x");
  EXPECT_EQ(formatRatio(0.0), "-");
}

TEST(TimingModel, RealRunsSkipVersusNoSkip) {
  auto g = io::loadGraphFile(test::assetGraph("deit_tiny_vit.fxjson.json"));
  ASSERT_TRUE(g.isOk()) << g.message();
  auto src = std::make_shared<const ir::Graph>(std::move(g).value());
  RunConfig a;
  a.pipeline = "generic";
  RunConfig b = a;
  b.engine.skip = false;
  auto ra = RunJob::runNow(src, "deit", a, nullptr, {});
  auto rb = RunJob::runNow(src, "deit", b, nullptr, {});
  ASSERT_TRUE(ra.trace.isOk() && rb.trace.isOk());
  trace::TraceComparison c = trace::compareTraces(*ra.trace.value(), *rb.trace.value());
  EXPECT_EQ(c.rows.size(), ra.trace.value()->records.size());
  // Every pass skipped in A runs in B (no skipping), so it is listed as run only in B.
  size_t skippedA = size_t(ra.trace.value()->totals().skipped);
  EXPECT_EQ(c.ranOnlyInB.size(), skippedA);
  EXPECT_TRUE(c.ranOnlyInA.empty());
}

}  // namespace
}  // namespace ls::viewmodel
