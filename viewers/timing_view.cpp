// Timing view.
#include "viewers/timing_view.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>
#include <imgui.h>
#include <imgui_stdlib.h>

#include "core/io/exports.h"
#include "core/passes/pass_manager.h"
#include "core/trace/compare.h"
#include "core/util/atomic_file.h"
#include "viewers/model/timing_chart.h"
#include "viewers/pipeline_view.h"
#include "viewers/theme.h"

namespace ls::viewers {

using viewmodel::formatDuration;

Status TimingView::exportComparison(const ViewState& s, const std::string& format, const std::string& path) {
  if (!s.trace || !s.compareTrace) return Status::error("export comparison: no comparison run (use Compare first)");
  trace::TraceComparison c = trace::compareTraces(*s.trace, *s.compareTrace, {}, 5);
  c.labelA = s.labelA;
  c.labelB = s.labelB;
  std::string text;
  if (format == "csv") text = io::comparisonToCsv(c);
  else if (format == "json") text = io::comparisonToJson(c);
  else if (format == "md") text = io::comparisonToMarkdown(c);
  else if (format == "chrome") text = io::comparisonToChromeJson(*s.trace, *s.compareTrace, c);
  else return Status::error(fmt::format("export comparison: unknown format '{}' (csv, json, md, chrome)", format));
  return writeFileAtomic(path, text);
}

Status TimingView::exportChart(const ViewState& s, const std::string& path) {
  if (!s.trace) return Status::error("export chart: no run");
  if (s.compareTrace) return viewmodel::writeChart(viewmodel::abChart(ab_.comparison(s), ab_.baseline()), path);
  return viewmodel::writeChart(viewmodel::runChart(*s.trace, aggregate_), path);
}

void TimingView::refresh(const ViewState& s) {
  const uint64_t g = generationOf(s.trace);
  if (g == gen_ && aggregate_ == builtAggregate_) return;
  if (g != gen_ && s.trace) {
    timeline_ = viewmodel::timeline(*s.trace);
    window_ = {0.0, double(timeline_.endNs)};
    nodes_ = viewmodel::nodeCounts(*s.trace);
    nodesMin_ = nodesMax_ = nodes_.empty() ? 0 : nodes_.front().nodes;
    for (const viewmodel::NodeCountPoint& p : nodes_) nodesMin_ = std::min(nodesMin_, p.nodes), nodesMax_ = std::max(nodesMax_, p.nodes);
  }
  bars_ = s.trace ? viewmodel::barRows(*s.trace, aggregate_) : std::vector<viewmodel::BarRow>{};
  gen_ = g;
  builtAggregate_ = aggregate_;
}

size_t TimingView::barCount(const ViewState& s) {
  refresh(s);
  return bars_.size();
}

const viewmodel::Timeline& TimingView::timelineOf(const ViewState& s) {
  refresh(s);
  return timeline_;
}

void TimingView::zoomTimeline(const ViewState& s, double factor) {
  refresh(s);
  window_ = viewmodel::zoomWindow(window_, factor, (window_.beginNs + window_.endNs) * 0.5, double(std::max<int64_t>(timeline_.endNs, 1)));
}

size_t TimingView::timelineVisible(const ViewState& s) {
  refresh(s);
  return size_t(std::count_if(timeline_.spans.begin(), timeline_.spans.end(), [&](const viewmodel::TimelineSpan& sp) {
    return sp.depth == 0 && double(sp.endNs) >= window_.beginNs && double(sp.startNs) <= window_.endNs;
  }));
}

void TimingView::draw(ViewState& s) {
  if (!s.trace) {
    ImGui::TextDisabled("No run yet.");
    return;
  }
  drawComparePopup(s);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(110);
  ImGui::InputText("export dir", &exportDir);
  ImGui::SameLine();
  auto chartButton = [&](const char* label, const char* ext) {
    if (!ImGui::SmallButton(label)) return;
    std::string path = exportDir + (s.compareTrace ? "/lowerscope_compare." : "/lowerscope_timing.") + ext;
    Status st = exportChart(s, path);
    s.statusMessage = st ? "wrote " + path : st.message();
  };
  chartButton("Chart SVG", "svg");
  ImGui::SameLine();
  chartButton("Chart PNG", "png");
  if (s.compareTrace) {
    auto exportBtn = [&](const char* label, const char* fmtName, const char* ext) {
      ImGui::SameLine();
      if (!ImGui::SmallButton(label)) return;
      std::string path = exportDir + "/lowerscope_compare." + ext;
      Status st = exportComparison(s, fmtName, path);
      s.statusMessage = st ? "wrote " + path : st.message();
    };
    exportBtn("CSV", "csv", "csv");
    exportBtn("JSON", "json", "json");
    exportBtn("MD", "md", "md");
    exportBtn("Chrome trace", "chrome", "trace.json");
    ab_.draw(s);
  } else {
    drawSingle(s, *s.trace);
  }
}

void TimingView::drawComparePopup(ViewState& s) {
  if (!bConfigInit_) {
    bConfig_.pipeline = s.trace->pipeline;
    bConfig_.profile = s.trace->profile;
    bConfig_.target = s.trace->target;
    bConfig_.engine = passes::EngineOptions{false, false, false};
    bConfigInit_ = true;
  }
  if (ImGui::Button("Compare with...")) ImGui::OpenPopup("##comparepopup");
  ImGui::SameLine();
  if (s.compareTrace && ImGui::Button("Close comparison")) s.compareTrace.reset(), s.compareRepeats.reset();
  if (ImGui::BeginPopup("##comparepopup")) {
    ImGui::TextUnformatted("Run B on the same source graph:");
    if (ImGui::BeginCombo("pipeline", bConfig_.pipeline.c_str())) {
      for (const std::string& n : passes::PipelineRegistry::instance().names())
        if (ImGui::Selectable(n.c_str(), n == bConfig_.pipeline)) bConfig_.pipeline = n;
      ImGui::EndCombo();
    }
    int prof = int(bConfig_.profile), tgt = int(bConfig_.target);
    ImGui::Combo("profile", &prof, "fp\0int\0");
    ImGui::Combo("target", &tgt, "generic\0u55\0u85\0");
    bConfig_.profile = passes::Profile(prof);
    bConfig_.target = passes::Target(tgt);
    ImGui::Checkbox("skip (should_run)", &bConfig_.engine.skip);
    ImGui::Checkbox("fast-copy", &bConfig_.engine.fastCopy);
    ImGui::Checkbox("inference cache", &bConfig_.engine.cache);
    if (ImGui::InputInt("timed repeats of A and B", &s.compareRepeat)) s.compareRepeat = std::clamp(s.compareRepeat, 1, 50);
    if (ImGui::Button("Run B")) {
      s.compareRequest = bConfig_;
      ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
  }
}

void TimingView::drawSingle(ViewState& s, const trace::Trace& t) {
  refresh(s);
  trace::Trace::Totals tot = t.totals();
  viewmodel::PhaseTotals ph = viewmodel::phaseTotals(t);
  ImGui::Text("total %s | scan %s run %s verify %s | %d ran (%d changed), %d skipped, %d failed", formatDuration(t.totalNs).c_str(),
              formatDuration(ph.scanNs).c_str(), formatDuration(ph.runNs).c_str(), formatDuration(ph.verifyNs).c_str(), tot.ran,
              tot.changed, tot.skipped, tot.failed);
  ImGui::Checkbox("aggregate by pass name", &aggregate_);
  refresh(s);
  ImGui::SameLine();
  ImGui::TextDisabled("slowest first, %% of the sum of pass times |");
  static constexpr std::pair<const char*, ImU32> kPhases[] = {{"scan", theme::kScan}, {"run", theme::kRun}, {"verify", theme::kVerify}};
  for (auto [name, col] : kPhases) {
    ImGui::SameLine();
    ImGui::ColorButton(name, theme::toVec(col), ImGuiColorEditFlags_NoTooltip, ImVec2(12, 12));
    ImGui::SameLine();
    ImGui::TextUnformatted(name);
  }
  const float lh = ImGui::GetTextLineHeightWithSpacing();
  const float timelineH = lh * 2 + 44.f, nodesH = 110.f;
  const float barsH = std::max(lh * 4, ImGui::GetContentRegionAvail().y - timelineH - nodesH - lh * 2 - 16.f);
  drawBars(s, barsH);
  drawTimeline(s, t, timelineH);
  drawNodeCounts(s, t, nodesH);
}

void TimingView::drawBars(ViewState& s, float height) {
  ImGui::BeginChild("##timingbars", ImVec2(0, height), true);
  const float lh = ImGui::GetTextLineHeightWithSpacing();
  const float nameW = std::min(ImGui::GetContentRegionAvail().x * 0.35f, 320.f);
  const float barW = std::max(20.f, ImGui::GetContentRegionAvail().x - nameW - 150.f);
  int64_t maxNs = 1;
  for (const viewmodel::BarRow& b : bars_) maxNs = std::max(maxNs, b.totalNs());
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImGuiListClipper clip;
  clip.Begin(int(bars_.size()), lh);
  while (clip.Step()) {
    for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
      const viewmodel::BarRow& b = bars_[size_t(i)];
      ImGui::PushID(i);
      const ImVec2 p = ImGui::GetCursorScreenPos();
      const bool skippedOnly = b.skipped == b.count;
      ImGui::PushStyleColor(ImGuiCol_Text, skippedOnly ? theme::toVec(theme::kStatus[size_t(passes::PassStatus::Skipped)])
                                                       : ImGui::GetStyleColorVec4(ImGuiCol_Text));
      if (ImGui::Selectable(b.label().c_str(), s.selectedPass == b.index, 0, ImVec2(nameW, 0))) s.selectPass(b.index);
      ImGui::PopStyleColor();
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s\n%d pass(es): %d ran, %d skipped, %d failed\nscan %s, run %s, verify %s", b.name.c_str(), b.count, b.ran,
                          b.skipped, b.failed, formatDuration(b.scanNs).c_str(), formatDuration(b.runNs).c_str(),
                          formatDuration(b.verifyNs).c_str());
      float x = p.x + nameW + 6;
      auto seg = [&](int64_t ns, ImU32 c) {
        const float w = barW * float(double(ns) / double(maxNs));
        if (ns > 0) dl->AddRectFilled(ImVec2(x, p.y + 2), ImVec2(x + std::max(w, 1.f), p.y + lh - 3), skippedOnly ? theme::rgb(90, 90, 95) : c);
        x += w;
      };
      seg(b.scanNs, theme::kScan);
      seg(b.runNs, theme::kRun);
      seg(b.verifyNs, theme::kVerify);
      const std::string text = fmt::format("{}  {:.1f}%", formatDuration(b.totalNs()), b.percent);
      dl->AddText(ImVec2(std::max(x, p.x + nameW + 6) + 6, p.y), theme::rgb(210, 210, 210), text.c_str());
      ImGui::PopID();
    }
  }
  ImGui::EndChild();
}

