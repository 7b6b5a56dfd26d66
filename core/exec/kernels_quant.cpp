// quantized_decomposed q/dq kernels, per tensor (.default with number args, .tensor with
// 1-element tensors) and per channel, with the arithmetic of the upstream reference
// (torch/ao/quantization/fx/_decomposed.py):
//   quantize:   q = clamp(round_half_even(x * (1 / scale)) + zero_point, qmin, qmax)
//               (x * inv_scale in float32, inv_scale = 1 / scale in the scale's precision)
//   dequantize: x = (q - zero_point) * scale   (in float32)
// A float64 input quantizes, and a float64 dequantize output dequantizes, in double with the
// scale as given (x / scale, exact (q - zero_point) * scale): what the executor computes when
// it evaluates float32 in float64 (ExecOptions::float64), the exact value an integer lowering
// rounds once.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "core/exec/materialize.h"
#include "core/exec/kernel_util.h"
#include "core/exec/parallel.h"

namespace ls::exec {
namespace {

using ir::DType;

struct QParam {
  float invScale = 1.0f;  // float(1 / scale)
  float scale = 1.0f;     // float(scale)
  double scale64 = 1.0;   // the scale as given (float64 path)
  int64_t zeroPoint = 0;
};

/// Scale / zero point from arg i / i+1: numbers, or 1-element tensors (.tensor overloads).
Result<QParam> perTensorParams(KernelCtx& c, int scaleArg, int zpArg) {
  QParam p;
  LS_ASSIGN_OR_RETURN(s, c.operand(scaleArg));
  LS_ASSIGN_OR_RETURN(z, c.operand(zpArg));
  if (s.tensor) {
    if (s.tensor->numel() != 1) return c.error("{}: expected one element", c.argDesc(scaleArg));
    if (s.tensor->dtype() == DType::Float32) {
      float f = s.tensor->data<float>()[0];
      p.invScale = 1.0f / f;
      p.scale = f;
      p.scale64 = f;
    } else {
      double d = s.tensor->getDouble(0);
      p.invScale = float(1.0 / d);
      p.scale = float(d);
      p.scale64 = d;
    }
  } else {
    p.invScale = float(1.0 / s.number);
    p.scale = float(s.number);
    p.scale64 = s.number;
  }
  if (z.tensor) {
    if (z.tensor->numel() != 1) return c.error("{}: expected one element", c.argDesc(zpArg));
    p.zeroPoint = z.tensor->getInt(0);
  } else {
    p.zeroPoint = z.isInt ? z.intValue : int64_t(z.number);
  }
  if (!(p.scale > 0.0f)) return c.error("{}: scale must be positive, got {}", c.argDesc(scaleArg), p.scale);
  return p;
}

/// T = float: x * float(1 / scale) in float32 (the upstream reference); T = double: x / scale.
template <typename T>
int64_t quantizeOne(T x, const QParam& p, int64_t qmin, int64_t qmax) {
  // float32: the same function the quantizer's weight recipes use (materialize.h).
  if constexpr (std::is_same_v<T, float>) {
    return quantizeValue(x, p.invScale, p.zeroPoint, qmin, qmax);
  } else {
    const T v = x / p.scale64;
    if (std::isnan(v)) return std::clamp(p.zeroPoint, qmin, qmax);
    const T r = std::nearbyint(v) + T(p.zeroPoint);  // nearbyint: round half to even
    if (r <= T(qmin)) return qmin;
    if (r >= T(qmax)) return qmax;
    return int64_t(r);
  }
}

template <typename T>
T dequantizeOne(int64_t q, const QParam& p) {
  if constexpr (std::is_same_v<T, float>) return float(q - p.zeroPoint) * p.scale;
  else return double(q - p.zeroPoint) * p.scale64;
}

/// out[i] = quantize(x[i], params(i)): in double for a float64 x, else in float32 (other float
/// dtypes converted to float32 first).
template <typename ParamOf>
void quantizeAll(const Tensor& x, Tensor& out, int64_t qmin, int64_t qmax, ParamOf&& paramOf) {
  if (x.dtype() == DType::Float64) {
    const double* xd = x.data<double>();
    for (int64_t i = 0; i < out.numel(); ++i) out.setInt(i, quantizeOne(xd[i], paramOf(i), qmin, qmax));
    return;
  }
  std::vector<float> buf;
  const float* xd = typedData<float>(x, buf);
  for (int64_t i = 0; i < out.numel(); ++i) out.setInt(i, quantizeOne(xd[i], paramOf(i), qmin, qmax));
}

/// The input of a quantize. A float32 graph input that ExecOptions::float64 widened is given
/// back as float32: its values come from outside, not from any arithmetic, and the boundary
/// quantize of a deployed model (and exec::adaptInputs, which feeds lowered graphs) computes
/// x * (1 / scale) in float32.
Result<Tensor> quantizeInput(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  const ir::ValueRef* r = c.arg(0).ref();
  const ir::Node* producer = r ? c.graph().find(r->node) : nullptr;
  if (x->dtype() == DType::Float64 && producer && producer->kind == ir::NodeKind::Placeholder &&
      producer->meta(0).dtype == DType::Float32)
    return x->to(DType::Float32);
  return *x;
}

/// out[i] = dequantize(q[i], params(i)): in double into a float64 output, else in float32.
template <typename ParamOf>
void dequantizeAll(const Tensor& q, Tensor& out, ParamOf&& paramOf) {
  if (out.dtype() == DType::Float64) {
    double* o = out.data<double>();
    for (int64_t i = 0; i < out.numel(); ++i) o[i] = dequantizeOne<double>(q.getInt(i), paramOf(i));
  } else if (out.dtype() == DType::Float32) {
    float* o = out.data<float>();
    for (int64_t i = 0; i < out.numel(); ++i) o[i] = dequantizeOne<float>(q.getInt(i), paramOf(i));
  } else {
    for (int64_t i = 0; i < out.numel(); ++i) out.setDouble(i, double(dequantizeOne<float>(q.getInt(i), paramOf(i))));
  }
}

/// Per-channel parameters from tensors (scales, zero points or None).
Result<std::vector<QParam>> perChannelParams(KernelCtx& c, int scalesArg, int zpsArg, int64_t channels) {
  LS_ASSIGN_OR_RETURN(scales, c.tensor(scalesArg));
  if (scales->numel() != channels)
    return c.error("{}: expected {} scales, got {}", c.argDesc(scalesArg), channels, scales->numel());
  std::vector<QParam> ps(static_cast<size_t>(channels));
  const Tensor* zps = nullptr;
  if (c.has(zpsArg)) {
    LS_ASSIGN_OR_RETURN(z, c.tensor(zpsArg));
    if (z->numel() != channels)
      return c.error("{}: expected {} zero points, got {}", c.argDesc(zpsArg), channels, z->numel());
    zps = z;
  }
  for (int64_t ch = 0; ch < channels; ++ch) {
    QParam& p = ps[size_t(ch)];
    if (scales->dtype() == DType::Float32) {
      float f = scales->data<float>()[ch];
      p.invScale = 1.0f / f;
      p.scale = f;
      p.scale64 = f;
    } else {
      double d = scales->getDouble(ch);
      p.invScale = float(1.0 / d);
      p.scale = float(d);
      p.scale64 = d;
    }
    p.zeroPoint = zps ? zps->getInt(ch) : 0;
    if (!(p.scale > 0.0f)) return c.error("{}: scale #{} must be positive, got {}", c.argDesc(scalesArg), ch, p.scale);
  }
  return ps;
}

Status quantizePerTensor(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, quantizeInput(c));
  LS_ASSIGN_OR_RETURN(p, perTensorParams(c, 1, 2));
  LS_ASSIGN_OR_RETURN(qmin, c.getInt(3));
  LS_ASSIGN_OR_RETURN(qmax, c.getInt(4));
  Tensor& out = c.newOutput(0);
  quantizeAll(x, out, qmin, qmax, [&](int64_t) -> const QParam& { return p; });
  return Status::ok();
}

Status dequantizePerTensor(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(p, perTensorParams(c, 1, 2));
  Tensor& out = c.newOutput(0);
  dequantizeAll(*x, out, [&](int64_t) -> const QParam& { return p; });
  return Status::ok();
}

/// Channel of every flat index for `axis` of `shape`: (i / inner) % size(axis).
struct ChannelOf {
  int64_t inner = 1, channels = 1;
  int64_t operator()(int64_t i) const { return (i / inner) % channels; }
};

ChannelOf channelOf(const Tensor& x, int axis) {
  ChannelOf co;
  co.channels = x.rank() == 0 ? 1 : x.dim(axis);
  for (int k = axis + 1; k < x.rank(); ++k) co.inner *= x.dim(k);
  return co;
}

Status quantizePerChannel(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, quantizeInput(c));
  LS_ASSIGN_OR_RETURN(axisArg, c.getInt(3));
  LS_ASSIGN_OR_RETURN(qmin, c.getInt(4));
  LS_ASSIGN_OR_RETURN(qmax, c.getInt(5));
  const int axis = wrapDim(axisArg, x.rank());
  ChannelOf co = channelOf(x, axis);
  LS_ASSIGN_OR_RETURN(ps, perChannelParams(c, 1, 2, co.channels));
  Tensor& out = c.newOutput(0);
  quantizeAll(x, out, qmin, qmax, [&](int64_t i) -> const QParam& { return ps[size_t(co(i))]; });
  return Status::ok();
}

