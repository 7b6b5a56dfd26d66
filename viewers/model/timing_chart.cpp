// The timing chart: description, layout, SVG and PNG.
#include "viewers/model/timing_chart.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>

#include <fmt/format.h>
#include <stb_image_write.h>
#include <stb_truetype.h>

#include "core/util/atomic_file.h"
#include "viewers/model/timing_model.h"

namespace ls::viewmodel {

const char* const kChartFont = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
const char* const kChartFontBold = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf";

namespace {
constexpr uint32_t kScanRgb = 0x6e96dc, kRunRgb = 0xe6963c, kVerifyRgb = 0x966ec8;
constexpr uint32_t kARgb = 0x3a7fd0, kBRgb = 0xe07a2e;
constexpr uint32_t kMutedRgb = 0xbdbdbd, kTextRgb = 0x202020, kGreyText = 0x6a6a6a;
constexpr uint32_t kSavedRgb = 0x9a6a00;

double ms(int64_t ns) { return double(ns) / 1e6; }

/// Text width estimate shared by the layout of both exports (DejaVu Sans averages ~0.6 em).
float estimateWidth(const std::string& s, float size) { return float(s.size()) * size * 0.6f; }

std::string fitText(const std::string& s, float maxWidth, float size) {
  size_t maxChars = size_t(std::max(4.f, maxWidth / (size * 0.6f)));
  return s.size() <= maxChars ? s : s.substr(0, maxChars - 3) + "...";
}
}  // namespace

double ChartBar::sum() const {
  double s = 0;
  for (const ChartSegment& g : stack) s += g.value;
  return s;
}

BarChart runChart(const trace::Trace& t, bool aggregateByName, size_t maxRows) {
  BarChart c;
  trace::Trace::Totals tot = t.totals();
  c.title = fmt::format("Pass times: {} ({} {}/{})", t.model, t.pipeline, passes::profileName(t.profile), passes::targetName(t.target));
  c.subtitle = fmt::format("pipeline wall time {} | {} passes: {} ran, {} skipped, {} failed | slowest first{}",
                           formatDuration(t.totalNs), t.records.size(), tot.ran, tot.skipped, tot.failed,
                           aggregateByName ? ", aggregated by pass name" : "");
  c.axisTitle = "time per pass (ms)";
  c.series = {{"scan (should_run)", kScanRgb}, {"run", kRunRgb}, {"verify", kVerifyRgb}};
  std::vector<BarRow> rows = barRows(t, aggregateByName);
  int64_t restNs = 0;
  double restPct = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const BarRow& b = rows[i];
    if (i >= maxRows) {
      restNs += b.totalNs();
      restPct += b.percent;
      continue;
    }
    ChartRow r;
    r.label = b.label();
    r.bars.push_back(ChartBar{{{0, ms(b.scanNs)}, {1, ms(b.runNs)}, {2, ms(b.verifyNs)}}});
    r.note = fmt::format("{}  {:.1f}%", formatDuration(b.totalNs()), b.percent);
    r.muted = b.skipped == b.count;
    if (r.muted) r.note += "  skipped";
    c.rows.push_back(std::move(r));
  }
  c.footnotes.push_back("% of the sum of all pass times; grey: skipped (the cost of should_run only)");
  if (rows.size() > maxRows)
    c.footnotes.push_back(fmt::format("+{} more rows, together {} ({:.1f}%)", rows.size() - maxRows, formatDuration(restNs), restPct));
  return c;
}

