// Helpers shared by the ATen -> TOSA rewrites in this directory (block 6 and ExirToTosa of
// upstream's list). NHWC-only operators (CONV2D, DEPTHWISE_CONV2D, TRANSPOSE_CONV2D, pools,
// RESIZE) are emitted with permute_copy to NHWC before and back to NCHW after, so the graph stays
// correct at every step; the memory-format strategy of the pipeline then removes the redundant
// permutes. Weights are materialised in the layout the TOSA operator expects (OHWI, HWCM) as new
// constants.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/backends/arm/tosa/tosa_validate.h"
#include "core/passes/rule_pass.h"
#include "core/transforms/constant_values.h"
#include "core/ir/op_ref.h"

/// Helpers of the aten_to_tosa pass files only (nested namespace: no clash with other ls::arm names).
namespace ls::arm::aten_to_tosa {

using passes::Rewriter;
using ir::DType;
using ir::Shape;

const std::vector<int64_t> kToNhwc{0, 2, 3, 1};

const std::vector<int64_t> kToNchw{0, 3, 1, 2};

inline Result<ValueRef> tensorArg(const Rewriter& rw, size_t i, const char* what) {
  if (i >= rw.node().args.size() || !rw.node().args[i].ref())
    return Status::error(fmt::format("{} (arg #{}) must be a tensor", what, i));
  return *rw.node().args[i].ref();
}

inline Result<ValueRef> toNhwc(Builder& b, ValueRef x) {
  return b.op("aten.permute_copy.default", {x, ir::IntList(kToNhwc)}, {}, "permute_nhwc");
}

inline Result<ValueRef> toNchw(Builder& b, ValueRef x) {
  return b.op("aten.permute_copy.default", {x, ir::IntList(kToNchw)}, {}, "permute_nchw");
}

/// Bottom/right padding that makes (in - 1 + pads - (k - 1) * d) divisible by the stride
/// (TOSA idiv_check) while producing `out` values. Returns the extra rows to slice off the
/// input when even zero padding is too much.
struct Fit {
  int64_t padEnd = 0;
  int64_t trim = 0;
};

inline Fit fitPadding(int64_t in, int64_t padBegin, int64_t k, int64_t dil, int64_t stride, int64_t out) {
  Fit f;
  f.padEnd = (out - 1) * stride + (k - 1) * dil + 1 - in - padBegin;
  if (f.padEnd < 0) {
    f.trim = -f.padEnd;
    f.padEnd = 0;
  }
  return f;
}

inline Result<ValueRef> trimNhwc(Builder& b, ValueRef x, int64_t trimH, int64_t trimW) {
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

inline const char* accType(DType t) { return t == DType::Int8 ? "INT32" : t == DType::Int16 ? "INT48" : t == DType::Float16 ? "FP16" : "FP32"; }

inline Result<bool> rewritePool(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  const bool avg = n.op == LS_OP("aten.avg_pool2d.default");
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
  return true;
}

}  // namespace ls::arm::aten_to_tosa
