// FuseConstantArgsPass (upstream backends/arm/_passes/fuse_constant_ops_pass.py): constant folding
// (core/transforms/constant_folding.h, option anyOp) of every op whose inputs are all constants
// (q/dq, RESCALE, TABLE and quantised compute excepted), TOSA shape operands evaluated along.
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

void registerFuseConstantArgsPass(passes::PassRegistry& r) {
  // Every op whose inputs are all constants (TOSA shape operands evaluated along) becomes a
  // constant, so weights get their target layout at compile time and computed constants (a
  // mask from arange, a weight computed from parameters) reach TOSA as data.
  r.add("FuseConstantArgsPass", [] {
    return std::make_unique<transforms::FoldConstantsRetracePass>(
        "FuseConstantArgsPass", "Evaluates ops whose inputs are all constants into new constants",
        std::vector<std::string>{},
        transforms::ConstantFoldingOptions{.argLessProducers = true, .nameAfterInput = true, .anyOp = true});
  });
}

}  // namespace ls::arm
