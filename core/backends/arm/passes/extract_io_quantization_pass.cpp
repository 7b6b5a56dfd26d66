// ExtractIOQuantizationPass (no upstream file of this name at the pinned commit).
// INT profile: the graph takes and returns int8, as the TOSA graph upstream's partitioner hands
// to Vela (the boundary quantize/dequantize stay outside the delegate). A graph input read only
// by quantize_per_tensor nodes with one set of qparams becomes an int8 input annotated with
// them (the quantizes go); an output slot filled by a dequantize_per_tensor of an int8 value
// returns that value (annotated with the dequantize's qparams). Inputs with another reader
// and outputs of any other kind stay as they are (the float islands check counts them).
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

ExtractIOQuantizationPass::ExtractIOQuantizationPass()
    : InPlacePass("ExtractIOQuantizationPass",
                  "INT: int8 graph inputs and outputs; the boundary quantize/dequantize move out of the graph "
                  "(qparams recorded on the inputs and outputs)") {
  targets({kQ, kDq});
  appliesTo(passes::Applicability::intOnly());
  inputs_ = stat("inputs", "graph inputs now taken as int8 (their quantize moved out of the graph)");
  outputs_ = stat("outputs", "graph outputs now returned as int8 (their dequantize moved out of the graph)");
}

Status ExtractIOQuantizationPass::transform(passes::GraphEditor& ed) {
  ir::Graph& g = ed.graph();
  static const ir::OpId qOp = ir::internOp(kQ), dqOp = ir::internOp(kDq);
  std::vector<NodeId> inputs;
  for (const ir::NodePtr& p : g.nodes())
    if (p->kind == ir::NodeKind::Placeholder && p->outputs.size() == 1 && p->outputs[0].dtype == ir::DType::Float32)
      inputs.push_back(p->id);
  for (NodeId in : inputs) {
    const std::vector<NodeId> users(g.users(in).begin(), g.users(in).end());
    if (users.empty()) continue;
    std::optional<QP> common;
    ir::DType storage = ir::DType::Int8;
    bool ok = true;
    for (NodeId u : users) {
      const ir::Node& q = g.node(u);
      const ir::ValueRef* x = q.args.empty() ? nullptr : q.args[0].ref();
      std::optional<QP> qp = q.op == qOp ? perTensorQP(q) : std::nullopt;
      int refs = 0;
      q.forEachInput([&](const ir::ValueRef& r) { refs += r.node == in; });
      if (!qp || !x || x->node != in || refs != 1 || q.outputs.size() != 1 || (common && !(*common == *qp)) ||
          q.outputs[0].dtype != ir::DType::Int8 || q.hasFlag(ir::kFlagDisallowTransform)) {
        ok = false;
        break;
      }
      common = qp;
      storage = q.outputs[0].dtype;
    }
    if (!ok || !common) continue;
    {
      ir::TensorMeta& m = g.mutableNode(in).outputs[0];
      m.dtype = storage;
      m.quant = toQuant(*common, storage);
    }
    for (NodeId u : users) {
      ed.replaceAllUses(ir::ValueRef{u, 0}, ir::ValueRef{in, 0});
      LS_RETURN_IF_ERROR(ed.erase(u));
    }
    bump(inputs_);
  }
  const ir::Node* out = g.outputNode();
  if (!out || out->args.empty() || !out->args[0].asRefList()) return Status::ok();
  const ir::RefList slots = *out->args[0].asRefList();
  std::set<NodeId> dequantizes;
  for (size_t i = 0; i < slots.size(); ++i) {
    const ir::ValueRef r = slots[i];
    if (r.isNone()) continue;
    const ir::Node& dq = g.node(r.node);
    const ir::ValueRef* x = dq.args.empty() ? nullptr : dq.args[0].ref();
    std::optional<QP> qp = dq.op == dqOp ? perTensorQP(dq) : std::nullopt;
    if (!qp || !x || dq.hasFlag(ir::kFlagDisallowTransform)) continue;
    const ir::ValueRef src = *x;
    const ir::TensorMeta& sm = g.meta(src);
    if (sm.dtype != ir::DType::Int8) continue;
    if (!sm.quant) g.mutableNode(src.node).outputs[src.output].quant = toQuant(*qp, sm.dtype);
    ed.replaceOutputSlot(i, src);
    dequantizes.insert(dq.id);
    bump(outputs_);
  }
  for (NodeId d : dequantizes)
    if (g.users(d).empty()) LS_RETURN_IF_ERROR(ed.erase(d));
  return Status::ok();
}

void registerExtractIOQuantizationPass(passes::PassRegistry& r) {
  r.add("ExtractIOQuantizationPass", [] { return std::make_unique<ExtractIOQuantizationPass>(); });
}

}  // namespace ls::arm
