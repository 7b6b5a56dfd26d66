// ConvertSqueezesToViewPass (upstream backends/arm/_passes/convert_squeezes_to_view.py):
// squeeze/unsqueeze -> view_copy.
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

Result<bool> convertSqueezesToView(passes::Rewriter& rw, passes::RuleStats&) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(y, b.op("aten.view_copy.default", {ref(rw, 0), ir::IntList(rw.node().meta().shape.toVector())}));
  rw.replaceWith(y);
  return true;
}

}  // namespace

void registerConvertSqueezesToViewPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "ConvertSqueezesToViewPass",
                      .description = "squeeze/unsqueeze -> view_copy",
                      .targets = {"aten.unsqueeze_copy.default", "aten.squeeze_copy.dim", "aten.squeeze_copy.dims",
           "aten.squeeze_copy.default", "aten._unsafe_view.default", "aten.reshape.default", "aten.view.default"},
                      .rewrite = convertSqueezesToView});
}

}  // namespace ls::arm
