// ConvertClampMinPass (no upstream file of this name at the pinned commit): clamp_min -> clamp(x, min, None).
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

/// clamp_min(x, v) = clamp(x, v, None).
Result<bool> convertClampMin(passes::Rewriter& rw, passes::RuleStats&) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(y, b.op("aten.clamp.default", {ref(rw, 0), sarg(rw.node(), 1), ir::Arg()}));
  return done(rw, y);
}

}  // namespace

void registerConvertClampMinPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "ConvertClampMinPass",
                      .description = "clamp_min -> clamp(x, min, None)",
                      .targets = {"aten.clamp_min.default"},
                      .rewrite = convertClampMin});
}

}  // namespace ls::arm
