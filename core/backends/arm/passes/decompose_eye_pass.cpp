// DecomposeEyePass (no upstream file of this name at the pinned commit): eye -> constant.
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

/// eye(n[, m]) -> its constant (DecomposeEyePass).
Result<bool> decomposeEye(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::TensorMeta& m = rw.node().meta();
  if (m.rank() != 2) return Status::error("eye: expected a 2-D result");
  exec::Tensor t(m.dtype, m.shape);
  for (int64_t i = 0; i < std::min(m.shape[0], m.shape[1]); ++i) t.setDouble(i * m.shape[1] + i, 1.0);
  Builder b(rw);
  return done(rw, b.tensor(t, "eye"));
}

}  // namespace

void registerDecomposeEyePass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeEyePass",
                      .description = "eye -> constant",
                      .targets = {"aten.eye.default", "aten.eye.m"},
                      .rewrite = decomposeEye});
}

}  // namespace ls::arm
