// RewriteArgmaxPass (no upstream file of this name at the pinned commit): argmax / argmin -> ARGMAX (of -x for
// argmin), int32 indices.
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

/// argmax(x, dim, keepdim) -> ARGMAX (int32: TOSA has no int64, as for int64 graph inputs);
/// no dim: over x viewed as 1-D. argmin is ARGMAX of -x (the first minimum is the first maximum
/// of -x; NaN stays NaN).
Result<bool> rewriteArgmax(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  LS_ASSIGN_OR_RETURN(x, tensorArg(rw, 0, "input"));
  const ir::TensorMeta& xm = rw.meta(x);
  const bool argmin = n.op == ir::internOp("aten.argmin.default");
  if (argmin && xm.dtype == DType::Bool) return Status::error("argmin of a bool tensor is not supported");
  Builder b(rw);
  ValueRef v = x;
  int64_t axis = 0;
  if (sarg(n, 1).isNone() || xm.rank() == 0) {
    LS_ASSIGN_OR_RETURN(flat, b.reshape(x, Shape{std::max<int64_t>(xm.numel(), 1)}));
    v = flat;
  } else {
    auto d = sarg(n, 1).asInt();
    if (!d) return Status::error("argmax: dim must be an int");
    axis = wrap(*d, xm.rank());
  }
  if (argmin) {
    LS_ASSIGN_OR_RETURN(neg, b.op("tosa.NEGATE", {v, b.zeroPoint(xm.dtype), b.zeroPoint(xm.dtype)}));
    v = neg;
  }
  LS_ASSIGN_OR_RETURN(am, b.op("tosa.ARGMAX", {v}, {{"axis", axis}}));
  ValueRef y = am;
  if (b.meta(am).shape != n.meta().shape) {
    LS_ASSIGN_OR_RETURN(r, b.reshape(am, n.meta().shape));
    y = r;
  }
  rw.replaceWith(y);
  return true;
}

}  // namespace

void registerRewriteArgmaxPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "RewriteArgmaxPass",
                      .description = "argmax / argmin -> ARGMAX (of -x for argmin), int32 indices",
                      .targets = {"aten.argmax.default", "aten.argmin.default"},
                      .rewrite = rewriteArgmax});
}

}  // namespace ls::arm
