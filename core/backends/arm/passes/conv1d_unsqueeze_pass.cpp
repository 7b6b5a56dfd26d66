// Conv1dUnsqueezePass (upstream backends/arm/_passes/conv1d_unsqueeze_pass.py): 1-D convolution ->
// 2-D convolution of height 1.
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

Result<bool> conv1dUnsqueeze(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  LS_RETURN_IF_ERROR(needTensor(rw, 1, "weight"));
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  const ir::TensorMeta& wm = *argMeta(rw, 1);
  if (wm.rank() != 3) return false;  // not a 1-D convolution
  auto stride = sints(n, 3, 1), pad = sints(n, 4, 1), dil = sints(n, 5, 1), opad = sints(n, 7, 1);
  if (!stride || !pad || !dil || !opad) return Status::error("convolution: expected int lists for stride/padding/dilation");
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(x4, b.op("aten.view_copy.default", {ref(rw, 0), ir::IntList{xm.shape[0], xm.shape[1], 1, xm.shape[2]}}));
  LS_ASSIGN_OR_RETURN(w4, b.op("aten.view_copy.default", {ref(rw, 1), ir::IntList{wm.shape[0], wm.shape[1], 1, wm.shape[2]}}));
  std::vector<ir::Arg> args = {x4, w4, sarg(n, 2), ir::IntList{1, (*stride)[0]}, ir::IntList{0, (*pad)[0]},
                               ir::IntList{1, (*dil)[0]}, sarg(n, 6), ir::IntList{0, (*opad)[0]}, sarg(n, 8)};
  LS_ASSIGN_OR_RETURN(c, b.op("aten.convolution.default", std::move(args)));
  const ir::TensorMeta& cm = b.meta(c);
  LS_ASSIGN_OR_RETURN(y, b.op("aten.view_copy.default", {c, ir::IntList{cm.shape[0], cm.shape[1], cm.shape[3]}}));
  rw.replaceWith(y);
  return true;
}

}  // namespace

void registerConv1dUnsqueezePass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "Conv1dUnsqueezePass",
                      .description = "1-D convolution -> 2-D convolution of height 1",
                      .targets = {"aten.convolution.default"},
                      .rewrite = conv1dUnsqueeze});
}

}  // namespace ls::arm
