// DecomposeMaskedFillPass (upstream backends/arm/_passes/decompose_masked_fill_pass.py):
// masked_fill -> where; ne -> logical_not(eq).
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

/// masked_fill(x, mask, v) = where(mask, v, x); ne = logical_not(eq).
Result<bool> decomposeMaskedFillNe(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  Builder b(rw);
  if (n.op == LS_OP("aten.masked_fill.Scalar")) {
    LS_RETURN_IF_ERROR(needTensor(rw, 1, "mask"));
    auto v = sarg(n, 2).number();
    if (!v) return Status::error("masked_fill value must be a number");
    LS_ASSIGN_OR_RETURN(y, b.op("aten.where.self", {ref(rw, 1), *v, ref(rw, 0)}));
    rw.replaceWith(y);
  } else {
    const std::string eq = n.op == LS_OP("aten.ne.Scalar") ? "aten.eq.Scalar" : "aten.eq.Tensor";
    LS_ASSIGN_OR_RETURN(e, b.op(eq, {ref(rw, 0), sarg(n, 1)}));
    LS_ASSIGN_OR_RETURN(y, b.op("aten.logical_not.default", {e}));
    rw.replaceWith(y);
  }
  return true;
}

}  // namespace

void registerDecomposeMaskedFillPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeMaskedFillPass",
                      .description = "masked_fill -> where; ne -> logical_not(eq)",
                      .targets = {"aten.masked_fill.Scalar", "aten.ne.Scalar", "aten.ne.Tensor"},
                      .rewrite = decomposeMaskedFillNe});
}

}  // namespace ls::arm
