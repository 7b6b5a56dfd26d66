// Pipeline view.
#include "viewers/pipeline_view.h"

#include <algorithm>

#include <fmt/format.h>
#include <imgui.h>
#include <imgui_stdlib.h>

#include "viewers/model/timing_model.h"
#include "viewers/theme.h"

namespace ls::viewers {

using passes::PassStatus;

void statusIcon(PassStatus st, float size) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImVec2 p = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(size, size));
  ImVec2 c(p.x + size * 0.5f, p.y + size * 0.5f);
  float r = size * 0.32f;
  ImU32 col = theme::kStatus[size_t(st)];
  switch (st) {
    case PassStatus::Changed: dl->AddCircleFilled(c, r, col, 12); break;
    case PassStatus::Unchanged: dl->AddCircle(c, r, col, 12, 1.5f); break;
    case PassStatus::Skipped: dl->AddLine(ImVec2(c.x - r, c.y), ImVec2(c.x + r, c.y), col, 2.f); break;
    case PassStatus::Failed:
      dl->AddLine(ImVec2(c.x - r, c.y - r), ImVec2(c.x + r, c.y + r), col, 2.f);
      dl->AddLine(ImVec2(c.x - r, c.y + r), ImVec2(c.x + r, c.y - r), col, 2.f);
      break;
    default: break;
  }
}

void PipelineView::refresh(const ViewState& s) {
  if (cachedGeneration_ == generationOf(s.trace) && cachedFilter_ == s.filter) return;
  cachedGeneration_ = generationOf(s.trace);
  cachedFilter_ = s.filter;
  visible_ = s.trace ? viewmodel::visiblePasses(*s.trace, s.filter) : std::vector<int>{};
}

void PipelineView::step(ViewState& s, viewmodel::StepKey key) {
  if (!s.trace) return;
  refresh(s);
  int next = viewmodel::step(*s.trace, visible_, s.selectedPass, key);
  if (next != s.selectedPass) {
    s.selectPass(next);
    scrollToSelection_ = true;
  }
}

void PipelineView::handleKeys(ViewState& s) {
  ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput || !s.trace) return;
  auto pressed = [](ImGuiKey k) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(k), true); };
  if (pressed(ImGuiKey_UpArrow)) step(s, io.KeyShift ? viewmodel::StepKey::PrevChanged : viewmodel::StepKey::Prev);
  if (pressed(ImGuiKey_DownArrow)) step(s, io.KeyShift ? viewmodel::StepKey::NextChanged : viewmodel::StepKey::Next);
  if (pressed(ImGuiKey_Home)) step(s, viewmodel::StepKey::First);
  if (pressed(ImGuiKey_End)) step(s, viewmodel::StepKey::Last);
}

