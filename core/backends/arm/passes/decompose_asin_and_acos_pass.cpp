// DecomposeAsinAndAcosPass (upstream backends/arm/_passes/decompose_asin_and_acos_pass.py):
// asin/acos -> sqrt(1 - |x|) * polynomial (A&S 4.4.46).
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

/// asin and acos: with a = |x| and s = sqrt(1 - a) * p(a) (Abramowitz & Stegun 4.4.46,
/// acos(a) for a in [0, 1], |error| <= 2e-8): asin(x) = sign(x) * (pi/2 - s), acos(x) = s for
/// x >= 0 and pi - s below; NaN outside [-1, 1] as torch (DecomposeAsinAndAcosPass).
Result<bool> decomposeAsinAcos(passes::Rewriter& rw, passes::RuleStats&) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  static const std::vector<double> p = {1.5707963050,  -0.2145988016, 0.0889789874,  -0.0501743046,
                                        0.0308918810,  -0.0170881256, 0.0066700901,  -0.0012624911};
  const bool acos = rw.node().op == ir::internOp("aten.acos.default");
  Builder b(rw);
  ValueRef x = ref(rw, 0);
  LS_ASSIGN_OR_RETURN(a, b.op("aten.abs.default", {x}));
  LS_ASSIGN_OR_RETURN(na, b.op("aten.neg.default", {a}));
  LS_ASSIGN_OR_RETURN(om, b.op("aten.add.Tensor", {na, 1.0}));
  LS_ASSIGN_OR_RETURN(r, b.op("aten.sqrt.default", {om}));
  LS_ASSIGN_OR_RETURN(poly, horner(b, a, p));
  LS_ASSIGN_OR_RETURN(s, b.op("aten.mul.Tensor", {r, poly}));
  LS_ASSIGN_OR_RETURN(neg, b.op("aten.lt.Scalar", {x, 0.0}));
  LS_ASSIGN_OR_RETURN(ns, b.op("aten.neg.default", {s}));
  if (acos) {
    LS_ASSIGN_OR_RETURN(pis, b.op("aten.add.Tensor", {ns, M_PI}));
    LS_ASSIGN_OR_RETURN(y, b.op("aten.where.self", {neg, pis, s}));
    return done(rw, y);
  }
  LS_ASSIGN_OR_RETURN(as, b.op("aten.add.Tensor", {ns, M_PI_2}));
  LS_ASSIGN_OR_RETURN(nas, b.op("aten.neg.default", {as}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.where.self", {neg, nas, as}));
  return done(rw, y);
}

}  // namespace

void registerDecomposeAsinAndAcosPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeAsinAndAcosPass",
                      .description = "asin/acos -> sqrt(1 - |x|) * polynomial (A&S 4.4.46)",
                      .targets = {"aten.asin.default", "aten.acos.default"},
                      .rewrite = decomposeAsinAcos});
}

}  // namespace ls::arm
