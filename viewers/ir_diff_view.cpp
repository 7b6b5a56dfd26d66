// Text IR diff view (see ir_diff_view.h).
#include "viewers/ir_diff_view.h"

#include <imgui.h>

#include "viewers/theme.h"

namespace ls::viewers {

void IrDiffView::draw(const ViewState& s) {
  GraphPtr shown = s.shownGraph(), compared = s.comparedGraph();
  if (!shown || !compared) {
    ImGui::TextDisabled("No diff: select a pass (the source graph has nothing to compare with).");
    return;
  }
  if (!computed_ || shown_ != s.shownKey() || compared_ != s.comparedKey()) {
    shown_ = s.shownKey();
    compared_ = s.comparedKey();
    diff_ = viewmodel::irDiff(*compared, *shown);
    computed_ = true;
  }
  ImGui::Text("IR diff: +%zu -%zu lines (%zu -> %zu)  |  D: back to the graph", diff_.added, diff_.removed,
              diff_.beforeLines, diff_.afterLines);
  if (diff_.lines.empty()) {
    ImGui::TextDisabled("The printed graphs are identical.");
    return;
  }
  ImGui::BeginChild("##irdiff", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  ImGuiListClipper clip;
  clip.Begin(int(diff_.lines.size()));
  while (clip.Step())
    for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
      const viewmodel::IrDiffLine& l = diff_.lines[size_t(i)];
      switch (l.kind) {
        case viewmodel::IrDiffLine::Kind::Hunk: ImGui::TextColored(theme::toVec(theme::kLinked), "%s", l.text.c_str()); break;
        case viewmodel::IrDiffLine::Kind::Added: ImGui::TextColored(theme::toVec(theme::kAdded), "+%s", l.text.c_str()); break;
        case viewmodel::IrDiffLine::Kind::Removed: ImGui::TextColored(theme::toVec(theme::kRemoved), "-%s", l.text.c_str()); break;
        case viewmodel::IrDiffLine::Kind::Context: ImGui::TextDisabled(" %s", l.text.c_str()); break;
      }
    }
  ImGui::EndChild();
}

}  // namespace ls::viewers
