// EnsureUniqueOutputNodesPass (upstream backends/arm/_passes/ensure_unique_output_nodes_pass.py).
// One distinct node per graph-output slot (upstream EnsureUniqueOutputNodesPass, PR 18866):
// a value that fills several output slots gets a tosa.IDENTITY per extra slot.
#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/passes/rule_pass.h"

namespace ls::arm {

using passes::Rewriter;
using ir::NodeId;
using ir::DType;
using ir::Shape;

EnsureUniqueOutputNodesPass::EnsureUniqueOutputNodesPass()
    : InPlacePass("EnsureUniqueOutputNodesPass", "One distinct node per output slot: IDENTITY for repeated values") {
  inserted_ = stat("identities", "IDENTITY nodes inserted for repeated output slots");
}

passes::ShouldRun EnsureUniqueOutputNodesPass::shouldRunImpl(const ir::Graph& g, const passes::PassContext&) const {
  const ir::Node* out = g.outputNode();
  if (out && !out->args.empty())
    if (auto* l = out->args[0].asRefList()) {
      std::set<std::pair<NodeId, uint32_t>> seen;
      for (const ir::ValueRef& r : *l)
        if (!r.isNone() && !seen.insert({r.node, r.output}).second) return passes::ShouldRun::yes();
    }
  return passes::ShouldRun::no(passes::SkipReason::Precondition, "every output slot already holds a distinct value");
}

Status EnsureUniqueOutputNodesPass::transform(passes::GraphEditor& ed) {
  ir::Graph& g = ed.graph();
  const ir::Node* out = g.outputNode();
  if (!out || out->args.empty() || !out->args[0].asRefList()) return Status::ok();
  const ir::RefList slots = *out->args[0].asRefList();
  const NodeId outId = out->id;
  std::set<std::pair<NodeId, uint32_t>> seen;
  for (size_t i = 0; i < slots.size(); ++i) {
    const ir::ValueRef r = slots[i];
    if (r.isNone() || seen.insert({r.node, r.output}).second) continue;
    Builder build(ed, outId);
    build.setDerivedFrom({r.node});
    auto id = build.op("tosa.IDENTITY", {r}, {}, "output_identity");
    if (!id) return id.status();
    ed.replaceOutputSlot(i, *id);
    bump(inserted_);
  }
  return Status::ok();
}

void registerEnsureUniqueOutputNodesPass(passes::PassRegistry& r) {
  r.add("EnsureUniqueOutputNodesPass", [] { return std::make_unique<EnsureUniqueOutputNodesPass>(); });
}

}  // namespace ls::arm
