// InsertInt32CastsAfterInt64PlaceholdersPass (upstream backends/arm/_passes/insert_int32_casts_after_int64_placeholders.py).
// TOSA has no int64: an int64 graph input (token ids, indices) becomes an int32 input; a cast
// int64 -> int32 of it, as upstream's InsertInt32CastsAfterInt64PlaceholdersPass inserts,
// moves out of the graph (the caller casts, as the boundary quantize of the INT profile), and
// the same-type cast left behind is removed by RemoveNoopClonePass. Verification hands the
// graph int32 values of its int64 inputs (exec::adaptInputs).
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

InsertInt32CastsAfterInt64PlaceholdersPass::InsertInt32CastsAfterInt64PlaceholdersPass()
    : InPlacePass("InsertInt32CastsAfterInt64PlaceholdersPass",
                  "int64 graph inputs become int32 inputs (the int64 -> int32 cast moves out of the graph)") {
  inputs_ = stat("inputs", "int64 graph inputs now taken as int32");
}

passes::ShouldRun InsertInt32CastsAfterInt64PlaceholdersPass::shouldRunImpl(const ir::Graph& g,
                                                                            const passes::PassContext&) const {
  for (const ir::NodePtr& p : g.nodes())
    if (p->kind == ir::NodeKind::Placeholder && p->outputs.size() == 1 && p->outputs[0].dtype == ir::DType::Int64)
      return passes::ShouldRun::yes();
  return passes::ShouldRun::no(passes::SkipReason::Precondition, "no graph input is int64");
}

Status InsertInt32CastsAfterInt64PlaceholdersPass::transform(passes::GraphEditor& ed) {
  ir::Graph& g = ed.graph();
  std::vector<NodeId> inputs;
  for (const ir::NodePtr& p : g.nodes())
    if (p->kind == ir::NodeKind::Placeholder && p->outputs.size() == 1 && p->outputs[0].dtype == ir::DType::Int64)
      inputs.push_back(p->id);
  const ir::Arg int32(ir::EnumArg{ir::EnumKind::DType, int32_t(ir::DType::Int32)});
  for (NodeId in : inputs) {
    const ir::ValueRef x{in, 0};
    LS_ASSIGN_OR_RETURN(c, ed.insertAfter(in, "aten._to_copy.default", {x}, {{"dtype", int32}},
                                          g.node(in).name + "_int32"));
    ed.replaceAllUses(x, c);
    g.mutableNode(in).outputs[0].dtype = ir::DType::Int32;  // the cast is now int32 -> int32
    bump(inputs_);
  }
  return Status::ok();
}

void registerInsertInt32CastsAfterInt64PlaceholdersPass(passes::PassRegistry& r) {
  r.add("InsertInt32CastsAfterInt64PlaceholdersPass",
        [] { return std::make_unique<InsertInt32CastsAfterInt64PlaceholdersPass>(); });
}

}  // namespace ls::arm
