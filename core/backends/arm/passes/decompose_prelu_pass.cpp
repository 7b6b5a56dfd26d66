// DecomposePreluPass (upstream backends/arm/_passes/decompose_prelu_pass.py): prelu -> where(x > 0,
// x, w * x).
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

/// prelu(x, w) = where(x > 0, x, w * x), w viewed [1, C, 1, ...] (DecomposePreluPass).
Result<bool> decomposePrelu(passes::Rewriter& rw, passes::RuleStats&) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  LS_RETURN_IF_ERROR(needTensor(rw, 1, "weight"));
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  const ir::TensorMeta& wm = *argMeta(rw, 1);
  Builder b(rw);
  ValueRef w = ref(rw, 1);
  if (xm.rank() >= 2 && wm.shape.numel() > 1) {
    std::vector<int64_t> s(size_t(xm.rank()), 1);
    s[1] = xm.shape[1];
    LS_ASSIGN_OR_RETURN(v, viewAs(b, w, s));
    w = v;
  }
  LS_ASSIGN_OR_RETURN(pos, b.op("aten.gt.Scalar", {ref(rw, 0), 0.0}));
  LS_ASSIGN_OR_RETURN(scaled, b.op("aten.mul.Tensor", {ref(rw, 0), w}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.where.self", {pos, ref(rw, 0), scaled}));
  return done(rw, y);
}

}  // namespace

void registerDecomposePreluPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposePreluPass",
                      .description = "prelu -> where(x > 0, x, w * x)",
                      .targets = {"aten.prelu.default"},
                      .rewrite = decomposePrelu});
}

}  // namespace ls::arm