Status dequantizePerChannel(KernelCtx& c) {
  LS_ASSIGN_OR_RETURN(x, c.tensor(0));
  LS_ASSIGN_OR_RETURN(axisArg, c.getInt(3));
  const int axis = wrapDim(axisArg, x->rank());
  ChannelOf co = channelOf(*x, axis);
  LS_ASSIGN_OR_RETURN(ps, perChannelParams(c, 1, 2, co.channels));
  Tensor& out = c.newOutput(0);
  dequantizeAll(*x, out, [&](int64_t i) -> const QParam& { return ps[size_t(co(i))]; });
  return Status::ok();
}

}  // namespace

Tensor dequantizePerTensor(const Tensor& q, const ir::QuantParams& qp) {
  QParam p;
  p.scale64 = qp.scales.empty() ? 1.0 : qp.scales[0];
  p.scale = float(p.scale64);
  p.zeroPoint = qp.zeroPoints.empty() ? 0 : qp.zeroPoints[0];
  // (q - zero_point) * scale exact in double, rounded to float32 once: the float64 reference's
  // dequantize narrowed to its graph's float32, and for a float32 scale the float32 kernel's.
  Tensor out(DType::Float32, q.shape());
  float* o = out.data<float>();
  for (int64_t i = 0; i < out.numel(); ++i) o[i] = float(dequantizeOne<double>(q.getInt(i), p));
  return out;
}

