// DecomposeSliceScatterPass (upstream backends/arm/_passes/decompose_slice_scatter_pass.py):
// slice_scatter -> slices + cat.
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

/// slice_scatter(x, src, dim, start, end, 1) = cat(x[:start], src, x[end:]).
Result<bool> decomposeSliceScatter(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  LS_RETURN_IF_ERROR(needTensor(rw, 1, "src"));
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  int d = wrap(sarg(n, 2).asInt() ? *sarg(n, 2).asInt() : 0, xm.rank());
  const int64_t len = xm.shape[d];
  if (sarg(n, 5).asInt() && *sarg(n, 5).asInt() != 1) return Status::error("slice_scatter with step != 1 is not supported");
  int64_t start = sarg(n, 3).asInt() ? *sarg(n, 3).asInt() : 0;
  if (start < 0) start += len;
  start = std::clamp<int64_t>(start, 0, len);
  const int64_t end = start + argMeta(rw, 1)->shape[d];
  Builder b(rw);
  ir::RefList parts;
  if (start > 0) {
    LS_ASSIGN_OR_RETURN(h, b.op("aten.slice_copy.Tensor", {ref(rw, 0), int64_t(d), int64_t(0), start, 1}));
    parts.push_back(h);
  }
  parts.push_back(ref(rw, 1));
  if (end < len) {
    LS_ASSIGN_OR_RETURN(t, b.op("aten.slice_copy.Tensor", {ref(rw, 0), int64_t(d), end, len, 1}));
    parts.push_back(t);
  }
  LS_ASSIGN_OR_RETURN(y, b.op("aten.cat.default", {parts, int64_t(d)}));
  rw.replaceWith(y);
  return true;
}

}  // namespace

void registerDecomposeSliceScatterPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeSliceScatterPass",
                      .description = "slice_scatter -> slices + cat",
                      .targets = {"aten.slice_scatter.default"},
                      .rewrite = decomposeSliceScatter});
}

}  // namespace ls::arm