void PipelineView::draw(ViewState& s) {
  ImGui::Checkbox("hide skipped", &s.filter.hideSkipped);
  ImGui::SameLine();
  ImGui::Checkbox("hide unchanged", &s.filter.hideUnchanged);
  ImGui::SetNextItemWidth(-1);
  ImGui::InputTextWithHint("##passsearch", "search passes", &s.filter.search);
  if (!s.trace) {
    ImGui::TextDisabled("No run yet.");
    return;
  }
  refresh(s);
  const trace::Trace& t = *s.trace;
  trace::Trace::Totals tot = t.totals();
  ImGui::TextWrapped("%s | %s %s/%s", t.model.c_str(), t.pipeline.c_str(), std::string(passes::profileName(t.profile)).c_str(),
                     std::string(passes::targetName(t.target)).c_str());
  ImGui::Text("%zu passes: %d changed, %d unchanged, %d skipped, %d failed", t.records.size(), tot.changed, tot.unchanged,
              tot.skipped, tot.failed);
  ImGui::Text("total %s  (showing %zu)", viewmodel::formatDuration(t.totalNs).c_str(), visible_.size());
  // The run that prepared this one's source (INT: the quantizer's passes), and the way back.
  if (s.pipelineTrace) {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(theme::kChanged), "Run before the pipeline: %s", t.pipeline.c_str());
    ImGui::SameLine();
    if (ImGui::SmallButton("back to pipeline")) s.preparationRequest = false;
  } else if (t.preparation) {
    const trace::Trace& q = *t.preparation;
    trace::Trace::Totals qt = q.totals();
    ImGui::TextWrapped("Prepared by %s: %zu passes (%d changed), %s", q.pipeline.c_str(), q.records.size(), qt.changed,
                       viewmodel::formatDuration(q.totalNs).c_str());
    ImGui::SameLine();
    if (ImGui::SmallButton("show")) s.preparationRequest = true;
  }

  if (tot.failed) {
    // The failure stays visible (not only on hover): the first failed pass and its message.
    for (const trace::PassRecord& r : t.records)
      if (r.status == PassStatus::Failed) {
        ImGui::PushStyleColor(ImGuiCol_Text, theme::toVec(theme::kStatus[size_t(PassStatus::Failed)]));
        ImGui::TextWrapped("#%d %s failed: %s", r.index, r.name.c_str(), r.message.c_str());
        ImGui::PopStyleColor();
        break;
      }
  }
  int64_t maxNs = viewmodel::maxPassNs(t);
  ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                          ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_Resizable;
  // The list above, the selected pass's summary below (a third of the height, at least 8 lines).
  const float summaryH = std::max(ImGui::GetTextLineHeightWithSpacing() * 8.f, ImGui::GetContentRegionAvail().y * 0.34f);
  const float tableH = std::max(ImGui::GetTextLineHeightWithSpacing() * 4.f, ImGui::GetContentRegionAvail().y - summaryH);
  if (!ImGui::BeginTable("##passes", 5, flags, ImVec2(0, tableH))) return;
  float lh = ImGui::GetTextLineHeight();
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("#", ImGuiTableColumnFlags_WidthFixed, lh * 2.6f);
  ImGui::TableSetupColumn("pass", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("time", ImGuiTableColumnFlags_WidthFixed, lh * 4.f);
  ImGui::TableSetupColumn("ms", ImGuiTableColumnFlags_WidthFixed, lh * 3.6f);
  ImGui::TableSetupColumn("nodes", ImGuiTableColumnFlags_WidthFixed, lh * 3.2f);
  ImGui::TableHeadersRow();

  auto row = [&](int idx) {
    ImGui::TableNextRow();
    ImGui::PushID(idx);
    bool selected = s.selectedPass == idx;
    ImGui::TableSetColumnIndex(0);
    if (idx < 0) {
      ImGui::Dummy(ImVec2(lh, lh));
      ImGui::TableSetColumnIndex(1);
      if (ImGui::Selectable("(source graph)", selected, ImGuiSelectableFlags_SpanAllColumns)) s.selectPass(-1);
      if (selected && scrollToSelection_) ImGui::SetScrollHereY(0.5f);
      ImGui::TableSetColumnIndex(4);
      if (t.source) ImGui::Text("%zu", t.source->size());
      ImGui::PopID();
      return;
    }
    const trace::PassRecord& r = t.records[size_t(idx)];
    statusIcon(r.status, lh);
    ImGui::SameLine(0, 2);
    ImGui::TextDisabled("%d", idx);
    ImGui::TableSetColumnIndex(1);
    bool greyed = r.status == PassStatus::Skipped;
    if (greyed) ImGui::PushStyleColor(ImGuiCol_Text, theme::toVec(theme::kStatus[size_t(PassStatus::Skipped)] | 0xff000000));
    if (r.status == PassStatus::Failed) ImGui::PushStyleColor(ImGuiCol_Text, theme::toVec(theme::kStatus[size_t(PassStatus::Failed)]));
    std::string label = r.name;
    if (r.status == PassStatus::Skipped) label += fmt::format("  [{}]", passes::skipReasonName(r.reason));  // full reason below the list
    if (r.status == PassStatus::Failed) label += "  [failed]";
    if (s.pinnedPass == idx) label += "  (pinned)";
    if (ImGui::Selectable(label.c_str(), selected, ImGuiSelectableFlags_SpanAllColumns)) s.selectPass(idx);
    if (greyed || r.status == PassStatus::Failed) ImGui::PopStyleColor();
    if (selected && scrollToSelection_) ImGui::SetScrollHereY(0.5f);
    if (ImGui::BeginPopupContextItem("##passctx")) {
      if (ImGui::MenuItem("Pin for diff", nullptr, s.pinnedPass == idx)) s.pinnedPass = s.pinnedPass == idx ? kNoPin : idx;
      if (ImGui::MenuItem("Side by side (add a pane)", "S")) {
        s.addPane(idx);
        s.tab = CenterTab::Panes;
        s.tabChangeRequested = true;
      }
      ImGui::EndPopup();
    }
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::Text("%s: %s", r.name.c_str(), std::string(passes::passStatusName(r.status)).c_str());
      if (r.status == PassStatus::Skipped)
        ImGui::Text("reason: %s%s%s", std::string(passes::skipReasonName(r.reason)).c_str(), r.message.empty() ? "" : " - ",
                    r.message.c_str());
      if (r.status == PassStatus::Failed) {
        ImGui::PushStyleColor(ImGuiCol_Text, theme::toVec(theme::kStatus[size_t(PassStatus::Failed)]));
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40.f);
        ImGui::TextUnformatted(r.message.c_str());
        ImGui::PopTextWrapPos();
        ImGui::PopStyleColor();
      }
      ImGui::Text("scan %s  run %s  verify %s", viewmodel::formatDuration(r.scanNs).c_str(),
                  viewmodel::formatDuration(r.runNs).c_str(), viewmodel::formatDuration(r.verifyNs).c_str());
      if (r.ran())
        ImGui::Text("nodes %llu -> %llu; hot %llu, fast-copied %llu, re-inferred %llu", (unsigned long long)r.nodesBefore,
                    (unsigned long long)r.nodesAfter, (unsigned long long)r.hot, (unsigned long long)r.fastCopied,
                    (unsigned long long)r.reinferred);
      for (const trace::StatValue& st : r.stats)
        if (st.value) ImGui::BulletText("%s: %lld", st.name.c_str(), (long long)st.value);
      ImGui::TextDisabled("right-click: pin for diff");
      ImGui::EndTooltip();
    }
    ImGui::TableSetColumnIndex(2);
    {
      ImVec2 p = ImGui::GetCursorScreenPos();
      float w = ImGui::GetContentRegionAvail().x;
      ImDrawList* dl = ImGui::GetWindowDrawList();
      float x = p.x;
      auto seg = [&](int64_t ns, ImU32 col) {
        float sw = w * float(double(ns) / double(maxNs));
        if (sw > 0.f) dl->AddRectFilled(ImVec2(x, p.y + 2), ImVec2(x + std::max(sw, 1.f), p.y + lh - 2), col);
        x += sw;
      };
      seg(r.scanNs, theme::kScan);
      seg(r.runNs, theme::kRun);
      seg(r.verifyNs, theme::kVerify);
      ImGui::Dummy(ImVec2(w, lh));
    }
    ImGui::TableSetColumnIndex(3);
    ImGui::Text("%.3f", double(r.totalNs()) / 1e6);
    ImGui::TableSetColumnIndex(4);
    int64_t d = viewmodel::nodeDelta(r);
    if (d > 0) ImGui::TextColored(theme::toVec(theme::kAdded), "+%lld", (long long)d);
    else if (d < 0) ImGui::TextColored(theme::toVec(theme::kRemoved), "%lld", (long long)d);
    else if (r.ran()) ImGui::TextDisabled("0");
    ImGui::PopID();
  };

  // Row 0 is the source graph; then the visible passes (clipped).
  ImGuiListClipper clip;
  clip.Begin(int(visible_.size()) + 1);
  if (scrollToSelection_) {
    // Make sure the selected row is submitted so SetScrollHereY can reach it.
    auto it = std::lower_bound(visible_.begin(), visible_.end(), s.selectedPass);
    int rowIdx = s.selectedPass < 0 ? 0 : int(it - visible_.begin()) + 1;
    clip.ForceDisplayRangeByIndices(rowIdx, rowIdx + 1);
  }
  while (clip.Step())
    for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) row(i == 0 ? -1 : visible_[size_t(i - 1)]);
  ImGui::EndTable();
  scrollToSelection_ = false;
  ImGui::BeginChild("##passsummary", ImVec2(0, 0), true);
  summaryView_.draw(s);
  ImGui::EndChild();
}

}  // namespace ls::viewers
