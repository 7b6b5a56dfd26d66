// Timing A/B view.
#include "viewers/timing_ab_view.h"

#include <algorithm>

#include <fmt/format.h>
#include <imgui.h>

#include "viewers/model/timing_chart.h"
#include "viewers/model/timing_model.h"
#include "viewers/theme.h"

namespace ls::viewers {

using viewmodel::AbVerdict;
using viewmodel::formatDuration;

const viewmodel::AbComparison& TimingAbView::comparison(const ViewState& s) {
  const uint64_t ga = generationOf(s.trace), gb = generationOf(s.compareTrace), gr = s.compareRepeats ? s.compareRepeats->generation : 0;
  if (ga != genA_ || gb != genB_ || gr != genRepeats_) {
    genA_ = ga, genB_ = gb, genRepeats_ = gr;
    static const std::vector<session::RunSample> kNone;
    cmp_ = s.trace && s.compareTrace
               ? viewmodel::compareAb(*s.trace, *s.compareTrace, s.compareRepeats ? s.compareRepeats->runsA : kNone,
                                      s.compareRepeats ? s.compareRepeats->runsB : kNone)
               : viewmodel::AbComparison{};
    cmp_.labelA = s.labelA;
    cmp_.labelB = s.labelB;
  }
  return cmp_;
}

namespace {
ImU32 verdictColour(AbVerdict v) {
  switch (v) {
    case AbVerdict::AFaster: return theme::kRunA;
    case AbVerdict::BFaster: return theme::kRunB;
    case AbVerdict::SavedInA:
    case AbVerdict::SavedInB: return theme::kChanged;
    default: return theme::rgb(140, 140, 145);
  }
}

}  // namespace

void TimingAbView::draw(ViewState& s) {
  const viewmodel::AbComparison& c = comparison(s);
  ImGui::ColorButton("##a", theme::toVec(theme::kRunA), ImGuiColorEditFlags_NoTooltip, ImVec2(12, 12));
  ImGui::SameLine();
  ImGui::Text("A: %s", s.labelA.c_str());
  ImGui::SameLine();
  ImGui::ColorButton("##b", theme::toVec(theme::kRunB), ImGuiColorEditFlags_NoTooltip, ImVec2(12, 12));
  ImGui::SameLine();
  ImGui::TextWrapped("B: %s", s.labelB.c_str());

  // The total, in words first.
  ImGui::TextColored(theme::toVec(verdictColour(c.total.verdict)), "Total: %s", c.total.verdictText().c_str());
  ImGui::SameLine();
  ImGui::TextWrapped("pass manager A %s vs B %s: median (min-max) of %zu / %zu interleaved runs%s",
                     viewmodel::formatStats(c.total.a).c_str(), viewmodel::formatStats(c.total.b).c_str(), c.repeatsA, c.repeatsB,
                     s.compareRepeats ? "" : " (no timed repeats: no noise estimate)");
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("Grey: within noise, a difference of medians up to max(%.0f%% of the larger median, %s, the larger min-max "
                     "spread). Whiskers: min-max.",
                     c.floor.relative * 100, formatDuration(c.floor.absoluteNs).c_str());
  ImGui::PopStyleColor();

  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("baseline");
  ImGui::SameLine();
  ImGui::RadioButton("A##base", &baseline_, 0);
  ImGui::SameLine();
  ImGui::RadioButton("B##base", &baseline_, 1);
  ImGui::SameLine();
  ImGui::Checkbox("largest difference first", &byDifference_);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(90);
  if (ImGui::InputInt("repeats of the next compare", &s.compareRepeat)) s.compareRepeat = std::clamp(s.compareRepeat, 1, 50);

  if (!c.opDiffs.empty()) {
    std::string ops;
    for (size_t i = 0; i < c.opDiffs.size() && i < 10; ++i)
      ops += fmt::format("{}{} {} vs {}", i ? ", " : "", c.opDiffs[i].op, c.opDiffs[i].a, c.opDiffs[i].b);
    if (c.opDiffs.size() > 10) ops += fmt::format(" (+{} more)", c.opDiffs.size() - 10);
    ImGui::TextColored(theme::toVec(theme::kChanged), "Final op counts A vs B:");
    ImGui::SameLine();
    ImGui::TextWrapped("%s", ops.c_str());
  } else {
    ImGui::TextDisabled("Final graphs: the same op counts.");
  }

  std::vector<size_t> order;
  if (byDifference_) order = viewmodel::abRowsByDifference(c);
  else
    for (size_t i = 0; i < c.rows.size(); ++i) order.push_back(i);
  // Bars scale to the slowest pass (the total is in words above).
  int64_t maxNs = 1;
  for (const viewmodel::AbRow& r : c.rows) maxNs = std::max({maxNs, r.a.max, r.b.max});
  const float lh = ImGui::GetTextLineHeight();
  ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_Resizable;
  if (!ImGui::BeginTable("##ab", 6, flags, ImVec2(0, ImGui::GetContentRegionAvail().y))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("pass", ImGuiTableColumnFlags_WidthStretch, 1.2f);
  ImGui::TableSetupColumn("A / B", ImGuiTableColumnFlags_WidthStretch, 0.6f);
  ImGui::TableSetupColumn("A", ImGuiTableColumnFlags_WidthFixed, lh * 8.f);
  ImGui::TableSetupColumn("B", ImGuiTableColumnFlags_WidthFixed, lh * 8.f);
  ImGui::TableSetupColumn(baseline_ == 0 ? "vs A" : "vs B", ImGuiTableColumnFlags_WidthFixed, lh * 4.5f);
  ImGui::TableSetupColumn("verdict", ImGuiTableColumnFlags_WidthFixed, lh * 13.f);
  ImGui::TableHeadersRow();
  ImGuiListClipper clip;
  clip.Begin(int(order.size()));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  while (clip.Step()) {
    for (int k = clip.DisplayStart; k < clip.DisplayEnd; ++k) {
      const viewmodel::AbRow& r = c.rows[order[size_t(k)]];
      const bool grey = r.verdict == AbVerdict::Noise;
      const ImVec4 text = grey ? ImVec4(0.55f, 0.55f, 0.57f, 1.f) : ImGui::GetStyleColorVec4(ImGuiCol_Text);
      ImGui::TableNextRow();
      ImGui::PushID(k);
      ImGui::TableSetColumnIndex(0);
      const int index = r.inA() ? r.indexA : r.indexB;
      if (ImGui::Selectable(fmt::format("{} {}", index, r.name).c_str(), s.selectedPass == r.indexA && r.inA(),
                            ImGuiSelectableFlags_SpanAllColumns) && r.inA())
        s.selectPass(r.indexA);
      ImGui::TableSetColumnIndex(1);
      ImVec2 p = ImGui::GetCursorScreenPos();
      const float w = ImGui::GetContentRegionAvail().x, half = (lh - 2) * 0.5f;
      auto bar = [&](const session::SampleStats& st, bool present, float y, ImU32 col) {
        if (!present) return;
        auto x = [&](int64_t ns) { return p.x + w * float(double(ns) / double(maxNs)); };
        dl->AddRectFilled(ImVec2(p.x, y), ImVec2(std::max(x(st.median), p.x + 1.f), y + half - 1), grey ? theme::rgb(110, 110, 115) : col);
        if (st.n > 1) {
          const float mid = y + half * 0.5f;
          dl->AddLine(ImVec2(x(st.min), mid), ImVec2(x(st.max), mid), theme::rgb(230, 230, 230), 1.f);
          dl->AddLine(ImVec2(x(st.min), y), ImVec2(x(st.min), y + half - 1), theme::rgb(230, 230, 230), 1.f);
          dl->AddLine(ImVec2(x(st.max), y), ImVec2(x(st.max), y + half - 1), theme::rgb(230, 230, 230), 1.f);
        }
      };
      bar(r.a, r.inA(), p.y + 1, theme::kRunA);
      bar(r.b, r.inB(), p.y + 1 + half, theme::kRunB);
      ImGui::Dummy(ImVec2(w, lh));
      ImGui::TableSetColumnIndex(2);
      ImGui::TextColored(text, "%s", r.inA() ? viewmodel::formatStats(r.a).c_str() : "-");
      ImGui::TableSetColumnIndex(3);
      ImGui::TextColored(text, "%s", r.inB() ? viewmodel::formatStats(r.b).c_str() : "-");
      ImGui::TableSetColumnIndex(4);
      if (r.inA() && r.inB()) {
        const int64_t d = viewmodel::deltaVsBaseline(r, baseline_);
        ImGui::TextColored(text, "%s%s", d > 0 ? "+" : "", formatDuration(d).c_str());
      }
      ImGui::TableSetColumnIndex(5);
      ImGui::TextColored(theme::toVec(verdictColour(r.verdict)), "%s", r.verdictText().c_str());
      if (ImGui::IsItemHovered()) {
        auto st = [](bool in, passes::PassStatus x, passes::SkipReason why) {
          if (!in) return std::string("absent");
          return x == passes::PassStatus::Skipped ? "skipped (" + std::string(passes::skipReasonName(why)) + ")"
                                                  : std::string(passes::passStatusName(x));
        };
        ImGui::SetTooltip("A: %s\nB: %s\nnoise floor %s", st(r.inA(), r.statusA, r.reasonA).c_str(),
                          st(r.inB(), r.statusB, r.reasonB).c_str(), formatDuration(r.floorNs).c_str());
      }
      ImGui::PopID();
    }
  }
  ImGui::EndTable();
}

}  // namespace ls::viewers
