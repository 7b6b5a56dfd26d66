// The INT-profile q/dq helpers (FoldAndAnnotateQParamsPass, DecomposeQuantizeDequantizePass) and
// the declaration of FoldAndAnnotateQParamsPass, whose members are defined in
// fold_qdq_with_annotated_qparams_pass.cpp (the fold, elementwise ops, data movement) and
// fold_qdq_with_annotated_qparams_pass_ops.cpp (convolution, matmul, pools, resize).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/passes/rule_pass.h"
#include "core/exec/materialize.h"
#include "core/ir/op_ref.h"
#include "core/transforms/constant_values.h"
#include "core/ops/registry.h"

/// Helpers of the fold_qparams pass files only (nested namespace: no clash with other ls::arm names).
namespace ls::arm::fold_qparams {

using passes::Rewriter;
using ir::DType;
using ir::Shape;

/// Per-channel float scales of a dequantize_per_channel node (arg 1: a constant tensor).
inline std::optional<std::vector<double>> channelScales(const ir::Graph& g, const ir::Node& dq, int64_t n) {
  const ir::ValueRef* r = dq.args.size() > 1 ? dq.args[1].ref() : nullptr;
  std::vector<double> out;
  if (r) {
    auto t = valueOfConstant(g, *r);
    if (!t) return std::nullopt;
    for (int64_t i = 0; i < t->numel(); ++i) out.push_back(t->getDouble(i));
  } else if (auto s = sarg(dq, 1).number()) {
    out.assign(size_t(n), *s);
  } else {
    return std::nullopt;
  }
  if (int64_t(out.size()) == 1 && n > 1) out.assign(size_t(n), out[0]);
  if (int64_t(out.size()) != n) return std::nullopt;
  return out;
}

/// Activation bounds (float) of relu / hardtanh / clamp; nullopt when the node is not one.
struct Act {
  double lo = -INFINITY, hi = INFINITY;
};

inline std::optional<Act> activationOf(const ir::Node& n) {
  if (n.op == LS_OP("aten.relu.default")) return Act{0, INFINITY};
  if (n.op == LS_OP("aten.hardtanh.default")) {
    auto lo = sarg(n, 1).number(), hi = sarg(n, 2).number();
    return Act{lo ? *lo : -1.0, hi ? *hi : 1.0};
  }
  if (n.op == LS_OP("aten.clamp.default")) {
    Act a;
    if (auto lo = sarg(n, 1).number()) a.lo = *lo;
    if (auto hi = sarg(n, 2).number()) a.hi = *hi;
    return a;
  }
  return std::nullopt;
}

const std::vector<int64_t> kToNhwc{0, 2, 3, 1};

const std::vector<int64_t> kToNchw{0, 3, 1, 2};

inline Result<ValueRef> permute(Builder& b, ValueRef x, const std::vector<int64_t>& p) {
  return b.op("aten.permute_copy.default", {x, ir::IntList(p)}, {}, "permute");
}

inline Result<ValueRef> rescale(Builder& b, ValueRef x, double factor, int64_t izp, DType outT, int64_t ozp) {
  LS_ASSIGN_OR_RETURN(ms, quantizeScale(factor));
  const DType inT = b.meta(x).dtype;
  return b.op("tosa.RESCALE",
              {x, b.scalar(DType::Int32, double(ms.first), 1, "multiplier"), b.scalar(DType::Int8, double(ms.second), 1, "shift"),
               b.zeroPoint(inT, izp), b.zeroPoint(outT, ozp)},
              {{"scale32", true}, {"rounding_mode", "SINGLE_ROUND"}, {"per_channel", false}});
}

/// int8 `x` quantised with `in` brought to the qparams `out`: a RESCALE unless they are equal.
inline Result<ValueRef> requantize(Builder& b, ValueRef x, const QP& in, const QP& out) {
  if (in == out) return x;
  return rescale(b, x, in.scale / out.scale, in.zp, DType::Int8, out.zp);
}

/// Two int8 operands RESCALEd to int32 at upstream's common scale (20 bits of headroom below
/// twice the larger scale), for add/sub, minimum/maximum and comparisons.
struct CommonInt32 {
  ValueRef a, c;
  double scale;
};

inline Result<CommonInt32> commonInt32(Builder& b, const DqIn& a, const DqIn& c) {
  const double common = 2.0 * std::max(a.qp.scale, c.qp.scale) / double(1 << 20);
  LS_ASSIGN_OR_RETURN(ra, rescale(b, a.src, a.qp.scale / common, a.qp.zp, DType::Int32, 0));
  LS_ASSIGN_OR_RETURN(rc, rescale(b, c.src, c.qp.scale / common, c.qp.zp, DType::Int32, 0));
  return CommonInt32{ra, rc, common};
}

/// An int8 operand scaled by |factor| and the number v at one common int32 scale: v becomes an
/// int32 constant (nullopt when it does not fit), for the scalar forms.
inline Result<std::optional<CommonInt32>> commonInt32(Builder& b, const DqIn& a, double factor, double v,
                                               std::string_view hint) {
  const double sa = a.qp.scale * std::abs(factor);
  const double common = 2.0 * std::max(sa, std::abs(v) / 127.0) / double(1 << 20);
  const double vi = std::round(v / common);
  if (std::abs(vi) > 2147483647.0) return std::optional<CommonInt32>{};
  LS_ASSIGN_OR_RETURN(ra, rescale(b, a.src, sa / common, a.qp.zp, DType::Int32, 0));
  return std::optional<CommonInt32>{CommonInt32{ra, b.scalar(DType::Int32, vi, b.meta(ra).rank(), hint), common}};
}

/// CLAMP in the quantised domain of `out` for float bounds [lo, hi] (always within qmin/qmax).
inline Result<ValueRef> clampQ(Builder& b, ValueRef x, const Act& a, const QP& out) {
  // Each bound quantised and clamped to [qmin, qmax] (what quantizing the float result gives:
  // bounds beyond the range collapse onto its edge); min > max is torch's "max everywhere".
  int64_t lo = out.qmin, hi = out.qmax;
  if (std::isfinite(a.lo)) lo = std::clamp<int64_t>(out.zp + std::llround(a.lo / out.scale), out.qmin, out.qmax);
  if (std::isfinite(a.hi)) hi = std::clamp<int64_t>(out.zp + std::llround(a.hi / out.scale), out.qmin, out.qmax);
  if (lo > hi) lo = hi;
  return b.op("tosa.CLAMP", {x}, {{"min_val", lo}, {"max_val", hi}, {"nan_mode", "PROPAGATE"}});
}

/// `y` with the fused activation (relu / hardtanh / clamp) applied as a CLAMP, if there is one.
inline Result<ValueRef> withActivation(Builder& b, ValueRef y, const std::optional<Act>& act, const QP& out) {
  if (!act) return y;
  return clampQ(b, y, *act, out);
}

inline bool zeroPointsAllZero(const ir::Graph& g, const ir::Node& dq) {
  const ir::ValueRef* r = dq.args.size() > 2 ? dq.args[2].ref() : nullptr;
  if (r) {
    auto t = valueOfConstant(g, *r);
    if (!t) return false;
    for (int64_t i = 0; i < t->numel(); ++i)
      if (t->getInt(i) != 0) return false;
    return true;
  }
  auto z = sarg(dq, 2).asInt();
  return z && *z == 0;
}

/// Weight (or bias) of a quantised conv: the int constant (bytes or a recipe: nothing is
/// materialised until values() is asked) seen as `view` when set, + per-channel scales.
struct QConst {
  ir::Constant c;
  std::vector<double> scales;
  std::optional<ir::Shape> view;  ///< a reshape of c (a 1-D conv's weight at height 1)

