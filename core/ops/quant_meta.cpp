// Meta functions for the quantized_decomposed dialect (PT2E q/dq ops), per tensor and per
// channel. Quantize outputs carry their quantisation parameters in TensorMeta::quant.
#include "core/ops/builtin_ops.h"
#include "core/ops/meta_util.h"

namespace ls::ops {
namespace {

using ir::DType;
using ir::TensorMeta;


Result<DType> storageDType(MetaCtx& c, int i) {
  auto t = c.getDType(i);
  if (!t) return Status::error(c.argDesc(i) + ": expected a dtype");
  if (!ir::isIntegral(*t, false) && *t != DType::Float16 && *t != DType::BFloat16)
    return Status::error(fmt::format("{}: quantized storage dtype must be an integer type, got {}", c.argDesc(i),
                                     ir::dtypeName(*t)));
  return *t;
}

Status checkRange(MetaCtx& c, int64_t qmin, int64_t qmax, DType t) {
  if (qmin > qmax) return c.error("quant_min {} must not exceed quant_max {}", qmin, qmax);
  int bits = ir::dtypeSize(t) * 8;
  bool isUnsigned = t == DType::UInt8 || t == DType::UInt16;
  int64_t lo = isUnsigned ? 0 : -(int64_t(1) << (bits - 1));
  int64_t hi = isUnsigned ? (int64_t(1) << bits) - 1 : (int64_t(1) << (bits - 1)) - 1;
  if (bits < 64 && (qmin < lo || qmax > hi))
    return c.error("quant range [{}, {}] does not fit {} ([{}, {}])", qmin, qmax, ir::dtypeName(t), lo, hi);
  return Status::ok();
}

/// quantize_per_tensor(input, scale, zero_point, quant_min, quant_max, dtype); scale and
/// zero_point are numbers (.default) or 0-d/1-element tensors (.tensor).
Status quantizePerTensor(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  if (!ir::isFloating(x->dtype))
    return c.error("{}: quantize expects a floating input, got {}", c.argDesc(0), ir::dtypeName(x->dtype));
  LS_ASSIGN_OR_RETURN(qmin, c.getInt(3));
  LS_ASSIGN_OR_RETURN(qmax, c.getInt(4));
  LS_ASSIGN_OR_RETURN(t, storageDType(c, 5));
  LS_RETURN_IF_ERROR(checkRange(c, qmin, qmax, t));
  TensorMeta m(t, x->shape);
  m.dimOrder = x->dimOrder;
  auto q = std::make_shared<ir::QuantParams>();
  q->scheme = ir::QScheme::PerTensor;
  q->storage = t;
  q->qmin = qmin;
  q->qmax = qmax;
  if (!c.isTensor(1)) {
    LS_ASSIGN_OR_RETURN(scale, c.getFloat(1));
    LS_ASSIGN_OR_RETURN(zp, c.getInt(2));
    if (!(scale > 0)) return c.error("{}: scale must be positive, got {}", c.argDesc(1), scale);
    q->scales = {scale};
    q->zeroPoints = {zp};
  } else {
    for (int i = 1; i <= 2; ++i) {
      LS_ASSIGN_OR_RETURN(p, c.tensor(i));
      if (p->numel() != 1) return c.error("{}: expected one element, got {}", c.argDesc(i), ir::toString(p->shape));
    }
  }
  m.quant = std::move(q);
  c.out.push_back(m);
  return Status::ok();
}

Status dequantizePerTensor(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(qmin, c.getInt(3));
  LS_ASSIGN_OR_RETURN(qmax, c.getInt(4));
  LS_ASSIGN_OR_RETURN(t, storageDType(c, 5));
  LS_RETURN_IF_ERROR(checkRange(c, qmin, qmax, t));
  if (x->dtype != t)
    return c.error("expecting input to have dtype {} (the dtype argument), got {}", ir::dtypeName(t),
                   ir::dtypeName(x->dtype));
  if (!c.isTensor(1)) {
    LS_ASSIGN_OR_RETURN(scale, c.getFloat(1));
    if (!(scale > 0)) return c.error("{}: scale must be positive, got {}", c.argDesc(1), scale);
  }
  DType out = DType::Float32;
  if (auto o = c.getDType(6)) out = *o;
  TensorMeta m(out, x->shape);
  m.dimOrder = x->dimOrder;
  c.out.push_back(m);
  return Status::ok();
}

Status checkPerChannel(MetaCtx& c, const TensorMeta& x, int64_t axis, int* axisOut) {
  auto w = wrapDim(axis, x.rank());
  if (!w) return c.error("axis: {}", w.message());
  *axisOut = w.value();
  LS_ASSIGN_OR_RETURN(scales, c.tensor(1));
  if (scales->rank() != 1 || scales->shape[0] != x.shape[w.value()])
    return c.error("{}: expected {} scales (size of input {} at axis {}), got {}", c.argDesc(1), x.shape[w.value()],
                   ir::toString(x.shape), axis, ir::toString(scales->shape));
  if (c.has(2)) {
    LS_ASSIGN_OR_RETURN(zps, c.tensor(2));
    if (zps->numel() != scales->numel())
      return c.error("{}: expected {} zero points, got {}", c.argDesc(2), scales->numel(), ir::toString(zps->shape));
  }
  return Status::ok();
}

Status quantizePerChannel(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  if (!ir::isFloating(x->dtype))
    return c.error("{}: quantize expects a floating input, got {}", c.argDesc(0), ir::dtypeName(x->dtype));
  LS_ASSIGN_OR_RETURN(axis, c.getInt(3));
  LS_ASSIGN_OR_RETURN(qmin, c.getInt(4));
  LS_ASSIGN_OR_RETURN(qmax, c.getInt(5));
  LS_ASSIGN_OR_RETURN(t, storageDType(c, 6));
  LS_RETURN_IF_ERROR(checkRange(c, qmin, qmax, t));
  int ax = 0;
  LS_RETURN_IF_ERROR(checkPerChannel(c, *x, axis, &ax));
  TensorMeta m(t, x->shape);
  m.dimOrder = x->dimOrder;
  auto q = std::make_shared<ir::QuantParams>();
  q->scheme = ir::QScheme::PerChannel;
  q->storage = t;
  q->axis = ax;
  q->qmin = qmin;
  q->qmax = qmax;  // scale values live in the scales constant, not in the meta
  m.quant = std::move(q);
  c.out.push_back(m);
  return Status::ok();
}

Status dequantizePerChannel(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(axis, c.getInt(3));
  LS_ASSIGN_OR_RETURN(qmin, c.getInt(4));
  LS_ASSIGN_OR_RETURN(qmax, c.getInt(5));
  LS_ASSIGN_OR_RETURN(t, storageDType(c, 6));
  LS_RETURN_IF_ERROR(checkRange(c, qmin, qmax, t));
  if (x->dtype != t)
    return c.error("expecting input to have dtype {} (the dtype argument), got {}", ir::dtypeName(t),
                   ir::dtypeName(x->dtype));
  int ax = 0;
  LS_RETURN_IF_ERROR(checkPerChannel(c, *x, axis, &ax));
  DType out = DType::Float32;
  if (auto o = c.getDType(7)) out = *o;
  c.out.push_back(TensorMeta(out, x->shape));
  return Status::ok();
}

}  // namespace

void registerQuantOps(OpRegistry& r) {
  struct Def {
    const char* schema;
    MetaFn fn;
  };
  static const Def kDefs[] = {
      {"quantized_decomposed::quantize_per_tensor(Tensor input, float scale, int zero_point, int quant_min, int quant_max, ScalarType dtype) -> Tensor", quantizePerTensor},
      {"quantized_decomposed::quantize_per_tensor.tensor(Tensor input, Tensor scale, Tensor zero_point, int quant_min, int quant_max, ScalarType dtype) -> Tensor", quantizePerTensor},
      {"quantized_decomposed::dequantize_per_tensor(Tensor input, float scale, int zero_point, int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None) -> Tensor", dequantizePerTensor},
      {"quantized_decomposed::dequantize_per_tensor.tensor(Tensor input, Tensor scale, Tensor zero_point, int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None) -> Tensor", dequantizePerTensor},
      {"quantized_decomposed::quantize_per_channel(Tensor input, Tensor scales, Tensor zero_points, int axis, int quant_min, int quant_max, ScalarType dtype) -> Tensor", quantizePerChannel},
      {"quantized_decomposed::dequantize_per_channel(Tensor input, Tensor scales, Tensor? zero_points, int axis, int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None) -> Tensor", dequantizePerChannel},
  };
  for (const Def& d : kDefs) {
    Status st = r.add(d.schema, d.fn);
    if (!st.isOk()) fmt::print(stderr, "lowerscope: bad built-in schema: {}\n", st.message());
  }
}

}  // namespace ls::ops
