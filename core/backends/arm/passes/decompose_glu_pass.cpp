// DecomposeGluPass (upstream backends/arm/_passes/decompose_glu_pass.py): glu -> first half *
// sigmoid(second half).
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

/// glu(x, dim) = a * sigmoid(b), a and b the halves of x along dim (DecomposeGluPass).
Result<bool> decomposeGlu(passes::Rewriter& rw, passes::RuleStats&) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  const int dim = wrap(intOr(sarg(rw.node(), 1), -1), xm.rank());
  const int64_t h = xm.shape[dim] / 2;
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(a, b.op("aten.slice_copy.Tensor", {ref(rw, 0), int64_t(dim), int64_t(0), h, int64_t(1)}));
  LS_ASSIGN_OR_RETURN(g, b.op("aten.slice_copy.Tensor", {ref(rw, 0), int64_t(dim), h, 2 * h, int64_t(1)}));
  LS_ASSIGN_OR_RETURN(sg, b.op("aten.sigmoid.default", {g}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.mul.Tensor", {a, sg}));
  return done(rw, y);
}

}  // namespace

void registerDecomposeGluPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeGluPass",
                      .description = "glu -> first half * sigmoid(second half)",
                      .targets = {"aten.glu.default"},
                      .rewrite = decomposeGlu});
}

}  // namespace ls::arm
