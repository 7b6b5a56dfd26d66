// ConvertToClampPass (upstream backends/arm/_passes/convert_to_clamp_pass.py): relu/hardtanh ->
// clamp.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <numeric>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/backends/arm/passes/decompose_common.h"
#include "core/ir/op_ref.h"
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

Result<bool> convertToClamp(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  Builder b(rw);
  ir::Arg lo, hi;
  if (n.op == LS_OP("aten.relu.default")) {
    lo = 0.0;
  } else {  // hardtanh(x, min_val, max_val)
    auto l = sarg(n, 1).number(), h = sarg(n, 2).number();
    if (!l || !h) return Status::error("hardtanh min_val/max_val must be numbers");
    lo = *l, hi = *h;
  }
  LS_ASSIGN_OR_RETURN(v, b.op("aten.clamp.default", {ref(rw, 0), lo, hi}, {}, "clamp"));
  rw.replaceWith(v);
  return true;
}

}  // namespace

void registerConvertToClampPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "ConvertToClampPass",
                      .description = "relu/hardtanh -> clamp",
                      .targets = {"aten.relu.default", "aten.hardtanh.default"},
                      .rewrite = convertToClamp});
}

}  // namespace ls::arm
