// DecomposeAtanPass (upstream backends/arm/_passes/decompose_atan_pass.py): atan -> range-reduced
// polynomial (A&S 4.4.49).
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

/// atan(x): with a = |x| and t = min(a, 1/a) in [0, 1], atan(t) = t * q(t^2) (Abramowitz &
/// Stegun 4.4.49, |error| <= 2e-8), pi/2 - atan(t) when a > 1, and x's sign (DecomposeAtanPass).
Result<bool> decomposeAtan(passes::Rewriter& rw, passes::RuleStats&) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  static const std::vector<double> q = {1.0,           -0.3333314528, 0.1999355085,  -0.1420889944, 0.1065626393,
                                        -0.0752896400, 0.0429096138,  -0.0161657367, 0.0028662257};
  Builder b(rw);
  ValueRef x = ref(rw, 0);
  LS_ASSIGN_OR_RETURN(a, b.op("aten.abs.default", {x}));
  LS_ASSIGN_OR_RETURN(inv, b.op("aten.reciprocal.default", {a}));
  LS_ASSIGN_OR_RETURN(big, b.op("aten.gt.Scalar", {a, 1.0}));
  LS_ASSIGN_OR_RETURN(t, b.op("aten.where.self", {big, inv, a}));
  LS_ASSIGN_OR_RETURN(t2, b.op("aten.mul.Tensor", {t, t}));
  LS_ASSIGN_OR_RETURN(poly, horner(b, t2, q));
  LS_ASSIGN_OR_RETURN(at, b.op("aten.mul.Tensor", {t, poly}));
  LS_ASSIGN_OR_RETURN(nat, b.op("aten.neg.default", {at}));
  LS_ASSIGN_OR_RETURN(comp, b.op("aten.add.Tensor", {nat, M_PI_2}));
  LS_ASSIGN_OR_RETURN(r, b.op("aten.where.self", {big, comp, at}));
  LS_ASSIGN_OR_RETURN(y, withSignOf(b, x, r));
  return done(rw, y);
}

}  // namespace

void registerDecomposeAtanPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeAtanPass",
                      .description = "atan -> range-reduced polynomial (A&S 4.4.49)",
                      .targets = {"aten.atan.default"},
                      .rewrite = decomposeAtan});
}

}  // namespace ls::arm
