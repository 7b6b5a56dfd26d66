// RewriteAvgPool2dPass (upstream backends/arm/_passes/rewrite_avg_pool2d_pass.py): avg_pool2d ->
// AVG_POOL2D (NHWC).
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/backends/arm/passes/aten_to_tosa_common.h"
#include "core/backends/arm/tosa/tosa_validate.h"
#include "core/passes/rule_pass.h"
#include "core/transforms/constant_values.h"

namespace ls::arm {

using passes::Rewriter;
using ir::DType;
using ir::Shape;
using namespace aten_to_tosa;

void registerRewriteAvgPool2dPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "RewriteAvgPool2dPass",
                      .description = "avg_pool2d -> AVG_POOL2D (NHWC)",
                      .targets = {"aten.avg_pool2d.default"},
                      .rewrite = rewritePool});
}

}  // namespace ls::arm
