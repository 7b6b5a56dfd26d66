// The timing chart as data, and its exports: a horizontal bar chart description (title,
// subtitle, axis title with unit, legend, one row per pass with stacked segments and an
// optional min-max whisker, a note per row), laid out once into a scene of rectangles and
// texts that is written as SVG 1.1 text or rasterised to PNG (stb_truetype with the DejaVu
// Sans font of fonts-dejavu-core, stb_image_write), so both exports show the same chart.
// No ImGui: tested in tests/viewers/timing_chart_test.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/trace/trace.h"
#include "core/util/status.h"
#include "viewers/model/ab_compare.h"

namespace ls::viewmodel {

/// Colours are 0xRRGGBB.
struct ChartSeries {
  std::string name;
  uint32_t rgb = 0;
};
struct ChartSegment {
  int series = 0;
  double value = 0;  ///< in the chart's unit
};
struct ChartBar {
  std::vector<ChartSegment> stack;  ///< drawn left to right
  double lo = -1, hi = -1;          ///< min-max whisker when hi >= 0
  bool hasRange() const { return hi >= 0; }
  double sum() const;
};
struct ChartRow {
  std::string label;
  std::vector<ChartBar> bars;  ///< one per group (A/B: two)
  std::string note;            ///< right of the plot: "12.3 ms  45.6%", "A 1.40x faster"
  uint32_t noteRgb = 0x202020;
  bool muted = false;          ///< grey bars (within noise, skipped)
};
struct BarChart {
  std::string title, subtitle;
  std::string axisTitle;  ///< with the unit, e.g. "time per pass (ms)"
  std::vector<ChartSeries> series;  ///< the legend
  std::vector<ChartRow> rows;
  std::vector<std::string> footnotes;
};

/// The single-run chart: bars slowest first split by phase (scan/run/verify), % of total,
/// per pass or aggregated by name; at most `maxRows` rows (the rest summed in a footnote).
BarChart runChart(const trace::Trace& t, bool aggregateByName, size_t maxRows = 30);
/// The A/B chart: per pass the medians of A and B with min-max whiskers and the verdict;
/// within-noise rows grey; the largest differences first (at most `maxRows`); the total first;
/// the op-count differences of the final graphs and the noise floor in footnotes. `baseline`
/// (0: A, 1: B) names the reference side in the subtitle.
BarChart abChart(const AbComparison& c, int baseline, size_t maxRows = 30);

/// Value-axis ticks: 0 and round steps (1, 2, 5 x 10^k) up to at least `maxValue`.
std::vector<double> niceTicks(double maxValue, int target = 6);

enum class TextAnchor : uint8_t { Start, Middle, End, COUNT };
struct SceneRect {
  float x = 0, y = 0, w = 0, h = 0;
  uint32_t rgb = 0;
};
struct SceneText {
  float x = 0, y = 0;  ///< anchor point on the baseline
  float size = 12;     ///< pixel height
  std::string text;
  uint32_t rgb = 0;
  TextAnchor anchor = TextAnchor::Start;
  bool bold = false;
};
/// The laid-out chart in pixels (origin top left).
struct ChartScene {
  int width = 0, height = 0;
  uint32_t background = 0xffffff;
  std::vector<SceneRect> rects;
  std::vector<SceneText> texts;
};
ChartScene layoutChart(const BarChart& chart, int width = 1200);

/// SVG 1.1 (standalone, texts escaped).
std::string sceneToSvg(const ChartScene& scene);
/// RGB pixels (width * height * 3) with the texts drawn in DejaVu Sans.
Result<std::vector<uint8_t>> rasterizeScene(const ChartScene& scene);
/// Writes the chart as SVG (.svg) or PNG (.png) through a temporary file and a rename.
Status writeChart(const BarChart& chart, const std::string& path);

/// The font files the PNG export uses (Debian fonts-dejavu-core).
extern const char* const kChartFont;
extern const char* const kChartFontBold;

}  // namespace ls::viewmodel
