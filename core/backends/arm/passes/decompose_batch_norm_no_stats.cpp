// DecomposeBatchNormNoStatsPass (upstream backends/arm/_passes/decompose_batch_norm_no_stats.py):
// batch norm without running statistics -> elementwise ops (core/transforms/batch_norm.h with the
// Arm options).
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <numeric>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/passes/pass_manager.h"
#include "core/passes/rule_pass.h"
#include "core/transforms/batch_norm.h"
#include "core/transforms/constant_folding.h"
#include "core/transforms/constant_values.h"

namespace ls::arm {

using passes::Rewriter;
using ir::DType;
using ir::Shape;

void registerDecomposeBatchNormNoStatsPass(passes::PassRegistry& r) {
  r.add("DecomposeBatchNormNoStatsPass", [] {
    return std::make_unique<transforms::DecomposeBatchNormPass>("DecomposeBatchNormNoStatsPass",
                                                                transforms::BatchNormOptions{});
  });
}

}  // namespace ls::arm
