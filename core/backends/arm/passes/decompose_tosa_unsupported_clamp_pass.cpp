// DecomposeTOSAUnsupportedClampPass (upstream backends/arm/_passes/
// decompose_tosa_unsupported_clamp_pass.py): TOSA 1.0 CLAMP takes its bounds as attributes
// and has only i8 (PRO-INT), i16 (EXT-INT16), fp16/fp32 (PRO-FP) and bf16 forms: no int32
// CLAMP, and no tensor bounds. Both become a MAXIMUM/MINIMUM chain, which TOSA has for int32
// and for floats:
//     clamp(x, lo, hi) on int32   -> minimum(maximum(x, full(lo)), full(hi))
//     clamp.Tensor(x, lo, hi)     -> minimum(maximum(x, lo), hi)
// A missing bound drops its step. An int32 clamp_min (torch.clamp_min, which our
// ConvertClampMinPass would turn into an int32 CLAMP later) is the same clamp without a max. The constants have x's rank (ones shape) and the clamp's
// dtype, as upstream's full((1,) * rank, v). Other scalar clamps (float, int8) stay CLAMPs.
#include <fmt/format.h>

#include <cmath>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/ops/registry.h"
#include "core/passes/rule_pass.h"

namespace ls::arm {

namespace {

using ir::DType;

Result<bool> decomposeClamp(passes::Rewriter& rw, passes::RuleStats&) {
  static const ir::OpId kClampTensor = ir::internOp("aten.clamp.Tensor");
  static const ir::OpId kClampMin = ir::internOp("aten.clamp_min.default");
  const ir::Node& n = rw.node();
  const ir::TensorMeta* xm = argMeta(rw, 0);
  if (!xm) return Status::error("clamp: the input (arg #0) must be a tensor");
  const ir::TensorMeta& out = n.meta();
  const bool tensorBounds = n.op == kClampTensor;
  if (!tensorBounds && out.dtype != DType::Int32) return false;
  Builder b(rw);
  ir::Arg bounds[2] = {ops::schemaArg(n, 1), n.op == kClampMin ? ir::Arg() : ops::schemaArg(n, 2)};
  std::optional<ValueRef> lohi[2];
  for (int i = 0; i < 2; ++i) {
    const ir::Arg& a = bounds[i];
    if (a.isNone()) continue;
    if (tensorBounds) {
      const ir::ValueRef* r = a.ref();
      if (!r) return Status::error(fmt::format("clamp.Tensor: {} must be a tensor or None", i ? "max" : "min"));
      lohi[i] = *r;
      continue;
    }
    auto v = a.number();
    if (!v) return Status::error(fmt::format("clamp: {} must be a number or None", i ? "max" : "min"));
    if (std::floor(*v) != *v)
      return Status::error(fmt::format("clamp of an int32 tensor: {} = {} is not an integer", i ? "max" : "min", *v));
    lohi[i] = b.scalar(out.dtype, *v, xm->rank(), i ? "clamp_max" : "clamp_min");
  }
  if (!lohi[0] && !lohi[1]) return Status::error("clamp: at least one of min and max must be given");
  ValueRef y = *n.args[0].ref();
  if (lohi[0]) {
    LS_ASSIGN_OR_RETURN(v, b.op("aten.maximum.default", {y, *lohi[0]}));
    y = v;
  }
  if (lohi[1]) {
    LS_ASSIGN_OR_RETURN(v, b.op("aten.minimum.default", {y, *lohi[1]}));
    y = v;
  }
  if (b.meta(y).dtype != out.dtype) {  // maximum/minimum promote as clamp does; keep the check honest
    return Status::error(fmt::format("clamp: the maximum/minimum chain computes {}, the clamp {}",
                                     ir::dtypeName(b.meta(y).dtype), ir::dtypeName(out.dtype)));
  }
  rw.replaceWith(y);
  return true;
}

}  // namespace

void registerDecomposeTOSAUnsupportedClampPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeTOSAUnsupportedClampPass",
                      .description = "int32 clamp/clamp_min and clamp.Tensor -> maximum/minimum (TOSA CLAMP: scalar bounds, "
                                     "no int32)",
                      .targets = {"aten.clamp.default", "aten.clamp.Tensor", "aten.clamp_min.default"},
                      .rewrite = decomposeClamp});
}

}  // namespace ls::arm
