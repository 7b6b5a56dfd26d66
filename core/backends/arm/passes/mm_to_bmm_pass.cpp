// ConvertMmToBmmPass (upstream backends/arm/_passes/mm_to_bmm_pass.py): mm -> rank-3 bmm with
// views.
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

Result<bool> convertMmToBmm(passes::Rewriter& rw, passes::RuleStats&) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "mat1"));
  LS_RETURN_IF_ERROR(needTensor(rw, 1, "mat2"));
  const ir::TensorMeta& a = *argMeta(rw, 0);
  const ir::TensorMeta& m2 = *argMeta(rw, 1);
  if (a.rank() != 2 || m2.rank() != 2) return Status::error("mm operands must be rank 2");
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(a3, b.op("aten.view_copy.default", {ref(rw, 0), ir::IntList{1, a.shape[0], a.shape[1]}}));
  LS_ASSIGN_OR_RETURN(b3, b.op("aten.view_copy.default", {ref(rw, 1), ir::IntList{1, m2.shape[0], m2.shape[1]}}));
  LS_ASSIGN_OR_RETURN(p, b.op("aten.bmm.default", {a3, b3}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.view_copy.default", {p, ir::IntList{a.shape[0], m2.shape[1]}}));
  rw.replaceWith(y);
  return true;
}

}  // namespace

void registerConvertMmToBmmPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "ConvertMmToBmmPass",
                      .description = "mm -> rank-3 bmm with views",
                      .targets = {"aten.mm.default"},
                      .rewrite = convertMmToBmm});
}

}  // namespace ls::arm