void TimingView::drawTimeline(ViewState& s, const trace::Trace& t, float height) {
  const double full = double(std::max<int64_t>(timeline_.endNs, 1));
  ImGui::AlignTextToFramePadding();
  ImGui::Text("Timeline: %zu passes, %zu skipped (ticks)", timeline_.passes, timeline_.ticks);
  ImGui::SameLine();
  const double mid = (window_.beginNs + window_.endNs) * 0.5;
  if (ImGui::SmallButton("zoom in")) window_ = viewmodel::zoomWindow(window_, 2.0, mid, full);
  ImGui::SameLine();
  if (ImGui::SmallButton("zoom out")) window_ = viewmodel::zoomWindow(window_, 0.5, mid, full);
  ImGui::SameLine();
  if (ImGui::SmallButton("fit")) window_ = {0.0, full};
  ImGui::SameLine();
  ImGui::TextDisabled("%s - %s (wheel: zoom, drag: pan)", formatDuration(int64_t(window_.beginNs)).c_str(),
                      formatDuration(int64_t(window_.endNs)).c_str());
  ImGui::BeginChild("##timeline", ImVec2(0, height), true, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const ImVec2 avail(std::max(ImGui::GetContentRegionAvail().x, 8.f), std::max(ImGui::GetContentRegionAvail().y, 8.f));
  ImGui::InvisibleButton("##strip", avail);
  const bool hovered = ImGui::IsItemHovered();
  const double width = std::max(window_.width(), 1.0);
  const float scale = float(double(avail.x) / width);
  auto xOf = [&](double ns) { return p0.x + float((ns - window_.beginNs)) * scale; };
  const double mouseNs = window_.beginNs + double(ImGui::GetIO().MousePos.x - p0.x) / double(scale);
  if (hovered && ImGui::GetIO().MouseWheel != 0)
    window_ = viewmodel::zoomWindow(window_, ImGui::GetIO().MouseWheel > 0 ? 1.25 : 0.8, mouseNs, full);
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left))
    window_ = viewmodel::panWindow(window_, -double(ImGui::GetIO().MouseDelta.x) / double(scale), full);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(p0, ImVec2(p0.x + avail.x, p0.y + avail.y), true);
  // Lanes: passes, their phases, skipped passes as ticks, then the time axis.
  const float tickH = 9.f, rowH = (avail.y - 16.f - tickH) * 0.5f, tickY = p0.y + rowH * 2 + 1;
  const viewmodel::TimelineSpan* hit = nullptr;
  for (const viewmodel::TimelineSpan& sp : timeline_.spans) {
    if (double(sp.endNs) < window_.beginNs || double(sp.startNs) > window_.endNs) continue;
    const float x0 = xOf(double(sp.startNs)), x1 = std::max(xOf(double(sp.endNs)), x0 + 1.f);
    const float y0 = p0.y + rowH * float(sp.depth);
    ImU32 col = theme::rgb(70, 110, 160);
    switch (sp.kind) {
      case viewmodel::SpanKind::Pass: col = theme::kStatus[size_t(t.records[size_t(sp.index)].status)]; break;
      case viewmodel::SpanKind::Scan: col = theme::kScan; break;
      case viewmodel::SpanKind::Run: col = theme::kRun; break;
      case viewmodel::SpanKind::Verify: col = theme::kVerify; break;
      case viewmodel::SpanKind::SkippedTick:
        dl->AddLine(ImVec2(x0, tickY), ImVec2(x0, tickY + tickH - 1), theme::rgb(150, 150, 158), 1.f);
        if (hovered && std::abs(ImGui::GetIO().MousePos.x - x0) < 2.f && ImGui::GetIO().MousePos.y >= tickY) hit = &sp;
        continue;
      case viewmodel::SpanKind::COUNT: break;
    }
    dl->AddRectFilled(ImVec2(x0, y0 + 1), ImVec2(x1, y0 + rowH - 1), col);
    if (sp.index == s.selectedPass && sp.depth == 0) dl->AddRect(ImVec2(x0, y0), ImVec2(x1, y0 + rowH), theme::kSelected);
    // The name in the visible part of the pass (zoomed in, a pass can start off-screen).
    const float vx0 = std::max(x0, p0.x), vx1 = std::min(x1, p0.x + avail.x);
    if (sp.depth == 0 && vx1 - vx0 > 40.f) {
      const std::string& name = t.records[size_t(sp.index)].name;
      dl->PushClipRect(ImVec2(vx0, y0), ImVec2(vx1, y0 + rowH), true);
      dl->AddText(ImVec2(vx0 + 3, y0 + 1), theme::rgb(20, 20, 20), name.c_str());
      dl->PopClipRect();
    }
    const ImVec2 m = ImGui::GetIO().MousePos;
    if (hovered && m.x >= x0 && m.x <= x1 && m.y >= y0 && m.y < y0 + rowH) hit = &sp;
  }
  // Time axis.
  const float axisY = tickY + tickH;
  for (double tk : viewmodel::niceTicks(width / 1e6, 8)) {
    const double ns = window_.beginNs + tk * 1e6;
    if (ns > window_.endNs) break;
    const float x = xOf(ns);
    dl->AddLine(ImVec2(x, axisY), ImVec2(x, axisY + 4), theme::rgb(160, 160, 160));
    dl->AddText(ImVec2(x + 2, axisY), theme::rgb(160, 160, 160), formatDuration(int64_t(ns)).c_str());
  }
  dl->PopClipRect();
  if (hit) {
    const trace::PassRecord& r = t.records[size_t(hit->index)];
    ImGui::SetTooltip("#%d %s\n%s: %s (starts at %s)%s", r.index, r.name.c_str(), std::string(viewmodel::spanKindName(hit->kind)).c_str(),
                      formatDuration(hit->endNs - hit->startNs).c_str(), formatDuration(hit->startNs).c_str(),
                      r.status == passes::PassStatus::Skipped ? (std::string("\nskipped: ") + std::string(passes::skipReasonName(r.reason))).c_str() : "");
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) s.selectPass(hit->index);
  }
  ImGui::EndChild();
}

