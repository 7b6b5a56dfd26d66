// FuseBatchNorm2dPass (upstream backends/arm/_passes/fuse_batch_norm2d_pass.py): batch norm after a
// convolution folded into its weights and bias (core/transforms/batch_norm.h with the Arm options:
// training mode is an error).
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

void registerFuseBatchNorm2dPass(passes::PassRegistry& r) {
  r.add("FuseBatchNorm2dPass", [] {
    return std::make_unique<transforms::FuseBatchNormPass>("FuseBatchNorm2dPass", transforms::BatchNormOptions{});
  });
}

}  // namespace ls::arm
