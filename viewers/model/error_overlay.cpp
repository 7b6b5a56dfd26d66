// Error overlay of a localised pass: heat colours and inspector lines.
#include "viewers/model/error_overlay.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace ls::viewmodel {

namespace {

std::string errorText(double e) { return std::isfinite(e) ? fmt::format("{:.3g}", e) : "inf"; }

}  // namespace

float heatPosition(double error) {
  if (!(error > 1.0)) return 0.f;
  if (!std::isfinite(error)) return 1.f;
  return float(std::clamp(std::log10(error) / kHeatDecades, 0.0, 1.0));
}

Rgba heatColour(float t) {
  t = std::clamp(t, 0.f, 1.f);
  // Yellow (250, 220, 60) -> orange (245, 140, 40) -> red (215, 40, 40).
  auto mix = [](int a, int b, float u) { return uint8_t(std::lround(float(a) + (float(b) - float(a)) * u)); };
  if (t < 0.5f) {
    float u = t / 0.5f;
    return {mix(250, 245, u), mix(220, 140, u), mix(60, 40, u), 255};
  }
  float u = (t - 0.5f) / 0.5f;
  return {mix(245, 215, u), mix(140, 40, u), mix(40, 40, u), 255};
}

Rgba errorColour(const trace::NodeError& e) { return e.exceeds ? heatColour(heatPosition(e.error)) : kWithinTolerance; }

ErrorOverlay ErrorOverlay::build(const TracePtr& trace, int selectedPass, bool nestedGraphOpen) {
  ErrorOverlay o;
  if (!trace || !trace->localization || nestedGraphOpen || trace->localization->passIndex != selectedPass) return o;
  o.trace_ = trace;
  o.loc_ = trace->localization;
  auto place = [](std::vector<int32_t>& v, ir::NodeId id, int32_t i) {
    if (id == ir::kInvalidNode) return;
    if (v.size() <= id) v.resize(size_t(id) + 1, -1);
    v[id] = i;
  };
  for (size_t i = 0; i < o.loc_->nodes.size(); ++i) place(o.byId_, o.loc_->nodes[i].id, int32_t(i));
  for (size_t i = 0; i < o.loc_->skipped.size(); ++i) place(o.skippedById_, o.loc_->skipped[i].id, int32_t(i));
  return o;
}

const trace::NodeError* ErrorOverlay::error(ir::NodeId id) const {
  if (!loc_ || id >= byId_.size() || byId_[id] < 0) return nullptr;
  return &loc_->nodes[size_t(byId_[id])];
}

std::string ErrorOverlay::skipReason(ir::NodeId id) const {
  if (!loc_ || id >= skippedById_.size() || skippedById_[id] < 0) return "";
  return loc_->skipped[size_t(skippedById_[id])].reason;
}

std::vector<std::string> ErrorOverlay::describe(const ir::Graph& g, const ir::Node& n) const {
  std::vector<std::string> lines;
  if (!loc_) return lines;
  if (const trace::NodeError* e = error(n.id)) {
    lines.push_back(fmt::format("error {} tolerances (max abs {:.4g}): {}", errorText(e->error), e->maxAbsError,
                                e->exceeds ? "ABOVE tolerance" : "within tolerance"));
    if (e->match == trace::NodeMatch::Provenance) {
      const ir::Node* was = trace_->graphBefore(loc_->passIndex).find(e->matched);
      lines.push_back(fmt::format("compared with %{} before the pass (it replaces that node: provenance)",
                                  was ? was->name : fmt::format("node {}", e->matched)));
    }
    if (isCulprit(n.id))
      lines.push_back("CULPRIT: the first node whose error exceeds the tolerance while its inputs' do not");
    else if (e->source)
      lines.push_back("an error starts here too (its inputs are within tolerance)");
    else if (e->exceeds)
      lines.push_back(fmt::format("inherited: its inputs carry error {}", errorText(e->inputError)));
  } else if (std::string why = skipReason(n.id); !why.empty()) {
    lines.push_back("not compared: " + why);
  } else if (n.isCall()) {
    lines.push_back("not compared");
  }
  n.forEachInput([&](const ir::ValueRef& r) {
    const ir::Node* in = g.find(r.node);
    const std::string name = in ? in->name : fmt::format("node {}", r.node);
    if (const trace::NodeError* ie = error(r.node))
      lines.push_back(fmt::format("input %{}: error {} ({})", name, errorText(ie->error),
                                  ie->exceeds ? "above tolerance" : "within tolerance"));
    else if (in && !in->isCall())
      lines.push_back(fmt::format("input %{}: {} (not compared)", name, ir::nodeKindName(in->kind)));
    else if (std::string why = skipReason(r.node); !why.empty())
      lines.push_back(fmt::format("input %{}: not compared ({})", name, why));
    else
      lines.push_back(fmt::format("input %{}: not compared", name));
  });
  return lines;
}

}  // namespace ls::viewmodel
