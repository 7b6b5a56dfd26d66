// DecomposeAnyPass (upstream backends/arm/_passes/decompose_any_pass.py): any -> x != 0, REDUCE_ANY
// per dim, view.
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

/// any(x[, dim(s)][, keepdim]) -> x != 0 (unless bool), then REDUCE_ANY per reduced dim (TOSA
/// keeps the dim) and a view that drops them unless keepdim.
Result<bool> decomposeAny(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  const bool all = n.op == ir::internOp("aten.any.default");
  std::vector<int64_t> dims;
  if (!all) {
    if (auto l = sarg(n, 1).asIntList()) dims.assign(l->begin(), l->end());
    else if (auto i = sarg(n, 1).asInt()) dims.push_back(*i);
  }
  if (dims.empty())
    for (int d = 0; d < xm.rank(); ++d) dims.push_back(d);
  for (int64_t& d : dims) d = wrap(d, std::max(xm.rank(), 1));
  std::sort(dims.begin(), dims.end());
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  Builder b(rw);
  ValueRef v = ref(rw, 0);
  if (xm.dtype != DType::Bool) {
    ir::Arg zero = ir::isFloating(xm.dtype) ? ir::Arg(0.0) : ir::Arg(int64_t(0));
    LS_ASSIGN_OR_RETURN(nz, b.op("aten.ne.Scalar", {v, zero}));
    v = nz;
  }
  if (xm.rank() > 0)
    for (int64_t d : dims) {
      LS_ASSIGN_OR_RETURN(r, b.op("tosa.REDUCE_ANY", {v}, {{"axis", d}}));
      v = r;
    }
  const ir::TensorMeta& om = n.meta();
  if (b.meta(v).shape != om.shape) {
    LS_ASSIGN_OR_RETURN(r, b.op("aten.view_copy.default", {v, ir::IntList(om.shape.toVector())}));
    v = r;
  }
  if (om.dtype != DType::Bool) {
    LS_ASSIGN_OR_RETURN(c, b.op("aten._to_copy.default", {v}, {{"dtype", ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(om.dtype)})}}));
    v = c;
  }
  rw.replaceWith(v);
  return true;
}

}  // namespace

void registerDecomposeAnyPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeAnyPass",
                      .description = "any -> x != 0, REDUCE_ANY per dim, view",
                      .targets = {"aten.any.default", "aten.any.dim", "aten.any.dims"},
                      .rewrite = decomposeAny});
}

}  // namespace ls::arm