  const ir::Shape& shape() const { return view ? *view : c.shape; }
  int64_t dim(int d) const { return shape()[d]; }
  /// The values (materialised, viewed).
  exec::Tensor values() const {
    exec::Tensor t = constantValues(c);
    return view ? t.reshaped(*view) : t;
  }
  /// A constant of these values (viewed) permuted by `perm`: a recipe, no bytes made here.
  ValueRef permuted(Builder& b, std::vector<int64_t> perm, std::string label, std::string_view hint,
                    std::optional<ir::Shape> as = {}) const {
    return b.permuted(c, std::move(perm), std::move(label), hint, as ? as : view);
  }
};

inline std::optional<QConst> quantConstant(const ir::Graph& g, const ir::Arg& a, int64_t channels, int64_t channelAxis = 0) {
  static const ir::OpId dqc = ir::internOp(kDqc), dq = ir::internOp(kDq);
  const ir::ValueRef* r = a.ref();
  const ir::Node* p = r ? g.find(r->node) : nullptr;
  if (!p || (p->op != dqc && p->op != dq) || p->args.empty() || !p->args[0].ref()) return std::nullopt;
  if (p->op == dqc) {
    auto axis = sarg(*p, 3).asInt();
    if (!axis || *axis != channelAxis) return std::nullopt;
  }
  const ir::Constant* c = transforms::constantBehind(g, *p->args[0].ref());
  if (!c || ir::isFloating(c->dtype)) return std::nullopt;
  auto s = channelScales(g, *p, channels);
  if (!s || !zeroPointsAllZero(g, *p)) return std::nullopt;
  return QConst{*c, std::move(*s), std::nullopt};
}

inline Result<ValueRef> perChannelRescale(Builder& b, ValueRef acc, const std::vector<double>& factors, int64_t ozp) {
  const int64_t C = int64_t(factors.size());
  exec::Tensor mult(DType::Int32, Shape{C}), shift(DType::Int8, Shape{C});
  for (int64_t c = 0; c < C; ++c) {
    LS_ASSIGN_OR_RETURN(ms, quantizeScale(factors[size_t(c)]));
    mult.setInt(c, ms.first), shift.setInt(c, ms.second);
  }
  return b.op("tosa.RESCALE",
              {acc, b.tensor(mult, "multipliers"), b.tensor(shift, "shifts"), b.zeroPoint(DType::Int32, 0),
               b.zeroPoint(DType::Int8, ozp)},
              {{"scale32", true}, {"rounding_mode", "SINGLE_ROUND"}, {"per_channel", true}});
}


/// Ops that only move or select values, re-emitted on int8 sources (reemit).
inline const std::vector<std::string>& movedInt8Ops() {
  static const std::vector<std::string> ops = {
      "aten.view_copy.default",      "aten.permute_copy.default",   "aten.squeeze_copy.dims",
      "aten.squeeze_copy.dim",       "aten.unsqueeze_copy.default", "aten.slice_copy.Tensor",
      "aten.cat.default",            "aten.clone.default",
      "aten.select_copy.int",        "aten.expand_copy.default",    "aten.repeat.default",
      "aten.flatten.using_ints",     "aten.pixel_shuffle.default",  "aten.pixel_unshuffle.default",
      "aten.constant_pad_nd.default", "aten.flip.default",
      "aten.t_copy.default",         "aten.transpose_copy.int",     "aten.squeeze_copy.default",
      "aten.view.default",           "aten.reshape.default",        "aten._unsafe_view.default",
      "aten.alias_copy.default",     "aten.detach_copy.default",    "aten.lift_fresh_copy.default",
      "aten.amax.default",           "aten.amin.default"};
  return ops;
}

/// Folds dq -> op -> q into integer TOSA (fold_qdq_with_annotated_qparams_pass.cpp).
class FoldAndAnnotateQParamsPass : public passes::RetracePass {
 public:
  FoldAndAnnotateQParamsPass();
  std::vector<ir::OpId> documentedOps() const override;
 protected:
  Status rewrite(passes::Rewriter& rw) override;
 private:
  Result<std::optional<ValueRef>> foldOne(passes::Rewriter& rw, const ir::Node& q);
  static void annotateOutputChain(passes::Rewriter& rw, ValueRef y, std::shared_ptr<const ir::QuantParams> q);
  static void annotateInputMoves(passes::Rewriter& rw);
  static bool isFusableCore(const ir::Node& n);
  static Result<std::optional<exec::Tensor>> int32Bias(const ir::Graph& g, const ir::Node& n, int64_t OC, double inScale,
                                                      const std::vector<double>& wScales);
  Result<std::optional<ValueRef>> finishConv(Builder& b, const ir::Node& n, ValueRef acc, double inScale,
                                             const std::vector<double>& wScales, std::optional<Act> act, const QP& out,
                                             const std::vector<int64_t>& toCf, bool conv1d);
  template <class In>
  Result<std::optional<ValueRef>> transposedConv(Builder& b, Matcher& m, const ir::Node& n, const In& in, QConst& w,
                                                 const ir::Shape& xs, const ir::Shape& os,
                                                 const std::vector<int64_t>& stride, const std::vector<int64_t>& pad,
                                                 int64_t groups, const std::vector<int64_t>& dil, bool conv1d,
                                                 std::optional<Act> act, const QP& out);
  Result<std::optional<ValueRef>> conv(Builder& b, Matcher& m, const ir::Node& n, std::optional<Act> act, const QP& out);
  Result<std::optional<ValueRef>> addSub(Builder& b, Matcher& m, const ir::Node& n, std::optional<Act> act, const QP& out,
                                         bool sub);
  Result<std::optional<ValueRef>> neg(Builder& b, Matcher& m, const ir::Node& n, const QP& out);

