// DecomposeLinearPass (upstream backends/arm/_passes/decompose_linear_pass.py): linear -> view +
// mm(x, w^T) + bias.
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

Result<bool> decomposeLinear(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  LS_RETURN_IF_ERROR(needTensor(rw, 1, "weight"));
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  const ir::TensorMeta& wm = *argMeta(rw, 1);
  if (wm.rank() != 2) return Status::error("linear weight must be rank 2");
  Builder b(rw);
  int64_t K = xm.shape[xm.rank() - 1], M = xm.numel() / std::max<int64_t>(K, 1);
  LS_ASSIGN_OR_RETURN(x2, b.op("aten.view_copy.default", {ref(rw, 0), ir::IntList{M, K}}));
  LS_ASSIGN_OR_RETURN(wt, b.op("aten.permute_copy.default", {ref(rw, 1), ir::IntList{1, 0}}));
  LS_ASSIGN_OR_RETURN(mm, b.op("aten.mm.default", {x2, wt}));
  ValueRef out = mm;
  if (const ir::ValueRef* bias = sarg(n, 2).ref()) {
    LS_ASSIGN_OR_RETURN(t, b.op("aten.add.Tensor", {out, *bias}));
    out = t;
  }
  Shape os = xm.shape;
  os[os.rank() - 1] = wm.shape[0];
  LS_ASSIGN_OR_RETURN(y, b.op("aten.view_copy.default", {out, ir::IntList(os.toVector())}));
  rw.replaceWith(y);
  return true;
}

}  // namespace

void registerDecomposeLinearPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeLinearPass",
                      .description = "linear -> view + mm(x, w^T) + bias",
                      .targets = {"aten.linear.default"},
                      .rewrite = decomposeLinear});
}

}  // namespace ls::arm
