// DecomposeLeakyReLUPass (upstream backends/arm/_passes/decompose_leaky_relu_pass.py): leaky_relu
// -> clamp(x, 0) + slope * clamp(x, max=0).
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

/// leaky_relu(x, slope) = clamp(x, 0, None) + slope * clamp(x, None, 0) (upstream's
/// DecomposeLeakyReLUPass; under INT a quantised leaky_relu is a TABLE before this runs).
Result<bool> decomposeLeakyRelu(passes::Rewriter& rw, passes::RuleStats&) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const double slope = sarg(rw.node(), 1).number().value_or(0.01);
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(pos, b.op("aten.clamp.default", {ref(rw, 0), 0.0, ir::Arg()}));
  LS_ASSIGN_OR_RETURN(neg, b.op("aten.clamp.default", {ref(rw, 0), ir::Arg(), 0.0}));
  LS_ASSIGN_OR_RETURN(scaled, b.op("aten.mul.Tensor", {neg, slope}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.add.Tensor", {pos, scaled}));
  rw.replaceWith(y);
  return true;
}

}  // namespace

void registerDecomposeLeakyReLUPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeLeakyReLUPass",
                      .description = "leaky_relu -> clamp(x, 0) + slope * clamp(x, max=0)",
                      .targets = {"aten.leaky_relu.default"},
                      .rewrite = decomposeLeakyRelu});
}

}  // namespace ls::arm
