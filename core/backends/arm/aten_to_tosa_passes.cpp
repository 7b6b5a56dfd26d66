// ATen -> TOSA rewrites (block 6 and ExirToTosa of upstream's list). NHWC-only operators
// (CONV2D, DEPTHWISE_CONV2D, TRANSPOSE_CONV2D, pools, RESIZE) are emitted with permute_copy
// to NHWC before and back to NCHW after, so the graph stays correct at every step; the
// memory-format strategy of the pipeline then removes the redundant permutes. Weights are
// materialised in the layout the TOSA operator expects (OHWI, HWCM) as new constants.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/transforms/constant_values.h"
#include "core/backends/arm/tosa/tosa_validate.h"

namespace ls::arm {

using passes::Rewriter;
using ir::DType;
using ir::Shape;

namespace {

const std::vector<int64_t> kToNhwc{0, 2, 3, 1};
const std::vector<int64_t> kToNchw{0, 3, 1, 2};

int wrap(int64_t d, int rank) { return int(d < 0 ? d + rank : d); }

std::unique_ptr<passes::Pass> mk(std::string name, std::string desc, std::vector<std::string> targets,
                                 ArmRewritePass::Fn fn, Gate gate = Gate::any()) {
  return std::make_unique<ArmRewritePass>(std::move(name), std::move(desc), std::move(targets), std::move(fn), gate);
}

Result<ValueRef> tensorArg(const Rewriter& rw, size_t i, const char* what) {
  if (i >= rw.node().args.size() || !rw.node().args[i].ref())
    return Status::error(fmt::format("{} (arg #{}) must be a tensor", what, i));
  return *rw.node().args[i].ref();
}

Result<ValueRef> toNhwc(Builder& b, ValueRef x) {
  return b.op("aten.permute_copy.default", {x, ir::IntList(kToNhwc)}, {}, "permute_nhwc");
}
Result<ValueRef> toNchw(Builder& b, ValueRef x) {
  return b.op("aten.permute_copy.default", {x, ir::IntList(kToNchw)}, {}, "permute_nchw");
}

/// Bottom/right padding that makes (in - 1 + pads - (k - 1) * d) divisible by the stride
/// (TOSA idiv_check) while producing `out` values. Returns the extra rows to slice off the
/// input when even zero padding is too much.
struct Fit {
  int64_t padEnd = 0;
  int64_t trim = 0;
};
Fit fitPadding(int64_t in, int64_t padBegin, int64_t k, int64_t dil, int64_t stride, int64_t out) {
  Fit f;
  f.padEnd = (out - 1) * stride + (k - 1) * dil + 1 - in - padBegin;
  if (f.padEnd < 0) {
    f.trim = -f.padEnd;
    f.padEnd = 0;
  }
  return f;
}

Result<ValueRef> trimNhwc(Builder& b, ValueRef x, int64_t trimH, int64_t trimW) {
  if (trimH == 0 && trimW == 0) return x;
  const ir::TensorMeta& m = b.meta(x);
  ValueRef v = x;
  if (trimH) {
    auto s = b.op("aten.slice_copy.Tensor", {v, 1, 0, m.shape[1] - trimH, 1});
    if (!s) return s;
    v = *s;
  }
  if (trimW) {
    auto s = b.op("aten.slice_copy.Tensor", {v, 2, 0, m.shape[2] - trimW, 1});
    if (!s) return s;
    v = *s;
  }
  return v;
}

const char* accType(DType t) { return t == DType::Int8 ? "INT32" : t == DType::Int16 ? "INT48" : t == DType::Float16 ? "FP16" : "FP32"; }

// ---------------------------------------------------------------- convolution

/// 3-D convolution -> CONV3D on NDHWC with an [OC, KD, KH, KW, IC] weight. Grouped and
/// transposed 3-D convolutions are decomposed before this pass (DecomposeGroupedConvPass,
/// DecomposeConvTranspose3dPass).
Status rewriteConv3d(ArmRewritePass& self, Rewriter& rw, ValueRef x, ValueRef wref) {
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
  self.rewritten();
  return Status::ok();
}

Status rewriteConv(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  LS_ASSIGN_OR_RETURN(x, tensorArg(rw, 0, "input"));
  LS_ASSIGN_OR_RETURN(wref, tensorArg(rw, 1, "weight"));
  const ir::TensorMeta& xm = rw.meta(x);
  if (xm.rank() == 5) return rewriteConv3d(self, rw, x, wref);
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
  self.rewritten();
  return Status::ok();
}

// ---------------------------------------------------------------- pooling

Status rewritePool(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  const bool avg = ir::opName(n.op) == "aten.avg_pool2d.default";
  LS_ASSIGN_OR_RETURN(x, tensorArg(rw, 0, "input"));
  const ir::TensorMeta& xm = rw.meta(x);
  if (xm.rank() != 4) return Status::error("expected a rank-4 input");
  auto k = sints(n, 1, 2), stride = sints(n, 2, 2), pad = sints(n, 3, 2);
  if (!k) return Status::error("kernel_size must be an int list");
  if (!stride || stride->empty()) stride = k;
  if (!pad) pad = std::vector<int64_t>{0, 0};
  if (!avg) {
    auto dil = sints(n, 4, 2);
    if (dil && ((*dil)[0] != 1 || (*dil)[1] != 1)) return Status::error("max_pool2d with dilation is not supported by TOSA");
  } else {
    const ir::Arg& cip = sarg(n, 5);
    if (((*pad)[0] || (*pad)[1]) && cip.asBool() && *cip.asBool())
      return Status::error("avg_pool2d counting padding must be decomposed first (DecomposeAvgPool2dPass)");
    if (!sarg(n, 6).isNone()) return Status::error("avg_pool2d divisor_override is not supported");
  }
  const ir::TensorMeta& om = n.meta();
  Fit fh = fitPadding(xm.shape[2], (*pad)[0], (*k)[0], 1, (*stride)[0], om.shape[2]);
  Fit fw = fitPadding(xm.shape[3], (*pad)[1], (*k)[1], 1, (*stride)[1], om.shape[3]);
  if (fh.padEnd >= (*k)[0] || fw.padEnd >= (*k)[1]) return Status::error("pooling padding would exceed the kernel");
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(xt, toNhwc(b, x));
  LS_ASSIGN_OR_RETURN(xin, trimNhwc(b, xt, fh.trim, fw.trim));
  std::vector<ir::Kwarg> attrs = {{"kernel", ir::IntList(*k)},
                                  {"stride", ir::IntList(*stride)},
                                  {"pad", ir::IntList{(*pad)[0], fh.padEnd, (*pad)[1], fw.padEnd}}};
  ValueRef p;
  if (avg) {
    attrs.push_back({"acc_type", accType(xm.dtype)});
    LS_ASSIGN_OR_RETURN(v, b.op("tosa.AVG_POOL2D", {xin, b.zeroPoint(xm.dtype), b.zeroPoint(xm.dtype)}, std::move(attrs)));
    p = v;
  } else {
    LS_ASSIGN_OR_RETURN(v, b.op("tosa.MAX_POOL2D", {xin}, std::move(attrs)));
    p = v;
  }
  LS_ASSIGN_OR_RETURN(y, toNchw(b, p));
  rw.replaceWith(y);
  self.rewritten();
  return Status::ok();
}

// ---------------------------------------------------------------- resize

Status rewriteUpsample(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  LS_ASSIGN_OR_RETURN(x, tensorArg(rw, 0, "input"));
  LS_ASSIGN_OR_RETURN(params, resizeParams(n, rw.meta(x)));
  const bool bilinear = params.bilinear;
  const std::vector<int64_t>&scale = params.scale, &offset = params.offset, &border = params.border;
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(xt, toNhwc(b, x));
  LS_ASSIGN_OR_RETURN(s, b.constShape(scale));
  LS_ASSIGN_OR_RETURN(o, b.constShape(offset));
  LS_ASSIGN_OR_RETURN(bo, b.constShape(border));
  LS_ASSIGN_OR_RETURN(r, b.op("tosa.RESIZE", {xt, s, o, bo}, {{"mode", bilinear ? "BILINEAR" : "NEAREST_NEIGHBOR"}}));
  LS_ASSIGN_OR_RETURN(y, toNchw(b, r));
  rw.replaceWith(y);
  self.rewritten();
  return Status::ok();
}

// ---------------------------------------------------------------- matmul, slice, pad

Status rewriteMatmul(ArmRewritePass& self, Rewriter& rw) {
  LS_ASSIGN_OR_RETURN(a, tensorArg(rw, 0, "input"));
  LS_ASSIGN_OR_RETURN(m2, tensorArg(rw, 1, "mat2"));
  Builder b(rw);
  const ir::TensorMeta& am = rw.meta(a);
  const ir::TensorMeta& bm = rw.meta(m2);
  LS_ASSIGN_OR_RETURN(y, b.op("tosa.MATMUL", {a, m2, b.zeroPoint(am.dtype), b.zeroPoint(bm.dtype)}));
  rw.replaceWith(y);
  self.rewritten();
  return Status::ok();
}

Status rewriteSlice(ArmRewritePass& self, Rewriter& rw) {
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
    self.rewritten();
    return Status::ok();
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
  self.rewritten();
  return Status::ok();
}

Status rewritePad(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  LS_ASSIGN_OR_RETURN(x, tensorArg(rw, 0, "input"));
  const ir::TensorMeta& xm = rw.meta(x);
  auto pad = sints(n, 1);
  auto value = sarg(n, 2).number();
  if (!pad || pad->size() % 2 || int(pad->size()) > 2 * xm.rank()) return Status::error("constant_pad_nd: bad pad list");
  std::vector<int64_t> padding(size_t(2 * xm.rank()), 0);
  for (size_t i = 0; i < pad->size() / 2; ++i) {
    int d = xm.rank() - 1 - int(i);
    if ((*pad)[2 * i] < 0 || (*pad)[2 * i + 1] < 0) return Status::error("negative padding is not supported");
    padding[size_t(2 * d)] = (*pad)[2 * i];
    padding[size_t(2 * d + 1)] = (*pad)[2 * i + 1];
  }
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(p, b.constShape(padding));
  LS_ASSIGN_OR_RETURN(y, b.op("tosa.PAD", {x, p, b.scalar(xm.dtype, value.value_or(0.0), 1, "pad_const")}));
  rw.replaceWith(y);
  self.rewritten();
  return Status::ok();
}

// ---------------------------------------------------------------- argmax / argmin

/// argmax(x, dim, keepdim) -> ARGMAX (int32: TOSA has no int64, as for int64 graph inputs);
/// no dim: over x viewed as 1-D. argmin is ARGMAX of -x (the first minimum is the first maximum
/// of -x; NaN stays NaN).
Status rewriteArgmax(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  LS_ASSIGN_OR_RETURN(x, tensorArg(rw, 0, "input"));
  const ir::TensorMeta& xm = rw.meta(x);
  const bool argmin = n.op == ir::internOp("aten.argmin.default");
  if (argmin && xm.dtype == DType::Bool) return Status::error("argmin of a bool tensor is not supported");
  Builder b(rw);
  ValueRef v = x;
  int64_t axis = 0;
  if (sarg(n, 1).isNone() || xm.rank() == 0) {
    LS_ASSIGN_OR_RETURN(flat, b.reshape(x, Shape{std::max<int64_t>(xm.numel(), 1)}));
    v = flat;
  } else {
    auto d = sarg(n, 1).asInt();
    if (!d) return Status::error("argmax: dim must be an int");
    axis = wrap(*d, xm.rank());
  }
  if (argmin) {
    LS_ASSIGN_OR_RETURN(neg, b.op("tosa.NEGATE", {v, b.zeroPoint(xm.dtype), b.zeroPoint(xm.dtype)}));
    v = neg;
  }
  LS_ASSIGN_OR_RETURN(am, b.op("tosa.ARGMAX", {v}, {{"axis", axis}}));
  ValueRef y = am;
  if (b.meta(am).shape != n.meta().shape) {
    LS_ASSIGN_OR_RETURN(r, b.reshape(am, n.meta().shape));
    y = r;
  }
  rw.replaceWith(y);
  self.rewritten();
  return Status::ok();
}

// ---------------------------------------------------------------- index.Tensor

/// x[..., idx, ...] with one index tensor on dim d -> GATHER over x viewed as [1, K, C]
/// (d moved to the front), indices cast to int32; negative indices wrapped with SELECT.
Status rewriteIndex(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  LS_ASSIGN_OR_RETURN(x, tensorArg(rw, 0, "input"));
  const ir::TensorMeta& xm = rw.meta(x);
  const ir::Arg& l = sarg(n, 1);
  const ir::RefList* idx = l.asRefList();
  if (!idx) return Status::error("index.Tensor: expected a list of index tensors");
  int d = -1;
  for (size_t i = 0; i < idx->size(); ++i)
    if (!(*idx)[i].isNone()) {
      if (d >= 0) return Status::error("index.Tensor with more than one index tensor is not supported");
      d = int(i);
    }
  if (d < 0) return Status::error("index.Tensor without an index tensor");
  const ir::ValueRef ix = (*idx)[size_t(d)];
  const ir::TensorMeta& im = rw.meta(ix);
  if (!ir::isIntegral(im.dtype, false)) return Status::error("index.Tensor: only integer (not bool) indices are supported");
  const int r = xm.rank();
  const int64_t K = xm.shape[d];
  int64_t C = 1;
  std::vector<int64_t> perm{d}, rest;
  for (int i = 0; i < r; ++i)
    if (i != d) perm.push_back(i), rest.push_back(xm.shape[i]), C *= xm.shape[i];
  Builder b(rw);
  ValueRef v = x;
  if (d != 0) {
    LS_ASSIGN_OR_RETURN(t, b.transpose(x, perm));
    v = t;
  }
  LS_ASSIGN_OR_RETURN(v3, b.reshape(v, Shape{1, K, C}));
  ValueRef iv = ix;
  if (im.dtype != DType::Int32) {
    LS_ASSIGN_OR_RETURN(c, b.op("tosa.CAST", {ix}, {{"dtype", ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(DType::Int32)})}}));
    iv = c;
  }
  const int64_t W = im.numel();
  LS_ASSIGN_OR_RETURN(i2, b.reshape(iv, Shape{1, W}));
  // Python-style negative indices: idx < 0 ? idx + K : idx.
  ValueRef zero = b.scalar(DType::Int32, 0, 2, "zero"), kk = b.scalar(DType::Int32, double(K), 2, "dim_size");
  LS_ASSIGN_OR_RETURN(neg, b.op("tosa.GREATER", {zero, i2}));
  LS_ASSIGN_OR_RETURN(wrapped, b.op("tosa.ADD", {i2, kk}));
  LS_ASSIGN_OR_RETURN(fixed, b.op("tosa.SELECT", {neg, wrapped, i2}));
  LS_ASSIGN_OR_RETURN(gt, b.op("tosa.GATHER", {v3, fixed}));
  // [1, W, C] -> index dims + remaining dims, then the index dims move back to position d.
  Shape s = im.shape;
  for (int64_t e : rest) s.push(e);
  LS_ASSIGN_OR_RETURN(y, b.reshape(gt, s));
  ValueRef out = y;
  if (d != 0) {
    const int ir = im.rank();
    std::vector<int64_t> p;
    for (int i = 0; i < d; ++i) p.push_back(ir + i);
    for (int i = 0; i < ir; ++i) p.push_back(i);
    for (int i = d; i < r - 1; ++i) p.push_back(ir + i);
    LS_ASSIGN_OR_RETURN(t, b.transpose(y, p));
    out = t;
  }
  rw.replaceWith(out);
  self.rewritten();
  return Status::ok();
}

