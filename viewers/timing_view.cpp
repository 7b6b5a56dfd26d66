// Timing view.
#include "viewers/timing_view.h"

#include <algorithm>

#include <fmt/format.h>
#include <imgui.h>
#include <imgui_stdlib.h>

#include "core/io/exports.h"
#include "core/passes/pass_manager.h"
#include "core/util/atomic_file.h"
#include "viewers/pipeline_view.h"
#include "viewers/theme.h"

namespace ls::viewers {

using viewmodel::formatDuration;

const trace::TraceComparison& TimingView::comparison(const ViewState& s) {
  if (cmpA_ != generationOf(s.trace) || cmpB_ != generationOf(s.compareTrace)) {
    cmpA_ = generationOf(s.trace);
    cmpB_ = generationOf(s.compareTrace);
    cmp_ = s.trace && s.compareTrace ? trace::compareTraces(*s.trace, *s.compareTrace, {}, 5) : trace::TraceComparison{};
    cmp_.labelA = s.labelA;
    cmp_.labelB = s.labelB;
  }
  return cmp_;
}

Status TimingView::exportComparison(const ViewState& s, const std::string& format, const std::string& path) {
  if (!s.trace || !s.compareTrace) return Status::error("export comparison: no comparison run (use Compare first)");
  const trace::TraceComparison& c = comparison(s);
  std::string text;
  if (format == "csv") text = io::comparisonToCsv(c);
  else if (format == "json") text = io::comparisonToJson(c);
  else if (format == "md") text = io::comparisonToMarkdown(c);
  else if (format == "chrome") text = io::comparisonToChromeJson(*s.trace, *s.compareTrace, c);
  else return Status::error(fmt::format("export comparison: unknown format '{}' (csv, json, md, chrome)", format));
  return writeFileAtomic(path, text);
}

void TimingView::exportChart(const std::string& path) { pendingChartPath_ = path; }

void TimingView::draw(ViewState& s) {
  if (!s.trace) {
    ImGui::TextDisabled("No run yet.");
    return;
  }
  drawComparePopup(s);
  if (s.compareTrace) drawCompare(s);
  else drawSingle(s, *s.trace);
  if (!pendingChartPath_.empty() && chartW_ > 0) {
    s.capture = CaptureRequest{pendingChartPath_, chartX_, chartY_, chartW_, chartH_};
    pendingChartPath_.clear();
  }
}

void TimingView::drawComparePopup(ViewState& s) {
  if (!bConfigInit_) {
    bConfig_.pipeline = s.trace->pipeline;
    bConfig_.profile = s.trace->profile;
    bConfig_.target = s.trace->target;
    bConfig_.engine = passes::EngineOptions{false, false, true};
    bConfigInit_ = true;
  }
  if (ImGui::Button("Compare with...")) ImGui::OpenPopup("##comparepopup");
  ImGui::SameLine();
  if (s.compareTrace && ImGui::Button("Close comparison")) s.compareTrace.reset();
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
    if (ImGui::Button("Run B")) {
      s.compareRequest = bConfig_;
      ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
  }
}

void TimingView::drawSingle(ViewState& s, const trace::Trace& t) {
  trace::Trace::Totals tot = t.totals();
  viewmodel::PhaseTotals ph = viewmodel::phaseTotals(t);
  ImGui::SameLine();
  ImGui::Text("total %s | scan %s run %s verify %s | %d ran (%d changed), %d skipped, %d failed", formatDuration(t.totalNs).c_str(),
              formatDuration(ph.scanNs).c_str(), formatDuration(ph.runNs).c_str(), formatDuration(ph.verifyNs).c_str(), tot.ran,
              tot.changed, tot.skipped, tot.failed);
  int ord = int(order_);
  ImGui::SetNextItemWidth(160);
  ImGui::Combo("order", &ord, "pipeline order\0slowest first\0");
  order_ = viewmodel::TimingOrder(ord);
  ImGui::SameLine();
  ImGui::ColorButton("##scan", theme::toVec(theme::kScan), ImGuiColorEditFlags_NoTooltip, ImVec2(12, 12));
  ImGui::SameLine();
  ImGui::TextUnformatted("scan");
  ImGui::SameLine();
  ImGui::ColorButton("##run", theme::toVec(theme::kRun), ImGuiColorEditFlags_NoTooltip, ImVec2(12, 12));
  ImGui::SameLine();
  ImGui::TextUnformatted("run");
  ImGui::SameLine();
  ImGui::ColorButton("##verify", theme::toVec(theme::kVerify), ImGuiColorEditFlags_NoTooltip, ImVec2(12, 12));
  ImGui::SameLine();
  ImGui::TextUnformatted("verify");
  ImGui::SameLine();
  if (ImGui::Button("Save chart PNG")) exportChart(exportDir + "/lowerscope_timing.png");

  std::vector<viewmodel::TimingRow> rows = viewmodel::timingRows(t, order_);
  int64_t maxNs = viewmodel::maxPassNs(t);
  float lh = ImGui::GetTextLineHeightWithSpacing();
  // The chart is as tall as its rows (up to the space left), so a PNG export has no blank tail.
  float chartH = std::min(ImGui::GetContentRegionAvail().y, lh * float(rows.size()) + ImGui::GetStyle().WindowPadding.y * 2 + 4);
  ImGui::BeginChild("##timingchart", ImVec2(0, chartH), true);
  ImVec2 wp = ImGui::GetWindowPos(), ws = ImGui::GetWindowSize();
  chartX_ = wp.x, chartY_ = wp.y, chartW_ = ws.x, chartH_ = ws.y;
  float nameW = std::min(ImGui::GetContentRegionAvail().x * 0.35f, 300.f);
  float barW = ImGui::GetContentRegionAvail().x - nameW - 90.f;
  ImGuiListClipper clip;
  clip.Begin(int(rows.size()), lh);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  while (clip.Step()) {
    for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
      const viewmodel::TimingRow& row = rows[size_t(i)];
      const trace::PassRecord& r = t.records[size_t(row.index)];
      ImGui::PushID(i);
      ImVec2 p = ImGui::GetCursorScreenPos();
      statusIcon(r.status, ImGui::GetTextLineHeight());
      ImGui::SameLine();
      std::string name = fmt::format("{} {}", row.index, r.name);
      ImVec4 col = ImGui::GetStyleColorVec4(ImGuiCol_Text);
      if (r.status == passes::PassStatus::Skipped) col = theme::toVec(theme::kStatus[size_t(passes::PassStatus::Skipped)]);
      ImGui::PushStyleColor(ImGuiCol_Text, col);
      if (ImGui::Selectable(name.c_str(), s.selectedPass == row.index, 0, ImVec2(nameW - lh, 0))) s.selectPass(row.index);
      ImGui::PopStyleColor();
      float x = p.x + nameW + 4;
      auto seg = [&](int64_t ns, ImU32 c) {
        float w = barW * float(double(ns) / double(maxNs));
        if (w > 0) dl->AddRectFilled(ImVec2(x, p.y + 2), ImVec2(x + std::max(w, 1.f), p.y + lh - 3), c);
        x += w;
      };
      seg(row.scanNs, theme::kScan);
      seg(row.runNs, theme::kRun);
      seg(row.verifyNs, theme::kVerify);
      dl->AddText(ImVec2(std::max(x, p.x + nameW + 4) + 4, p.y), IM_COL32(210, 210, 210, 255), formatDuration(row.totalNs()).c_str());
      ImGui::PopID();
    }
  }
  ImGui::EndChild();
}

