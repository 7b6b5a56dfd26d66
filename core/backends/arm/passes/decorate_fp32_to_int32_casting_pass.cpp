// DecorateFp32toInt32CastingPass (upstream backends/arm/_passes/
// decorate_fp32_to_int32_casting_pass.py): a float32 -> int32 cast truncates toward zero in
// PyTorch, while TOSA 1.0 CAST from a float rounds to the nearest integer
// (round_to_nearest_int), so (x * 2.5).int() would be off by one for about half of the
// fractional values. The cast's input is first made integral the torch way, after which the
// CAST's rounding is exact:
//     zero  = constant 0.0 of x's rank (ones shape)
//     y     = where(x >= zero, floor(x), ceil(x))
//     out   = _to_copy(y, dtype=int32)          (the same cast node, reading y)
// As upstream, only float32 -> int32 casts are decorated (upstream's targets: the dim-order
// copy, our aten._to_copy). Upstream also skips a cast whose input carries output qparams
// (its fake tensor then says float for an integer value); here a quantised value has its
// integer dtype in the metadata, so the dtype test alone leaves it alone.
// The pass runs after ReplaceScalarWithTensorPass and MatchArgRanksPass, where upstream runs it
// (after DecomposeAnyPass, before ConvertExpandCopyToRepeatPass), so it emits what those
// passes would have made: a rank-matched constant and tensor-tensor ops only.
#include <fmt/format.h>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/passes/rule_pass.h"

namespace ls::arm {

using ir::DType;

namespace {

Result<bool> decorateFp32ToInt32Cast(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  if (n.args.empty() || !n.args[0].ref())
    return Status::error("_to_copy: the input (arg #0) must be a tensor");
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  if (xm.dtype != DType::Float32 || n.meta().dtype != DType::Int32) return false;
  Builder b(rw);
  const ValueRef x = *n.args[0].ref();
  const ValueRef zero = b.scalar(DType::Float32, 0.0, xm.rank(), "zero");
  LS_ASSIGN_OR_RETURN(nonNegative, b.op("aten.ge.Tensor", {x, zero}));
  LS_ASSIGN_OR_RETURN(down, b.op("aten.floor.default", {x}));
  LS_ASSIGN_OR_RETURN(up, b.op("aten.ceil.default", {x}));
  LS_ASSIGN_OR_RETURN(toward0, b.op("aten.where.self", {nonNegative, down, up}));
  std::vector<ir::Arg> args = n.args;
  args[0] = ir::Arg(toward0);
  rw.setArgs(std::move(args));
  return true;
}

}  // namespace

void registerDecorateFp32toInt32CastingPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecorateFp32toInt32CastingPass",
                      .description = "float32 -> int32 cast truncates like torch: where(x >= 0, floor(x), ceil(x)) "
                                     "before the CAST (which rounds)",
                      .targets = {"aten._to_copy.default"},
                      .rewrite = decorateFp32ToInt32Cast});
}

}  // namespace ls::arm
