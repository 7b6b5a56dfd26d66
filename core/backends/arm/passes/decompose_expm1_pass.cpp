// DecomposeExpm1Pass (upstream backends/arm/_passes/decompose_expm1_pass.py): expm1 -> exp(x) - 1.
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

/// expm1(x) = exp(x) - 1 (DecomposeExpm1Pass).
Result<bool> decomposeExpm1(passes::Rewriter& rw, passes::RuleStats&) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(e, b.op("aten.exp.default", {ref(rw, 0)}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.sub.Tensor", {e, 1.0}));
  return done(rw, y);
}

}  // namespace

void registerDecomposeExpm1Pass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeExpm1Pass",
                      .description = "expm1 -> exp(x) - 1",
                      .targets = {"aten.expm1.default"},
                      .rewrite = decomposeExpm1});
}

}  // namespace ls::arm