void TimingView::drawCompare(ViewState& s) {
  const trace::TraceComparison& c = comparison(s);
  ImGui::SameLine();
  ImGui::ColorButton("##a", theme::toVec(theme::kRunA), ImGuiColorEditFlags_NoTooltip, ImVec2(12, 12));
  ImGui::SameLine();
  ImGui::Text("A: %s", s.labelA.c_str());
  ImGui::SameLine();
  ImGui::ColorButton("##b", theme::toVec(theme::kRunB), ImGuiColorEditFlags_NoTooltip, ImVec2(12, 12));
  ImGui::SameLine();
  ImGui::TextWrapped("B: %s", s.labelB.c_str());
  ImGui::Text("total A %s, B %s, B/A %s | ran only in A: %zu, only in B: %zu", formatDuration(c.totalA).c_str(),
              formatDuration(c.totalB).c_str(), viewmodel::formatRatio(c.totalRatio()).c_str(), c.ranOnlyInA.size(),
              c.ranOnlyInB.size());
  int ord = int(compareOrder_);
  ImGui::SetNextItemWidth(170);
  ImGui::Combo("order##cmp", &ord, "pipeline order\0worst ratio first\0best ratio first\0largest delta\0");
  compareOrder_ = viewmodel::CompareOrder(ord);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(160);
  ImGui::InputText("export dir", &exportDir);
  ImGui::SameLine();
  auto exportBtn = [&](const char* label, const char* fmtName, const char* ext) {
    if (ImGui::SmallButton(label)) {
      std::string path = exportDir + "/lowerscope_compare." + ext;
      Status st = exportComparison(s, fmtName, path);
      s.statusMessage = st ? "wrote " + path : st.message();
    }
    ImGui::SameLine();
  };
  exportBtn("CSV", "csv", "csv");
  exportBtn("JSON", "json", "json");
  exportBtn("MD", "md", "md");
  exportBtn("Chrome trace", "chrome", "trace.json");
  if (ImGui::SmallButton("PNG")) exportChart(exportDir + "/lowerscope_compare.png");

  // Top regressions / improvements.
  auto list = [&](const char* title, const std::vector<size_t>& idx, ImU32 col) {
    ImGui::TextColored(theme::toVec(col), "%s", title);
    if (idx.empty()) {
      ImGui::SameLine();
      ImGui::TextDisabled("none");
    }
    for (size_t i : idx) {
      const trace::CompareRow& r = c.rows[i];
      ImGui::SameLine();
      ImGui::Text("%s %s;", r.name.c_str(), viewmodel::formatRatio(r.ratio()).c_str());
    }
  };
  list("Top regressions (B slower):", c.regressions, theme::kRemoved);
  list("Top improvements (B faster):", c.improvements, theme::kAdded);
  auto onlyIn = [&](const char* title, const std::vector<size_t>& idx) {
    if (idx.empty()) return;
    std::string names;
    for (size_t i = 0; i < idx.size() && i < 8; ++i) names += (i ? ", " : "") + c.rows[idx[i]].name;
    if (idx.size() > 8) names += fmt::format(" (+{} more)", idx.size() - 8);
    ImGui::TextColored(theme::toVec(theme::kChanged), "%s", title);
    ImGui::SameLine();
    ImGui::TextWrapped("%s", names.c_str());
  };
  onlyIn("Ran only in A:", c.ranOnlyInA);
  onlyIn("Ran only in B:", c.ranOnlyInB);

  std::vector<size_t> order = viewmodel::compareOrder(c, compareOrder_);
  int64_t maxNs = 1;
  for (const trace::CompareRow& r : c.rows) maxNs = std::max({maxNs, r.nsA, r.nsB});
  float lh = ImGui::GetTextLineHeight();
  float rowH = lh + ImGui::GetStyle().CellPadding.y * 2;
  float chartH = std::min(ImGui::GetContentRegionAvail().y, rowH * float(order.size() + 1) + ImGui::GetStyle().WindowPadding.y * 2 + 8);
  ImGui::BeginChild("##cmpchart", ImVec2(0, chartH), true);
  ImVec2 wp = ImGui::GetWindowPos(), ws = ImGui::GetWindowSize();
  chartX_ = wp.x, chartY_ = wp.y, chartW_ = ws.x, chartH_ = ws.y;
  ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_Resizable;
  if (ImGui::BeginTable("##cmp", 6, flags)) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("pass", ImGuiTableColumnFlags_WidthStretch, 1.2f);
    ImGui::TableSetupColumn("A vs B", ImGuiTableColumnFlags_WidthStretch, 1.6f);
    ImGui::TableSetupColumn("A", ImGuiTableColumnFlags_WidthFixed, lh * 5.5f);
    ImGui::TableSetupColumn("B", ImGuiTableColumnFlags_WidthFixed, lh * 5.5f);
    ImGui::TableSetupColumn("B/A", ImGuiTableColumnFlags_WidthFixed, lh * 3.5f);
    ImGui::TableSetupColumn("status A / B", ImGuiTableColumnFlags_WidthFixed, lh * 13.f);
    ImGui::TableHeadersRow();
    ImGuiListClipper clip;
    clip.Begin(int(order.size()));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    while (clip.Step()) {
      for (int k = clip.DisplayStart; k < clip.DisplayEnd; ++k) {
        const trace::CompareRow& r = c.rows[order[size_t(k)]];
        ImGui::TableNextRow();
        ImGui::PushID(k);
        ImGui::TableSetColumnIndex(0);
        bool oneSided = r.ranA() != r.ranB();
        if (oneSided) ImGui::TextColored(theme::toVec(theme::kChanged), "%s", r.name.c_str());
        else ImGui::TextUnformatted(r.name.c_str());
        if (ImGui::IsItemHovered() && oneSided) ImGui::SetTooltip("ran in %s only", r.ranA() ? "A" : "B");
        ImGui::TableSetColumnIndex(1);
        ImVec2 p = ImGui::GetCursorScreenPos();
        float w = ImGui::GetContentRegionAvail().x;
        float half = (lh - 2) * 0.5f;
        auto bar = [&](int64_t ns, float y, ImU32 col) {
          float bw = w * float(double(ns) / double(maxNs));
          if (ns > 0) dl->AddRectFilled(ImVec2(p.x, y), ImVec2(p.x + std::max(bw, 1.f), y + half), col);
        };
        bar(r.nsA, p.y + 1, theme::kRunA);
        bar(r.nsB, p.y + 1 + half, theme::kRunB);
        ImGui::Dummy(ImVec2(w, lh));
        ImGui::TableSetColumnIndex(2);
        if (r.inA) ImGui::TextUnformatted(formatDuration(r.nsA).c_str());
        ImGui::TableSetColumnIndex(3);
        if (r.inB) ImGui::TextUnformatted(formatDuration(r.nsB).c_str());
        ImGui::TableSetColumnIndex(4);
        double ratio = r.inA && r.inB ? r.ratio() : 0.0;
        ImU32 rc = ratio > 1.1 ? theme::kRemoved : ratio > 0 && ratio < 0.9 ? theme::kAdded : theme::rgb(210, 210, 210);
        ImGui::TextColored(theme::toVec(rc), "%s", viewmodel::formatRatio(ratio).c_str());
        ImGui::TableSetColumnIndex(5);
        auto st = [](bool in, passes::PassStatus x, passes::SkipReason why) {
          if (!in) return std::string("-");
          std::string t(passes::passStatusName(x));
          if (x == passes::PassStatus::Skipped) t = std::string(passes::skipReasonName(why));
          return t;
        };
        ImGui::Text("%s / %s", st(r.inA, r.statusA, r.reasonA).c_str(), st(r.inB, r.statusB, r.reasonB).c_str());
        ImGui::PopID();
      }
    }
    ImGui::EndTable();
  }
  ImGui::EndChild();
}

}  // namespace ls::viewers
