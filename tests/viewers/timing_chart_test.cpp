// The timing chart: description from a run and from an A/B comparison, layout (title, legend,
// axes with unit, bars, whiskers), SVG well-formedness and the PNG raster.
#include "viewers/model/timing_chart.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <stb_image.h>
#include <unistd.h>

#include "tests/viewers/fixtures.h"

namespace ls::viewmodel {
namespace {

/// XML well-formedness (what an SVG 1.1 reader needs first): balanced, properly nested tags,
/// quoted attributes, known entities, a single root; returns "" or what is wrong.
std::string xmlProblem(const std::string& x) {
  std::vector<std::string> stack;
  size_t i = 0, roots = 0;
  while (i < x.size()) {
    if (x[i] == '&') {
      size_t semi = x.find(';', i);
      std::string ent = semi == std::string::npos ? "" : x.substr(i, semi - i + 1);
      if (ent != "&amp;" && ent != "&lt;" && ent != "&gt;" && ent != "&quot;" && ent != "&apos;") return "bad entity at " + std::to_string(i);
      i = semi + 1;
      continue;
    }
    if (x[i] != '<') {
      if (x[i] == '>') return "stray '>' at " + std::to_string(i);
      ++i;
      continue;
    }
    size_t end = x.find('>', i);
    if (end == std::string::npos) return "unterminated tag";
    std::string tag = x.substr(i + 1, end - i - 1);
    i = end + 1;
    if (tag.front() == '?') continue;
    if (tag.front() == '/') {
      if (stack.empty() || stack.back() != tag.substr(1)) return "mismatched </" + tag.substr(1) + ">";
      stack.pop_back();
      continue;
    }
    bool selfClosing = tag.back() == '/';
    if (selfClosing) tag.pop_back();
    std::string name = tag.substr(0, tag.find_first_of(" \n"));
    // Attributes: name="value" pairs.
    size_t q = 0;
    for (char c : tag) q += c == '"';
    if (q % 2) return "unbalanced quotes in <" + name + ">";
    if (tag.find('<') != std::string::npos) return "'<' inside <" + name + ">";
    if (stack.empty()) ++roots;
    if (!selfClosing) stack.push_back(name);
  }
  if (!stack.empty()) return "unclosed <" + stack.back() + ">";
  return roots == 1 ? "" : "expected one root element";
}

bool hasText(const ChartScene& s, const std::string& needle) {
  for (const SceneText& t : s.texts)
    if (t.text.find(needle) != std::string::npos) return true;
  return false;
}

TEST(TimingChart, NiceTicks) {
  EXPECT_EQ(niceTicks(4.3), (std::vector<double>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(niceTicks(0.9, 6), (std::vector<double>{0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0}));
  EXPECT_EQ(niceTicks(0), (std::vector<double>{0, 1}));
  std::vector<double> big = niceTicks(1234);
  EXPECT_GE(big.back(), 1234);
  EXPECT_LE(big.size(), 8u);
}

TEST(TimingChart, RunChartHasTitleAxesLegendAndSlowestFirst) {
  trace::Trace t = test::syntheticTrace("cusuc");
  t.model = "m", t.pipeline = "generic", t.totalNs = 20000;
  BarChart c = runChart(t, false, 3);
  ASSERT_EQ(c.rows.size(), 3u);
  EXPECT_EQ(c.rows[0].label, "4 Pass4");
  EXPECT_NE(c.rows[0].note.find("%"), std::string::npos);
  EXPECT_EQ(c.series.size(), 3u);
  EXPECT_NE(c.axisTitle.find("(ms)"), std::string::npos);
  EXPECT_NE(c.footnotes.back().find("+2 more rows"), std::string::npos);
  ChartScene s = layoutChart(c, 900);
  EXPECT_EQ(s.width, 900);
  EXPECT_GT(s.height, 150);
  EXPECT_TRUE(hasText(s, "Pass times: m"));
  EXPECT_TRUE(hasText(s, "time per pass (ms)"));
  EXPECT_TRUE(hasText(s, "scan (should_run)"));
  EXPECT_TRUE(hasText(s, "4 Pass4"));
  // The slowest bar reaches further right than the next one.
  std::vector<float> runEnds;
  for (const SceneRect& r : s.rects)
    if (r.rgb == 0xe6963c && r.h > 5) runEnds.push_back(r.x + r.w);
  ASSERT_EQ(runEnds.size(), 3u + 1u);  // three rows and the legend swatch
  EXPECT_GT(runEnds[1], runEnds[2]);
  EXPECT_EQ(xmlProblem(sceneToSvg(s)), "");
}

TEST(TimingChart, AbChartWhiskersVerdictsAndEscaping) {
  trace::Trace a = test::syntheticTrace("cu"), b = test::syntheticTrace("cu");
  b.records[1].runNs *= 4;
  AbComparison cmp = compareAb(a, b, {}, {});
  cmp.labelA = "tosa <fp> & skip";
  BarChart c = abChart(cmp, 1);
  ASSERT_EQ(c.rows.size(), 3u);  // total + 2 passes
  EXPECT_EQ(c.rows[0].label, "total (pass manager)");
  EXPECT_EQ(c.rows[1].label, "1 Pass1");  // the largest difference first
  EXPECT_EQ(c.rows[1].note, "A 2.88x faster");
  EXPECT_TRUE(c.rows[2].muted);
  EXPECT_NE(c.subtitle.find("baseline B"), std::string::npos);
  const std::string svg = sceneToSvg(layoutChart(c));
  EXPECT_EQ(xmlProblem(svg), "");
  EXPECT_NE(svg.find("tosa &lt;fp&gt; &amp; skip"), std::string::npos);
  EXPECT_NE(xmlProblem("<svg><rect></svg>"), "");  // the checker itself rejects bad XML
}

TEST(TimingChart, WritesSvgAndPngThatShowTheChart) {
  trace::Trace t = test::syntheticTrace("cuscu");
  t.model = "m", t.pipeline = "generic";
  BarChart c = runChart(t, false);
  const auto dir = std::filesystem::temp_directory_path() / ("ls_chart_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string svg = (dir / "c.svg").string(), png = (dir / "c.png").string();
  ASSERT_TRUE(writeChart(c, svg).isOk());
  std::ifstream in(svg);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(xmlProblem(ss.str()), "");
  EXPECT_NE(ss.str().find("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\""), std::string::npos);
  Status st = writeChart(c, png);
  ASSERT_TRUE(st.isOk()) << st.message();
  int w = 0, h = 0, n = 0;
  unsigned char* px = stbi_load(png.c_str(), &w, &h, &n, 3);
  ASSERT_NE(px, nullptr);
  ChartScene s = layoutChart(c);
  EXPECT_EQ(w, s.width);
  EXPECT_EQ(h, s.height);
  // The run colour of the bars, dark title text in the top rows, white background elsewhere.
  size_t runPx = 0, darkTitle = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const unsigned char* p = px + (size_t(y) * size_t(w) + size_t(x)) * 3;
      runPx += p[0] == 0xe6 && p[1] == 0x96 && p[2] == 0x3c;
      darkTitle += y < 40 && p[0] < 80 && p[1] < 80 && p[2] < 80;
    }
  stbi_image_free(px);
  EXPECT_GT(runPx, 200u);
  EXPECT_GT(darkTitle, 100u);
  EXPECT_FALSE(writeChart(c, (dir / "c.jpg").string()).isOk());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ls::viewmodel
