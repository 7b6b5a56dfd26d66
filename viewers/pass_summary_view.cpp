// Selected-pass summary (see pass_summary_view.h).
#include "viewers/pass_summary_view.h"

#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <imgui.h>

#include "viewers/theme.h"

namespace ls::viewers {

void PassSummaryView::draw(const ViewState& s) {
  if (!s.trace) return;
  if (generation_ != generationOf(s.trace) || pass_ != s.selectedPass) {
    generation_ = generationOf(s.trace);
    pass_ = s.selectedPass;
    summary_ = viewmodel::passSummary(*s.trace, s.selectedPass);
  }
  const viewmodel::PassSummary& m = summary_;
  ImGui::TextUnformatted(m.title.c_str());
  if (!m.description.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%s", m.description.c_str());
    ImGui::PopStyleColor();
  }
  if (!m.reason.empty()) ImGui::TextWrapped("%s", m.reason.c_str());
  if (!m.targetOps.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("looks for: %s", fmt::format("{}", fmt::join(m.targetOps, ", ")).c_str());
    ImGui::PopStyleColor();
  }
  if (!m.timing.empty() && s.selectedPass >= 0) ImGui::TextUnformatted(m.timing.c_str());
  if (!m.nodes.empty()) ImGui::TextWrapped("%s", m.nodes.c_str());
  if (!m.changes.empty()) {
    ImGui::TextUnformatted("changes:");
    for (const viewmodel::ChangeGroup& g : m.changes) {
      ImU32 col = g.text.rfind("+ ", 0) == 0 ? theme::kAdded
                  : g.text.rfind("- ", 0) == 0 ? theme::kRemoved
                  : g.text.rfind("~ ", 0) == 0 ? theme::kChanged
                                               : theme::kLinked;
      ImGui::PushStyleColor(ImGuiCol_Text, theme::toVec(col));
      ImGui::TextWrapped("%zux %s", g.count, g.text.c_str());
      ImGui::PopStyleColor();
    }
  }
  for (const auto& [name, value] : m.statistics) ImGui::BulletText("%s: %lld", name.c_str(), (long long)value);
}

}  // namespace ls::viewers
