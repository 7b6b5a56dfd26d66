// Integer-profile passes: InsertRescalePass (a dequantize -> quantize pair becomes one TOSA
// RESCALE) and FuseConsecutiveRescalesPass (only identity round trips are removed, as
// upstream: |s1 * s2 - 1| < 1e-6 and matching zero points). Both run only with --profile int.
#include <fmt/format.h>

#include <cmath>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"

namespace ls::arm {

using passes::Rewriter;
using ir::DType;

constexpr const char* kUnrepresentable = "is outside the range RESCALE can represent";

/// scale = multiplier * 2^-shift with a 31-bit (scale32) multiplier and shift in [2, 62].
Result<std::pair<int64_t, int64_t>> quantizeScale(double scale) {
  if (!(scale > 0) || !std::isfinite(scale)) return Status::error(fmt::format("rescale factor {} must be positive", scale));
  int e = 0;
  double m = std::frexp(scale, &e);  // scale = m * 2^e, m in [0.5, 1)
  int64_t mult = std::llround(m * double(int64_t(1) << 31));
  int64_t shift = 31 - e;
  if (mult == (int64_t(1) << 31)) mult /= 2, --shift;
  while (shift > 62) mult >>= 1, --shift;
  if (shift < 2 || mult <= 0) return Status::error(fmt::format("rescale factor {} {}", scale, kUnrepresentable));
  return std::make_pair(mult, shift);
}

bool isUnrepresentableScale(const Status& st) {
  return !st.isOk() && st.message().find(kUnrepresentable) != std::string::npos;
}

namespace {

Status insertRescale(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& q = rw.node();
  const ir::ValueRef* in = q.args.empty() ? nullptr : q.args[0].ref();
  const ir::Node* dq = in ? rw.graph().find(in->node) : nullptr;
  static const ir::OpId dqOp = ir::internOp(kDq);
  if (!dq || dq->op != dqOp || dq->args.empty() || !dq->args[0].ref()) return Status::ok();
  auto s1 = sarg(*dq, 1).number(), s2 = sarg(q, 1).number();
  auto z1 = sarg(*dq, 2).asInt(), z2 = sarg(q, 2).asInt();
  if (!s1 || !s2 || !z1 || !z2) return Status::error("quantize/dequantize: expected float scales and int zero points");
  LS_ASSIGN_OR_RETURN(ms, quantizeScale(*s1 / *s2));
  const ir::ValueRef x = *dq->args[0].ref();
  const DType inT = rw.meta(x).dtype, outT = q.meta().dtype;
  Builder b(rw);
  ValueRef mult = b.scalar(DType::Int32, double(ms.first), 1, "multiplier");
  ValueRef shift = b.scalar(DType::Int8, double(ms.second), 1, "shift");
  LS_ASSIGN_OR_RETURN(r, b.op("tosa.RESCALE", {x, mult, shift, b.zeroPoint(inT, *z1), b.zeroPoint(outT, *z2)},
                  {{"scale32", true}, {"rounding_mode", "SINGLE_ROUND"}, {"per_channel", false}}));
  rw.replaceWith(r);
  self.rewritten();
  return Status::ok();
}

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

void registerArmIntPasses(passes::PassRegistry& r) {
  r.add("InsertRescalePass", [] {
    return std::make_unique<ArmRewritePass>("InsertRescalePass", "dequantize -> quantize pair -> RESCALE (INT profile)",
                                            std::vector<std::string>{kQ}, insertRescale, Gate::intOnly());
  });
  r.add("FuseConsecutiveRescalesPass", [] { return std::make_unique<FuseConsecutiveRescalesPass>(); });
}

}  // namespace ls::arm
