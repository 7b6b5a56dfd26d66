// Backend-independent cleanup passes.
#include "core/transforms/generic_passes.h"

#include <fmt/format.h>

#include <cstring>
#include <map>

#include "core/passes/pass_manager.h"
#include "core/transforms/constant_folding.h"
#include "core/transforms/decompositions.h"
#include "core/transforms/remove_getitem.h"
#include "core/ir/op_ref.h"

namespace ls::transforms {

using namespace passes;

// ---------------------------------------------------------------- RemoveNoopClone

RemoveNoopClonePass::RemoveNoopClonePass()
    : RetracePass("RemoveNoopClonePass",
                  "Removes clone/alias/lift_fresh/_to_copy copies that leave metadata (dtype, shape) unchanged") {
  targets({"aten.clone.default", "aten.lift_fresh_copy.default", "aten.alias_copy.default", "aten.detach_copy.default",
           "aten._to_copy.default"});
  removed_ = stat("removed", "value-identity copies removed");
}

Status RemoveNoopClonePass::rewrite(Rewriter& rw) {
  const ir::Node& n = rw.node();
  const ir::ValueRef* in = n.args.empty() ? nullptr : n.args[0].ref();
  if (!in) return Status::ok();
  // Compare against what the node computes now (its inputs may have been rewired).
  std::vector<ir::TensorMeta> out;
  LS_RETURN_IF_ERROR(ops::inferNode(rw.graph(), n, out, rw.context().inferenceCache()));
  if (out.size() == 1 && out[0] == rw.meta(*in)) {
    rw.replaceWith(*in);
    bump(removed_);
  }
  return Status::ok();
}

// ---------------------------------------------------------------- RemoveNoopView

RemoveNoopViewPass::RemoveNoopViewPass()
    : RetracePass("RemoveNoopViewPass", "Removes views, expands, permutes and slices that do nothing") {
  targets({"aten.view_copy.default", "aten._unsafe_view.default", "aten.expand_copy.default",
           "aten.permute_copy.default", "aten.transpose_copy.int", "aten.slice_copy.Tensor"});
  removed_ = stat("removed", "no-op shape ops removed");
}

Status RemoveNoopViewPass::rewrite(Rewriter& rw) {
  const ir::Node& n = rw.node();
  const ir::ValueRef* in = n.args.empty() ? nullptr : n.args[0].ref();
  if (!in) return Status::ok();
  const ir::TensorMeta& im = rw.meta(*in);
  std::vector<ir::TensorMeta> out;
  LS_RETURN_IF_ERROR(ops::inferNode(rw.graph(), n, out, rw.context().inferenceCache()));
  if (out.size() != 1 || out[0].shape != im.shape || out[0].dtype != im.dtype) return Status::ok();
  bool noop = false;
  if (n.op == LS_OP("aten.view_copy.default") || n.op == LS_OP("aten._unsafe_view.default") || n.op == LS_OP("aten.expand_copy.default")) {
    noop = true;
  } else if (n.op == LS_OP("aten.permute_copy.default")) {
    if (auto* dims = n.args.size() > 1 ? n.args[1].asIntList() : nullptr) {
      noop = true;
      for (size_t i = 0; i < dims->size(); ++i) {
        int64_t d = (*dims)[i] < 0 ? (*dims)[i] + int64_t(dims->size()) : (*dims)[i];
        if (d != int64_t(i)) noop = false;
      }
    }
  } else if (n.op == LS_OP("aten.transpose_copy.int")) {
    if (n.args.size() > 2 && n.args[1].asInt() && n.args[2].asInt()) {
      int r = im.rank();
      int64_t a = *n.args[1].asInt(), b = *n.args[2].asInt();
      noop = (a < 0 ? a + r : a) == (b < 0 ? b + r : b);
    }
  } else if (n.op == LS_OP("aten.slice_copy.Tensor")) {
    const ir::Arg* step = n.args.size() > 4 ? &n.args[4] : n.kwarg("step");
    noop = !step || step->isNone() || (step->asInt() && *step->asInt() == 1);
  }
  if (noop) {
    rw.replaceWith(*in);
    bump(removed_);
  }
  return Status::ok();
}

// ---------------------------------------------------------------- CleanupGetItem

CleanupGetItemPass::CleanupGetItemPass()
    : InPlacePass("CleanupGetItemPass", "Removes getitem of single-output values and merges duplicate getitems") {
  targets({"operator.getitem"});
  single_ = stat("single_output", "getitem(x, 0) of single-output producers removed");
  merged_ = stat("merged", "duplicate getitems merged");
}

Status CleanupGetItemPass::transform(GraphEditor& ed) {
  ir::Graph& g = ed.graph();
  std::map<std::pair<ir::NodeId, int64_t>, ir::NodeId> firstSeen;
  std::vector<ir::NodeId> ids(g.nodesOfOp(ir::internOp("operator.getitem")).begin(),
                              g.nodesOfOp(ir::internOp("operator.getitem")).end());
  std::sort(ids.begin(), ids.end(), [&](auto a, auto b) { return g.position(a) < g.position(b); });
  for (ir::NodeId id : ids) {
    const ir::Node& n = g.node(id);
    if (n.args.size() < 2 || !n.args[0].ref() || !n.args[1].asInt()) continue;
    ir::ValueRef src = *n.args[0].ref();
    int64_t idx = *n.args[1].asInt();
    const ir::Node* prod = g.find(src.node);
    if (!prod) continue;
    if (prod->outputs.size() == 1 && idx == 0 && !prod->hasFlag(ir::kFlagOutputsAsList)) {
      ed.replaceAllUses({id, 0}, src);
      LS_RETURN_IF_ERROR(ed.erase(id));
      bump(single_);
      continue;
    }
    auto [it, inserted] = firstSeen.emplace(std::make_pair(src.node, idx), id);
    if (!inserted) {
      ed.replaceAllUses({id, 0}, {it->second, 0});
      LS_RETURN_IF_ERROR(ed.erase(id));
      bump(merged_);
    }
  }
  return Status::ok();
}

// ---------------------------------------------------------------- DeadCodeElimination

DeadCodeEliminationPass::DeadCodeEliminationPass()
    : InPlacePass("DeadCodeEliminationPass", "Removes nodes whose values are never used") {
  removed_ = stat("removed", "dead nodes removed");
}

ShouldRun DeadCodeEliminationPass::shouldRunImpl(const ir::Graph& g, const PassContext&) const {
  for (const ir::NodePtr& p : g.nodes())
    if ((p->kind == ir::NodeKind::Call || p->kind == ir::NodeKind::GetAttr) && g.users(p->id).empty())
      return ShouldRun::yes();
  return ShouldRun::no(SkipReason::Precondition, "no dead nodes");
}

Status DeadCodeEliminationPass::transform(GraphEditor& ed) {
  bump(removed_, int64_t(ed.eliminateDeadCode()));
  return Status::ok();
}

namespace {
void registerGeneric(const passes::Registries& r) {
  r.passes.add("RemoveNoopClonePass", [] { return std::make_unique<RemoveNoopClonePass>(); });
  r.passes.add("RemoveNoopViewPass", [] { return std::make_unique<RemoveNoopViewPass>(); });
  r.passes.add("CleanupGetItemPass", [] { return std::make_unique<CleanupGetItemPass>(); });
  r.passes.add("DeadCodeEliminationPass", [] { return std::make_unique<DeadCodeEliminationPass>(); });
  // The shared transforms (one implementation each; the Arm, XNNPACK and quantizer pipelines
  // name them).
  registerConstantFoldingPasses(r.passes);
  registerDecompositionPasses(r.passes);
  registerRemoveGetItemPasses(r.passes);
  r.pipelines.add({"generic",
                   "Backend-independent cleanup: no-op copies and views, getitem cleanup, constant view folding, DCE",
                   {"RemoveNoopClonePass", "RemoveNoopViewPass", "CleanupGetItemPass", "FoldConstantViewsPass",
                    "DeadCodeEliminationPass"}});
}
}  // namespace

const passes::Backend& genericBackend() {
  static const passes::Backend b{"generic", "Backend-independent cleanup passes and the `generic` pipeline",
                                  registerGeneric};
  return b;
}

}  // namespace ls::transforms
