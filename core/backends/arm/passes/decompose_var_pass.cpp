// DecomposeVarPass (upstream backends/arm/_passes/decompose_var_pass.py): var / std -> mean,
// squared deviations, sum / (N - correction) [, sqrt].
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

/// var / std over dims (all when none) with `correction` (default 1): mean, squared deviations,
/// sum * 1 / (N - correction), sqrt for std (DecomposeVarPass).
Result<bool> decomposeVar(passes::Rewriter& rw, passes::RuleStats&) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::Node& n = rw.node();
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  if (!ir::isFloating(xm.dtype)) return false;  // left for the support check to name
  std::vector<int64_t> dims;
  if (auto l = sarg(n, 1).asIntList()) dims.assign(l->begin(), l->end());
  else if (auto i = sarg(n, 1).asInt()) dims.push_back(*i);
  if (dims.empty())
    for (int d = 0; d < xm.rank(); ++d) dims.push_back(d);
  int64_t count = 1;
  for (int64_t& d : dims) d = wrap(d, xm.rank()), count *= xm.shape[int(d)];
  const bool varDim = n.op == ir::internOp("aten.var.dim");  // (x, dim, unbiased, keepdim)
  const double correction = varDim ? (boolOr(sarg(n, 2), true) ? 1.0 : 0.0) : sarg(n, 2).number().value_or(1.0);
  const bool keepdim = boolOr(sarg(n, 3), false);
  const bool isStd = n.op == ir::internOp("aten.std.correction");
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(mean, b.op("aten.mean.dim", {ref(rw, 0), ir::IntList(dims), true}));
  LS_ASSIGN_OR_RETURN(d, b.op("aten.sub.Tensor", {ref(rw, 0), mean}));
  LS_ASSIGN_OR_RETURN(d2, b.op("aten.mul.Tensor", {d, d}));
  LS_ASSIGN_OR_RETURN(sum, b.op("aten.sum.dim_IntList", {d2, ir::IntList(dims), keepdim}));
  const double denom = std::max(double(count) - correction, 0.0);
  LS_ASSIGN_OR_RETURN(var, b.op("aten.mul.Tensor", {sum, denom > 0 ? 1.0 / denom : INFINITY}));
  if (!isStd) return done(rw, var);
  LS_ASSIGN_OR_RETURN(y, b.op("aten.sqrt.default", {var}));
  return done(rw, y);
}

}  // namespace

void registerDecomposeVarPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeVarPass",
                      .description = "var / std -> mean, squared deviations, sum / (N - correction) [, sqrt]",
                      .targets = {"aten.var.correction", "aten.var.dim", "aten.std.correction"},
                      .rewrite = decomposeVar});
}

}  // namespace ls::arm
