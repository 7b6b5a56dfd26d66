// Colours shared by the views: op namespaces, diff marks, pass statuses, timing phases.
#pragma once

#include <array>

#include <imgui.h>

#include "core/passes/pass.h"
#include "viewers/model/graph_model.h"

namespace ls::viewers::theme {

constexpr ImU32 rgb(int r, int g, int b, int a = 255) { return IM_COL32(r, g, b, a); }

/// Box fill by op namespace (viewmodel::OpNamespace order).
inline constexpr std::array<ImU32, size_t(viewmodel::OpNamespace::COUNT)> kNamespaceFill = {
    rgb(58, 96, 150),   // aten
    rgb(38, 128, 118),  // tosa
    rgb(118, 72, 150),  // quantized
    rgb(170, 100, 40),  // delegate
    rgb(70, 70, 78),    // input
    rgb(52, 56, 60),    // constant
    rgb(90, 90, 96),    // output
    rgb(120, 60, 60),   // unknown
    rgb(64, 70, 120),   // module (folded)
};
static_assert(kNamespaceFill.size() == size_t(viewmodel::OpNamespace::COUNT));

inline constexpr ImU32 kAdded = rgb(70, 190, 90);
inline constexpr ImU32 kChanged = rgb(235, 170, 40);
inline constexpr ImU32 kRemoved = rgb(220, 60, 60);
inline constexpr ImU32 kSelected = rgb(255, 255, 255);
inline constexpr ImU32 kSearchHit = rgb(90, 200, 255);
inline constexpr ImU32 kLinked = rgb(130, 160, 255);  ///< provenance links: "replaced by" / "fused from"
inline constexpr ImU32 kCulprit = rgb(255, 60, 200);  ///< outline of the localised culprit node
inline constexpr ImU32 kBadgeText = rgb(150, 215, 170);  ///< parameter badges and "N users" stubs
inline constexpr ImU32 kEdge = rgb(150, 150, 160, 150);
inline constexpr ImU32 kCanvasBg = rgb(24, 25, 28);

/// Pass status colours (passes::PassStatus order).
inline constexpr std::array<ImU32, size_t(passes::PassStatus::COUNT)> kStatus = {
    rgb(80, 200, 120),   // changed
    rgb(160, 160, 170),  // unchanged
    rgb(95, 95, 100),    // skipped
    rgb(230, 70, 70),    // failed
};
static_assert(kStatus.size() == size_t(passes::PassStatus::COUNT));

/// Timing phases: scan (should_run), run, verify.
inline constexpr ImU32 kScan = rgb(110, 150, 220);
inline constexpr ImU32 kRun = rgb(230, 150, 60);
inline constexpr ImU32 kVerify = rgb(150, 110, 200);
inline constexpr ImU32 kRunA = rgb(100, 160, 230);
inline constexpr ImU32 kRunB = rgb(235, 140, 70);

inline ImVec4 toVec(ImU32 c) { return ImGui::ColorConvertU32ToFloat4(c); }

}  // namespace ls::viewers::theme
