// DecomposeCoshPass (upstream backends/arm/_passes/decompose_cosh_pass.py): cosh -> (exp(x) +
// exp(-x)) / 2.
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

Result<bool> decomposeCosh(passes::Rewriter& rw, passes::RuleStats& stats) { return decomposeSinhCosh(rw, stats, true); }

}  // namespace

void registerDecomposeCoshPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeCoshPass",
                      .description = "cosh -> (exp(x) + exp(-x)) / 2",
                      .targets = {"aten.cosh.default"},
                      .rewrite = decomposeCosh});
}

}  // namespace ls::arm