// ---------------------------------------------------------------- ExirToTosa

const std::map<std::string, std::string>& unaryTable() {
  static const std::map<std::string, std::string> t = {
      {"aten.sigmoid.default", "tosa.SIGMOID"},     {"aten.tanh.default", "tosa.TANH"},
      {"aten.exp.default", "tosa.EXP"},             {"aten.log.default", "tosa.LOG"},
      {"aten.reciprocal.default", "tosa.RECIPROCAL"}, {"aten.rsqrt.default", "tosa.RSQRT"},
      {"aten.erf.default", "tosa.ERF"},             {"aten.abs.default", "tosa.ABS"},
      {"aten.floor.default", "tosa.FLOOR"},         {"aten.ceil.default", "tosa.CEIL"},
      {"aten.sin.default", "tosa.SIN"},             {"aten.cos.default", "tosa.COS"},
      {"aten.logical_not.default", "tosa.LOGICAL_NOT"}, {"aten.clone.default", "tosa.IDENTITY"},
      {"aten.alias_copy.default", "tosa.IDENTITY"}, {"aten.lift_fresh_copy.default", "tosa.IDENTITY"},
      {"aten.detach_copy.default", "tosa.IDENTITY"}};
  return t;
}

const std::map<std::string, std::string>& binaryTable() {
  static const std::map<std::string, std::string> t = {
      {"aten.add.Tensor", "tosa.ADD"},          {"aten.sub.Tensor", "tosa.SUB"},
      {"aten.maximum.default", "tosa.MAXIMUM"}, {"aten.minimum.default", "tosa.MINIMUM"},
      {"aten.eq.Tensor", "tosa.EQUAL"},         {"aten.gt.Tensor", "tosa.GREATER"},
      {"aten.ge.Tensor", "tosa.GREATER_EQUAL"}, {"aten.lt.Tensor", "tosa.GREATER"},
      {"aten.le.Tensor", "tosa.GREATER_EQUAL"}, {"aten.logical_and.default", "tosa.LOGICAL_AND"},
      {"aten.logical_or.default", "tosa.LOGICAL_OR"}, {"aten.logical_xor.default", "tosa.LOGICAL_XOR"},
      {"aten.pow.Tensor_Tensor", "tosa.POW"}};
  return t;
}

