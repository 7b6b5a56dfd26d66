// DecomposeSinhPass (upstream backends/arm/_passes/decompose_sinh_pass.py): sinh -> (exp(x) -
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

Result<bool> decomposeSinh(passes::Rewriter& rw, passes::RuleStats& stats) { return decomposeSinhCosh(rw, stats, false); }

}  // namespace

void registerDecomposeSinhPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeSinhPass",
                      .description = "sinh -> (exp(x) - exp(-x)) / 2",
                      .targets = {"aten.sinh.default"},
                      .rewrite = decomposeSinh});
}

}  // namespace ls::arm
