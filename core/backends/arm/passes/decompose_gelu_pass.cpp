// DecomposeGeluPass (upstream backends/arm/_passes/decompose_gelu_pass.py): gelu -> erf (exact) or
// tanh (approximate) form.
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

Result<bool> decomposeGelu(passes::Rewriter& rw, passes::RuleStats&) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::Node& n = rw.node();
  const ir::Arg& ap = sarg(n, 1);
  std::string approx = ap.asString() ? *ap.asString() : "none";
  Builder b(rw);
  ValueRef x = ref(rw, 0);
  ValueRef inner;
  if (approx == "none") {
    // 0.5 * x * (1 + erf(x / sqrt(2)))
    LS_ASSIGN_OR_RETURN(t, b.op("aten.mul.Tensor", {x, M_SQRT1_2}));
    LS_ASSIGN_OR_RETURN(e, b.op("aten.erf.default", {t}));
    inner = e;
  } else if (approx == "tanh") {
    // 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))
    LS_ASSIGN_OR_RETURN(x2, b.op("aten.mul.Tensor", {x, x}));
    LS_ASSIGN_OR_RETURN(x3, b.op("aten.mul.Tensor", {x2, x}));
    LS_ASSIGN_OR_RETURN(k, b.op("aten.mul.Tensor", {x3, 0.044715}));
    LS_ASSIGN_OR_RETURN(s, b.op("aten.add.Tensor", {x, k}));
    LS_ASSIGN_OR_RETURN(t, b.op("aten.mul.Tensor", {s, std::sqrt(2.0 / M_PI)}));
    LS_ASSIGN_OR_RETURN(th, b.op("aten.tanh.default", {t}));
    inner = th;
  } else {
    return Status::error(fmt::format("gelu approximate='{}': expected 'none' or 'tanh'", approx));
  }
  LS_ASSIGN_OR_RETURN(one, b.op("aten.add.Tensor", {inner, 1.0}));
  LS_ASSIGN_OR_RETURN(hx, b.op("aten.mul.Tensor", {x, 0.5}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.mul.Tensor", {hx, one}));
  rw.replaceWith(y);
  return true;
}

}  // namespace

void registerDecomposeGeluPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeGeluPass",
                      .description = "gelu -> erf (exact) or tanh (approximate) form",
                      .targets = {"aten.gelu.default"},
                      .rewrite = decomposeGelu});
}

}  // namespace ls::arm