  /// aten comparison -> TOSA op; lt/le are GREATER/GREATER_EQUAL with the operands swapped.
  static constexpr std::pair<const char*, const char*> kCompares[] = {
      {"aten.eq.Tensor", "tosa.EQUAL"},  {"aten.ge.Tensor", "tosa.GREATER_EQUAL"}, {"aten.gt.Tensor", "tosa.GREATER"},
      {"aten.le.Tensor", "tosa.GREATER_EQUAL"}, {"aten.lt.Tensor", "tosa.GREATER"}, {"aten.eq.Scalar", "tosa.EQUAL"},
      {"aten.ge.Scalar", "tosa.GREATER_EQUAL"}, {"aten.gt.Scalar", "tosa.GREATER"},
      {"aten.le.Scalar", "tosa.GREATER_EQUAL"}, {"aten.lt.Scalar", "tosa.GREATER"}};
  Result<std::optional<ValueRef>> foldCompare(passes::Rewriter& rw, const ir::Node& n);
  Result<std::optional<ValueRef>> where(Builder& b, Matcher& m, const ir::Node& n, const QP& out);
  Result<std::optional<ValueRef>> rsubScalar(Builder& b, Matcher& m, const ir::Node& n, std::optional<Act> act,
                                             const QP& out);
  Result<std::optional<ValueRef>> abs(Builder& b, Matcher& m, const ir::Node& n, const QP& out);
  Result<std::optional<ValueRef>> minMax(Builder& b, Matcher& m, const ir::Node& n, std::optional<Act> act,
                                         const QP& out, bool isMax);
  Result<std::optional<ValueRef>> mul(Builder& b, Matcher& m, const ir::Node& n, std::optional<Act> act, const QP& out);
  static bool matchRanks(Builder& b, DqIn& a, DqIn& c);
  Result<std::optional<ValueRef>> addSubScalar(Builder& b, Matcher& m, const ir::Node& n, std::optional<Act> act,
                                               const QP& out, bool sub);
  Result<std::optional<ValueRef>> mulScalar(Builder& b, Matcher& m, const ir::Node& n, std::optional<Act> act,
                                            const QP& out);
  Result<std::optional<ValueRef>> sum(Builder& b, Matcher& m, const ir::Node& n, const QP& out);
  Result<std::optional<ValueRef>> resize(Builder& b, Matcher& m, const ir::Node& n, const QP& out);
  Result<std::optional<ValueRef>> adaptivePool(Builder& b, Matcher& m, const ir::Node& n, const QP& out);
  static std::optional<QConst> linearWeight(const ir::Graph& g, const ir::Arg& a, bool transposed);
  static std::optional<QConst> inOutWeight(const ir::Graph& g, const ir::Node& dq);
  Result<std::optional<ValueRef>> matmul(Builder& b, Matcher& m, const ir::Node& n, std::optional<Act> act,
                                         const QP& out);
  Result<std::optional<ValueRef>> pool(Builder& b, Matcher& m, const ir::Node& n, const QP& out, bool avg);
  Result<std::optional<ValueRef>> reemit(Builder& b, Matcher& m, const ir::Node& n, const QP& out);

  size_t conv_, add_, mul_, act_, pool_, move_, matmul_, sum_, minMax_, neg_, abs_, compare_, select_, unrepresentable_;
};

}  // namespace ls::arm::fold_qparams