void TimingView::drawNodeCounts(ViewState& s, const trace::Trace&, float height) {
  ImGui::Text("Node count across passes: %llu -> %llu (min %llu, max %llu)", (unsigned long long)(nodes_.empty() ? 0 : nodes_.front().nodes),
              (unsigned long long)(nodes_.empty() ? 0 : nodes_.back().nodes), (unsigned long long)nodesMin_, (unsigned long long)nodesMax_);
  ImGui::BeginChild("##nodecounts", ImVec2(0, height), true, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const ImVec2 avail(std::max(ImGui::GetContentRegionAvail().x, 8.f), std::max(ImGui::GetContentRegionAvail().y, 8.f));
  ImGui::InvisibleButton("##nodeline", avail);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (nodes_.size() >= 2) {
    const float labelW = 60.f, w = avail.x - labelW - 4.f, h = avail.y - 6.f;
    const double lo = double(nodesMin_), hi = double(std::max(nodesMax_, nodesMin_ + 1));
    auto pt = [&](size_t i) {
      return ImVec2(p0.x + labelW + w * float(i) / float(nodes_.size() - 1),
                    p0.y + 3.f + h * float(1.0 - (double(nodes_[i].nodes) - lo) / (hi - lo)));
    };
    dl->AddText(ImVec2(p0.x, p0.y), theme::rgb(160, 160, 160), fmt::format("{}", nodesMax_).c_str());
    dl->AddText(ImVec2(p0.x, p0.y + h - ImGui::GetTextLineHeight()), theme::rgb(160, 160, 160), fmt::format("{}", nodesMin_).c_str());
    dl->AddLine(ImVec2(p0.x + labelW, p0.y + 3.f + h), ImVec2(p0.x + labelW + w, p0.y + 3.f + h), theme::rgb(90, 90, 95));
    std::vector<ImVec2> pts;
    pts.reserve(nodes_.size());
    for (size_t i = 0; i < nodes_.size(); ++i) pts.push_back(pt(i));
    dl->AddPolyline(pts.data(), int(pts.size()), theme::kAdded, ImDrawFlags_None, 2.f);
    // The selected pass (index + 1: point 0 is the source).
    const size_t sel = size_t(std::clamp(s.selectedPass + 1, 0, int(nodes_.size()) - 1));
    dl->AddCircleFilled(pts[sel], 4.f, theme::kSelected);
    if (ImGui::IsItemHovered()) {
      const float mx = ImGui::GetIO().MousePos.x;
      size_t i = size_t(std::clamp(int(std::lround((mx - p0.x - labelW) / w * float(nodes_.size() - 1))), 0, int(nodes_.size()) - 1));
      const int index = nodes_[i].index;
      ImGui::SetTooltip("%s: %llu nodes", index < 0 ? "source" : fmt::format("#{} {}", index, s.trace->records[size_t(index)].name).c_str(),
                        (unsigned long long)nodes_[i].nodes);
      if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) s.selectPass(index);
    }
  }
  ImGui::EndChild();
}

}  // namespace ls::viewers