Status exirToTosa(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  const std::string& op = ir::opName(n.op);
  Builder b(rw);
  ValueRef y;
  if (auto it = unaryTable().find(op); it != unaryTable().end()) {
    LS_ASSIGN_OR_RETURN(x, tensorArg(rw, 0, "input"));
    LS_ASSIGN_OR_RETURN(v, b.op(it->second, {x}));
    y = v;
  } else if (op == "aten.sqrt.default") {
    LS_ASSIGN_OR_RETURN(x, tensorArg(rw, 0, "input"));
    LS_ASSIGN_OR_RETURN(r, b.op("tosa.RSQRT", {x}));
    LS_ASSIGN_OR_RETURN(v, b.op("tosa.RECIPROCAL", {r}));
    y = v;
  } else if (op == "aten.bitwise_and.Tensor" || op == "aten.bitwise_or.Tensor" || op == "aten.bitwise_xor.Tensor" ||
             op == "aten.bitwise_left_shift.Tensor" || op == "aten.bitwise_not.default") {
    // Bool operands: the LOGICAL_* ops; integers: BITWISE_* and LOGICAL_LEFT_SHIFT.
    const bool isBool = n.meta().dtype == DType::Bool;
    static const std::map<std::string, std::pair<const char*, const char*>> kOps = {
        {"aten.bitwise_and.Tensor", {"tosa.LOGICAL_AND", "tosa.BITWISE_AND"}},
        {"aten.bitwise_or.Tensor", {"tosa.LOGICAL_OR", "tosa.BITWISE_OR"}},
        {"aten.bitwise_xor.Tensor", {"tosa.LOGICAL_XOR", "tosa.BITWISE_XOR"}},
        {"aten.bitwise_left_shift.Tensor", {nullptr, "tosa.LOGICAL_LEFT_SHIFT"}},
        {"aten.bitwise_not.default", {"tosa.LOGICAL_NOT", "tosa.BITWISE_NOT"}}};
    const auto& [boolOp, intOp] = kOps.at(op);
    const char* top = isBool ? boolOp : intOp;
    if (!top) return Status::error(fmt::format("{} of bool tensors has no TOSA lowering", op));
    LS_ASSIGN_OR_RETURN(a, tensorArg(rw, 0, "input"));
    std::vector<ir::Arg> args{a};
    if (op != "aten.bitwise_not.default") {
      LS_ASSIGN_OR_RETURN(c, tensorArg(rw, 1, "other"));
      args.push_back(c);
    }
    LS_ASSIGN_OR_RETURN(v, b.op(top, std::move(args)));
    y = v;
  } else if (op == "aten.neg.default") {
    LS_ASSIGN_OR_RETURN(x, tensorArg(rw, 0, "input"));
    DType t = rw.meta(x).dtype;
    LS_ASSIGN_OR_RETURN(v, b.op("tosa.NEGATE", {x, b.zeroPoint(t), b.zeroPoint(t)}));
    y = v;
  } else if (auto bt = binaryTable().find(op); bt != binaryTable().end()) {
    LS_ASSIGN_OR_RETURN(a, tensorArg(rw, 0, "input"));
    LS_ASSIGN_OR_RETURN(c, tensorArg(rw, 1, "other"));
    const bool swap = op == "aten.lt.Tensor" || op == "aten.le.Tensor";
    LS_ASSIGN_OR_RETURN(v, b.op(bt->second, {swap ? c : a, swap ? a : c}));
    y = v;
  } else if (op == "aten.mul.Tensor") {
    LS_ASSIGN_OR_RETURN(a, tensorArg(rw, 0, "input"));
    LS_ASSIGN_OR_RETURN(c, tensorArg(rw, 1, "other"));
    LS_ASSIGN_OR_RETURN(v, b.mul(a, c));
    y = v;
  } else if (op == "aten.where.self") {
    LS_ASSIGN_OR_RETURN(p, tensorArg(rw, 0, "condition"));
    LS_ASSIGN_OR_RETURN(a, tensorArg(rw, 1, "self"));
    LS_ASSIGN_OR_RETURN(c, tensorArg(rw, 2, "other"));
    LS_ASSIGN_OR_RETURN(v, b.op("tosa.SELECT", {p, a, c}));
    y = v;
  } else if (op == "aten.clamp.default") {
    LS_ASSIGN_OR_RETURN(x, tensorArg(rw, 0, "input"));
    auto lo = sarg(n, 1).number(), hi = sarg(n, 2).number();
    // torch.clamp with min > max gives max everywhere (min(max(x, min), max)); TOSA CLAMP
    // requires min <= max, and CLAMP(x, max, max) is that (NaN still propagates).
    if (lo && hi && *lo > *hi) lo = hi;
    const bool fp = ir::isFloating(rw.meta(x).dtype);
    double dlo = fp ? double(std::numeric_limits<float>::lowest()) : double(INT32_MIN);
    double dhi = fp ? double(std::numeric_limits<float>::max()) : double(INT32_MAX);
    LS_ASSIGN_OR_RETURN(v, b.op("tosa.CLAMP", {x}, {{"min_val", lo.value_or(dlo)}, {"max_val", hi.value_or(dhi)}}));
    y = v;
  } else if (op == "aten.cat.default") {
    const ir::Arg& l = sarg(n, 0);
    if (!l.asRefList() || l.asRefList()->empty()) return Status::error("cat: expected a non-empty tensor list");
    const int r = rw.meta(l.asRefList()->front()).rank();
    const int64_t axis = wrap(sarg(n, 1).asInt() ? *sarg(n, 1).asInt() : 0, r);
    // Level 8K allows at most 64 tensors in a list (MAX_TENSOR_LIST_SIZE): longer lists are
    // concatenated in groups of 64, then the groups.
    constexpr size_t kMaxList = 64;
    ir::RefList parts = *l.asRefList();
    while (parts.size() > kMaxList) {
      ir::RefList grouped;
      for (size_t i = 0; i < parts.size(); i += kMaxList) {
        ir::RefList chunk(parts.begin() + std::ptrdiff_t(i), parts.begin() + std::ptrdiff_t(std::min(parts.size(), i + kMaxList)));
        if (chunk.size() == 1) {
          grouped.push_back(chunk[0]);
          continue;
        }
        LS_ASSIGN_OR_RETURN(c, b.op("tosa.CONCAT", {chunk}, {{"axis", axis}}));
        grouped.push_back(c);
      }
      parts = std::move(grouped);
    }
    LS_ASSIGN_OR_RETURN(v, b.op("tosa.CONCAT", {parts}, {{"axis", axis}}));
    y = v;
  } else if (op == "aten.permute_copy.default") {
    LS_ASSIGN_OR_RETURN(x, tensorArg(rw, 0, "input"));
    auto p = sints(n, 1);
    if (!p) return Status::error("permute_copy: expected dims");
    const int r = rw.meta(x).rank();
    for (int64_t& d : *p) d = wrap(d, r);
    LS_ASSIGN_OR_RETURN(v, b.transpose(x, *p));
    y = v;
  } else if (op == "aten.view_copy.default") {
    LS_ASSIGN_OR_RETURN(x, tensorArg(rw, 0, "input"));
    LS_ASSIGN_OR_RETURN(v, b.reshape(x, n.meta().shape));
    y = v;
  } else if (op == "aten.repeat.default") {
    LS_ASSIGN_OR_RETURN(x, tensorArg(rw, 0, "input"));
    auto m = sints(n, 1);
    if (!m || int(m->size()) != rw.meta(x).rank())
      return Status::error("repeat with more multiples than dims must be unsqueezed first (ConvertExpandCopyToRepeatPass)");
    LS_ASSIGN_OR_RETURN(s, b.constShape(*m));
    LS_ASSIGN_OR_RETURN(v, b.op("tosa.TILE", {x, s}));
    y = v;
  } else if (op == "aten.sum.dim_IntList" || op == "aten.amax.default" || op == "aten.amin.default") {
    LS_ASSIGN_OR_RETURN(x, tensorArg(rw, 0, "input"));
    const ir::TensorMeta& xm = rw.meta(x);
    std::vector<int64_t> dims;
    if (auto d = sints(n, 1)) dims = *d;
    if (dims.empty())
      for (int i = 0; i < xm.rank(); ++i) dims.push_back(i);
    if (op == "aten.sum.dim_IntList" && !sarg(n, 3).isNone()) return Status::error("sum with a dtype argument is not supported");
    const char* top = op == "aten.sum.dim_IntList" ? "tosa.REDUCE_SUM" : op == "aten.amax.default" ? "tosa.REDUCE_MAX" : "tosa.REDUCE_MIN";
    ValueRef v = x;
    for (int64_t d : dims) {
      LS_ASSIGN_OR_RETURN(t, b.op(top, {v}, {{"axis", int64_t(wrap(d, xm.rank()))}}));
      v = t;
    }
    const ir::Arg& kd = sarg(n, 2);
    if (!(kd.asBool() && *kd.asBool())) {
      LS_ASSIGN_OR_RETURN(t, b.reshape(v, n.meta().shape));
      v = t;
    }
    y = v;
  } else if (op == "aten._to_copy.default") {
    LS_ASSIGN_OR_RETURN(x, tensorArg(rw, 0, "input"));
    if (rw.meta(x).dtype == n.meta().dtype) {
      y = x;  // a copy to the same type: TOSA has no same-type CAST
    } else {
      LS_ASSIGN_OR_RETURN(v, b.op("tosa.CAST", {x}, {{"dtype", ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(n.meta().dtype)})}}));
      y = v;
    }
  } else {
    return Status::error(fmt::format("no TOSA lowering for {}", op));
  }
  rw.replaceWith(y);
  self.rewritten();
  return Status::ok();
}