BarChart abChart(const AbComparison& cmp, int baseline, size_t maxRows) {
  BarChart c;
  c.title = fmt::format("A/B pass times: {}", cmp.total.verdictText());
  c.subtitle = fmt::format("pass manager A {} vs B {}; median (min-max) of {} / {} interleaved runs; baseline {}",
                           formatStats(cmp.total.a), formatStats(cmp.total.b), cmp.repeatsA, cmp.repeatsB, baseline == 0 ? "A" : "B");
  c.axisTitle = "time (ms)";
  c.series = {{"A: " + cmp.labelA, kARgb}, {"B: " + cmp.labelB, kBRgb}};
  auto row = [&](const AbRow& r, std::string label) {
    ChartRow cr;
    cr.label = std::move(label);
    auto bar = [](int series, const session::SampleStats& s, bool present) {
      ChartBar b;
      if (!present) return b;
      b.stack.push_back({series, ms(s.median)});
      if (s.n > 1) b.lo = ms(s.min), b.hi = ms(s.max);
      return b;
    };
    cr.bars.push_back(bar(0, r.a, r.inA()));
    cr.bars.push_back(bar(1, r.b, r.inB()));
    cr.note = r.verdictText();
    cr.muted = r.verdict == AbVerdict::Noise;
    cr.noteRgb = r.verdict == AbVerdict::AFaster   ? kARgb
                 : r.verdict == AbVerdict::BFaster ? kBRgb
                 : r.verdict == AbVerdict::SavedInA || r.verdict == AbVerdict::SavedInB ? kSavedRgb
                                                                                        : kGreyText;
    c.rows.push_back(std::move(cr));
  };
  row(cmp.total, "total (pass manager)");
  std::vector<size_t> order = abRowsByDifference(cmp);
  for (size_t k = 0; k < order.size() && k < maxRows; ++k) {
    const AbRow& r = cmp.rows[order[k]];
    row(r, fmt::format("{} {}", r.inA() ? r.indexA : r.indexB, r.name));
  }
  c.footnotes.push_back(fmt::format(
      "noise floor: a difference of medians up to max({:.0f}% of the larger median, {}{}) is within noise (grey)",
      cmp.floor.relative * 100, formatDuration(cmp.floor.absoluteNs), cmp.floor.spread ? ", the larger min-max spread" : ""));
  c.footnotes.push_back(fmt::format("{} passes: A faster {}, B faster {}, within noise {}, saved by skipping {}; largest differences first",
                                    cmp.rows.size(), cmp.count(AbVerdict::AFaster), cmp.count(AbVerdict::BFaster),
                                    cmp.count(AbVerdict::Noise), cmp.count(AbVerdict::SavedInA) + cmp.count(AbVerdict::SavedInB)));
  if (cmp.opDiffs.empty()) {
    c.footnotes.push_back("final graphs: the same op counts");
  } else {
    std::string ops;
    for (size_t i = 0; i < cmp.opDiffs.size() && i < 8; ++i)
      ops += fmt::format("{}{} {} vs {}", i ? ", " : "", cmp.opDiffs[i].op, cmp.opDiffs[i].a, cmp.opDiffs[i].b);
    if (cmp.opDiffs.size() > 8) ops += fmt::format(" (+{} more)", cmp.opDiffs.size() - 8);
    c.footnotes.push_back("final op counts A vs B: " + ops);
  }
  return c;
}

std::vector<double> niceTicks(double maxValue, int target) {
  if (!(maxValue > 0)) return {0.0, 1.0};
  double raw = maxValue / std::max(1, target - 1);
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  std::vector<double> t;
  for (int i = 0;; ++i) {
    t.push_back(step * i);
    if (step * i >= maxValue * (1 - 1e-9)) break;
  }
  return t;
}

