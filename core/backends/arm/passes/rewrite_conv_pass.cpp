// RewriteConv2dPass (upstream backends/arm/_passes/rewrite_conv_pass.py): convolution -> CONV2D /
// DEPTHWISE_CONV2D / TRANSPOSE_CONV2D / CONV3D (NHWC/NDHWC, OHWI/HWCM/ODHWI weights).
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

/// 3-D convolution -> CONV3D on NDHWC with an [OC, KD, KH, KW, IC] weight. Grouped and
/// transposed 3-D convolutions are decomposed before this pass (DecomposeGroupedConvPass,
/// DecomposeConvTranspose3dPass).
Result<bool> rewriteConv3d(passes::Rewriter& rw, passes::RuleStats&, ValueRef x, ValueRef wref) {
  const ir::Node& n = rw.node();
  const ir::TensorMeta& xm = rw.meta(x);
  const ir::Constant* wc = transforms::constantBehind(rw.graph(), wref);
  if (!wc) return Status::error("convolution weight must be a constant for TOSA");
  auto stride = sints(n, 3, 3), pad = sints(n, 4, 3), dil = sints(n, 5, 3);
  auto groups = sarg(n, 8).asInt();
  const ir::Arg& trA = sarg(n, 6);
  if (!stride || !pad || !dil || !groups) return Status::error("convolution: malformed stride/padding/dilation/groups");
  if (trA.asBool() && *trA.asBool())
    return Status::error("transposed 3-D convolution must be decomposed first (DecomposeConvTranspose3dPass)");
  if (*groups != 1) return Status::error(fmt::format("grouped 3-D convolution (groups={}) must be decomposed first", *groups));
  const ir::TensorMeta& om = n.meta();
  const int64_t OC = om.shape[1];
  Builder b(rw);
  ValueRef bias;
  if (const ir::ValueRef* br = sarg(n, 2).ref()) {
    if (!transforms::constantBehind(rw.graph(), *br)) return Status::error("convolution bias must be a constant for TOSA");
    bias = *br;
  } else {
    bias = b.tensor(exec::Tensor(xm.dtype, Shape{OC}), "zero_bias");
  }
  const std::vector<int64_t> toCl{0, 2, 3, 4, 1}, toCf{0, 4, 1, 2, 3};
  LS_ASSIGN_OR_RETURN(xt0, b.op("aten.permute_copy.default", {x, ir::IntList(toCl)}, {}, "permute_ndhwc"));
  ValueRef xt = xt0;
  ir::IntList padAttr;
  for (int i = 0; i < 3; ++i) {
    Fit f = fitPadding(xm.shape[2 + i], (*pad)[size_t(i)], wc->shape[2 + i], (*dil)[size_t(i)], (*stride)[size_t(i)],
                       om.shape[2 + i]);
    if (f.trim) {
      LS_ASSIGN_OR_RETURN(sl, b.op("aten.slice_copy.Tensor", {xt, int64_t(1 + i), int64_t(0), xm.shape[2 + i] - f.trim, int64_t(1)}));
      xt = sl;
    }
    padAttr.push_back((*pad)[size_t(i)]);
    padAttr.push_back(f.padEnd);
  }
  ValueRef w = b.permuted(*wc, toCl, "permute ODHWI", "weight_odhwi");
  LS_ASSIGN_OR_RETURN(c, b.op("tosa.CONV3D", {xt, w, bias, b.zeroPoint(xm.dtype), b.zeroPoint(wc->dtype)},
                              {{"pad", padAttr}, {"stride", ir::IntList(*stride)}, {"dilation", ir::IntList(*dil)},
                               {"acc_type", accType(xm.dtype)}}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.permute_copy.default", {c, ir::IntList(toCf)}, {}, "permute_ncdhw"));
  rw.replaceWith(y);
  return true;
}

Result<bool> rewriteConv(passes::Rewriter& rw, passes::RuleStats& stats) {
  const ir::Node& n = rw.node();
  LS_ASSIGN_OR_RETURN(x, tensorArg(rw, 0, "input"));
  LS_ASSIGN_OR_RETURN(wref, tensorArg(rw, 1, "weight"));
  const ir::TensorMeta& xm = rw.meta(x);
  if (xm.rank() == 5) return rewriteConv3d(rw, stats, x, wref);
  if (xm.rank() != 4)
    return Status::error(fmt::format("expected a 2-D or 3-D convolution (rank-4 or rank-5 input), got {}", ir::toString(xm)));
  const ir::Constant* wc = transforms::constantBehind(rw.graph(), wref);
  if (!wc) return Status::error("convolution weight must be a constant for TOSA");
  auto stride = sints(n, 3, 2), pad = sints(n, 4, 2), dil = sints(n, 5, 2), opad = sints(n, 7, 2);
  auto groups = sarg(n, 8).asInt();
  const ir::Arg& trA = sarg(n, 6);
  const bool transposed = trA.asBool() && *trA.asBool();
  if (!stride || !pad || !dil || !groups || !opad) return Status::error("convolution: malformed stride/padding/dilation/groups");
  const int64_t C = xm.shape[1];
  const ir::TensorMeta& om = n.meta();
  const int64_t OC = om.shape[1];
  Builder b(rw);
  ValueRef bias;
  if (const ir::ValueRef* br = sarg(n, 2).ref()) {
    if (!transforms::constantBehind(rw.graph(), *br)) return Status::error("convolution bias must be a constant for TOSA");
    bias = *br;
  } else {
    bias = b.tensor(exec::Tensor(xm.dtype, Shape{OC}), "zero_bias");
  }
  ValueRef izp = b.zeroPoint(xm.dtype), wzp = b.zeroPoint(wc->dtype);
  LS_ASSIGN_OR_RETURN(xt, toNhwc(b, x));
  ValueRef out;
  if (transposed) {
    if (*groups != 1 || (*dil)[0] != 1 || (*dil)[1] != 1)
      return Status::error("transposed convolution with groups or dilation is not supported");
    ValueRef w = b.permuted(*wc, {1, 2, 3, 0}, "permute OHWI", "weight_ohwi");
    ir::IntList outPad{-(*pad)[0], -(*pad)[0] + (*opad)[0], -(*pad)[1], -(*pad)[1] + (*opad)[1]};
    LS_ASSIGN_OR_RETURN(c, b.op("tosa.TRANSPOSE_CONV2D", {xt, w, bias, izp, wzp},
                    {{"out_pad", outPad}, {"stride", ir::IntList(*stride)}, {"acc_type", accType(xm.dtype)}}));
    out = c;
  } else {
    int64_t kh = wc->shape[2], kw = wc->shape[3];
    Fit fh = fitPadding(xm.shape[2], (*pad)[0], kh, (*dil)[0], (*stride)[0], om.shape[2]);
    Fit fw = fitPadding(xm.shape[3], (*pad)[1], kw, (*dil)[1], (*stride)[1], om.shape[3]);
    LS_ASSIGN_OR_RETURN(xin, trimNhwc(b, xt, fh.trim, fw.trim));
    std::vector<ir::Kwarg> attrs = {{"pad", ir::IntList{(*pad)[0], fh.padEnd, (*pad)[1], fw.padEnd}},
                                    {"stride", ir::IntList(*stride)},
                                    {"dilation", ir::IntList(*dil)},
                                    {"acc_type", accType(xm.dtype)}};
    if (*groups == 1) {
      ValueRef w = b.permuted(*wc, kToNhwc, "permute OHWI", "weight_ohwi");
      LS_ASSIGN_OR_RETURN(c, b.op("tosa.CONV2D", {xin, w, bias, izp, wzp}, std::move(attrs)));
      out = c;
    } else if (*groups == C && wc->shape[1] == 1) {
      const int64_t M = OC / C;
      ValueRef w = b.permuted(*wc, {2, 3, 0, 1}, "permute HWCM", "weight_hwcm", Shape{C, M, kh, kw});
      LS_ASSIGN_OR_RETURN(c, b.op("tosa.DEPTHWISE_CONV2D", {xin, w, bias, izp, wzp}, std::move(attrs)));
      out = c;
    } else {
      return Status::error(fmt::format("grouped convolution (groups={}) must be decomposed first", *groups));
    }
  }
  LS_ASSIGN_OR_RETURN(y, toNchw(b, out));
  rw.replaceWith(y);
  return true;
}

}  // namespace

void registerRewriteConv2dPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "RewriteConv2dPass",
                      .description = "convolution -> CONV2D / DEPTHWISE_CONV2D / TRANSPOSE_CONV2D / CONV3D (NHWC/NDHWC, OHWI/HWCM/ODHWI weights)",
                      .targets = {"aten.convolution.default"},
                      .rewrite = rewriteConv});
}

}  // namespace ls::arm
