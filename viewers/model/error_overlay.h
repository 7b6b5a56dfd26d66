// Error overlay of a localised pass (verify --each --localize): per node of the shown graph,
// the error against the graph before the pass as a heat colour, the culprit, and the lines the
// inspector shows. No ImGui: tested in tests/viewers/error_overlay_test.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/trace/localization.h"
#include "viewers/model/run_job.h"

namespace ls::viewmodel {

/// An 8-bit RGBA colour (the views convert it to their colour type).
struct Rgba {
  uint8_t r = 0, g = 0, b = 0, a = 255;
  bool operator==(const Rgba&) const = default;
};

/// Errors above tolerance map to [0, 1] on a log scale: 1 tolerance -> 0, 1000 and more -> 1.
inline constexpr double kHeatDecades = 3.0;
float heatPosition(double error);
/// Heat colour at position t in [0, 1]: yellow -> orange -> red.
Rgba heatColour(float t);
/// The box colour of a node error: neutral grey within tolerance, the heat colour above.
Rgba errorColour(const trace::NodeError& e);
/// Neutral colour of compared nodes within tolerance.
inline constexpr Rgba kWithinTolerance{96, 104, 112, 255};

/// The localisation of one trace, when the shown graph is the result of the localised pass
/// (the top graph at that pass). Keyed by trace generation by its owner.
class ErrorOverlay {
 public:
  /// The overlay for pass `selectedPass` of `trace`: active when the trace was localised at
  /// that pass and no nested graph is open.
  static ErrorOverlay build(const TracePtr& trace, int selectedPass, bool nestedGraphOpen);

  bool active() const { return loc_ != nullptr; }
  const trace::Localization* localization() const { return loc_.get(); }
  /// The error of node `id`, or null when it was not compared (or the overlay is off).
  const trace::NodeError* error(ir::NodeId id) const;
  /// Why node `id` was not compared ("" when it was, or is not a call node).
  std::string skipReason(ir::NodeId id) const;
  bool isCulprit(ir::NodeId id) const { return loc_ && id != ir::kInvalidNode && id == loc_->culprit; }

  /// The inspector's lines for node `n` of `g`: its error, what it was compared with (a
  /// provenance match names the node before the pass), the culprit verdict, then one line per
  /// input value ("input %name: error 0.2 (within tolerance)" or why it was not compared).
  std::vector<std::string> describe(const ir::Graph& g, const ir::Node& n) const;

 private:
  TracePtr trace_;  ///< holds the graphs the localisation refers to
  std::shared_ptr<const trace::Localization> loc_;
  std::vector<int32_t> byId_;  ///< index into loc_->nodes by NodeId, -1 none
  std::vector<int32_t> skippedById_;
};

}  // namespace ls::viewmodel
