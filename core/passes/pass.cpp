// Pass base: target-op declaration, default should_run via the op index, statistics.
#include "core/passes/pass.h"

#include <fmt/format.h>

#include <array>

namespace ls::passes {

namespace {
constexpr std::array<std::string_view, size_t(Profile::COUNT)> kProfiles = {"fp", "int"};
constexpr std::array<std::string_view, size_t(Target::COUNT)> kTargets = {"generic", "u55", "u85"};
constexpr std::array<std::string_view, size_t(PassStatus::COUNT)> kStatuses = {"changed", "unchanged", "skipped",
                                                                                "failed"};
constexpr std::array<std::string_view, size_t(SkipReason::COUNT)> kReasons = {
    "", "no-target-ops", "targets-disallowed", "profile", "target", "precondition", "disabled", "cancelled", "not-reached"};
}  // namespace

std::string_view profileName(Profile p) { return p < Profile::COUNT ? kProfiles[size_t(p)] : "?"; }
std::string_view targetName(Target t) { return t < Target::COUNT ? kTargets[size_t(t)] : "?"; }
std::string_view passStatusName(PassStatus s) { return s < PassStatus::COUNT ? kStatuses[size_t(s)] : "?"; }
std::string_view skipReasonName(SkipReason r) { return r < SkipReason::COUNT ? kReasons[size_t(r)] : "?"; }

std::optional<Profile> parseProfile(std::string_view s) {
  for (size_t i = 0; i < kProfiles.size(); ++i)
    if (kProfiles[i] == s) return Profile(i);
  return std::nullopt;
}
std::optional<Target> parseTarget(std::string_view s) {
  for (size_t i = 0; i < kTargets.size(); ++i)
    if (kTargets[i] == s) return Target(i);
  return std::nullopt;
}

Pass::Pass(std::string name, std::string description) : name_(std::move(name)), description_(std::move(description)) {}

void Pass::targets(std::initializer_list<std::string_view> ops) {
  for (std::string_view op : ops) {
    ir::OpId id = ir::internOp(op);
    targetOps_.push_back(id);
    if (targetMask_.size() <= id) targetMask_.resize(id + 1, 0);
    targetMask_[id] = 1;
  }
}

void Pass::targets(const std::vector<std::string>& ops) {
  for (const std::string& op : ops) targets({std::string_view(op)});
}

bool Pass::allowedToTransform(const ir::Node& n) const {
  return !checkAllowed_ || !n.hasFlag(ir::kFlagDisallowTransform);
}

size_t Pass::stat(std::string statName, std::string desc) {
  stats_.push_back({std::move(statName), std::move(desc), 0});
  return stats_.size() - 1;
}

namespace {
// 0: no target nodes, 1: target nodes but all disallowed, 2: an allowed target node exists.
int scanGraph(const Pass& p, const ir::Graph& g) {
  int best = 0;
  for (ir::OpId op : p.targetOps()) {
    auto ids = g.nodesOfOp(op);
    if (ids.empty()) continue;
    if (!p.checksAllowedToTransform()) return 2;
    best = 1;
    for (ir::NodeId id : ids)
      if (p.allowedToTransform(g.node(id))) return 2;
  }
  for (const auto& [name, sg] : g.subgraphs()) {
    best = std::max(best, scanGraph(p, *sg));
    if (best == 2) return 2;
  }
  return best;
}
}  // namespace

ShouldRun Pass::targetScan(const ir::Graph& g) const {
  if (targetOps_.empty()) return ShouldRun::yes();
  switch (scanGraph(*this, g)) {
    case 2: return ShouldRun::yes();
    case 1: return ShouldRun::no(SkipReason::TargetsDisallowed, "every target node is flagged disallow-transform");
    default: return ShouldRun::no(SkipReason::NoTargetOps);
  }
}

bool Pass::anyTargetNode(const ir::Graph& g,
                         const std::function<bool(const ir::Graph&, const ir::Node&)>& candidate) const {
  for (ir::OpId op : targetOps_)
    for (ir::NodeId id : g.nodesOfOp(op))
      if (const ir::Node& n = g.node(id); allowedToTransform(n) && candidate(g, n)) return true;
  for (const auto& [name, sub] : g.subgraphs())
    if (sub && anyTargetNode(*sub, candidate)) return true;
  return false;
}

ShouldRun Pass::shouldRun(const ir::Graph& g, const PassContext& ctx) const {
  ShouldRun s = applicability_.check(ctx);
  return s.run ? shouldRunImpl(g, ctx) : s;
}

ShouldRun Pass::shouldRunImpl(const ir::Graph& g, const PassContext&) const { return targetScan(g); }

PassResult Pass::run(ir::Graph& g, PassContext& ctx) {
  for (Statistic& s : stats_) s.value = 0;
  return runImpl(g, ctx);
}

ShouldRun Applicability::check(const PassContext& ctx) const {
  if (!allows(ctx.profile))
    return ShouldRun::no(SkipReason::Profile, ctx.profile == Profile::FP ? "needs the INT profile" : "needs the FP profile");
  if (!allows(ctx.target)) return ShouldRun::no(SkipReason::Target, fmt::format("not for target {}", targetName(ctx.target)));
  return ShouldRun::yes();
}

std::string Applicability::describe() const {
  if (*this == any()) return "all";
  std::string s = fp && integer ? "fp, int" : fp ? "fp" : integer ? "int" : "none";
  if (!(generic && u55 && u85)) {
    std::string t;
    if (generic) t += "generic";
    if (u55) t += std::string(t.empty() ? "" : ", ") + "u55";
    if (u85) t += std::string(t.empty() ? "" : ", ") + "u85";
    s += "; " + (t.empty() ? std::string("no target") : t);
  }
  return s;
}

}  // namespace ls::passes
