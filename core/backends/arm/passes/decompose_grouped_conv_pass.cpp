// DecomposeGroupedConvPass (upstream backends/arm/_passes/decompose_grouped_conv_pass.py): grouped
// (non-depthwise) convolution -> per-group convs + cat.
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

/// A convolution with groups > 1 that is not transposed (depthwise ones included: the rewrite
/// tells them apart by their shapes).
bool isGroupedConv(const ir::Node& n) {
  const ir::Arg& g = sarg(n, 8);
  return g.asInt() && *g.asInt() > 1 && !isTransposedConv(n);
}

Result<bool> decomposeGroupedConv(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  if (!isGroupedConv(n)) return false;
  const ir::Arg& g = sarg(n, 8);
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  LS_RETURN_IF_ERROR(needTensor(rw, 1, "weight"));
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  const ir::TensorMeta& wm = *argMeta(rw, 1);
  const int64_t groups = *g.asInt(), cin = xm.shape[1], cout = wm.shape[0];
  if (wm.shape[1] == 1 && cin == groups && xm.rank() <= 4) return false;  // depthwise 1-D/2-D: DEPTHWISE_CONV2D
  const int64_t ci = cin / groups, co = cout / groups;
  Builder b(rw);
  std::vector<ValueRef> parts;
  for (int64_t k = 0; k < groups; ++k) {
    LS_ASSIGN_OR_RETURN(xs, b.op("aten.slice_copy.Tensor", {ref(rw, 0), 1, k * ci, (k + 1) * ci, 1}));
    LS_ASSIGN_OR_RETURN(ws, b.op("aten.slice_copy.Tensor", {ref(rw, 1), 0, k * co, (k + 1) * co, 1}));
    ir::Arg bias;
    if (const ir::ValueRef* br = sarg(n, 2).ref()) {
      LS_ASSIGN_OR_RETURN(bs, b.op("aten.slice_copy.Tensor", {*br, 0, k * co, (k + 1) * co, 1}));
      bias = bs;
    }
    LS_ASSIGN_OR_RETURN(c, b.op("aten.convolution.default",
                    {xs, ws, bias, sarg(n, 3), sarg(n, 4), sarg(n, 5), false, sarg(n, 7), int64_t(1)}));
    parts.push_back(c);
  }
  LS_ASSIGN_OR_RETURN(y, b.op("aten.cat.default", {ir::RefList(parts.begin(), parts.end()), 1}));
  rw.replaceWith(y);
  return true;
}

}  // namespace

void registerDecomposeGroupedConvPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeGroupedConvPass",
                      .description = "grouped (non-depthwise) convolution -> per-group convs + cat",
                      .targets = {"aten.convolution.default"},
                      .rewrite = decomposeGroupedConv,
                      .candidate = isGroupedConv,
                      .noCandidate = "no grouped convolution"});
}

}  // namespace ls::arm