std::vector<std::string> exirTargets() {
  std::vector<std::string> t;
  for (auto& [k, v] : unaryTable()) t.push_back(k);
  for (auto& [k, v] : binaryTable()) t.push_back(k);
  for (const char* k : {"aten.bitwise_and.Tensor", "aten.bitwise_or.Tensor", "aten.bitwise_xor.Tensor",
                        "aten.bitwise_left_shift.Tensor", "aten.bitwise_not.default"})
    t.push_back(k);
  for (const char* k : {"aten.sqrt.default", "aten.neg.default", "aten.mul.Tensor", "aten.where.self",
                        "aten.clamp.default", "aten.cat.default", "aten.permute_copy.default", "aten.view_copy.default",
                        "aten.repeat.default", "aten.sum.dim_IntList", "aten.amax.default", "aten.amin.default",
                        "aten._to_copy.default"})
    t.push_back(k);
  return t;
}

/// Last entry: on u55/u85 fails first listing the source nodes upstream's operator support checks
/// refused (PassContext::rejected, operator_support/); then every node whose op is not a TOSA
/// operator, then every node the
/// TOSA 1.0 legality validator rejects (tosa/tosa_validate.h). With the INT profile
/// it also counts the float islands (float compute outside the graph inputs' quantize and the
/// outputs' dequantize); an integer-only Ethos-U target (u55, u85) cannot run them, so there
/// they fail the pipeline too, listed by name.
class CheckTosaOperatorSupportPass : public passes::Pass {
 public:
  CheckTosaOperatorSupportPass()
      : Pass("CheckTosaOperatorSupportPass",
             "Fails with the list of nodes whose ops have no TOSA lowering (on Ethos-U: or that upstream's operator "
             "support checks refused, or, INT, that compute in float)") {
    islands_ = stat("float_islands", "INT profile: float compute nodes outside the input quantize / output dequantize");
    illegal_ = stat("tosa_violations", "nodes illegal in TOSA 1.0 for the profile (types, ranks, level 8K, ERROR_IF)");
    rejected_ = stat("support_rejected", "source nodes upstream's operator support checks refuse for the target");
  }

