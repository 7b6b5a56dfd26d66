// FoldAndAnnotateQParamsPass, part 2 (the pass and its header comment:
// fold_qdq_with_annotated_qparams_pass.cpp): the quantised convolution (int8 CONV2D / CONV3D /
// DEPTHWISE_CONV2D / TRANSPOSE_CONV2D with int32 accumulation and per-channel RESCALE), matmul
// (linear / addmm / mm / bmm / matmul -> int8 MATMUL), resize and pool lowerings (upstream's INT
// op visitors).
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
namespace fold_qparams {

/// The int32 bias of a quantised convolution (scale s_in * s_w[c]); zeros without one;
/// nullopt when the bias is not a quantised constant of OC values.
Result<std::optional<exec::Tensor>> FoldAndAnnotateQParamsPass::int32Bias(const ir::Graph& g, const ir::Node& n, int64_t OC, double inScale,
                                                    const std::vector<double>& wScales) {
  exec::Tensor bias(DType::Int32, Shape{OC});
  if (const ir::ValueRef* br = sarg(n, 2).ref()) {
    auto bq = quantConstant(g, ir::Arg(*br), OC);
    if (!bq || bq->c.numel() != OC) return std::optional<exec::Tensor>{};
    const exec::Tensor bv = bq->values();
    for (int64_t c = 0; c < OC; ++c) {
      const double v = double(bv.getInt(c)) * bq->scales[size_t(c)] / (inScale * wScales[size_t(c)]);
      if (std::abs(v) > 2147483647.0) return Status::error("int32 bias overflows after requantisation");
      bias.setInt(c, std::llround(v));
    }
  }
  return std::optional<exec::Tensor>{std::move(bias)};
}

/// The tail of every quantised convolution: per-channel RESCALE of the int32 accumulator
/// (channels last), the fused activation, the permute back to channels first and, for a 1-D
/// convolution run at height 1, the view back to rank 3.
Result<std::optional<ValueRef>> FoldAndAnnotateQParamsPass::finishConv(Builder& b, const ir::Node& n, ValueRef acc, double inScale,
                                           const std::vector<double>& wScales, std::optional<Act> act, const QP& out,
                                           const std::vector<int64_t>& toCf, bool conv1d) {
  const int64_t OC = int64_t(wScales.size());
  std::vector<double> factors(static_cast<size_t>(OC));
  for (int64_t c = 0; c < OC; ++c) factors[size_t(c)] = inScale * wScales[size_t(c)] / out.scale;
  LS_ASSIGN_OR_RETURN(y, perChannelRescale(b, acc, factors, out.zp));
  LS_ASSIGN_OR_RETURN(r, withActivation(b, y, act, out));
  LS_ASSIGN_OR_RETURN(back, permute(b, r, toCf));
  ValueRef res = back;
  if (conv1d) {
    LS_ASSIGN_OR_RETURN(v, b.op("aten.view_copy.default", {back, ir::IntList(n.meta().shape.toVector())}, {}, "view"));
    res = v;
  }
  bump(conv_);
  return std::optional<ValueRef>{res};
}

/// Transposed 2-D convolution (1-D lifted to height 1; groups 1, no dilation: the others are
/// decomposed before quantisation) -> int8 TRANSPOSE_CONV2D with int32 accumulation + RESCALE.
template <class In>
Result<std::optional<ValueRef>> FoldAndAnnotateQParamsPass::transposedConv(Builder& b, Matcher& m, const ir::Node& n, const In& in, QConst& w,
                                               const ir::Shape& xs, const ir::Shape& os,
                                               const std::vector<int64_t>& stride, const std::vector<int64_t>& pad,
                                               int64_t groups, const std::vector<int64_t>& dil, bool conv1d,
                                               std::optional<Act> act, const QP& out) {
  const ir::Graph& g = m.g_;
  if (xs.rank() != 4 || groups != 1 || dil[0] != 1 || dil[1] != 1) return std::optional<ValueRef>{};
  auto opad = sints(n, 7, conv1d ? 1 : 2);
  if (!opad) return std::optional<ValueRef>{};
  if (conv1d) {
    if (opad->size() != 1) return std::optional<ValueRef>{};
    opad = std::vector<int64_t>{0, (*opad)[0]};
  }
  if (opad->size() != 2) return std::optional<ValueRef>{};
  const int64_t OC = os[1];
  if (w.dim(1) != OC || w.dim(0) != xs[1]) return std::optional<ValueRef>{};
  LS_ASSIGN_OR_RETURN(biasOpt, int32Bias(g, n, OC, in.qp.scale, w.scales));
  if (!biasOpt) return std::optional<ValueRef>{};
  const exec::Tensor& bias = *biasOpt;
  ValueRef x4 = in.src;
  if (conv1d) {
    LS_ASSIGN_OR_RETURN(v, b.op("aten.view_copy.default", {in.src, ir::IntList(xs.toVector())}, {}, "view"));
    x4 = v;
  }
  LS_ASSIGN_OR_RETURN(xt, permute(b, x4, kToNhwc));
  ValueRef wv = w.permuted(b, {1, 2, 3, 0}, "permute OHWI", "weight_ohwi");
  ir::IntList outPad{-pad[0], -pad[0] + (*opad)[0], -pad[1], -pad[1] + (*opad)[1]};
  LS_ASSIGN_OR_RETURN(acc, b.op("tosa.TRANSPOSE_CONV2D",
                                {xt, wv, b.tensor(bias, "bias_i32"), b.zeroPoint(DType::Int8, in.qp.zp), b.zeroPoint(DType::Int8, 0)},
                                {{"out_pad", outPad}, {"stride", ir::IntList(stride)}, {"acc_type", "INT32"}}));
  return finishConv(b, n, acc, in.qp.scale, w.scales, act, out, kToNchw, conv1d);
}

Result<std::optional<ValueRef>> FoldAndAnnotateQParamsPass::conv(Builder& b, Matcher& m, const ir::Node& n, std::optional<Act> act, const QP& out) {
  const ir::Graph& g = m.g_;
  auto in = m.dqInput(n.args[0]);
  if (!in || n.args.size() < 2) return std::optional<ValueRef>{};
  // A 1-D convolution runs as a 2-D one of height 1 ([N, C, L] -> [N, C, 1, L]); a 3-D one
  // (rank-5 input) as CONV3D.
  const bool conv1d = g.meta(in->src).rank() == 3;
  ir::Shape xs = g.meta(in->src).shape, os = n.meta().shape;
  if (conv1d) xs = ir::Shape{xs[0], xs[1], 1, xs[2]}, os = ir::Shape{os[0], os[1], 1, os[2]};
  const int S = xs.rank() - 2;  // spatial dims
  if ((S != 2 && S != 3) || os.rank() != xs.rank()) return std::optional<ValueRef>{};
  const int64_t C = xs[1], OC = os[1];
  const ir::Arg& trA = sarg(n, 6);
  const bool transposed = trA.asBool() && *trA.asBool();
  auto w = quantConstant(g, n.args[1], OC, transposed ? 1 : 0);  // transposed weights are [in, out, ...]
  if (!w || w->c.dtype != DType::Int8 || w->c.shape.rank() != xs.rank() - (conv1d ? 1 : 0))
    return std::optional<ValueRef>{};
  if (conv1d) w->view = ir::Shape{w->dim(0), w->dim(1), 1, w->dim(2)};
  auto stride = sints(n, 3, conv1d ? 1 : S), pad = sints(n, 4, conv1d ? 1 : S), dil = sints(n, 5, conv1d ? 1 : S);
  if (conv1d && stride && pad && dil && stride->size() == 1 && pad->size() == 1 && dil->size() == 1) {
    stride = std::vector<int64_t>{1, (*stride)[0]};
    pad = std::vector<int64_t>{0, (*pad)[0]};
    dil = std::vector<int64_t>{1, (*dil)[0]};
  }
  auto groups = sarg(n, 8).asInt();
  if (!stride || !pad || !dil || !groups || stride->size() != size_t(S) || pad->size() != size_t(S) ||
      dil->size() != size_t(S))
    return std::optional<ValueRef>{};
  if (transposed) return transposedConv(b, m, n, *in, *w, xs, os, *stride, *pad, *groups, *dil, conv1d, act, out);
  // groups == C with one input channel per group (2-D): DEPTHWISE_CONV2D; other groups (and
  // every grouped 3-D conv): one CONV2D/CONV3D per group on a channel slice, int32
  // accumulators concatenated before the RESCALE.
  const int64_t G = *groups;
  const bool depthwise = S == 2 && G != 1 && G == C && w->dim(1) == 1;
  if (G < 1 || (!depthwise && (C % G != 0 || OC % G != 0 || w->dim(1) != C / G)))
    return std::optional<ValueRef>{};
  // int32 bias at scale s_in * s_w[c].
  LS_ASSIGN_OR_RETURN(biasOpt, int32Bias(g, n, OC, in->qp.scale, w->scales));
  if (!biasOpt) return std::optional<ValueRef>{};
  const exec::Tensor& bias = *biasOpt;
  const std::vector<int64_t> toCl = S == 2 ? kToNhwc : std::vector<int64_t>{0, 2, 3, 4, 1};
  const std::vector<int64_t> toCf = S == 2 ? kToNchw : std::vector<int64_t>{0, 4, 1, 2, 3};
  const int64_t chAxis = S + 1;  // channels in the channels-last layout
  const char* convOp = S == 2 ? "tosa.CONV2D" : "tosa.CONV3D";
  // End padding per spatial dim so TOSA's output size equals PyTorch's; rows the convolution
  // never reads (negative end padding) are sliced off the input.
  ValueRef x4 = in->src;
  if (conv1d) {
    LS_ASSIGN_OR_RETURN(v, b.op("aten.view_copy.default", {in->src, ir::IntList(xs.toVector())}, {}, "view"));
    x4 = v;
  }
  LS_ASSIGN_OR_RETURN(xt0, permute(b, x4, toCl));
  ValueRef xt = xt0;
  ir::IntList padAttr;
  for (int i = 0; i < S; ++i) {
    const int64_t k = w->dim(2 + i);
    int64_t padEnd = (os[2 + i] - 1) * (*stride)[size_t(i)] + (k - 1) * (*dil)[size_t(i)] + 1 - xs[2 + i] - (*pad)[size_t(i)];
    if (padEnd < 0) {
      LS_ASSIGN_OR_RETURN(sl, b.op("aten.slice_copy.Tensor", {xt, int64_t(1 + i), int64_t(0), xs[2 + i] + padEnd, int64_t(1)}));
      xt = sl;
      padEnd = 0;
    }
    padAttr.push_back((*pad)[size_t(i)]);
    padAttr.push_back(padEnd);
  }
  std::vector<ir::Kwarg> attrs = {{"pad", padAttr},
                                  {"stride", ir::IntList(*stride)},
                                  {"dilation", ir::IntList(*dil)},
                                  {"acc_type", "INT32"}};
  ValueRef izp = b.zeroPoint(DType::Int8, in->qp.zp), wzp = b.zeroPoint(DType::Int8, 0);
  ValueRef biasV = b.tensor(bias, "bias_i32");
  ValueRef acc;
  if (!depthwise && G == 1) {
    ValueRef wv = w->permuted(b, toCl, S == 2 ? "permute OHWI" : "permute ODHWI", "weight_ohwi");
    LS_ASSIGN_OR_RETURN(c, b.op(convOp, {xt, wv, biasV, izp, wzp}, std::move(attrs)));
    acc = c;
  } else if (!depthwise) {
    const exec::Tensor wvals = w->values();  // grouped: each group's slice made here
    const int64_t Cg = C / G, OCg = OC / G, per = wvals.numel() / OC;
    ir::Shape wgShape = wvals.shape();
    wgShape[0] = OCg;
    ir::RefList accs;
    for (int64_t gi = 0; gi < G; ++gi) {
      LS_ASSIGN_OR_RETURN(xg, b.op("aten.slice_copy.Tensor", {xt, chAxis, gi * Cg, (gi + 1) * Cg, int64_t(1)}));
      exec::Tensor wg(DType::Int8, wgShape), bg(DType::Int32, Shape{OCg});
      for (int64_t i = 0; i < OCg * per; ++i) wg.setInt(i, wvals.getInt(gi * OCg * per + i));
      for (int64_t o = 0; o < OCg; ++o) bg.setInt(o, bias.getInt(gi * OCg + o));
      std::vector<ir::Kwarg> ga = attrs;
      LS_ASSIGN_OR_RETURN(c, b.op(convOp,
                      {xg, b.tensor(permuteTensor(wg, toCl), "weight_ohwi"), b.tensor(bg, "bias_i32"), izp, wzp},
                      std::move(ga)));
      accs.push_back(c);
    }
    LS_ASSIGN_OR_RETURN(cat, b.op("aten.cat.default", {accs, chAxis}, {}, "group_concat"));
    acc = cat;
  } else {
    const int64_t M = OC / C, kh = w->dim(2), kw = w->dim(3);
    ValueRef wv = w->permuted(b, {2, 3, 0, 1}, "permute HWCM", "weight_hwcm", Shape{C, M, kh, kw});
    LS_ASSIGN_OR_RETURN(c, b.op("tosa.DEPTHWISE_CONV2D", {xt, wv, biasV, izp, wzp}, std::move(attrs)));
    acc = c;
  }
  return finishConv(b, n, acc, in->qp.scale, w->scales, act, out, toCf, conv1d);
}

/// upsample on int8: RESIZE in NHWC. NEAREST keeps int8; BILINEAR yields int32 scaled by
/// y_n * x_n (the weights' unit), so the zero point times that unit is subtracted and the
/// RESCALE divides it out: s_in / (s_out * y_n * x_n).
Result<std::optional<ValueRef>> FoldAndAnnotateQParamsPass::resize(Builder& b, Matcher& m, const ir::Node& n, const QP& out) {
  auto a = n.args.empty() ? std::nullopt : m.dqInput(n.args[0]);
  if (!a) return std::optional<ValueRef>{};
  auto params = resizeParams(n, b.meta(a->src));
  if (!params) return std::optional<ValueRef>{};  // the float path reports why
  const int64_t unit = params->bilinear ? params->scale[0] * params->scale[2] : 1;
  if (params->scale[0] > 2048 || params->scale[2] > 2048) return std::optional<ValueRef>{};  // TOSA int limit
  LS_ASSIGN_OR_RETURN(xt, permute(b, a->src, kToNhwc));
  LS_ASSIGN_OR_RETURN(s, b.constShape(params->scale));
  LS_ASSIGN_OR_RETURN(o, b.constShape(params->offset));
  LS_ASSIGN_OR_RETURN(bo, b.constShape(params->border));
  LS_ASSIGN_OR_RETURN(r0, b.op("tosa.RESIZE", {xt, s, o, bo}, {{"mode", params->bilinear ? "BILINEAR" : "NEAREST_NEIGHBOR"}}));
  ValueRef r = r0;
  if (params->bilinear) {
    if (a->qp.zp != 0) {
      LS_ASSIGN_OR_RETURN(z, b.op("tosa.SUB", {r, b.scalar(DType::Int32, double(a->qp.zp * unit), 4, "zp_unit")}));
      r = z;
    }
    LS_ASSIGN_OR_RETURN(y, rescale(b, r, a->qp.scale / (out.scale * double(unit)), 0, DType::Int8, out.zp));
    r = y;
  } else {
    LS_ASSIGN_OR_RETURN(y, requantize(b, r, a->qp, out));
    r = y;
  }
  LS_ASSIGN_OR_RETURN(back, permute(b, r, kToNchw));
  bump(move_);
  return std::optional<ValueRef>{back};
}

/// adaptive_avg_pool2d whose bins have unequal sizes (out does not divide in; the equal case
/// becomes avg_pool2d and AVG_POOL2D): int32 values without zero point, per dim one SLICE +
/// REDUCE_SUM per bin concatenated, each cell scaled to a common count K (int32 MUL by
/// K / count), one RESCALE by s_in / (K * s_out). Exact up to the final rounding.
Result<std::optional<ValueRef>> FoldAndAnnotateQParamsPass::adaptivePool(Builder& b, Matcher& m, const ir::Node& n, const QP& out) {
  auto a = n.args.empty() ? std::nullopt : m.dqInput(n.args[0]);
  auto os = sints(n, 1, 2);
  if (!a || !os || os->size() != 2) return std::optional<ValueRef>{};
  const ir::Shape xs = b.meta(a->src).shape;
  if (xs.rank() != 4) return std::optional<ValueRef>{};
  bool divisible = true;
  for (int i = 0; i < 2; ++i) {
    if ((*os)[size_t(i)] <= 0) return std::optional<ValueRef>{};
    divisible = divisible && xs[2 + i] % (*os)[size_t(i)] == 0;
  }
  if (divisible) return std::optional<ValueRef>{};
  LS_ASSIGN_OR_RETURN(x32, rescale(b, a->src, 1.0, a->qp.zp, DType::Int32, 0));
  ValueRef v = x32;
  std::vector<int64_t> len[2];
  for (int i = 0; i < 2; ++i) {
    const int64_t in = xs[2 + i], outN = (*os)[size_t(i)], dim = 2 + i;
    if (in == outN) {
      len[i].assign(size_t(outN), 1);
      continue;
    }
    ir::RefList parts;
    for (int64_t o = 0; o < outN; ++o) {
      const int64_t s0 = (o * in) / outN, e0 = ((o + 1) * in + outN - 1) / outN;
      LS_ASSIGN_OR_RETURN(sl, b.op("aten.slice_copy.Tensor", {v, dim, s0, e0, int64_t(1)}));
      ValueRef r = sl;
      if (e0 - s0 > 1) {
        LS_ASSIGN_OR_RETURN(rs, b.op("tosa.REDUCE_SUM", {sl}, {{"axis", dim}}));
        r = rs;
      }
      parts.push_back(r);
      len[i].push_back(e0 - s0);
    }
    LS_ASSIGN_OR_RETURN(c, b.op("aten.cat.default", {parts, dim}));
    v = c;
  }
  const int64_t OH = (*os)[0], OW = (*os)[1];
  int64_t K = 1;
  for (int64_t h : len[0])
    for (int64_t w : len[1]) K = std::lcm(K, h * w);
  if (double(K) * 255.0 > 2147483647.0) return std::optional<ValueRef>{};
  exec::Tensor weights(DType::Int32, Shape{1, 1, OH, OW});
  bool unit = true;
  for (int64_t h = 0; h < OH; ++h)
    for (int64_t w = 0; w < OW; ++w) {
      const int64_t f = K / (len[0][size_t(h)] * len[1][size_t(w)]);
      weights.setInt(h * OW + w, f);
      unit = unit && f == 1;
    }
  if (!unit) {
    LS_ASSIGN_OR_RETURN(mw, b.mul(v, b.tensor(weights, "bin_weights")));
    v = mw;
  }
  LS_ASSIGN_OR_RETURN(y, rescale(b, v, a->qp.scale / (double(K) * out.scale), 0, DType::Int8, out.zp));
  bump(pool_);
  return std::optional<ValueRef>{y};
}

/// The int8 weight [O, K] of a linear read through t_copy / permute [1, 0] (addmm, mm) or
/// directly (linear), with its per-output-channel scales.
std::optional<QConst> FoldAndAnnotateQParamsPass::linearWeight(const ir::Graph& g, const ir::Arg& a, bool transposed) {
  const ir::Arg* wa = &a;
  if (transposed) {
    const ir::ValueRef* r = a.ref();
    const ir::Node* t = r ? g.find(r->node) : nullptr;
    if (!t || !t->isCall() || t->args.empty()) return std::nullopt;
    const bool isT = t->op == LS_OP("aten.t_copy.default") || t->op == LS_OP("aten.t.default") ||
                     (t->op == LS_OP("aten.permute_copy.default") && sints(*t, 1) == std::vector<int64_t>{1, 0}) ||
                     (t->op == LS_OP("aten.transpose_copy.int") && g.meta(*t->args[0].ref()).rank() == 2);
    if (!isT) return inOutWeight(g, *t);
    wa = &t->args[0];
  }
  const ir::ValueRef* wr = wa->ref();
  if (!wr || g.meta(*wr).rank() != 2) return std::nullopt;
  auto w = quantConstant(g, *wa, g.meta(*wr).shape[0]);
  if (!w || w->c.dtype != DType::Int8) return std::nullopt;
  return w;
}

/// A constant [in, out] weight quantized per output channel (dequantize_per_channel along
/// axis 1, as the quantizer does for addmm(bias, x, W)), returned as [out, in].
std::optional<QConst> FoldAndAnnotateQParamsPass::inOutWeight(const ir::Graph& g, const ir::Node& dq) {
  auto axis = sarg(dq, 3).asInt();
  if (dq.op != ir::internOp(kDqc) || !axis || *axis != 1 || dq.args.empty() || !dq.args[0].ref()) return std::nullopt;
  const ir::Constant* c = transforms::constantBehind(g, *dq.args[0].ref());
  if (!c || c->dtype != DType::Int8 || c->shape.rank() != 2 || !zeroPointsAllZero(g, dq)) return std::nullopt;
  auto s = channelScales(g, dq, c->shape[1]);
  if (!s) return std::nullopt;
  return QConst{exec::recipeConstant(exec::permuteRecipe(*c, {1, 0}, "permute [out, in]")), std::move(*s), std::nullopt};
}

/// linear / addmm / mm / bmm / matmul on int8: TOSA MATMUL (rank 3, zero points as
/// operands, int32 accumulation), int32 bias ADD, RESCALE (per output channel for a
/// per-channel weight), RESHAPE to the output shape.
Result<std::optional<ValueRef>> FoldAndAnnotateQParamsPass::matmul(Builder& b, Matcher& m, const ir::Node& n, std::optional<Act> act,
                                       const QP& out) {
  const ir::Graph& g = m.g_;
  const bool addmm = n.op == LS_OP("aten.addmm.default"), linear = n.op == LS_OP("aten.linear.default");
  const size_t xi = addmm ? 1 : 0, wi = addmm ? 2 : 1;
  if (n.args.size() <= wi) return std::optional<ValueRef>{};
  if (addmm)
    for (const ir::Kwarg& k : n.kwargs)
      if ((k.name == "beta" || k.name == "alpha") && k.value.number() != 1.0) return std::optional<ValueRef>{};
  auto x = m.dqInput(n.args[xi]);
  if (!x) return std::optional<ValueRef>{};
  const ir::Shape xs = g.meta(x->src).shape;
  const ir::Shape os = n.meta().shape;
  if (xs.rank() < 2 || os.rank() != xs.rank()) return std::optional<ValueRef>{};
  const int64_t K = xs[xs.rank() - 1];
  // The constant weight of a linear, or a second activation.
  std::optional<QConst> w = linear ? linearWeight(g, n.args[1], false)
                                   : (n.op != LS_OP("aten.bmm.default") ? linearWeight(g, n.args[wi], true) : std::nullopt);
  std::optional<DqIn> y2;
  if (!w) {
    if (linear || addmm) return std::optional<ValueRef>{};
    y2 = m.dqInput(n.args[wi]);
    if (!y2) return std::optional<ValueRef>{};
  }
  int64_t batch = 1;
  for (int d = 0; d + 2 < xs.rank(); ++d) batch *= xs[d];
  ValueRef lhs, rhs;
  std::vector<double> factors;
  int64_t O = 0, rhsZp = 0;
  if (w) {
    // Rows of every batch stacked: [1, B*M, K] x [1, K, O].
    O = w->dim(0);
    if (w->dim(1) != K) return std::optional<ValueRef>{};
    LS_ASSIGN_OR_RETURN(l, b.reshape(x->src, ir::Shape{1, batch * xs[xs.rank() - 2], K}));
    lhs = l;
    rhs = w->permuted(b, {0, 2, 1}, "permute KN", "weight_kn", ir::Shape{1, O, K});
    for (int64_t o = 0; o < O; ++o) factors.push_back(x->qp.scale * w->scales[size_t(o)] / out.scale);
  } else {
    const ir::Shape ys = g.meta(y2->src).shape;
    if (ys.rank() != xs.rank() || ys[ys.rank() - 2] != K) return std::optional<ValueRef>{};
    for (int d = 0; d + 2 < xs.rank(); ++d)
      if (ys[d] != xs[d]) return std::optional<ValueRef>{};  // broadcast batch dims: not here
    O = ys[ys.rank() - 1];
    LS_ASSIGN_OR_RETURN(l, b.reshape(x->src, ir::Shape{batch, xs[xs.rank() - 2], K}));
    LS_ASSIGN_OR_RETURN(r, b.reshape(y2->src, ir::Shape{batch, K, O}));
    lhs = l, rhs = r, rhsZp = y2->qp.zp;
    factors.push_back(x->qp.scale * y2->qp.scale / out.scale);
  }
  LS_ASSIGN_OR_RETURN(acc0, b.op("tosa.MATMUL", {lhs, rhs, b.zeroPoint(DType::Int8, x->qp.zp), b.zeroPoint(DType::Int8, rhsZp)}));
  ValueRef acc = acc0;
  // Bias: int32 at scale s_x * s_w[o].
  const ir::Arg& biasArg = addmm ? n.args[0] : sarg(n, 2);
  if (w && biasArg.ref()) {
    auto bq = quantConstant(g, biasArg, O);
    if (!bq || bq->c.numel() != O) return std::optional<ValueRef>{};
    const exec::Tensor bv = bq->values();
    exec::Tensor bias(DType::Int32, ir::Shape{1, 1, O});
    for (int64_t o = 0; o < O; ++o) {
      const double v = double(bv.getInt(o)) * bq->scales[size_t(o)] / (x->qp.scale * w->scales[size_t(o)]);
      if (std::abs(v) > 2147483647.0) return Status::error("int32 bias overflows after requantisation");
      bias.setInt(o, std::llround(v));
    }
    LS_ASSIGN_OR_RETURN(s, b.op("tosa.ADD", {acc, b.tensor(bias, "bias_i32")}));
    acc = s;
  } else if (!biasArg.isNone() && (addmm || linear)) {
    return std::optional<ValueRef>{};
  }
  ValueRef r;
  if (factors.size() > 1) {
    LS_ASSIGN_OR_RETURN(y, perChannelRescale(b, acc, factors, out.zp));
    r = y;
  } else {
    LS_ASSIGN_OR_RETURN(y, rescale(b, acc, factors[0], 0, DType::Int8, out.zp));
    r = y;
  }
  LS_ASSIGN_OR_RETURN(ra, withActivation(b, r, act, out));
  LS_ASSIGN_OR_RETURN(back, b.reshape(ra, os));
  bump(matmul_);
  return std::optional<ValueRef>{back};
}

Result<std::optional<ValueRef>> FoldAndAnnotateQParamsPass::pool(Builder& b, Matcher& m, const ir::Node& n, const QP& out, bool avg) {
  auto in = n.args.empty() ? std::nullopt : m.dqInput(n.args[0]);
  if (!in) return std::optional<ValueRef>{};
  const ir::TensorMeta& xm = m.g_.meta(in->src);
  const ir::TensorMeta& om = n.meta();
  auto k = sints(n, 1, 2), stride = sints(n, 2, 2), pad = sints(n, 3, 2);
  if (!k || xm.rank() != 4) return std::optional<ValueRef>{};
  if (!stride || stride->empty()) stride = k;
  if (!pad) pad = std::vector<int64_t>{0, 0};
  // avg: padding must not be counted (TOSA divides by the number of valid elements);
  // max: dilation 1 (TOSA MAX_POOL2D has none).
  bool excludePad = true;
  if (avg) {
    const ir::Arg& cip = sarg(n, 5);
    excludePad = cip.asBool() && !*cip.asBool();
    if (!sarg(n, 6).isNone()) return std::optional<ValueRef>{};
  } else {
    auto dil = sints(n, 4, 2);
    if (dil && ((*dil)[0] != 1 || (*dil)[1] != 1)) return std::optional<ValueRef>{};
  }
  // count_include_pad: the zero padding is made explicit (int8 zero point, float 0) so it is
  // counted, as upstream's DecomposeAvgPool2dPass does.
  const bool explicitPad = !excludePad && ((*pad)[0] || (*pad)[1]);
  const int64_t P[2] = {explicitPad ? (*pad)[0] : 0, explicitPad ? (*pad)[1] : 0};
  if (explicitPad) (*pad)[0] = (*pad)[1] = 0;
  int64_t H[2], padEnd[2];
  for (int i = 0; i < 2; ++i) {
    H[i] = xm.shape[2 + i] + 2 * P[i];
    padEnd[i] = (om.shape[2 + i] - 1) * (*stride)[size_t(i)] + (*k)[size_t(i)] - H[i] - (*pad)[size_t(i)];
    if (padEnd[i] >= (*k)[size_t(i)]) return std::optional<ValueRef>{};
    if (padEnd[i] > 0 && !excludePad) return std::optional<ValueRef>{};
  }
  ValueRef src = in->src;
  if (explicitPad) {
    LS_ASSIGN_OR_RETURN(pd, b.op("aten.constant_pad_nd.default",
                                 {src, ir::IntList{P[1], P[1], P[0], P[0]}, double(in->qp.zp)}));
    src = pd;
  }
  for (int i = 0; i < 2; ++i)
    if (padEnd[i] < 0) {
      // The last -padEnd rows (columns) are in no window (floor mode): sliced off, as
      // upstream's SizeAdjustInputPass does, so TOSA's exact-division rule holds.
      LS_ASSIGN_OR_RETURN(sl, b.op("aten.slice_copy.Tensor",
                                   {src, int64_t(2 + i), int64_t(0), H[i] + padEnd[i], int64_t(1)}));
      src = sl;
      padEnd[i] = 0;
    }
  LS_ASSIGN_OR_RETURN(xt, permute(b, src, kToNhwc));
  std::vector<ir::Kwarg> attrs = {{"kernel", ir::IntList(*k)},
                                  {"stride", ir::IntList(*stride)},
                                  {"pad", ir::IntList{(*pad)[0], padEnd[0], (*pad)[1], padEnd[1]}}};
  ValueRef r;
  if (avg) {
    attrs.push_back({"acc_type", "INT32"});
    LS_ASSIGN_OR_RETURN(p, b.op("tosa.AVG_POOL2D", {xt, b.zeroPoint(DType::Int8, in->qp.zp), b.zeroPoint(DType::Int8, in->qp.zp)},
                    std::move(attrs)));
    r = p;
  } else {
    LS_ASSIGN_OR_RETURN(p, b.op("tosa.MAX_POOL2D", {xt}, std::move(attrs)));
    r = p;
  }
  LS_ASSIGN_OR_RETURN(rs, requantize(b, r, in->qp, out));
  LS_ASSIGN_OR_RETURN(back, permute(b, rs, kToNchw));
  bump(pool_);
  return std::optional<ValueRef>{back};
}

}  // namespace fold_qparams

}  // namespace ls::arm
