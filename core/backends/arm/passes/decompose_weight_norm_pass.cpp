// DecomposeWeightNormPass (no upstream file of this name at the pinned commit): _weight_norm_interface -> v *
// g * rsqrt(sum(v * v)), norms sqrt(sum(v * v)).
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

/// _weight_norm_interface(v, g, dim) -> w = v * g * rsqrt(sum(v * v) over every dim but `dim`)
/// and the norms sqrt(sum(v * v)) shaped like g. With constant v and g (weight-normalised
/// convolutions) w is computed here, a constant the convolution lowering can take.
Result<bool> decomposeWeightNorm(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "v"));
  LS_RETURN_IF_ERROR(needTensor(rw, 1, "g"));
  const ir::TensorMeta& vm = *argMeta(rw, 0);
  const ir::TensorMeta& gm = *argMeta(rw, 1);
  const int64_t dim = sarg(n, 2).asInt() ? *sarg(n, 2).asInt() : 0;
  std::vector<int64_t> dims;
  const int keep = dim == -1 ? -1 : wrap(dim, vm.rank());
  for (int d = 0; d < vm.rank(); ++d)
    if (d != keep) dims.push_back(d);
  Builder b(rw);
  ValueRef v = ref(rw, 0);
  std::optional<ValueRef> constW;  // constant v and g: w computed here (the weight of a convolution)
  if (transforms::constantBehind(rw.graph(), v) && transforms::constantBehind(rw.graph(), ref(rw, 1))) {
    LS_ASSIGN_OR_RETURN(wc, transforms::foldedConstant(rw.graph(), n));
    constW = b.constant(std::move(wc), "weight_normed");
  }
  LS_ASSIGN_OR_RETURN(sq, b.op("aten.mul.Tensor", {v, v}));
  ValueRef s = sq;
  if (!dims.empty()) {
    LS_ASSIGN_OR_RETURN(sum, b.op("aten.sum.dim_IntList", {sq, ir::IntList(dims), true}));
    s = sum;
  }
  const Shape sShape = b.meta(s).shape;
  if (gm.numel() != sShape.numel())
    return Status::error(fmt::format("weight norm: g {} does not match the norms {}", ir::toString(gm), ir::toString(sShape)));
  ValueRef w;
  if (constW) {
    w = *constW;
  } else {  // run-time v or g: w = v * g * rsqrt(s)
    LS_ASSIGN_OR_RETURN(gv, b.op("aten.view_copy.default", {ref(rw, 1), ir::IntList(sShape.toVector())}));
    LS_ASSIGN_OR_RETURN(inv, b.op("aten.rsqrt.default", {s}));
    LS_ASSIGN_OR_RETURN(scale, b.op("aten.mul.Tensor", {gv, inv}));
    LS_ASSIGN_OR_RETURN(wv, b.op("aten.mul.Tensor", {v, scale}));
    w = wv;
  }
  // The norms output (rarely read; dead code elimination drops it otherwise).
  LS_ASSIGN_OR_RETURN(norm, b.op("aten.sqrt.default", {s}));
  LS_ASSIGN_OR_RETURN(norms, b.op("aten.view_copy.default", {norm, ir::IntList(gm.shape.toVector())}));
  rw.replaceWith(std::vector<ValueRef>{w, norms});
  return true;
}

}  // namespace

void registerDecomposeWeightNormPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeWeightNormPass",
                      .description = "_weight_norm_interface -> v * g * rsqrt(sum(v * v)), norms sqrt(sum(v * v))",
                      .targets = {"aten._weight_norm_interface.default"},
                      .rewrite = decomposeWeightNorm});
}

}  // namespace ls::arm
