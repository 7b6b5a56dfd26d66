// Timing view: one run's pass times as horizontal bars sorted slowest first with % of total
// (per pass or aggregated by pass name, phases stacked), a pipeline timeline strip (passes in
// order, phases nested, skipped passes as ticks; mouse-wheel / button zoom, drag to pan) and
// the node count across passes; with a second run, the A/B view (timing_ab_view.h). Exports:
// the chart as SVG and PNG (viewers/model/timing_chart.h), the comparison as CSV, JSON,
// Markdown and Chrome trace.
#pragma once

#include <string>
#include <vector>

#include "viewers/model/timing_model.h"
#include "viewers/timing_ab_view.h"
#include "viewers/view_state.h"

namespace ls::viewers {

class TimingView {
 public:
  void draw(ViewState& s);
  /// Writes the comparison in `format` (csv, json, md, chrome) to `path`.
  Status exportComparison(const ViewState& s, const std::string& format, const std::string& path);
  /// Writes the shown chart (the run's bars, or the A/B chart with a second run) as .svg or .png.
  Status exportChart(const ViewState& s, const std::string& path);
  /// Rows of the A/B comparison (0 without a second run).
  size_t comparisonRows(const ViewState& s) { return s.trace && s.compareTrace ? ab_.comparison(s).rows.size() : 0; }
  /// The A/B comparison (empty without a second run).
  const viewmodel::AbComparison& abComparison(const ViewState& s) { return ab_.comparison(s); }
  /// Bars of the single-run chart in the current mode, timeline spans and ticks (script checks).
  size_t barCount(const ViewState& s);
  const viewmodel::Timeline& timelineOf(const ViewState& s);
  void setAggregate(bool on) { aggregate_ = on; }
  /// Zooms the timeline by `factor` (> 1: in) around the centre of its window.
  void zoomTimeline(const ViewState& s, double factor);
  /// Passes and skipped ticks in the timeline's window.
  size_t timelineVisible(const ViewState& s);
  void setBaseline(int b) { ab_.setBaseline(b); }
  std::string exportDir = ".";

 private:
  void drawSingle(ViewState& s, const trace::Trace& t);
  void drawBars(ViewState& s, float height);
  void drawTimeline(ViewState& s, const trace::Trace& t, float height);
  void drawNodeCounts(ViewState& s, const trace::Trace& t, float height);
  void drawComparePopup(ViewState& s);
  /// Rebuilds the derived data when the trace or the aggregation changes (never per frame).
  void refresh(const ViewState& s);

  TimingAbView ab_;
  bool aggregate_ = false;
  uint64_t gen_ = 0;
  bool builtAggregate_ = false;
  std::vector<viewmodel::BarRow> bars_;
  viewmodel::Timeline timeline_;
  std::vector<viewmodel::NodeCountPoint> nodes_;
  uint64_t nodesMin_ = 0, nodesMax_ = 0;
  viewmodel::TimeWindow window_;  ///< visible part of the timeline
  viewmodel::RunConfig bConfig_;
  bool bConfigInit_ = false;
};

}  // namespace ls::viewers
