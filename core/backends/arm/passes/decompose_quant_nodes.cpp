// DecomposeQuantizeDequantizePass (upstream backends/arm/_passes/decompose_quant_nodes.py):
// remaining quantize/dequantize -> TOSA MUL/ADD/SUB/CAST (dequantized constants folded).
// quantised pattern) and again after them for the pools they produce.
// DecomposeQuantizeDequantizePass then realises every remaining quantize/dequantize (float
// islands the quantizer left, graph inputs/outputs) as TOSA ops: dequantize = CAST int8 ->
// fp32, SUB zero point, MUL scale (a dequantize of a constant becomes a float constant);
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/backends/arm/passes/fold_qparams_common.h"
#include "core/exec/materialize.h"
#include "core/ir/op_ref.h"
#include "core/ops/registry.h"
#include "core/passes/rule_pass.h"
#include "core/transforms/constant_values.h"

namespace ls::arm {

using passes::Rewriter;
using ir::DType;
using ir::Shape;
using namespace fold_qparams;

namespace {

Result<bool> decomposeQdq(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  const bool isDq = n.op == LS_OP(kDq) || n.op == LS_OP(kDqc);
  const bool perChannel = n.op == LS_OP(kDqc) || n.op == LS_OP(kQc);
  const ir::ValueRef* xr = n.args.empty() ? nullptr : n.args[0].ref();
  if (!xr) return Status::error("quantize/dequantize input must be a tensor");
  const ir::TensorMeta& xm = rw.meta(*xr);
  const int rank = xm.rank();
  Builder b(rw);
  // Scales / zero points as tensors broadcastable to x (per channel: along `axis`).
  std::vector<double> scales;
  std::vector<int64_t> zps;
  int axis = 0;
  if (perChannel) {
    auto ax = sarg(n, 3).asInt();
    if (!ax) return Status::error("per-channel quantisation needs an int axis");
    axis = int(*ax < 0 ? *ax + rank : *ax);
    const int64_t C = xm.shape[axis];
    auto s = channelScales(rw.graph(), n, C);
    const ir::ValueRef* zr = n.args.size() > 2 ? n.args[2].ref() : nullptr;
    auto zt = zr ? valueOfConstant(rw.graph(), *zr) : std::nullopt;
    if (!s || (zr && !zt)) return Status::error("per-channel scales/zero points must be constants");
    scales = *s;
    for (int64_t c = 0; c < C; ++c) zps.push_back(zt ? zt->getInt(zt->numel() == 1 ? 0 : c) : 0);
  } else {
    auto qp = perTensorQP(n);
    if (!qp) return Status::error("quantize/dequantize: expected a positive float scale and an int zero point");
    scales = {qp->scale};
    zps = {qp->zp};
  }
  Shape ps = Shape::ofRank(rank, 1);  // same rank as x (TOSA broadcasts equal ranks only; rank 0 included)
  if (perChannel) ps[axis] = int64_t(scales.size());
  auto param = [&](const std::vector<double>& v) {
    exec::Tensor t(DType::Float32, ps);
    for (size_t i = 0; i < v.size(); ++i) t.setDouble(int64_t(i), v[i]);
    return t;
  };
  std::vector<double> zpd(zps.begin(), zps.end()), inv;
  for (double s : scales) inv.push_back(1.0 / s);
  if (isDq) {
    // A dequantized constant is a float constant.
    if (auto cv = valueOfConstant(rw.graph(), *xr)) {
      exec::Tensor f(DType::Float32, cv->shape());
      const int64_t C = perChannel ? xm.shape[axis] : 1;
      int64_t inner = 1;
      if (perChannel)
        for (int d = axis + 1; d < rank; ++d) inner *= xm.shape[d];
      for (int64_t i = 0; i < f.numel(); ++i) {
        const size_t c = perChannel ? size_t((i / inner) % C) : 0;
        f.setDouble(i, double(float(double(cv->getInt(i) - zps[c])) * float(scales[c])));
      }
      rw.replaceWith(b.tensor(f, "dequantized"));
      return true;
    }
    LS_ASSIGN_OR_RETURN(c, b.op("tosa.CAST", {*xr}, {{"dtype", ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(DType::Float32)})}}));
    LS_ASSIGN_OR_RETURN(s, b.op("tosa.SUB", {c, b.tensor(param(zpd), "zero_point")}));
    LS_ASSIGN_OR_RETURN(y, b.mul(s, b.tensor(param(scales), "scale")));
    rw.replaceWith(y);
  } else {
    const DType outT = n.meta().dtype;
    auto lo = sarg(n, perChannel ? 4 : 3).asInt(), hi = sarg(n, perChannel ? 5 : 4).asInt();
    int64_t tlo = outT == DType::Int8 ? -128 : outT == DType::UInt8 ? 0 : outT == DType::Int16 ? -32768 : INT32_MIN;
    int64_t thi = outT == DType::Int8 ? 127 : outT == DType::UInt8 ? 255 : outT == DType::Int16 ? 32767 : INT32_MAX;
    // A quantized constant is an integer constant (folded as quantize_per_tensor / _per_channel
    // compute it: round half to even of x * (1/scale) in float32, + zero point, clamped), so an
    // INT graph computes nothing in float for its constant operands (layer scales, embeddings).
    if (auto cv = valueOfConstant(rw.graph(), *xr)) {
      exec::Tensor qt(outT, cv->shape());
      const int64_t C = perChannel ? xm.shape[axis] : 1;
      int64_t inner = 1;
      if (perChannel)
        for (int d = axis + 1; d < rank; ++d) inner *= xm.shape[d];
      const int64_t qlo = lo ? *lo : tlo, qhi = hi ? *hi : thi;
      for (int64_t i = 0; i < qt.numel(); ++i) {
        const size_t c = perChannel ? size_t((i / inner) % C) : 0;
        const float invScale = perChannel ? 1.0f / float(scales[c]) : float(1.0 / scales[c]);
        const float v = float(cv->getDouble(i)) * invScale;
        int64_t q;
        if (std::isnan(v)) {
          q = std::clamp(zps[c], qlo, qhi);
        } else {
          const float r = std::nearbyint(v) + float(zps[c]);
          q = r <= float(qlo) ? qlo : r >= float(qhi) ? qhi : int64_t(r);
        }
        qt.setInt(i, q);
      }
      rw.replaceWith(b.tensor(qt, "quantized"));
      return true;
    }
    int64_t tmin = outT == DType::Int8 ? -128 : outT == DType::UInt8 ? 0 : outT == DType::Int16 ? -32768 : INT32_MIN;
    int64_t tmax = outT == DType::Int8 ? 127 : outT == DType::UInt8 ? 255 : outT == DType::Int16 ? 32767 : INT32_MAX;
    const int64_t qlo = lo ? *lo : tmin, qhi = hi ? *hi : tmax;
    LS_ASSIGN_OR_RETURN(s, b.mul(*xr, b.tensor(param(inv), "inv_scale")));
    // Clamped in float to [qmin - zp, qmax - zp] before anything is an integer: x / scale may
    // be any float (an attention mask's -inf), and an integer CAST of an out-of-range value or
    // an int32 ADD that overflows is UNPREDICTABLE in TOSA 1.0. The bounds are integers, so
    // rounding after the clamp gives what clamping after the rounding gives (torch's order).
    std::vector<double> below, above;
    for (int64_t z : zps) below.push_back(double(qlo - z)), above.push_back(double(qhi - z));
    LS_ASSIGN_OR_RETURN(mx, b.op("tosa.MAXIMUM", {s, b.tensor(param(below), "qmin_minus_zp")}));
    LS_ASSIGN_OR_RETURN(mn, b.op("tosa.MINIMUM", {mx, b.tensor(param(above), "qmax_minus_zp")}));
    // round (CAST rounds to nearest, ties to even, as torch.round), then + zp in int32: in
    // [qmin, qmax] now, so the CAST to the storage type below is exact.
    LS_ASSIGN_OR_RETURN(r, b.op("tosa.CAST", {mn}, {{"dtype", ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(DType::Int32)})}}));
    exec::Tensor zt(DType::Int32, ps);
    for (size_t i = 0; i < zps.size(); ++i) zt.setInt(int64_t(i), zps[i]);
    LS_ASSIGN_OR_RETURN(q, b.op("tosa.ADD", {r, b.tensor(zt, "zero_point")}));
    ValueRef v = q;
    if (outT != DType::Int32) {
      LS_ASSIGN_OR_RETURN(c, b.op("tosa.CAST", {v}, {{"dtype", ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(outT)})}}));
      v = c;
    }
    rw.replaceWith(v);
  }
  return true;
}

}  // namespace

void registerDecomposeQuantizeDequantizePass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeQuantizeDequantizePass",
                      .description = "remaining quantize/dequantize -> TOSA MUL/ADD/SUB/CAST (dequantized constants folded)",
                      .targets = {kQ, kDq, kQc, kDqc},
                      .rewrite = decomposeQdq,
                      .gate = Gate::intOnly()});
}

}  // namespace ls::arm
