// RewriteUpsamplePass (upstream backends/arm/_passes/rewrite_upsample.py): upsample
// bilinear/nearest -> RESIZE (NHWC).
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/backends/arm/passes/aten_to_tosa_common.h"
#include "core/backends/arm/tosa/tosa_validate.h"
#include "core/passes/rule_pass.h"
#include "core/transforms/constant_values.h"

namespace ls::arm {

using passes::Rewriter;
using ir::DType;
using ir::Shape;
using namespace aten_to_tosa;

namespace {

Result<bool> rewriteUpsample(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  LS_ASSIGN_OR_RETURN(x, tensorArg(rw, 0, "input"));
  LS_ASSIGN_OR_RETURN(params, resizeParams(n, rw.meta(x)));
  const bool bilinear = params.bilinear;
  const std::vector<int64_t>&scale = params.scale, &offset = params.offset, &border = params.border;
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(xt, toNhwc(b, x));
  LS_ASSIGN_OR_RETURN(s, b.constShape(scale));
  LS_ASSIGN_OR_RETURN(o, b.constShape(offset));
  LS_ASSIGN_OR_RETURN(bo, b.constShape(border));
  LS_ASSIGN_OR_RETURN(r, b.op("tosa.RESIZE", {xt, s, o, bo}, {{"mode", bilinear ? "BILINEAR" : "NEAREST_NEIGHBOR"}}));
  LS_ASSIGN_OR_RETURN(y, toNchw(b, r));
  rw.replaceWith(y);
  return true;
}

}  // namespace

void registerRewriteUpsamplePass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "RewriteUpsamplePass",
                      .description = "upsample bilinear/nearest -> RESIZE (NHWC)",
                      .targets = {"aten.upsample_bilinear2d.vec", "aten.upsample_nearest2d.vec"},
                      .rewrite = rewriteUpsample});
}

}  // namespace ls::arm
