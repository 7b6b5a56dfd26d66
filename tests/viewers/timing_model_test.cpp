// Timing view model: bars, timeline, zoom, node counts, totals, formatting.
#include "viewers/model/timing_model.h"

#include <gtest/gtest.h>

#include "core/trace/compare.h"
#include "tests/viewers/fixtures.h"

namespace ls::viewmodel {
namespace {

TEST(TimingModel, BarsSlowestFirstWithPercentOfTotal) {
  trace::Trace t = test::syntheticTrace("cusu");
  std::vector<BarRow> bars = barRows(t, false);
  ASSERT_EQ(bars.size(), 4u);
  double pct = 0;
  for (size_t i = 0; i < bars.size(); ++i) {
    pct += bars[i].percent;
    if (i) {
      EXPECT_GE(bars[i - 1].totalNs(), bars[i].totalNs());
    }
  }
  EXPECT_NEAR(pct, 100.0, 1e-9);
  EXPECT_EQ(bars.front().index, 3);
  EXPECT_EQ(bars.front().label(), "3 Pass3");
  // Pass3: 4000 ns of scan+run+verify out of the sum over all passes.
  int64_t sum = 0;
  for (const auto& r : t.records) sum += r.totalNs();
  EXPECT_DOUBLE_EQ(bars.front().percent, 100.0 * double(t.records[3].totalNs()) / double(sum));
  EXPECT_EQ(bars.back().index, 2);  // skipped: its scan only, the cheapest
  EXPECT_EQ(bars.back().skipped, 1);
}

TEST(TimingModel, BarsAggregatedByPassName) {
  trace::Trace t = test::syntheticTrace("cscuc");
  t.records[2].name = t.records[0].name;  // Pass0 runs three times
  t.records[4].name = t.records[0].name;
  std::vector<BarRow> bars = barRows(t, true);
  ASSERT_EQ(bars.size(), 3u);
  const BarRow& agg = bars.front();
  EXPECT_EQ(agg.name, "Pass0");
  EXPECT_EQ(agg.count, 3);
  EXPECT_EQ(agg.ran, 3);
  EXPECT_EQ(agg.index, 0);
  EXPECT_EQ(agg.totalNs(), t.records[0].totalNs() + t.records[2].totalNs() + t.records[4].totalNs());
  EXPECT_EQ(agg.label(), "Pass0 (x3)");
  double pct = 0;
  for (const BarRow& b : bars) pct += b.percent;
  EXPECT_NEAR(pct, 100.0, 1e-9);
  EXPECT_EQ(bars.back().skipped, 1);  // Pass1, skipped: its scan only
}

TEST(TimingModel, TimelineNestsPhasesAndTicksSkippedPasses) {
  trace::Trace t = test::syntheticTrace("csu");
  t.records[0].startNs = 0;
  t.records[1].startNs = 2000;
  t.records[2].startNs = 5000;
  t.totalNs = 9000;
  Timeline tl = timeline(t);
  EXPECT_EQ(tl.passes, 2u);
  EXPECT_EQ(tl.ticks, 1u);
  EXPECT_EQ(tl.endNs, 9000);
  ASSERT_EQ(tl.spans.size(), 1u + 3u + 1u + 1u + 3u);
  EXPECT_EQ(tl.spans[0].kind, SpanKind::Pass);
  EXPECT_EQ(tl.spans[0].endNs, t.records[0].totalNs());
  // Phases nested in their pass, one after the other.
  EXPECT_EQ(tl.spans[1].kind, SpanKind::Scan);
  EXPECT_EQ(tl.spans[1].depth, 1);
  EXPECT_EQ(tl.spans[2].startNs, tl.spans[1].endNs);
  EXPECT_EQ(tl.spans[3].kind, SpanKind::Verify);
  EXPECT_EQ(tl.spans[3].endNs, tl.spans[0].endNs);
  EXPECT_EQ(tl.spans[4].kind, SpanKind::SkippedTick);
  EXPECT_EQ(tl.spans[4].startNs, 2000);
  EXPECT_EQ(tl.spans[5].startNs, 5000);
  // Records without start times (older traces) follow each other.
  trace::Trace old = test::syntheticTrace("cu");
  Timeline tl2 = timeline(old);
  EXPECT_EQ(tl2.spans.back().kind, SpanKind::Verify);
  EXPECT_EQ(tl2.endNs, old.records[0].totalNs() + old.records[1].totalNs());
}

TEST(TimingModel, ZoomKeepsThePivotAndClamps) {
  TimeWindow w{0, 1e6};
  TimeWindow in = zoomWindow(w, 4.0, 5e5, 1e6);
  EXPECT_DOUBLE_EQ(in.width(), 2.5e5);
  EXPECT_DOUBLE_EQ(in.beginNs, 5e5 - 0.5 * 2.5e5);
  TimeWindow edge = zoomWindow(w, 2.0, 0.0, 1e6);  // pivot at the left edge stays there
  EXPECT_DOUBLE_EQ(edge.beginNs, 0.0);
  EXPECT_DOUBLE_EQ(edge.endNs, 5e5);
  TimeWindow tiny = zoomWindow(w, 1e9, 3e5, 1e6);
  EXPECT_DOUBLE_EQ(tiny.width(), 1000.0);  // never narrower than 1 us
  TimeWindow out = zoomWindow(in, 0.01, 9e5, 1e6);
  EXPECT_DOUBLE_EQ(out.beginNs, 0.0);
  EXPECT_DOUBLE_EQ(out.endNs, 1e6);
  TimeWindow panned = panWindow(in, 1e7, 1e6);
  EXPECT_DOUBLE_EQ(panned.endNs, 1e6);
  EXPECT_DOUBLE_EQ(panned.width(), in.width());
}

TEST(TimingModel, NodeCountsAcrossPasses) {
  trace::Trace t = test::syntheticTrace("cscf");
  t.records[1].nodesAfter = 0;  // a skipped pass keeps the previous count
  std::vector<NodeCountPoint> n = nodeCounts(t);
  ASSERT_EQ(n.size(), 5u);
  EXPECT_EQ(n[0].index, -1);
  EXPECT_EQ(n[0].nodes, 100u);
  EXPECT_EQ(n[1].nodes, 100u);
  EXPECT_EQ(n[2].nodes, 100u);
  EXPECT_EQ(n[3].nodes, 98u);
  EXPECT_EQ(n[4].nodes, 98u);  // failed: not ran
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

TEST(TimingModel, Formatting) {
  EXPECT_EQ(formatDuration(512), "512 ns");
  EXPECT_EQ(formatDuration(1500), "1.5 us");
  EXPECT_EQ(formatDuration(2'345'000), "2.35 ms");
  EXPECT_EQ(formatDuration(3'000'000'000), "3.00 s");
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
