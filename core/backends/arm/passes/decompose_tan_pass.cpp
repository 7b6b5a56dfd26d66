// DecomposeTanPass (upstream backends/arm/_passes/decompose_tan_pass.py): tan -> sin(x) *
// reciprocal(cos(x)).
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

/// tan(x) = sin(x) * reciprocal(cos(x)) (DecomposeTanPass).
Result<bool> decomposeTan(passes::Rewriter& rw, passes::RuleStats&) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(sn, b.op("aten.sin.default", {ref(rw, 0)}));
  LS_ASSIGN_OR_RETURN(cs, b.op("aten.cos.default", {ref(rw, 0)}));
  LS_ASSIGN_OR_RETURN(rc, b.op("aten.reciprocal.default", {cs}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.mul.Tensor", {sn, rc}));
  return done(rw, y);
}

}  // namespace

void registerDecomposeTanPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeTanPass",
                      .description = "tan -> sin(x) * reciprocal(cos(x))",
                      .targets = {"aten.tan.default"},
                      .rewrite = decomposeTan});
}

}  // namespace ls::arm