Tensor quantizePerTensor(const Tensor& x, const ir::QuantParams& q) {
  QParam p;
  const double s = q.scales.empty() ? 1.0 : q.scales[0];
  p.invScale = float(1.0 / s);  // as the kernel does for a number scale
  p.scale = float(s);
  p.scale64 = s;
  p.zeroPoint = q.zeroPoints.empty() ? 0 : q.zeroPoints[0];
  Tensor out(q.storage, x.shape());
  quantizeAll(x, out, q.qmin, q.qmax, [&](int64_t) -> const QParam& { return p; });
  return out;
}

void registerQuantKernels(KernelRegistry& r) {
  r.registerKernel("quantized_decomposed.quantize_per_tensor.default", quantizePerTensor);
  r.registerKernel("quantized_decomposed.quantize_per_tensor.tensor", quantizePerTensor);
  r.registerKernel("quantized_decomposed.dequantize_per_tensor.default", dequantizePerTensor);
  r.registerKernel("quantized_decomposed.dequantize_per_tensor.tensor", dequantizePerTensor);
  r.registerKernel("quantized_decomposed.quantize_per_channel.default", quantizePerChannel);
  r.registerKernel("quantized_decomposed.dequantize_per_channel.default", dequantizePerChannel);
}

}  // namespace ls::exec
