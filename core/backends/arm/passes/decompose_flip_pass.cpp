// DecomposeFlipPass (upstream backends/arm/_passes/decompose_flip_pass.py): flip -> one REVERSE per
// dim.
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

/// flip(x, dims) -> one TOSA REVERSE per (distinct) dim (DecomposeFlipPass). After the INT
/// fold, so a quantised flip is reversed on its int8 values.
Result<bool> decomposeFlip(passes::Rewriter& rw, passes::RuleStats&) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  const ir::IntList* dims = sarg(rw.node(), 1).asIntList();
  if (!dims) return Status::error("flip: dims must be an int list");
  Builder b(rw);
  ValueRef y = ref(rw, 0);
  uint32_t seen = 0;
  for (int64_t d : *dims) {
    const int w = wrap(d, xm.rank());
    if (xm.rank() == 0 || (seen & (1u << w))) continue;
    seen |= 1u << w;
    LS_ASSIGN_OR_RETURN(r, b.op("tosa.REVERSE", {y}, {{"axis", int64_t(w)}}));
    y = r;
  }
  return done(rw, y);
}

}  // namespace

void registerDecomposeFlipPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeFlipPass",
                      .description = "flip -> one REVERSE per dim",
                      .targets = {"aten.flip.default"},
                      .rewrite = decomposeFlip});
}

}  // namespace ls::arm