ChartScene layoutChart(const BarChart& chart, int width) {
  ChartScene s;
  s.width = width;
  const float W = float(width), M = 20.f;
  float y = 34.f;
  s.texts.push_back({M, y, 20.f, fitText(chart.title, W - 2 * M, 20.f), kTextRgb, TextAnchor::Start, true});
  if (!chart.subtitle.empty()) {
    y += 22.f;
    s.texts.push_back({M, y, 13.f, fitText(chart.subtitle, W - 2 * M, 13.f), 0x4a4a4a, TextAnchor::Start, false});
  }
  // Legend.
  y += 26.f;
  float lx = M;
  for (const ChartSeries& se : chart.series) {
    s.rects.push_back({lx, y - 11.f, 12.f, 12.f, se.rgb});
    std::string name = fitText(se.name, W * 0.45f, 12.f);
    s.texts.push_back({lx + 17.f, y, 12.f, name, kTextRgb, TextAnchor::Start, false});
    lx += 17.f + estimateWidth(name, 12.f) + 22.f;
  }
  const float plotTop = y + 16.f;
  size_t groups = 1;
  float labelW = 60.f, noteW = 60.f;
  double maxV = 0;
  for (const ChartRow& r : chart.rows) {
    groups = std::max(groups, r.bars.size());
    labelW = std::max(labelW, estimateWidth(r.label, 12.f) + 14.f);
    noteW = std::max(noteW, estimateWidth(r.note, 12.f) + 18.f);
    for (const ChartBar& b : r.bars) maxV = std::max({maxV, b.sum(), b.hi});
  }
  labelW = std::min(labelW, W * 0.34f);
  noteW = std::min(noteW, W * 0.28f);
  const float barH = 14.f, rowH = float(groups) * barH + 8.f;
  const float x0 = M + labelW, x1 = W - M - noteW;
  std::vector<double> ticks = niceTicks(maxV);
  const double vmax = ticks.back() > 0 ? ticks.back() : 1.0;
  const float scale = float(double(x1 - x0) / vmax);
  const float plotH = rowH * float(chart.rows.size());
  const float plotBottom = plotTop + plotH;
  for (size_t i = 0; i < chart.rows.size(); i += 2)
    s.rects.push_back({M, plotTop + rowH * float(i), W - 2 * M, rowH, 0xf4f5f7});
  for (double t : ticks) s.rects.push_back({x0 + float(t) * scale, plotTop, 1.f, plotH, 0xdcdcdc});
  for (size_t i = 0; i < chart.rows.size(); ++i) {
    const ChartRow& r = chart.rows[i];
    const float ry = plotTop + rowH * float(i);
    s.texts.push_back({x0 - 8.f, ry + rowH * 0.5f + 4.f, 12.f, fitText(r.label, labelW - 14.f, 12.f), r.muted ? kGreyText : kTextRgb,
                       TextAnchor::End, false});
    for (size_t g = 0; g < r.bars.size(); ++g) {
      const ChartBar& b = r.bars[g];
      const float by = ry + 4.f + barH * float(g), bh = barH - 3.f;
      float bx = x0;
      for (const ChartSegment& seg : b.stack) {
        float w = float(seg.value) * scale;
        if (seg.value > 0) {
          uint32_t col = size_t(seg.series) < chart.series.size() ? chart.series[size_t(seg.series)].rgb : kMutedRgb;
          s.rects.push_back({bx, by, std::max(w, 1.f), bh, r.muted ? kMutedRgb : col});
        }
        bx += w;
      }
      if (b.hasRange()) {
        const float wl = x0 + float(b.lo) * scale, wh = x0 + float(b.hi) * scale, mid = by + bh * 0.5f;
        s.rects.push_back({wl, mid - 0.75f, std::max(wh - wl, 1.f), 1.5f, 0x303030});
        s.rects.push_back({wl - 0.75f, by + 1.f, 1.5f, bh - 2.f, 0x303030});
        s.rects.push_back({wh - 0.75f, by + 1.f, 1.5f, bh - 2.f, 0x303030});
      }
    }
    s.texts.push_back({x1 + 10.f, ry + rowH * 0.5f + 4.f, 12.f, fitText(r.note, noteW - 12.f, 12.f), r.noteRgb, TextAnchor::Start, false});
  }
  // Axes: categories on the left, the value axis with ticks and unit at the bottom.
  s.rects.push_back({x0 - 1.f, plotTop, 1.5f, plotH, 0x404040});
  s.rects.push_back({x0 - 1.f, plotBottom, x1 - x0 + 1.f, 1.5f, 0x404040});
  for (double t : ticks) {
    const float tx = x0 + float(t) * scale;
    s.rects.push_back({tx - 0.5f, plotBottom, 1.f, 5.f, 0x404040});
    s.texts.push_back({tx, plotBottom + 19.f, 11.f, fmt::format("{:g}", t), kTextRgb, TextAnchor::Middle, false});
  }
  s.texts.push_back({(x0 + x1) * 0.5f, plotBottom + 40.f, 12.f, chart.axisTitle, kTextRgb, TextAnchor::Middle, true});
  y = plotBottom + 40.f;
  for (const std::string& f : chart.footnotes) {
    y += 18.f;
    s.texts.push_back({M, y, 11.f, fitText(f, W - 2 * M, 11.f), 0x444444, TextAnchor::Start, false});
  }
  s.height = int(std::ceil(y + M));
  return s;
}

