// DecomposeSignPass (upstream backends/arm/_passes/decompose_sign_pass.py): sign -> where(x > 0, 1,
// where(x < 0, -1, x)).
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

/// sign(x) = where(x > 0, 1, where(x < 0, -1, x)): 0 stays 0 (and NaN NaN), as torch.sign
/// (DecomposeSignPass). Integer tensors keep their dtype.
Result<bool> decomposeSign(passes::Rewriter& rw, passes::RuleStats&) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::TensorMeta& m = *argMeta(rw, 0);
  if (m.dtype == DType::Bool) return done(rw, ref(rw, 0));
  Builder b(rw);
  ValueRef x = ref(rw, 0);
  LS_ASSIGN_OR_RETURN(pos, b.op("aten.gt.Scalar", {x, 0.0}));
  LS_ASSIGN_OR_RETURN(neg, b.op("aten.lt.Scalar", {x, 0.0}));
  ValueRef one = b.scalar(m.dtype, 1.0, m.rank(), "one"), minusOne = b.scalar(m.dtype, -1.0, m.rank(), "minus_one");
  LS_ASSIGN_OR_RETURN(inner, b.op("aten.where.self", {neg, minusOne, x}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.where.self", {pos, one, inner}));
  return done(rw, y);
}

}  // namespace

void registerDecomposeSignPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeSignPass",
                      .description = "sign -> where(x > 0, 1, where(x < 0, -1, x))",
                      .targets = {"aten.sign.default"},
                      .rewrite = decomposeSign});
}

}  // namespace ls::arm
