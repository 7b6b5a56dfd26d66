// FuseConsecutiveRescalesPass (upstream backends/arm/_passes/fuse_consecutive_rescales_pass.py):
// INT profile: only identity round trips are removed, as upstream: |s1 * s2 - 1| < 1e-6 and
// matching zero points.
#include <fmt/format.h>

#include <cmath>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/passes/rule_pass.h"

namespace ls::arm {

using passes::Rewriter;
using ir::DType;

namespace {

/// Scale of a per-tensor RESCALE node (multiplier * 2^-shift) and its zero points.
struct RescaleInfo {
  double scale = 0;
  int64_t izp = 0, ozp = 0;
};

std::optional<RescaleInfo> rescaleInfo(const ir::Graph& g, const ir::Node& n) {
  if (n.args.size() < 5) return std::nullopt;
  const ir::Arg* pc = n.kwarg("per_channel");
  if (pc && pc->asBool() && *pc->asBool()) return std::nullopt;
  auto val = [&](int i) -> std::optional<int64_t> {
    const ir::ValueRef* r = n.args[size_t(i)].ref();
    auto t = r ? valueOfConstant(g, *r) : std::nullopt;
    if (!t || t->numel() != 1) return std::nullopt;
    return t->getInt(0);
  };
  auto m = val(1), s = val(2), iz = val(3), oz = val(4);
  if (!m || !s || !iz || !oz) return std::nullopt;
  return RescaleInfo{double(*m) * std::ldexp(1.0, -int(*s)), *iz, *oz};
}

}  // namespace

class FuseConsecutiveRescalesPass : public passes::InPlacePass {
 public:
  FuseConsecutiveRescalesPass()
      : InPlacePass("FuseConsecutiveRescalesPass", "Removes RESCALE pairs that round-trip (identity scale, matching zero points)") {
    targets({"tosa.RESCALE"});
    appliesTo(passes::Applicability::intOnly());
    removed_ = stat("identity_pairs_removed", "RESCALE round trips removed");
    kept_ = stat("non_identity_pairs_kept", "consecutive RESCALE pairs left alone (not an identity)");
  }
 protected:
  Status transform(passes::GraphEditor& ed) override {
    ir::Graph& g = ed.graph();
    static const ir::OpId rs = ir::internOp("tosa.RESCALE");
    std::vector<ir::NodeId> ids(g.nodesOfOp(rs).begin(), g.nodesOfOp(rs).end());
    std::sort(ids.begin(), ids.end(), [&](auto a, auto b) { return g.position(a) < g.position(b); });
    for (ir::NodeId id : ids) {
      if (!g.contains(id)) continue;
      const ir::Node& second = g.node(id);
      const ir::ValueRef* in = second.args.empty() ? nullptr : second.args[0].ref();
      const ir::Node* first = in ? g.find(in->node) : nullptr;
      if (!first || first->op != rs || !first->args[0].ref()) continue;
      auto a = rescaleInfo(g, *first), b = rescaleInfo(g, second);
      if (!a || !b) continue;
      const ir::ValueRef src = *first->args[0].ref();
      // The intermediate must be wider than the source, so the first RESCALE never saturates
      // (e.g. int8 -> int32 -> int8, as InsertRescaleInt32 produces).
      const ir::DType srcT = g.meta(src).dtype, midT = first->meta().dtype;
      const bool wider = ir::dtypeSize(midT) > ir::dtypeSize(srcT);
      const bool identity = std::abs(a->scale * b->scale - 1.0) < 1e-6 && a->ozp == b->izp && a->izp == b->ozp &&
                            srcT == second.meta().dtype && wider;
      if (!identity) {
        bump(kept_);
        continue;
      }
      ed.replaceAllUses({id, 0}, src);
      LS_RETURN_IF_ERROR(ed.erase(id));
      bump(removed_);
    }
    if (ed.changed()) ed.eliminateDeadCode();
    return Status::ok();
  }

 private:
  size_t removed_, kept_;
};

void registerFuseConsecutiveRescalesPass(passes::PassRegistry& r) {
  r.add("FuseConsecutiveRescalesPass", [] { return std::make_unique<FuseConsecutiveRescalesPass>(); });
}

}  // namespace ls::arm
