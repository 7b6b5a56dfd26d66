// PropagateTransposesPass (no upstream file of this name at the pinned commit).
// tosa-permute strategy: sinks a TRANSPOSE below a layout-agnostic consumer when every
// rank-4 operand of that consumer is the same TRANSPOSE pattern (or a constant, which is
// permuted at compile time), so that permutes meet their inverses and cancel.
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


PropagateTransposesPass::PropagateTransposesPass()
    : InPlacePass("PropagateTransposesPass", "Sinks TRANSPOSEs below layout-agnostic ops so permutes meet and cancel") {
  targets({"tosa.TRANSPOSE"});
  sunk_ = stat("sunk", "ops whose operand transposes were moved below them");
  constants_ = stat("constants_permuted", "constant operands permuted at compile time");
}

Status PropagateTransposesPass::transform(passes::GraphEditor& ed) {
  ir::Graph& g = ed.graph();
  std::vector<NodeId> order;
  for (const ir::NodePtr& p : g.nodes()) order.push_back(p->id);
  size_t constCount = 0;
  for (NodeId id : order) {
    if (!g.contains(id)) continue;
    const ir::Node& n = g.node(id);
    AgnosticInfo info = agnostic(n.op);
    if (!n.isCall() || info.kind == Agn::None || n.outputs.size() != 1) continue;
    std::vector<ir::ValueRef> ins = layoutInputs(n, info);
    // Common permutation q of the transposed operands.
    std::optional<std::vector<int64_t>> q;
    bool ok = true;
    for (const ir::ValueRef& r : ins) {
      const ir::Node& p = g.node(r.node);
      if (isTranspose(p)) {
        if (q && *q != permsOf(p)) ok = false;
        q = permsOf(p);
      }
    }
    if (!ok || !q) continue;
    Builder b(ed, id);
    std::vector<int64_t> inv = inversePerm(*q);
    auto srcOf = [&](ir::ValueRef r) -> std::optional<ir::ValueRef> {
      const ir::Node& p = g.node(r.node);
      if (isTranspose(p)) return *p.args[0].ref();
      return permuteConstantOperand(b, r, inv, &constCount);
    };
    std::vector<ir::Arg> args(n.args.begin(), n.args.end());
    for (int i : info.operands) {
      if (size_t(i) >= args.size() || !ok) continue;
      if (auto* r = args[size_t(i)].ref()) {
        auto s = srcOf(*r);
        if (!s) ok = false;
        else args[size_t(i)] = *s;
      } else if (auto* l = args[size_t(i)].asRefList()) {
        ir::RefList nl;
        for (const ir::ValueRef& x : *l) {
          auto s = srcOf(x);
          if (!s) {
            ok = false;
            break;
          }
          nl.push_back(*s);
        }
        args[size_t(i)] = nl;
      }
    }
    if (!ok) continue;  // an operand is neither transposed nor constant: keep as is
    ir::Node tmp = n;
    tmp.args = args;
    auto attrs = permutedAttrs(b, tmp, info, inv);
    if (!attrs) return attrs.status();
    auto moved = b.op(ir::opName(n.op), std::move(attrs->first), std::move(attrs->second), n.name + "_sunk");
    if (!moved) return moved.status();
    auto t = b.transpose(*moved, *q);
    if (!t) return t.status();
    ed.replaceAllUses({id, 0}, *t);
    LS_RETURN_IF_ERROR(ed.erase(id));
    bump(sunk_);
  }
  bump(constants_, int64_t(constCount));
  if (ed.changed()) ed.eliminateDeadCode();
  return Status::ok();
}

void registerPropagateTransposesPass(passes::PassRegistry& r) {
  r.add("PropagateTransposesPass", [] { return std::make_unique<PropagateTransposesPass>(); });
}

}  // namespace ls::arm
