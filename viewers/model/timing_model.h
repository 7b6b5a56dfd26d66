// Timing view model: the chart's bars (per pass or aggregated by pass name, slowest first,
// % of total, phases split), phase totals, the pipeline timeline (passes in order, phases
// nested, skipped passes as ticks) and its zoom window, and the node-count series.
// No ImGui: tested in tests/viewers/timing_model_test.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/trace/trace.h"

namespace ls::viewmodel {

/// Sum of the phases over all passes.
struct PhaseTotals {
  int64_t scanNs = 0, runNs = 0, verifyNs = 0;
  int64_t totalNs() const { return scanNs + runNs + verifyNs; }
};
PhaseTotals phaseTotals(const trace::Trace& t);

/// One bar of the timing chart: a pass, or every pass of one name (MLIR -mlir-timing style).
struct BarRow {
  std::string name;  ///< pass name
  int index = -1;    ///< record index; the first one when aggregated
  int count = 0;     ///< passes in the row (1 unless aggregated)
  int ran = 0, skipped = 0, failed = 0;
  int64_t scanNs = 0, runNs = 0, verifyNs = 0;
  double percent = 0;  ///< of the sum over all passes (the rows add up to 100)
  int64_t totalNs() const { return scanNs + runNs + verifyNs; }
  /// "12 Name" for one pass, "Name (x3)" for several.
  std::string label() const;
};
/// Bars slowest first (ties: pipeline order); `aggregateByName` sums the passes of one name.
std::vector<BarRow> barRows(const trace::Trace& t, bool aggregateByName);

/// Timeline strip (Perfetto style): a pass at depth 0, its phases nested at depth 1, a
/// skipped pass as a tick (its scan is all it cost).
enum class SpanKind : uint8_t { Pass, Scan, Run, Verify, SkippedTick, COUNT };
std::string_view spanKindName(SpanKind k);
struct TimelineSpan {
  int index = 0;  ///< record index
  SpanKind kind = SpanKind::Pass;
  int depth = 0;
  int64_t startNs = 0, endNs = 0;  ///< relative to the pipeline start
};
struct Timeline {
  std::vector<TimelineSpan> spans;  ///< pipeline order; a pass's phases follow it
  int64_t endNs = 0;                ///< end of the last pass (or the pipeline's wall time)
  size_t passes = 0, ticks = 0;     ///< pass spans and skipped ticks
};
/// Spans from the records' start times; records without one (older traces) follow the
/// previous pass.
Timeline timeline(const trace::Trace& t);

/// The visible part of the timeline, [beginNs, endNs].
struct TimeWindow {
  double beginNs = 0, endNs = 0;
  double width() const { return endNs - beginNs; }
};
/// Zooms `w` by `factor` (> 1 zooms in) keeping `pivotNs` in place, clamped to [0, fullNs] and
/// no narrower than 1 us.
TimeWindow zoomWindow(TimeWindow w, double factor, double pivotNs, double fullNs);
/// Moves `w` by `deltaNs`, clamped to [0, fullNs].
TimeWindow panWindow(TimeWindow w, double deltaNs, double fullNs);

/// Node count of the graph across the passes: the source, then after every pass (a pass that
/// did not run keeps the previous count).
struct NodeCountPoint {
  int index = -1;  ///< -1: the source graph
  uint64_t nodes = 0;
};
std::vector<NodeCountPoint> nodeCounts(const trace::Trace& t);

/// "12.3 ms", "456 us", "789 ns" (ASCII: the default font has no micro sign).
std::string formatDuration(int64_t ns);

}  // namespace ls::viewmodel