 protected:
  passes::PassResult runImpl(ir::Graph& g, passes::PassContext& ctx) override {
    // Nodes upstream's operator support checks refused for an Ethos-U target (evaluated on the
    // graph the pipeline started from): upstream's partitioner leaves them to the CPU, so a TOSA
    // file for the target must not hold them.
    bump(rejected_, int64_t(ctx.rejected.size()));
    if (!ctx.rejected.empty() && ctx.target != passes::Target::Generic) return rejectedFailure(ctx);
    std::string bad;
    int count = 0;
    for (const ir::NodePtr& p : g.nodes()) {
      if (!p->isCall() || isTosaOp(p->op)) continue;
      if (++count <= 20) bad += fmt::format("{}{} ({})", bad.empty() ? "" : ", ", p->name, ir::opName(p->op));
    }
    if (count > 0)
      return passes::PassResult::failed(
          fmt::format("{} node(s) are not TOSA operators: {}{}", count, bad, count > 20 ? ", ..." : ""));
    if (ctx.profile == passes::Profile::INT) {
      std::vector<ir::NodeId> islands = floatIslands(g);
      bump(islands_, int64_t(islands.size()));
      if (!islands.empty() && ctx.target != passes::Target::Generic) return floatIslandsFailure(g, islands, ctx);
    }
    // TOSA 1.0 legality (types per profile, ranks, level 8K, ERROR_IF rules): PRO-INT alone for
    // the integer-only Ethos-U targets, else PRO-FP and PRO-INT.
    TosaCheckOptions check;
    check.profile = ctx.profile == passes::Profile::INT && ctx.target != passes::Target::Generic
                        ? TosaCheckOptions::Profile::Int
                        : TosaCheckOptions::Profile::Fp;
    for (const std::string& e : ctx.extensions)
      if (!isTosaExtension(e))
        return passes::PassResult::failed(fmt::format(
            "unknown TOSA extension '{}' (the specification's: EXT-INT16, EXT-INT4, EXT-BF16, EXT-FP8E4M3, "
            "EXT-FP8E5M2, EXT-FFT, EXT-VARIABLE, EXT-CONTROLFLOW)", e));
    check.extensions = ctx.extensions;  // --tosa-extension
    std::vector<TosaViolation> illegal = validateTosaGraph(g, check);
    bump(illegal_, int64_t(illegal.size()));
    if (!illegal.empty()) return passes::PassResult::failed(formatViolations(illegal, check, 20));
    return passes::PassResult::unchanged();
  }

