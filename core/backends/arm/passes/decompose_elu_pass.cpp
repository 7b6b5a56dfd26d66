// DecomposeEluPass (upstream backends/arm/_passes/decompose_elu_pass.py): elu -> scale * (clamp(x,
// 0) + alpha * (exp(input_scale * clamp(x, max=0)) - 1)).
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

/// elu(x, alpha, scale, input_scale) -> scale * (clamp(x, 0) + alpha * (exp(input_scale *
/// clamp(x, max=0)) - 1)): the exp sees only the non-positive part, so it is 0 where x > 0
/// (DecomposeEluPass; under INT a quantised elu is a TABLE before this runs).
Result<bool> decomposeElu(passes::Rewriter& rw, passes::RuleStats&) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::Node& n = rw.node();
  const double alpha = sarg(n, 1).number().value_or(1.0), scale = sarg(n, 2).number().value_or(1.0),
               inScale = sarg(n, 3).number().value_or(1.0);
  Builder b(rw);
  ValueRef x = ref(rw, 0);
  LS_ASSIGN_OR_RETURN(pos, b.op("aten.clamp.default", {x, 0.0, ir::Arg()}));
  LS_ASSIGN_OR_RETURN(neg, b.op("aten.clamp.default", {x, ir::Arg(), 0.0}));
  ValueRef e = neg;
  if (inScale != 1.0) {
    LS_ASSIGN_OR_RETURN(m, b.op("aten.mul.Tensor", {neg, inScale}));
    e = m;
  }
  LS_ASSIGN_OR_RETURN(ex, b.op("aten.exp.default", {e}));
  LS_ASSIGN_OR_RETURN(em1, b.op("aten.sub.Tensor", {ex, 1.0}));
  LS_ASSIGN_OR_RETURN(na, b.op("aten.mul.Tensor", {em1, alpha}));
  LS_ASSIGN_OR_RETURN(sum, b.op("aten.add.Tensor", {pos, na}));
  if (scale == 1.0) return done(rw, sum);
  LS_ASSIGN_OR_RETURN(y, b.op("aten.mul.Tensor", {sum, scale}));
  return done(rw, y);
}

}  // namespace

void registerDecomposeEluPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeEluPass",
                      .description = "elu -> scale * (clamp(x, 0) + alpha * (exp(input_scale * clamp(x, max=0)) - 1))",
                      .targets = {"aten.elu.default"},
                      .rewrite = decomposeElu});
}

}  // namespace ls::arm
