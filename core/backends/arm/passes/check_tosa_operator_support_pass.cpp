// CheckTosaOperatorSupportPass (no upstream file of this name at the pinned commit): fails with the list of
// nodes whose ops have no TOSA lowering (INT on Ethos-U: or that compute in float) or are illegal
// in TOSA 1.0.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/backends/arm/tosa/tosa_validate.h"
#include "core/passes/rule_pass.h"
#include "core/transforms/constant_values.h"

namespace ls::arm {

using passes::Rewriter;
using ir::DType;
using ir::Shape;

namespace {

/// Last entry: on u55/u85 fails first listing the source nodes upstream's operator support checks
/// refused (PassContext::rejected, operator_support/); then every node whose op is not a TOSA
/// operator, then every node the
/// TOSA 1.0 legality validator rejects (tosa/tosa_validate.h). With the INT profile
/// it also counts the float islands (float compute outside the graph inputs' quantize and the
/// outputs' dequantize); an integer-only Ethos-U target (u55, u85) cannot run them, so there
/// they fail the pipeline too, listed by name.
class CheckTosaOperatorSupportPass : public passes::Pass {
 public:
  CheckTosaOperatorSupportPass()
      : Pass("CheckTosaOperatorSupportPass",
             "Fails with the list of nodes whose ops have no TOSA lowering (on Ethos-U: or that upstream's operator "
             "support checks refused, or, INT, that compute in float)") {
    islands_ = stat("float_islands", "INT profile: float compute nodes outside the input quantize / output dequantize");
    illegal_ = stat("tosa_violations", "nodes illegal in TOSA 1.0 for the profile (types, ranks, level 8K, ERROR_IF)");
    rejected_ = stat("support_rejected", "source nodes upstream's operator support checks refuse for the target");
  }

 protected:
  passes::PassResult runImpl(ir::Graph& g, passes::PassContext& ctx) override {
    // Nodes upstream's operator support checks refused for an Ethos-U target (evaluated on the
    // graph the pipeline started from): upstream's partitioner leaves them to the CPU, so a TOSA
    // file for the target must not hold them.
    bump(rejected_, int64_t(ctx.rejected.size()));
    if (!ctx.rejected.empty() && ctx.target != passes::Target::Generic) return rejectedFailure(ctx);
    std::string bad;
    int count = 0;
    for (const ir::NodePtr& p : g.nodes()) {
      if (!p->isCall() || isTosaOp(p->op)) continue;
      if (++count <= 20) bad += fmt::format("{}{} ({})", bad.empty() ? "" : ", ", p->name, ir::opName(p->op));
    }
    if (count > 0)
      return passes::PassResult::failed(
          fmt::format("{} node(s) are not TOSA operators: {}{}", count, bad, count > 20 ? ", ..." : ""));
    if (ctx.profile == passes::Profile::INT) {
      std::vector<ir::NodeId> islands = floatIslands(g);
      bump(islands_, int64_t(islands.size()));
      if (!islands.empty() && ctx.target != passes::Target::Generic) return floatIslandsFailure(g, islands, ctx);
    }
    // TOSA 1.0 legality (types per profile, ranks, level 8K, ERROR_IF rules): PRO-INT alone for
    // the integer-only Ethos-U targets, else PRO-FP and PRO-INT.
    TosaCheckOptions check;
    check.profile = ctx.profile == passes::Profile::INT && ctx.target != passes::Target::Generic
                        ? TosaCheckOptions::Profile::Int
                        : TosaCheckOptions::Profile::Fp;
    for (const std::string& e : ctx.extensions)
      if (!isTosaExtension(e))
        return passes::PassResult::failed(fmt::format(
            "unknown TOSA extension '{}' (the specification's: EXT-INT16, EXT-INT4, EXT-BF16, EXT-FP8E4M3, "
            "EXT-FP8E5M2, EXT-FFT, EXT-VARIABLE, EXT-CONTROLFLOW)", e));
    check.extensions = ctx.extensions;  // --tosa-extension
    std::vector<TosaViolation> illegal = validateTosaGraph(g, check);
    bump(illegal_, int64_t(illegal.size()));
    if (!illegal.empty()) return passes::PassResult::failed(formatViolations(illegal, check, 20));
    return passes::PassResult::unchanged();
  }

  static passes::PassResult rejectedFailure(const passes::PassContext& ctx) {
    std::string list;
    const size_t n = ctx.rejected.size();
    for (size_t i = 0; i < n && i < 20; ++i)
      list += fmt::format("{}{} ({}): {}", i ? "; " : "", ctx.rejected[i].name, ctx.rejected[i].op, ctx.rejected[i].text());
    return passes::PassResult::failed(fmt::format(
        "{} node(s) refused for {} by upstream's operator support checks (upstream's partitioner leaves them "
        "outside the delegated TOSA graph): {}{}",
        n, ctx.target == passes::Target::U55 ? "Ethos-U55" : "Ethos-U85", list, n > 20 ? "; ..." : ""));
  }

  passes::PassResult floatIslandsFailure(const ir::Graph& g, const std::vector<ir::NodeId>& islands,
                                         const passes::PassContext& ctx) {
    std::string list;
    for (size_t i = 0; i < islands.size() && i < 20; ++i)
      list += fmt::format("{}{} ({})", i ? ", " : "", g.node(islands[i]).name, ir::opName(g.node(islands[i]).op));
    return passes::PassResult::failed(
        fmt::format("{} node(s) compute in float, which the integer-only {} cannot run: {}{}", islands.size(),
                    ctx.target == passes::Target::U55 ? "Ethos-U55" : "Ethos-U85", list, islands.size() > 20 ? ", ..." : ""));
  }

 private:
  size_t islands_, illegal_, rejected_;
};

}  // namespace

void registerCheckTosaOperatorSupportPass(passes::PassRegistry& r) {
  r.add("CheckTosaOperatorSupportPass", [] { return std::make_unique<CheckTosaOperatorSupportPass>(); });
}

}  // namespace ls::arm
