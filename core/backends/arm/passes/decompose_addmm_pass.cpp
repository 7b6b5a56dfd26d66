// DecomposeAddmmPass (upstream backends/arm/_passes/decompose_addmm_pass.py): addmm -> mm + add.
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

Result<bool> decomposeAddmm(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  for (size_t i = 0; i < 3; ++i) LS_RETURN_IF_ERROR(needTensor(rw, i, "operand"));
  auto beta = sarg(n, 3).number(), alpha = sarg(n, 4).number();
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(mm, b.op("aten.mm.default", {ref(rw, 1), ref(rw, 2)}));
  ValueRef prod = mm;
  if (alpha && *alpha != 1.0) {
    LS_ASSIGN_OR_RETURN(t, b.op("aten.mul.Tensor", {prod, *alpha}));
    prod = t;
  }
  ValueRef bias = ref(rw, 0);
  if (beta && *beta != 1.0) {
    LS_ASSIGN_OR_RETURN(t, b.op("aten.mul.Tensor", {bias, *beta}));
    bias = t;
  }
  LS_ASSIGN_OR_RETURN(y, b.op("aten.add.Tensor", {prod, bias}));
  rw.replaceWith(y);
  return true;
}

}  // namespace

void registerDecomposeAddmmPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeAddmmPass",
                      .description = "addmm -> mm + add",
                      .targets = {"aten.addmm.default"},
                      .rewrite = decomposeAddmm});
}

}  // namespace ls::arm
