// DecomposeAsinhPass (upstream backends/arm/_passes/decompose_asinh_pass.py): asinh -> sign(x) *
// log(|x| + sqrt(x^2 + 1)).
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

/// asinh(x) = sign(x) * log(|x| + sqrt(x^2 + 1)) (the odd form keeps large negative x exact;
/// DecomposeAsinhPass).
Result<bool> decomposeAsinh(passes::Rewriter& rw, passes::RuleStats&) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  Builder b(rw);
  ValueRef x = ref(rw, 0);
  LS_ASSIGN_OR_RETURN(a, b.op("aten.abs.default", {x}));
  LS_ASSIGN_OR_RETURN(a2, b.op("aten.mul.Tensor", {a, a}));
  LS_ASSIGN_OR_RETURN(a21, b.op("aten.add.Tensor", {a2, 1.0}));
  LS_ASSIGN_OR_RETURN(r, b.op("aten.sqrt.default", {a21}));
  LS_ASSIGN_OR_RETURN(s, b.op("aten.add.Tensor", {a, r}));
  LS_ASSIGN_OR_RETURN(l, b.op("aten.log.default", {s}));
  LS_ASSIGN_OR_RETURN(y, withSignOf(b, x, l));
  return done(rw, y);
}

}  // namespace

void registerDecomposeAsinhPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeAsinhPass",
                      .description = "asinh -> sign(x) * log(|x| + sqrt(x^2 + 1))",
                      .targets = {"aten.asinh.default"},
                      .rewrite = decomposeAsinh});
}

}  // namespace ls::arm
