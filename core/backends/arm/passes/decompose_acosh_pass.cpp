// DecomposeAcoshPass (upstream backends/arm/_passes/decompose_acosh_pass.py): acosh -> log(x +
// sqrt(x^2 - 1)).
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

/// acosh(x) = log(x + sqrt(x^2 - 1)), NaN below 1 as torch (DecomposeAcoshPass).
Result<bool> decomposeAcosh(passes::Rewriter& rw, passes::RuleStats&) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  Builder b(rw);
  ValueRef x = ref(rw, 0);
  LS_ASSIGN_OR_RETURN(x2, b.op("aten.mul.Tensor", {x, x}));
  LS_ASSIGN_OR_RETURN(x21, b.op("aten.sub.Tensor", {x2, 1.0}));
  LS_ASSIGN_OR_RETURN(r, b.op("aten.sqrt.default", {x21}));
  LS_ASSIGN_OR_RETURN(s, b.op("aten.add.Tensor", {x, r}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.log.default", {s}));
  return done(rw, y);
}

}  // namespace

void registerDecomposeAcoshPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeAcoshPass",
                      .description = "acosh -> log(x + sqrt(x^2 - 1))",
                      .targets = {"aten.acosh.default"},
                      .rewrite = decomposeAcosh});
}

}  // namespace ls::arm
