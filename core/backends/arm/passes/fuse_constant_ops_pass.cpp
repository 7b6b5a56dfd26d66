// FuseConstantArgsPass (upstream backends/arm/_passes/fuse_constant_ops_pass.py): constant folding
// (core/transforms/constant_folding.h) of shape/layout ops, TOSA shape operands evaluated along:
// weights get their target layout at compile time.
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
  r.add("FuseConstantArgsPass", [] {
    return std::make_unique<transforms::FoldConstantsRetracePass>(
        "FuseConstantArgsPass", "Evaluates shape/layout ops on constants into new constants",
        std::vector<std::string>{"aten.permute_copy.default", "aten.view_copy.default", "aten.t_copy.default",
                                 "aten.transpose_copy.int", "aten.unsqueeze_copy.default", "aten.squeeze_copy.dim",
                                 "aten.squeeze_copy.dims", "aten.slice_copy.Tensor", "aten.repeat.default",
                                 "tosa.TRANSPOSE", "tosa.RESHAPE"},
        transforms::ConstantFoldingOptions{.argLessProducers = true, .nameAfterInput = true});
  });
}

}  // namespace ls::arm
