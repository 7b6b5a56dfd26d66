// DecomposeAtanhPass (upstream backends/arm/_passes/decompose_atanh_pass.py): atanh -> (log(1 + x)
// - log(1 - x)) / 2.
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

/// atanh(x) = (log(1 + x) - log(1 - x)) / 2 (DecomposeAtanhPass).
Result<bool> decomposeAtanh(passes::Rewriter& rw, passes::RuleStats&) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  Builder b(rw);
  ValueRef x = ref(rw, 0);
  LS_ASSIGN_OR_RETURN(p, b.op("aten.add.Tensor", {x, 1.0}));
  LS_ASSIGN_OR_RETURN(nx, b.op("aten.neg.default", {x}));
  LS_ASSIGN_OR_RETURN(m, b.op("aten.add.Tensor", {nx, 1.0}));
  LS_ASSIGN_OR_RETURN(lp, b.op("aten.log.default", {p}));
  LS_ASSIGN_OR_RETURN(lm, b.op("aten.log.default", {m}));
  LS_ASSIGN_OR_RETURN(d, b.op("aten.sub.Tensor", {lp, lm}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.mul.Tensor", {d, 0.5}));
  return done(rw, y);
}

}  // namespace

void registerDecomposeAtanhPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeAtanhPass",
                      .description = "atanh -> (log(1 + x) - log(1 - x)) / 2",
                      .targets = {"aten.atanh.default"},
                      .rewrite = decomposeAtanh});
}

}  // namespace ls::arm
