// Single-output forms of max_pool2d_with_indices and max.dim (see remove_getitem.h).
#include "core/transforms/remove_getitem.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/ops/registry.h"
#include "core/passes/node_builder.h"
#include "core/passes/pass_manager.h"

namespace ls::transforms {

RemoveGetItemPass::RemoveGetItemPass()
    : InPlacePass("RemoveGetItemPass",
                  "max_pool2d_with_indices / max.dim with unused indices -> max_pool2d / amax, getitem(0) removed") {
  targets({"aten.max_pool2d_with_indices.default", "aten.max.dim"});
  removed_ = stat("removed", "multi-output ops replaced by their single-output form");
}

Status RemoveGetItemPass::transform(passes::GraphEditor& ed) {
  static const ir::OpId kGetitem = ir::internOp("operator.getitem");
  static const ir::OpId kMaxDim = ir::internOp("aten.max.dim");
  ir::Graph& g = ed.graph();
  std::vector<ir::NodeId> ids;
  for (ir::OpId op : targetOps())
    for (ir::NodeId id : g.nodesOfOp(op)) ids.push_back(id);
  std::sort(ids.begin(), ids.end(), [&](auto a, auto b) { return g.position(a) < g.position(b); });
  for (ir::NodeId id : ids) {
    const ir::Node& n = g.node(id);
    if (!allowedToTransform(n) || n.args.empty() || !n.args[0].ref()) continue;
    std::vector<ir::NodeId> values, indices;
    bool ok = true;
    for (ir::NodeId u : g.users(id)) {
      const ir::Node& un = g.node(u);
      if (un.op != kGetitem || un.args.size() < 2 || !un.args[1].asInt()) ok = false;
      else if (*un.args[1].asInt() == 0) values.push_back(u);
      else if (g.users(u).empty()) indices.push_back(u);
      else ok = false;
    }
    if (!ok) continue;
    Result<ir::ValueRef> r = Status::ok();
    passes::NodeBuilder build(ed, id);
    if (n.op == kMaxDim) {
      const int64_t* dim = ops::schemaArg(n, 1).asInt();
      if (!dim) continue;
      const bool* kd = ops::schemaArg(n, 2).asBool();
      r = build.op("aten.amax.default", {*n.args[0].ref(), ir::IntList{*dim}, kd && *kd}, {}, "amax");
    } else {
      std::vector<ir::Arg> args(n.args.begin(), n.args.end());
      r = build.op("aten.max_pool2d.default", std::move(args), n.kwargs, "max_pool2d");
    }
    if (!r) return r.status().withContext(fmt::format("RemoveGetItemPass at '{}': ", g.node(id).name));
    for (ir::NodeId gi : values) {
      ed.replaceAllUses({gi, 0}, *r);
      LS_RETURN_IF_ERROR(ed.erase(gi));
    }
    for (ir::NodeId gi : indices) LS_RETURN_IF_ERROR(ed.erase(gi));
    LS_RETURN_IF_ERROR(ed.erase(id));
    bump(removed_);
  }
  return Status::ok();
}

void registerRemoveGetItemPasses(passes::PassRegistry& r) {
  r.add("RemoveGetItemPass", [] { return std::make_unique<RemoveGetItemPass>(); });
}

}  // namespace ls::transforms
