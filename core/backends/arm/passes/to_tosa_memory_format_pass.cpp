// ToTosaMemoryFormatPass (no upstream file of this name at the pinned commit).
// Rank-4 values in NHWC (upstream ToTosaMemoryFormatPass, the strategy of seeds 002/004):
// every layout-agnostic op fed by an NHWC value runs on NHWC tensors; tosa.TRANSPOSE only at
// NCHW<->NHWC boundaries (graph inputs, consumers that need PyTorch layout such as
// rank-changing RESHAPE, MATMUL and graph outputs). One boundary TRANSPOSE per producer, so
// output slots sharing a producer stay distinct values after EnsureUniqueOutputNodesPass.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>
#include <set>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/backends/arm/passes/memory_format_common.h"
#include "core/passes/rule_pass.h"
#include "core/transforms/constant_values.h"

namespace ls::arm {

using passes::Rewriter;
using ir::NodeId;
using ir::DType;
using ir::Shape;
using namespace memory_format;

namespace {

/// Per-tensor qparams do not depend on the layout: the NHWC version of an annotated value
/// keeps them (per-channel ones would need their axis permuted; activations are per tensor).
void keepPerTensorQuant(ir::Graph& g, const ir::TensorMeta& from, ir::ValueRef to) {
  if (!from.quant || from.quant->scheme != ir::QScheme::PerTensor) return;
  const ir::TensorMeta& tm = g.meta(to);
  if (tm.quant || tm.dtype != from.dtype) return;
  g.mutableNode(to.node).outputs[to.output].quant = from.quant;
}

const std::vector<int64_t> kToNhwc{0, 2, 3, 1};

const std::vector<int64_t> kToNchw{0, 3, 1, 2};

}  // namespace


ToTosaMemoryFormatPass::ToTosaMemoryFormatPass()
    : InPlacePass("ToTosaMemoryFormatPass",
                  "NHWC for rank-4 values: layout-agnostic ops run on NHWC tensors, TRANSPOSE only at boundaries") {
  targets({"tosa.CONV2D", "tosa.DEPTHWISE_CONV2D", "tosa.TRANSPOSE_CONV2D", "tosa.MAX_POOL2D", "tosa.AVG_POOL2D",
           "tosa.RESIZE"});
  toNhwc_ = stat("ops_to_nhwc", "layout-agnostic ops moved to NHWC");
  boundaries_ = stat("boundary_transposes", "TRANSPOSEs inserted at NCHW -> NHWC boundaries");
  reshapes_ = stat("boundary_reshapes", "boundaries that only move unit dims, done with RESHAPE");
  constants_ = stat("constants_permuted", "constant operands materialised in NHWC");
  removed_ = stat("wrappers_removed", "NHWC wrapper transposes made redundant");
}

Status ToTosaMemoryFormatPass::transform(passes::GraphEditor& ed) {
  ir::Graph& g = ed.graph();
  std::map<NodeId, ir::ValueRef> nhwc;  // logical value (output 0 of node) -> its NHWC version
  std::vector<NodeId> order;
  for (const ir::NodePtr& p : g.nodes()) order.push_back(p->id);
  size_t constCount = 0;
  auto isNhwcProducer = [&](const ir::Node& n) {
    static const ir::OpId ops[] = {ir::internOp("tosa.CONV2D"),     ir::internOp("tosa.DEPTHWISE_CONV2D"),
                                   ir::internOp("tosa.TRANSPOSE_CONV2D"), ir::internOp("tosa.MAX_POOL2D"),
                                   ir::internOp("tosa.AVG_POOL2D"), ir::internOp("tosa.RESIZE")};
    return n.isCall() && std::find(std::begin(ops), std::end(ops), n.op) != std::end(ops);
  };
  for (NodeId id : order) {
    if (!g.contains(id)) continue;
    const ir::Node& n = g.node(id);
    if (!n.isCall() || n.outputs.size() != 1) continue;
    if (isTranspose(n)) {
      const ir::ValueRef* in = n.args[0].ref();
      std::vector<int64_t> p = permsOf(n);
      if (!in || p.size() != 4) continue;
      if (p == kToNchw && (isNhwcProducer(g.node(in->node)) || nhwc.count(in->node) == 0)) {
        // A "back to NCHW" wrapper: its output's NHWC version is its input.
        if (isNhwcProducer(g.node(in->node)) || g.meta(*in).dimOrder == nhwcOrder()) nhwc[id] = *in;
        continue;
      }
      if (p == kToNhwc) {
        auto it = nhwc.find(in->node);
        if (it != nhwc.end() && in->output == 0) {
          ed.replaceAllUses({id, 0}, it->second);
          LS_RETURN_IF_ERROR(ed.erase(id));
          bump(removed_);
        } else {
          nhwc[in->node] = {id, 0};  // boundary (e.g. after a graph input), shared by later consumers
        }
      }
      continue;
    }
    AgnosticInfo info = agnostic(n.op);
    if (info.kind == Agn::None || n.meta().rank() != 4) continue;
    std::vector<ir::ValueRef> ins = layoutInputs(n, info);
    bool anyNhwc = false, allRank4 = true;
    for (const ir::ValueRef& r : ins) {
      if (g.meta(r).rank() != 4) allRank4 = false;
      if (r.output == 0 && nhwc.count(r.node)) anyNhwc = true;
    }
    if (!anyNhwc || !allRank4) continue;
    // Convert: NHWC operands for every layout input.
    Builder b(ed, id);
    auto nhwcOf = [&](ir::ValueRef r) -> Result<ir::ValueRef> {
      if (r.output == 0)
        if (auto it = nhwc.find(r.node); it != nhwc.end()) return it->second;
      if (auto c = permuteConstantOperand(b, r, kToNhwc, &constCount)) return *c;
      const ir::TensorMeta& m = g.meta(r);
      Result<ir::ValueRef> v = onlyUnitDimsMove(m.shape, kToNhwc) ? b.reshape(r, permuteShape(m.shape, kToNhwc))
                                                                  : b.transpose(r, kToNhwc);
      if (!v) return v;
      keepPerTensorQuant(g, m, *v);
      bump(onlyUnitDimsMove(m.shape, kToNhwc) ? reshapes_ : boundaries_);
      if (r.output == 0) nhwc[r.node] = *v;
      return v;
    };
    std::vector<ir::Arg> args(n.args.begin(), n.args.end());
    for (int i : info.operands) {
      if (size_t(i) >= args.size()) continue;
      if (auto* r = args[size_t(i)].ref()) {
        auto v = nhwcOf(*r);
        if (!v) return v.status();
        args[size_t(i)] = *v;
      } else if (auto* l = args[size_t(i)].asRefList()) {
        ir::RefList nl;
        for (const ir::ValueRef& x : *l) {
          auto v = nhwcOf(x);
          if (!v) return v.status();
          nl.push_back(*v);
        }
        args[size_t(i)] = nl;
      }
    }
    ir::Node tmp = n;
    tmp.args = args;
    auto attrs = permutedAttrs(b, tmp, info, kToNhwc);
    if (!attrs) return attrs.status();
    auto conv = b.op(ir::opName(n.op), std::move(attrs->first), std::move(attrs->second), n.name + "_nhwc");
    if (!conv) return conv.status();
    keepPerTensorQuant(g, n.meta(), *conv);
    // Logical users read one boundary TRANSPOSE back to NCHW (one per producer).
    const ir::TensorMeta& cm = g.meta(*conv);
    Builder after(ed, conv->node, Builder::Placement::After);
    auto back = onlyUnitDimsMove(cm.shape, kToNchw) ? after.reshape(*conv, n.meta().shape) : after.transpose(*conv, kToNchw);
    if (!back) return back.status();
    ed.replaceAllUses({id, 0}, *back);
    LS_RETURN_IF_ERROR(ed.erase(id));
    nhwc[back->node] = *conv;
    bump(toNhwc_);
  }
  bump(constants_, int64_t(constCount));
  if (ed.changed()) ed.eliminateDeadCode();
  return Status::ok();
}

void registerToTosaMemoryFormatPass(passes::PassRegistry& r) {
  r.add("ToTosaMemoryFormatPass", [] { return std::make_unique<ToTosaMemoryFormatPass>(); });
}

}  // namespace ls::arm
