// Backend-independent cleanup passes.
#include "core/transforms/generic_passes.h"

#include <fmt/format.h>

#include <cstring>
#include <map>

#include "core/passes/pass_manager.h"

namespace ls::transforms {

using namespace passes;

// ---------------------------------------------------------------- RemoveNoopClone

RemoveNoopClonePass::RemoveNoopClonePass()
    : RetracePass("RemoveNoopClonePass", "Removes clone/alias/lift_fresh copies that leave metadata unchanged") {
  targets({"aten.clone.default", "aten.lift_fresh_copy.default", "aten.alias_copy.default", "aten.detach_copy.default"});
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
  const std::string& op = ir::opName(n.op);
  bool noop = false;
  if (op == "aten.view_copy.default" || op == "aten._unsafe_view.default" || op == "aten.expand_copy.default") {
    noop = true;
  } else if (op == "aten.permute_copy.default") {
    if (auto* dims = n.args.size() > 1 ? n.args[1].asIntList() : nullptr) {
      noop = true;
      for (size_t i = 0; i < dims->size(); ++i) {
        int64_t d = (*dims)[i] < 0 ? (*dims)[i] + int64_t(dims->size()) : (*dims)[i];
        if (d != int64_t(i)) noop = false;
      }
    }
  } else if (op == "aten.transpose_copy.int") {
    if (n.args.size() > 2 && n.args[1].asInt() && n.args[2].asInt()) {
      int r = im.rank();
      int64_t a = *n.args[1].asInt(), b = *n.args[2].asInt();
      noop = (a < 0 ? a + r : a) == (b < 0 ? b + r : b);
    }
  } else if (op == "aten.slice_copy.Tensor") {
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

// ---------------------------------------------------------------- FoldConstantViews

FoldConstantViewsPass::FoldConstantViewsPass()
    : InPlacePass("FoldConstantViewsPass", "Folds shape-only ops on constants that carry data into new constants") {
  targets({"aten.t_copy.default", "aten.transpose_copy.int", "aten.permute_copy.default", "aten.view_copy.default",
           "aten.unsqueeze_copy.default", "aten.squeeze_copy.dim", "aten.squeeze_copy.dims", "aten.squeeze_copy.default"});
  folded_ = stat("folded", "shape-only ops folded into constants");
  skippedNoData_ = stat("skipped_no_data", "candidates left alone because the constant has no data");
}

namespace {
/// Permutes the elements of a contiguous tensor: out[i] = in[perm applied].
std::vector<uint8_t> permuteBytes(const std::vector<uint8_t>& in, const ir::Shape& inShape,
                                  const std::vector<int>& perm, int elemSize) {
  int r = inShape.rank();
  std::vector<int64_t> inStride(static_cast<size_t>(r), 1);
  for (int i = r - 2; i >= 0; --i) inStride[size_t(i)] = inStride[size_t(i) + 1] * inShape[i + 1];
  std::vector<int64_t> outShape(static_cast<size_t>(r));
  for (int i = 0; i < r; ++i) outShape[size_t(i)] = inShape[perm[size_t(i)]];
  std::vector<uint8_t> out(in.size());
  std::vector<int64_t> idx(static_cast<size_t>(r), 0);
  int64_t n = inShape.numel();
  for (int64_t k = 0; k < n; ++k) {
    int64_t src = 0;
    for (int i = 0; i < r; ++i) src += idx[size_t(i)] * inStride[size_t(perm[size_t(i)])];
    std::memcpy(out.data() + k * elemSize, in.data() + src * elemSize, size_t(elemSize));
    for (int i = r - 1; i >= 0; --i) {
      if (++idx[size_t(i)] < outShape[size_t(i)]) break;
      idx[size_t(i)] = 0;
    }
  }
  return out;
}
}  // namespace

Status FoldConstantViewsPass::transform(GraphEditor& ed) {
  ir::Graph& g = ed.graph();
  std::vector<ir::NodeId> cands;
  for (ir::OpId op : targetOps())
    for (ir::NodeId id : g.nodesOfOp(op)) cands.push_back(id);
  std::sort(cands.begin(), cands.end(), [&](auto a, auto b) { return g.position(a) < g.position(b); });
  for (ir::NodeId id : cands) {
    const ir::Node& n = g.node(id);
    if (!allowedToTransform(n) || n.args.empty() || !n.args[0].ref()) continue;
    const ir::Node* src = g.find(n.args[0].ref()->node);
    if (!src || src->kind != ir::NodeKind::GetAttr) continue;
    const ir::Constant* c = g.constant(src->target);
    if (!c) continue;
    if (!c->hasData()) {
      bump(skippedNoData_);
      continue;
    }
    const ir::TensorMeta& out = n.meta(0);
    const std::string& op = ir::opName(n.op);
    int r = c->shape.rank();
    std::vector<int> perm(static_cast<size_t>(r));
    for (int i = 0; i < r; ++i) perm[size_t(i)] = i;
    if (op == "aten.t_copy.default" && r == 2) std::swap(perm[0], perm[1]);
    else if (op == "aten.transpose_copy.int") {
      int64_t a = *n.args[1].asInt(), b = *n.args[2].asInt();
      a = a < 0 ? a + r : a;
      b = b < 0 ? b + r : b;
      std::swap(perm[size_t(a)], perm[size_t(b)]);
    } else if (op == "aten.permute_copy.default") {
      const auto& dims = *n.args[1].asIntList();
      for (int i = 0; i < r; ++i) perm[size_t(i)] = int(dims[size_t(i)] < 0 ? dims[size_t(i)] + r : dims[size_t(i)]);
    }
    ir::Constant folded;
    folded.fqn = c->fqn;
    folded.kind = c->kind;
    folded.dtype = c->dtype;
    folded.shape = out.shape;
    folded.data = g.store().intern(permuteBytes(c->data->bytes, c->shape, perm, ir::dtypeSize(c->dtype)));
    ir::ValueRef v = ed.addConstant(id, std::move(folded), n.name + "_folded", {id, src->id});
    ed.replaceAllUses({id, 0}, v);
    LS_RETURN_IF_ERROR(ed.erase(id));
    bump(folded_);
  }
  if (ed.changed()) ed.eliminateDeadCode();
  return Status::ok();
}

// ---------------------------------------------------------------- DeadCodeElimination

DeadCodeEliminationPass::DeadCodeEliminationPass()
    : InPlacePass("DeadCodeEliminationPass", "Removes nodes whose values are never used") {
  removed_ = stat("removed", "dead nodes removed");
}

ShouldRun DeadCodeEliminationPass::shouldRun(const ir::Graph& g, const PassContext&) const {
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
  r.passes.add("FoldConstantViewsPass", [] { return std::make_unique<FoldConstantViewsPass>(); });
  r.passes.add("DeadCodeEliminationPass", [] { return std::make_unique<DeadCodeEliminationPass>(); });
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
