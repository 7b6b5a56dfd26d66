// Delegation tab (see delegation_view.h).
#include "viewers/delegation_view.h"

#include <string>

#include <fmt/format.h>
#include <imgui.h>

#include "viewers/theme.h"

namespace ls::viewers {

namespace {
ImVec4 rgbVec(uint32_t rgb) {
  return ImVec4(float(rgb >> 16 & 255) / 255.f, float(rgb >> 8 & 255) / 255.f, float(rgb & 255) / 255.f, 1.f);
}
}  // namespace

void DelegationView::draw(ViewState& s, const std::shared_ptr<const ir::Graph>& shown) {
  if (!shown) {
    ImGui::TextDisabled("No graph yet.");
    return;
  }
  if (shown.get() != cached_) {
    cached_ = shown.get();
    hold_ = shown;
    d_ = viewmodel::delegation(*shown);
  }
  auto select = [&](ir::NodeId id) {
    s.selectedNode = id;
    s.centerRequested = true;
    s.tab = CenterTab::Graph;
    s.tabChangeRequested = true;
  };
  if (!d_.any())
    ImGui::TextWrapped("No delegates in this graph (run the xnnpack pipeline and select a pass after "
                       "XnnpackPartitionPass). Below: why each op here would or would not be delegated.");
  else
    ImGui::Text("%zu delegates, %lld delegated nodes; %lld call nodes left outside", d_.delegates.size(),
                (long long)d_.delegatedNodes, (long long)d_.topLevelCalls);
  ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_Resizable |
                          ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingStretchProp;
  const float half = ImGui::GetContentRegionAvail().y * 0.5f;
  if (d_.any() && ImGui::BeginTable("##delegates", 3, flags, ImVec2(0, half))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("delegate", ImGuiTableColumnFlags_WidthStretch, 1.f);
    ImGui::TableSetupColumn("nodes", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 4.f);
    ImGui::TableSetupColumn("ops", ImGuiTableColumnFlags_WidthStretch, 3.f);
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < d_.delegates.size(); ++i) {
      const viewmodel::DelegateRow& r = d_.delegates[i];
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::PushID(int(i));
      ImGui::PushStyleColor(ImGuiCol_Text, rgbVec(viewmodel::partitionColour(i)));
      if (ImGui::Selectable(r.name.c_str(), s.selectedNode == r.node, ImGuiSelectableFlags_SpanAllColumns)) select(r.node);
      ImGui::PopStyleColor();
      ImGui::PopID();
      ImGui::TableSetColumnIndex(1);
      ImGui::Text("%lld", (long long)r.nodes);
      ImGui::TableSetColumnIndex(2);
      std::string ops;
      for (const auto& [op, n] : r.ops) ops += fmt::format("{}{} x{}", ops.empty() ? "" : ", ", op, n);
      ImGui::TextWrapped("%s", ops.c_str());
    }
    ImGui::EndTable();
  }
  ImGui::TextUnformatted(d_.any() ? "Undelegated ops" : "Ops");
  if (ImGui::BeginTable("##undelegated", 3, flags)) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("op", ImGuiTableColumnFlags_WidthStretch, 1.5f);
    ImGui::TableSetupColumn("count", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 4.f);
    ImGui::TableSetupColumn("reason", ImGuiTableColumnFlags_WidthStretch, 3.f);
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < d_.undelegated.size(); ++i) {
      const viewmodel::UndelegatedRow& r = d_.undelegated[i];
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::PushID(int(i) + 100000);
      bool sel = !r.nodes.empty() && s.selectedNode == r.nodes.front();
      if (ImGui::Selectable(r.op.c_str(), sel, ImGuiSelectableFlags_SpanAllColumns) && !r.nodes.empty()) {
        // Each click selects the next node of the op.
        size_t k = 0;
        for (size_t j = 0; j < r.nodes.size(); ++j)
          if (r.nodes[j] == s.selectedNode) k = (j + 1) % r.nodes.size();
        select(r.nodes[k]);
      }
      ImGui::PopID();
      ImGui::TableSetColumnIndex(1);
      ImGui::Text("%lld", (long long)r.count);
      ImGui::TableSetColumnIndex(2);
      ImGui::TextWrapped("%s", r.reason.c_str());
    }
    ImGui::EndTable();
  }
}

}  // namespace ls::viewers
