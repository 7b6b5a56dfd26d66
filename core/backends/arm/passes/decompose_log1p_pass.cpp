// DecomposeLog1pPass (upstream backends/arm/_passes/decompose_log1p_pass.py): log1p -> log(x + 1).
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

/// log1p(x) = log(x + 1) (DecomposeLog1pPass).
Result<bool> decomposeLog1p(passes::Rewriter& rw, passes::RuleStats&) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(a, b.op("aten.add.Tensor", {ref(rw, 0), 1.0}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.log.default", {a}));
  return done(rw, y);
}

}  // namespace

void registerDecomposeLog1pPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeLog1pPass",
                      .description = "log1p -> log(x + 1)",
                      .targets = {"aten.log1p.default"},
                      .rewrite = decomposeLog1p});
}

}  // namespace ls::arm
