// RewriteSlicePass (upstream backends/arm/_passes/rewrite_slice.py): slice_copy -> SLICE (a step >
// 1: SLICE, RESHAPE, SLICE, RESHAPE).
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/backends/arm/passes/aten_to_tosa_common.h"
#include "core/backends/arm/tosa/tosa_validate.h"
#include "core/passes/rule_pass.h"
#include "core/transforms/constant_values.h"

namespace ls::arm {

using passes::Rewriter;
using ir::DType;
using ir::Shape;
using namespace aten_to_tosa;

namespace {

Result<bool> rewriteSlice(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  LS_ASSIGN_OR_RETURN(x, tensorArg(rw, 0, "input"));
  const ir::TensorMeta& xm = rw.meta(x);
  const int64_t step = sarg(n, 4).asInt() ? *sarg(n, 4).asInt() : 1;
  if (step < 1) return Status::error(fmt::format("slice step must be positive, got {}", step));
  int dim = wrap(sarg(n, 1).asInt() ? *sarg(n, 1).asInt() : 0, xm.rank());
  const int64_t len = xm.shape[dim];
  int64_t start = sarg(n, 2).asInt() ? *sarg(n, 2).asInt() : 0;
  if (start < 0) start += len;
  start = std::clamp<int64_t>(start, 0, len);
  const std::vector<int64_t> outShape = n.meta().shape.toVector();
  const int64_t cnt = outShape[size_t(dim)];
  std::vector<int64_t> st(size_t(xm.rank()), 0), sz = outShape;
  st[size_t(dim)] = start;
  Builder b(rw);
  if (step == 1 || cnt <= 1) {
    LS_ASSIGN_OR_RETURN(s0, b.constShape(st));
    LS_ASSIGN_OR_RETURN(s1, b.constShape(sz));
    LS_ASSIGN_OR_RETURN(y, b.op("tosa.SLICE", {x, s0, s1}));
    rw.replaceWith(y);
    return true;
  }
  // TOSA SLICE has no stride: take the `cnt * step` elements from `start` (zero-padded at the
  // end when the tensor is shorter), split the dim into [cnt, step], keep index 0 of `step`.
  const int64_t have = std::min(cnt * step, len - start);
  sz[size_t(dim)] = have;
  LS_ASSIGN_OR_RETURN(s0, b.constShape(st));
  LS_ASSIGN_OR_RETURN(s1, b.constShape(sz));
  LS_ASSIGN_OR_RETURN(range, b.op("tosa.SLICE", {x, s0, s1}));
  ValueRef v = range;
  if (have < cnt * step) {
    std::vector<int64_t> padding(size_t(2 * xm.rank()), 0);
    padding[size_t(2 * dim + 1)] = cnt * step - have;
    LS_ASSIGN_OR_RETURN(p, b.constShape(padding));
    LS_ASSIGN_OR_RETURN(padded, b.op("tosa.PAD", {v, p, b.scalar(xm.dtype, 0.0, 1, "pad_const")}));
    v = padded;
  }
  std::vector<int64_t> split;
  for (int d = 0; d < xm.rank(); ++d) {
    if (d == dim) split.push_back(cnt), split.push_back(step);
    else split.push_back(outShape[size_t(d)]);
  }
  LS_ASSIGN_OR_RETURN(r, b.reshape(v, ir::Shape(split)));
  std::vector<int64_t> st2(split.size(), 0), sz2 = split;
  sz2[size_t(dim) + 1] = 1;
  LS_ASSIGN_OR_RETURN(t0, b.constShape(st2));
  LS_ASSIGN_OR_RETURN(t1, b.constShape(sz2));
  LS_ASSIGN_OR_RETURN(picked, b.op("tosa.SLICE", {r, t0, t1}));
  LS_ASSIGN_OR_RETURN(y, b.reshape(picked, n.meta().shape));
  rw.replaceWith(y);
  return true;
}

}  // namespace

void registerRewriteSlicePass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "RewriteSlicePass",
                      .description = "slice_copy -> SLICE (a step > 1: SLICE, RESHAPE, SLICE, RESHAPE)",
                      .targets = {"aten.slice_copy.Tensor"},
                      .rewrite = rewriteSlice});
}

}  // namespace ls::arm
