// DecomposeRsubPass (no upstream file of this name at the pinned commit): rsub(x, other, alpha) -> x * -alpha
// + other.
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

/// rsub(x, other, alpha) = other - alpha * x = x * (-alpha) + other (DecomposeRsubPass).
Result<bool> decomposeRsub(passes::Rewriter& rw, passes::RuleStats&) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::Node& n = rw.node();
  auto other = sarg(n, 1).number();
  if (!other) return Status::error("rsub: 'other' must be a number");
  const double alpha = sarg(n, 2).number().value_or(1.0);
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(m, b.op("aten.mul.Tensor", {ref(rw, 0), -alpha}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.add.Tensor", {m, *other}));
  return done(rw, y);
}

}  // namespace

void registerDecomposeRsubPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeRsubPass",
                      .description = "rsub(x, other, alpha) -> x * -alpha + other",
                      .targets = {"aten.rsub.Scalar"},
                      .rewrite = decomposeRsub});
}

}  // namespace ls::arm
