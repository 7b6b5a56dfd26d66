// FuseTosaTransposesPass (no upstream file of this name at the pinned commit).
// Removes redundant tosa.TRANSPOSE nodes (upstream FuseTosaTransposesPass, PR 18947):
// identity elimination, inverse-pair cancellation, composition, and propagation of a
// TRANSPOSE through layout-agnostic ops (RESCALE, unary elementwise, binary elementwise
// whose other operand is broadcast-safe: one element) towards a cancelling partner.
// Metadata is refreshed after every rewrite (GraphEditor::finish re-infers downstream).
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


FuseTosaTransposesPass::FuseTosaTransposesPass()
    : InPlacePass("FuseTosaTransposesPass", "Removes redundant TOSA TRANSPOSEs: identity, inverse pairs, composition, propagation") {
  targets({"tosa.TRANSPOSE"});
  identity_ = stat("identity_removed", "identity permutations removed");
  inverse_ = stat("inverse_pairs_cancelled", "TRANSPOSE(p) -> TRANSPOSE(inverse p) pairs cancelled");
  composed_ = stat("composed", "consecutive transposes composed into one");
  propagated_ = stat("propagated_cancelled", "transposes cancelled through layout-agnostic ops (pairs)");
}

Status FuseTosaTransposesPass::transform(passes::GraphEditor& ed) {
  ir::Graph& g = ed.graph();
  static const ir::OpId tr = ir::internOp("tosa.TRANSPOSE");
  bool progress = true;
  while (progress) {
    progress = false;
    std::vector<NodeId> ts(g.nodesOfOp(tr).begin(), g.nodesOfOp(tr).end());
    std::sort(ts.begin(), ts.end(), [&](auto a, auto b) { return g.position(a) < g.position(b); });
    for (NodeId id : ts) {
      if (!g.contains(id)) continue;
      const ir::Node& t = g.node(id);
      const ir::ValueRef* in = t.args.empty() ? nullptr : t.args[0].ref();
      if (!in) continue;
      std::vector<int64_t> tp = permsOf(t);
      // 1. identity
      if (isIdentityPerm(tp)) {
        ed.replaceAllUses({id, 0}, *in);
        LS_RETURN_IF_ERROR(ed.erase(id));
        bump(identity_);
        progress = true;
        continue;
      }
      const ir::Node& p = g.node(in->node);
      // 2./3. directly after another TRANSPOSE
      if (isTranspose(p)) {
        std::vector<int64_t> c = composePerms(permsOf(p), tp);
        ir::ValueRef src = *p.args[0].ref();
        if (isIdentityPerm(c)) {
          ed.replaceAllUses({id, 0}, src);
          LS_RETURN_IF_ERROR(ed.erase(id));
          bump(inverse_);
        } else {
          ed.setCall(id, "tosa.TRANSPOSE", {src}, {{"perms", ir::IntList(c)}});
          bump(composed_);
        }
        progress = true;
        continue;
      }
      // 4. propagation: walk up a chain of single-user layout-agnostic ops to a TRANSPOSE
      // whose permutation this one inverts.
      std::vector<NodeId> chain;
      std::vector<int> chainArg;  // which operand of each chain op carries the value
      ir::ValueRef cur = *in;
      bool found = false;
      for (int depth = 0; depth < 64; ++depth) {
        const ir::Node& u = g.node(cur.node);
        if (isTranspose(u)) {
          found = isIdentityPerm(composePerms(permsOf(u), tp));
          break;
        }
        AgnosticInfo info = agnostic(u.op);
        if (!u.isCall() || (info.kind != Agn::Unary && info.kind != Agn::Binary) || g.users(u.id).size() != 1) break;
        // The carried operand is the one that is not broadcast-safe; a binary op's other
        // operand must be broadcast-safe (one element), else the op blocks propagation.
        int carried = -1;
        bool ok = true;
        if (info.kind == Agn::Unary) {
          carried = info.operands[0];
        } else {
          const ir::ValueRef* r0 = u.args[0].ref();
          const ir::ValueRef* r1 = u.args[1].ref();
          if (!r0 || !r1) {
            ok = false;
          } else {
            const bool s0 = g.meta(*r0).numel() == 1, s1 = g.meta(*r1).numel() == 1;
            if (s0 && !s1) carried = 1;
            else if (s1 && !s0) carried = 0;
            else ok = false;
          }
        }
        if (!ok || carried < 0) break;
        chain.push_back(u.id);
        chainArg.push_back(carried);
        cur = *u.args[size_t(carried)].ref();
      }
      if (!found || chain.empty()) continue;
      const ir::Node& head = g.node(cur.node);  // the TRANSPOSE being cancelled
      ir::ValueRef src = *head.args[0].ref();
      // Rewire the chain's first op (closest to `head`) to read the un-transposed source;
      // the chain now runs in the source layout and the final TRANSPOSE disappears.
      NodeId first = chain.back();
      std::vector<ir::Arg> args(g.node(first).args.begin(), g.node(first).args.end());
      args[size_t(chainArg.back())] = src;
      ed.setArgs(first, std::move(args));
      ed.replaceAllUses({id, 0}, {chain.front(), 0});
      LS_RETURN_IF_ERROR(ed.erase(id));
      // Rules only read permutations and element counts (layout-independent), so the
      // metadata refresh of the rewired chain runs once per sweep, below.
      bump(propagated_);
      progress = true;
    }
    if (progress) LS_RETURN_IF_ERROR(ed.finish());
  }
  if (ed.changed()) ed.eliminateDeadCode();
  return Status::ok();
}

void registerFuseTosaTransposesPass(passes::PassRegistry& r) {
  r.add("FuseTosaTransposesPass", [] { return std::make_unique<FuseTosaTransposesPass>(); });
}

}  // namespace ls::arm
