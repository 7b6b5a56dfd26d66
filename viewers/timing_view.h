// Timing view: per-pass bars split by phase (ImDrawList), totals and counts; with a second
// run, the A/B comparison (bars side by side, ratio column, top regressions/improvements,
// passes run in one and skipped in the other) and its exports (CSV, JSON, Markdown, Chrome
// trace, chart PNG).
#pragma once

#include <string>
#include <vector>

#include "core/trace/compare.h"
#include "viewers/model/timing_model.h"
#include "viewers/view_state.h"

namespace ls::viewers {

class TimingView {
 public:
  void draw(ViewState& s);
  /// Writes the comparison in `format` (csv, json, md, chrome) to `path`.
  Status exportComparison(const ViewState& s, const std::string& format, const std::string& path);
  /// Asks the shell (ViewState::capture, next draw) to save the chart area as PNG.
  void exportChart(const std::string& path);
  /// Rows of the A/B comparison (0 without a second run).
  size_t comparisonRows(const ViewState& s) { return s.trace && s.compareTrace ? comparison(s).rows.size() : 0; }
  std::string exportDir = ".";

 private:
  void drawSingle(ViewState& s, const trace::Trace& t);
  void drawCompare(ViewState& s);
  void drawComparePopup(ViewState& s);
  const trace::TraceComparison& comparison(const ViewState& s);

  viewmodel::TimingOrder order_ = viewmodel::TimingOrder::Pipeline;
  viewmodel::CompareOrder compareOrder_ = viewmodel::CompareOrder::Pipeline;
  uint64_t cmpA_ = 0, cmpB_ = 0;  ///< generations of the traces compared in cmp_
  trace::TraceComparison cmp_;
  float chartX_ = 0, chartY_ = 0, chartW_ = 0, chartH_ = 0;  // last chart rect (screen)
  std::string pendingChartPath_;
  viewmodel::RunConfig bConfig_;
  bool bConfigInit_ = false;
};

}  // namespace ls::viewers
