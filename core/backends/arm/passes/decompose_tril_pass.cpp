// DecomposeTrilPass (upstream backends/arm/_passes/decompose_tril_pass.py): tril -> where(constant
// mask, x, 0).
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

/// tril(x, k) = where(mask, x, 0) with the constant [R, C] mask col - row <= k (DecomposeTrilPass).
Result<bool> decomposeTril(passes::Rewriter& rw, passes::RuleStats&) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  const int64_t k = intOr(sarg(rw.node(), 1), 0);
  const int64_t R = xm.shape[xm.rank() - 2], C = xm.shape[xm.rank() - 1];
  std::vector<int64_t> ms(size_t(xm.rank()), 1);
  ms[ms.size() - 2] = R, ms[ms.size() - 1] = C;
  exec::Tensor mask(DType::Bool, Shape(ms));
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < C; ++c) mask.setInt(r * C + c, c - r <= k ? 1 : 0);
  Builder b(rw);
  ValueRef zero = b.scalar(xm.dtype, 0.0, xm.rank(), "zero");
  LS_ASSIGN_OR_RETURN(y, b.op("aten.where.self", {b.tensor(mask, "tril_mask"), ref(rw, 0), zero}));
  return done(rw, y);
}

}  // namespace

void registerDecomposeTrilPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeTrilPass",
                      .description = "tril -> where(constant mask, x, 0)",
                      .targets = {"aten.tril.default"},
                      .rewrite = decomposeTril});
}

}  // namespace ls::arm
