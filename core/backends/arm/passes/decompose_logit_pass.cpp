// DecomposeLogitPass (upstream backends/arm/_passes/decompose_logit_pass.py): logit -> log(z / (1 -
// z)), z clamped to [eps, 1 - eps].
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <numeric>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/backends/arm/passes/decompose_common.h"
#include "core/passes/pass_manager.h"
#include "core/passes/rule_pass.h"
#include "core/transforms/batch_norm.h"
#include "core/transforms/constant_folding.h"
#include "core/transforms/constant_values.h"

namespace ls::arm {

using passes::Rewriter;
using ir::DType;
using ir::Shape;
using namespace decompose;

namespace {

/// logit(x, eps) = log(z * reciprocal(1 - z)), z = clamp(x, eps, 1 - eps) when eps is given
/// (DecomposeLogitPass).
Result<bool> decomposeLogit(passes::Rewriter& rw, passes::RuleStats&) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  Builder b(rw);
  ValueRef z = ref(rw, 0);
  if (auto eps = sarg(rw.node(), 1).number()) {
    LS_ASSIGN_OR_RETURN(c, b.op("aten.clamp.default", {z, *eps, 1.0 - *eps}));
    z = c;
  }
  LS_ASSIGN_OR_RETURN(nz, b.op("aten.neg.default", {z}));
  LS_ASSIGN_OR_RETURN(om, b.op("aten.add.Tensor", {nz, 1.0}));
  LS_ASSIGN_OR_RETURN(rc, b.op("aten.reciprocal.default", {om}));
  LS_ASSIGN_OR_RETURN(q, b.op("aten.mul.Tensor", {z, rc}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.log.default", {q}));
  return done(rw, y);
}

}  // namespace

void registerDecomposeLogitPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeLogitPass",
                      .description = "logit -> log(z / (1 - z)), z clamped to [eps, 1 - eps]",
                      .targets = {"aten.logit.default"},
                      .rewrite = decomposeLogit});
}

}  // namespace ls::arm
