// DecomposePool3dPass (no upstream file of this name at the pinned commit): max_pool3d / avg_pool3d -> 2-D
// pool over (H, W) + amax / scaled sum over depth windows.
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

/// 3-D pools, which TOSA has no operator for: the 2-D pool over (H, W) of x viewed as
/// [N, C * D, H, W], then per output depth a window of kd slices (padded with -inf for max,
/// zeros for avg) reduced by amax, or summed and scaled by PyTorch's divisor for that depth
/// (the 2-D pool already divided by the height/width part, which is the same at every depth).
Result<bool> decomposePool3d(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  const std::string& op = ir::opName(n.op);
  const bool isMax = n.op != LS_OP("aten.avg_pool3d.default");
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  if (xm.rank() != 4 && xm.rank() != 5) return Status::error(fmt::format("{}: expected a rank-4 or rank-5 input, got {}", op, ir::toString(xm)));
  auto k = sints(n, 1, 3), st = sints(n, 2, 3), pd = sints(n, 3, 3);
  if (!k || !pd || k->size() != 3 || pd->size() != 3) return Status::error(fmt::format("{}: malformed kernel_size/padding", op));
  if (!st || st->empty()) st = k;
  if (st->size() != 3) return Status::error(fmt::format("{}: malformed stride", op));
  bool ceil = false, countIncludePad = true;
  if (isMax) {
    auto dl = sints(n, 4, 3);
    if (dl && (dl->size() != 3 || (*dl)[0] != 1 || (*dl)[1] != 1 || (*dl)[2] != 1))
      return Status::error(fmt::format("{}: dilation is not supported (TOSA pools have none)", op));
    ceil = boolOr(sarg(n, 5), false);
    // Only the pooled values may be read: the indices have no lowering.
    for (ir::NodeId u : rw.graph().users(n.id)) {
      const ir::Node& un = rw.graph().node(u);
      const ir::Arg& i = un.args.size() > 1 ? un.args[1] : ir::Arg();
      if (un.op != ir::internOp("operator.getitem") || !i.asInt())
        return Status::error(fmt::format("{}: read directly by '{}'", op, un.name));
      if (*i.asInt() == 1 && !rw.graph().users(u).empty())
        return Status::error(fmt::format("{}: its indices (read by '{}') have no TOSA lowering", op, un.name));
    }
  } else {
    ceil = boolOr(sarg(n, 4), false);
    countIncludePad = boolOr(sarg(n, 5), true);
    if (!sarg(n, 6).isNone()) return Status::error("avg_pool3d: divisor_override is not supported");
  }
  const int r = xm.rank(), dAxis = r - 3;
  const int64_t D = xm.shape[dAxis], H = xm.shape[r - 2], W = xm.shape[r - 1];
  const int64_t lead = xm.numel() / std::max<int64_t>(D * H * W, 1);
  const ir::TensorMeta& om = n.outputs[0];
  const int64_t OD = om.shape[dAxis], OH = om.shape[r - 2], OW = om.shape[r - 1];
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(x4, b.op("aten.view_copy.default", {ref(rw, 0), ir::IntList{1, lead * D, H, W}}));
  ValueRef p2;
  if (isMax) {
    LS_ASSIGN_OR_RETURN(v, b.op("aten.max_pool2d.default", {x4, ir::IntList{(*k)[1], (*k)[2]}, ir::IntList{(*st)[1], (*st)[2]},
                                                            ir::IntList{(*pd)[1], (*pd)[2]}, ir::IntList{1, 1}, ceil}));
    p2 = v;
  } else {
    LS_ASSIGN_OR_RETURN(v, b.op("aten.avg_pool2d.default", {x4, ir::IntList{(*k)[1], (*k)[2]}, ir::IntList{(*st)[1], (*st)[2]},
                                                            ir::IntList{(*pd)[1], (*pd)[2]}, ceil, countIncludePad, ir::Arg()}));
    p2 = v;
  }
  if (b.meta(p2).shape != Shape{1, lead * D, OH, OW})
    return Status::error(fmt::format("{}: the 2-D pool gives {}, expected [1, {}, {}, {}]", op, ir::toString(b.meta(p2)), lead * D, OH, OW));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.view_copy.default", {p2, ir::IntList{lead, D, OH * OW}}));
  // Depth windows over the padded depth axis (dim 1 of [lead, D, OH * OW]).
  const int64_t kd = (*k)[0], sd = (*st)[0], pdd = (*pd)[0];
  const int64_t need = (OD - 1) * sd + kd;  // padded length the windows read
  const int64_t padEnd = std::max<int64_t>(0, need - D - pdd);
  ValueRef yp = y;
  if (pdd > 0 || padEnd > 0) {
    const double fill = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
    LS_ASSIGN_OR_RETURN(pv, b.op("aten.constant_pad_nd.default", {y, ir::IntList{0, 0, pdd, padEnd}, fill}));
    yp = pv;
  }
  ir::RefList parts;
  for (int64_t o = 0; o < OD; ++o) {
    const int64_t from = o * sd;
    LS_ASSIGN_OR_RETURN(win, b.op("aten.slice_copy.Tensor", {yp, int64_t(1), from, from + kd, int64_t(1)}));
    if (isMax) {
      LS_ASSIGN_OR_RETURN(m, b.op("aten.amax.default", {win, ir::IntList{1}, true}));
      parts.push_back(m);
      continue;
    }
    // PyTorch's divisor, depth part: the window clipped to input + padding (count_include_pad)
    // or to the input.
    const int64_t d0 = o * sd - pdd, d1 = std::min(d0 + kd, D + pdd);
    const int64_t div = countIncludePad ? d1 - d0 : std::min(d1, D) - std::max<int64_t>(d0, 0);
    LS_ASSIGN_OR_RETURN(sum, b.op("aten.sum.dim_IntList", {win, ir::IntList{1}, true}));
    LS_ASSIGN_OR_RETURN(m, b.op("aten.mul.Tensor", {sum, div > 0 ? 1.0 / double(div) : 0.0}));
    parts.push_back(m);
  }
  ValueRef z = parts[0];
  if (parts.size() > 1) {
    LS_ASSIGN_OR_RETURN(cat, b.op("aten.cat.default", {parts, int64_t(1)}));
    z = cat;
  }
  LS_ASSIGN_OR_RETURN(out, b.op("aten.view_copy.default", {z, ir::IntList(om.shape.toVector())}));
  if (n.outputs.size() > 1) {
    rw.replaceWith(std::vector<ValueRef>{out, b.tensor(exec::Tensor(n.outputs[1].dtype, n.outputs[1].shape), "unused_indices")});
  } else {
    rw.replaceWith(out);
  }
  return true;
}

}  // namespace

void registerDecomposePool3dPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposePool3dPass",
                      .description = "max_pool3d / avg_pool3d -> 2-D pool over (H, W) + amax / scaled sum over depth windows",
                      .targets = {"aten.max_pool3d_with_indices.default", "aten.max_pool3d.default", "aten.avg_pool3d.default"},
                      .rewrite = decomposePool3d});
}

}  // namespace ls::arm