  static passes::PassResult rejectedFailure(const passes::PassContext& ctx) {
    std::string list;
    const size_t n = ctx.rejected.size();
    for (size_t i = 0; i < n && i < 20; ++i)
      list += fmt::format("{}{} ({}): {}", i ? "; " : "", ctx.rejected[i].name, ctx.rejected[i].op, ctx.rejected[i].text());
    return passes::PassResult::failed(fmt::format(
        "{} node(s) refused for {} by upstream's operator support checks (upstream's partitioner leaves them "
        "outside the delegated TOSA graph): {}{}",
        n, ctx.target == passes::Target::U55 ? "Ethos-U55" : "Ethos-U85", list, n > 20 ? "; ..." : ""));
  }

  passes::PassResult floatIslandsFailure(const ir::Graph& g, const std::vector<ir::NodeId>& islands,
                                         const passes::PassContext& ctx) {
    std::string list;
    for (size_t i = 0; i < islands.size() && i < 20; ++i)
      list += fmt::format("{}{} ({})", i ? ", " : "", g.node(islands[i]).name, ir::opName(g.node(islands[i]).op));
    return passes::PassResult::failed(
        fmt::format("{} node(s) compute in float, which the integer-only {} cannot run: {}{}", islands.size(),
                    ctx.target == passes::Target::U55 ? "Ethos-U55" : "Ethos-U85", list, islands.size() > 20 ? ", ..." : ""));
  }

