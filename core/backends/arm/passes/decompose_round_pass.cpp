// DecomposeRoundPass (upstream backends/arm/_passes/decompose_round_pass.py): round (half to even)
// -> floor, parity and where.
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

/// round(x), half to even as torch.round: with fl = floor(x) and frac = x - fl (both exact in
/// float), the result is fl + 1 when frac > 0.5 or when frac == 0.5 and fl is odd, else fl.
/// (Upstream's DecomposeRoundPass uses floor(x + 0.5) / ceil(x - 0.5), which rounds ties away
/// from zero and loses odd integers from 2^23 on, where x + 0.5 is not representable.)
Result<bool> decomposeRound(passes::Rewriter& rw, passes::RuleStats&) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  if (!ir::isFloating(argMeta(rw, 0)->dtype)) {  // round of an integer tensor is the tensor
    rw.replaceWith(ref(rw, 0));
    return true;
  }
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(fl, b.op("aten.floor.default", {ref(rw, 0)}));
  LS_ASSIGN_OR_RETURN(frac, b.op("aten.sub.Tensor", {ref(rw, 0), fl}));
  LS_ASSIGN_OR_RETURN(half, b.op("aten.mul.Tensor", {fl, 0.5}));
  LS_ASSIGN_OR_RETURN(halfFloor, b.op("aten.floor.default", {half}));
  LS_ASSIGN_OR_RETURN(even, b.op("aten.mul.Tensor", {halfFloor, 2.0}));
  LS_ASSIGN_OR_RETURN(parity, b.op("aten.sub.Tensor", {fl, even}));
  LS_ASSIGN_OR_RETURN(above, b.op("aten.gt.Scalar", {frac, 0.5}));
  LS_ASSIGN_OR_RETURN(tie, b.op("aten.eq.Scalar", {frac, 0.5}));
  LS_ASSIGN_OR_RETURN(odd, b.op("aten.eq.Scalar", {parity, 1.0}));
  LS_ASSIGN_OR_RETURN(tieOdd, b.op("aten.logical_and.default", {tie, odd}));
  LS_ASSIGN_OR_RETURN(up, b.op("aten.logical_or.default", {above, tieOdd}));
  LS_ASSIGN_OR_RETURN(next, b.op("aten.add.Tensor", {fl, 1.0}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.where.self", {up, next, fl}));
  rw.replaceWith(y);
  return true;
}

}  // namespace

void registerDecomposeRoundPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeRoundPass",
                      .description = "round (half to even) -> floor, parity and where",
                      .targets = {"aten.round.default"},
                      .rewrite = decomposeRound});
}

}  // namespace ls::arm
