// DecomposeLinalgVectorNormPass (upstream
// backends/arm/_passes/decompose_linalg_vector_norm_pass.py): linalg_vector_norm / norm -> abs /
// pow, sum or amax, root.
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

/// linalg_vector_norm(x, ord, dim, keepdim): ord 2 sqrt(sum(x * x)), 1 sum(|x|), inf / -inf
/// amax / amin(|x|), other p pow(sum(pow(|x|, p)), 1 / p) (DecomposeLinalgVectorNormPass).
Result<bool> decomposeVectorNorm(passes::Rewriter& rw, passes::RuleStats&) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::Node& n = rw.node();
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  const double ord = sarg(n, 1).number().value_or(2.0);
  if (ord == 0.0) return false;  // a count of non-zeros: left for the support check to name
  std::vector<int64_t> dims;
  if (auto l = sarg(n, 2).asIntList()) dims.assign(l->begin(), l->end());
  if (dims.empty())
    for (int d = 0; d < xm.rank(); ++d) dims.push_back(d);
  const bool keepdim = boolOr(sarg(n, 3), false);
  Builder b(rw);
  ValueRef x = ref(rw, 0);
  ValueRef y;
  if (ord == 2.0) {
    LS_ASSIGN_OR_RETURN(x2, b.op("aten.mul.Tensor", {x, x}));
    LS_ASSIGN_OR_RETURN(s, b.op("aten.sum.dim_IntList", {x2, ir::IntList(dims), keepdim}));
    LS_ASSIGN_OR_RETURN(r, b.op("aten.sqrt.default", {s}));
    y = r;
  } else {
    LS_ASSIGN_OR_RETURN(a, b.op("aten.abs.default", {x}));
    if (std::isinf(ord)) {
      LS_ASSIGN_OR_RETURN(r, b.op(ord > 0 ? "aten.amax.default" : "aten.amin.default", {a, ir::IntList(dims), keepdim}));
      y = r;
    } else if (ord == 1.0) {
      LS_ASSIGN_OR_RETURN(r, b.op("aten.sum.dim_IntList", {a, ir::IntList(dims), keepdim}));
      y = r;
    } else {
      LS_ASSIGN_OR_RETURN(p, b.op("aten.pow.Tensor_Scalar", {a, ord}));
      LS_ASSIGN_OR_RETURN(s, b.op("aten.sum.dim_IntList", {p, ir::IntList(dims), keepdim}));
      LS_ASSIGN_OR_RETURN(r, b.op("aten.pow.Tensor_Scalar", {s, 1.0 / ord}));
      y = r;
    }
  }
  return done(rw, y);
}

}  // namespace

void registerDecomposeLinalgVectorNormPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeLinalgVectorNormPass",
                      .description = "linalg_vector_norm / norm -> abs / pow, sum or amax, root",
                      .targets = {"aten.linalg_vector_norm.default", "aten.norm.ScalarOpt_dim", "aten.norm.Scalar"},
                      .rewrite = decomposeVectorNorm});
}

}  // namespace ls::arm