namespace {
std::string hex(uint32_t rgb) { return fmt::format("#{:06x}", rgb & 0xffffff); }

std::string xmlEscape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default:
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\t') o += c;
    }
  }
  return o;
}
}  // namespace

std::string sceneToSvg(const ChartScene& sc) {
  std::string o = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\">\n",
      sc.width, sc.height);
  if (!sc.texts.empty()) o += "<title>" + xmlEscape(sc.texts.front().text) + "</title>\n";
  o += fmt::format("<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"{}\"/>\n", sc.width, sc.height, hex(sc.background));
  for (const SceneRect& r : sc.rects)
    o += fmt::format("<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\"/>\n", r.x, r.y, r.w, r.h, hex(r.rgb));
  static constexpr const char* kAnchor[] = {"start", "middle", "end"};
  static_assert(std::size(kAnchor) == size_t(TextAnchor::COUNT));
  for (const SceneText& t : sc.texts)
    o += fmt::format(
        "<text x=\"{:.2f}\" y=\"{:.2f}\" font-family=\"DejaVu Sans, Verdana, sans-serif\" font-size=\"{:.0f}\" fill=\"{}\" "
        "text-anchor=\"{}\"{}>{}</text>\n",
        t.x, t.y, t.size, hex(t.rgb), kAnchor[size_t(t.anchor)], t.bold ? " font-weight=\"bold\"" : "", xmlEscape(t.text));
  o += "</svg>\n";
  return o;
}

namespace {
struct Font {
  std::string bytes;
  stbtt_fontinfo info{};
  std::string error;
};

Font loadFontFile(const char* path) {
  Font f;
  std::ifstream in(path, std::ios::binary);
  f.bytes.assign(std::istreambuf_iterator<char>(in), {});
  if (f.bytes.empty() || !stbtt_InitFont(&f.info, reinterpret_cast<const unsigned char*>(f.bytes.data()), 0))
    f.error = fmt::format("{}: cannot load the chart font (install fonts-dejavu-core)", path);
  return f;
}

/// The fonts, loaded once (thread-safe static initialisation).
const Font& loadFont(bool bold) {
  static const Font regularFont = loadFontFile(kChartFont);
  static const Font boldFont = loadFontFile(kChartFontBold);
  return bold ? boldFont : regularFont;
}

struct Canvas {
  int w, h;
  std::vector<uint8_t> px;
  void blend(int x, int y, uint32_t rgb, float a) {
    if (x < 0 || y < 0 || x >= w || y >= h || a <= 0) return;
    a = std::min(a, 1.f);
    uint8_t* p = &px[(size_t(y) * size_t(w) + size_t(x)) * 3];
    const uint8_t c[3] = {uint8_t(rgb >> 16), uint8_t(rgb >> 8), uint8_t(rgb)};
    for (int k = 0; k < 3; ++k) p[k] = uint8_t(std::lround(float(p[k]) * (1 - a) + float(c[k]) * a));
  }
  /// Anti-aliased on the edges by pixel coverage.
  void rect(const SceneRect& r) {
    const float rx1 = r.x + r.w, ry1 = r.y + r.h;
    for (int y = int(std::floor(r.y)); y < int(std::ceil(ry1)); ++y) {
      const float cy = std::min(ry1, float(y + 1)) - std::max(r.y, float(y));
      for (int x = int(std::floor(r.x)); x < int(std::ceil(rx1)); ++x) {
        const float cx = std::min(rx1, float(x + 1)) - std::max(r.x, float(x));
        blend(x, y, r.rgb, cx * cy);
      }
    }
  }
};

float textWidth(const Font& f, float scale, const std::string& s) {
  float w = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    int adv = 0, lsb = 0;
    stbtt_GetCodepointHMetrics(&f.info, static_cast<unsigned char>(s[i]), &adv, &lsb);
    w += float(adv) * scale;
    if (i + 1 < s.size())
      w += float(stbtt_GetCodepointKernAdvance(&f.info, static_cast<unsigned char>(s[i]), static_cast<unsigned char>(s[i + 1]))) * scale;
  }
  return w;
}