 private:
  size_t islands_, illegal_, rejected_;
};

}  // namespace

void registerArmRewritePasses(passes::PassRegistry& r) {
  r.add("RewriteConv2dPass", [] {
    return mk("RewriteConv2dPass", "convolution -> CONV2D / DEPTHWISE_CONV2D / TRANSPOSE_CONV2D / CONV3D (NHWC/NDHWC, OHWI/HWCM/ODHWI weights)",
              {"aten.convolution.default"}, rewriteConv);
  });
  r.add("RewriteMaxPool2dPass", [] {
    return mk("RewriteMaxPool2dPass", "max_pool2d -> MAX_POOL2D (NHWC)", {"aten.max_pool2d.default"}, rewritePool);
  });
  r.add("RewriteAvgPool2dPass", [] {
    return mk("RewriteAvgPool2dPass", "avg_pool2d -> AVG_POOL2D (NHWC)", {"aten.avg_pool2d.default"}, rewritePool);
  });
  r.add("RewriteUpsamplePass", [] {
    return mk("RewriteUpsamplePass", "upsample bilinear/nearest -> RESIZE (NHWC)",
              {"aten.upsample_bilinear2d.vec", "aten.upsample_nearest2d.vec"}, rewriteUpsample);
  });
  r.add("RewriteMatmulPass",
        [] { return mk("RewriteMatmulPass", "bmm -> MATMUL", {"aten.bmm.default"}, rewriteMatmul); });
  r.add("RewriteSlicePass",
        [] { return mk("RewriteSlicePass", "slice_copy -> SLICE (a step > 1: SLICE, RESHAPE, SLICE, RESHAPE)", {"aten.slice_copy.Tensor"}, rewriteSlice); });
  r.add("RewriteArgmaxPass", [] {
    return mk("RewriteArgmaxPass", "argmax / argmin -> ARGMAX (of -x for argmin), int32 indices",
              {"aten.argmax.default", "aten.argmin.default"}, rewriteArgmax);
  });
  r.add("RewritePadPass",
        [] { return mk("RewritePadPass", "constant_pad_nd -> PAD", {"aten.constant_pad_nd.default"}, rewritePad); });
  r.add("RewriteIndexTensorPass", [] {
    return mk("RewriteIndexTensorPass", "index.Tensor with one index tensor -> GATHER", {"aten.index.Tensor"},
              rewriteIndex);
  });
  r.add("ExirToTosaPass", [] {
    return mk("ExirToTosaPass", "Table-driven 1:1 ATen -> TOSA (elementwise, clamp, cat, permute, view, repeat, reductions)",
              exirTargets(), exirToTosa);
  });
  r.add("CheckTosaOperatorSupportPass", [] { return std::make_unique<CheckTosaOperatorSupportPass>(); });
}

}  // namespace ls::arm