void drawText(Canvas& cv, const Font& f, const SceneText& t) {
  const float scale = stbtt_ScaleForPixelHeight(&f.info, t.size);
  float x = t.x;
  if (t.anchor != TextAnchor::Start) x -= textWidth(f, scale, t.text) * (t.anchor == TextAnchor::Middle ? 0.5f : 1.f);
  const int baseline = int(std::lround(t.y));
  std::vector<unsigned char> bm;
  for (size_t i = 0; i < t.text.size(); ++i) {
    const int cp = static_cast<unsigned char>(t.text[i]);
    int adv = 0, lsb = 0;
    stbtt_GetCodepointHMetrics(&f.info, cp, &adv, &lsb);
    const float frac = x - std::floor(x);
    int bx0 = 0, by0 = 0, bx1 = 0, by1 = 0;
    stbtt_GetCodepointBitmapBoxSubpixel(&f.info, cp, scale, scale, frac, 0, &bx0, &by0, &bx1, &by1);
    const int gw = bx1 - bx0, gh = by1 - by0;
    if (gw > 0 && gh > 0) {
      bm.assign(size_t(gw) * size_t(gh), 0);
      stbtt_MakeCodepointBitmapSubpixel(&f.info, bm.data(), gw, gh, gw, scale, scale, frac, 0, cp);
      const int ox = int(std::floor(x)) + bx0, oy = baseline + by0;
      for (int yy = 0; yy < gh; ++yy)
        for (int xx = 0; xx < gw; ++xx) cv.blend(ox + xx, oy + yy, t.rgb, float(bm[size_t(yy) * size_t(gw) + size_t(xx)]) / 255.f);
    }
    x += float(adv) * scale;
    if (i + 1 < t.text.size()) x += float(stbtt_GetCodepointKernAdvance(&f.info, cp, static_cast<unsigned char>(t.text[i + 1]))) * scale;
  }
}
}  // namespace

Result<std::vector<uint8_t>> rasterizeScene(const ChartScene& sc) {
  if (sc.width <= 0 || sc.height <= 0) return Status::error("chart: empty scene");
  const Font& regular = loadFont(false);
  const Font& bold = loadFont(true);
  if (!regular.error.empty()) return Status::error(regular.error);
  if (!bold.error.empty()) return Status::error(bold.error);
  Canvas cv{sc.width, sc.height, std::vector<uint8_t>(size_t(sc.width) * size_t(sc.height) * 3)};
  for (size_t i = 0; i < cv.px.size(); i += 3)
    cv.px[i] = uint8_t(sc.background >> 16), cv.px[i + 1] = uint8_t(sc.background >> 8), cv.px[i + 2] = uint8_t(sc.background);
  for (const SceneRect& r : sc.rects) cv.rect(r);
  for (const SceneText& t : sc.texts) drawText(cv, t.bold ? bold : regular, t);
  return std::move(cv.px);
}

Status writeChart(const BarChart& chart, const std::string& path) {
  auto endsWith = [&](std::string_view e) { return path.size() >= e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0; };
  const ChartScene scene = layoutChart(chart);
  if (endsWith(".svg")) return writeFileAtomic(path, sceneToSvg(scene));
  if (!endsWith(".png")) return Status::error(fmt::format("{}: chart export writes .svg or .png", path));
  auto px = rasterizeScene(scene);
  if (!px) return Status::error(fmt::format("{}: {}", path, px.message()));
  std::string png;
  auto sink = [](void* ctx, void* data, int size) { static_cast<std::string*>(ctx)->append(static_cast<const char*>(data), size_t(size)); };
  if (!stbi_write_png_to_func(sink, &png, scene.width, scene.height, 3, px->data(), scene.width * 3))
    return Status::error(fmt::format("{}: cannot encode PNG", path));
  return writeFileAtomic(path, png);
}

}  // namespace ls::viewmodel
