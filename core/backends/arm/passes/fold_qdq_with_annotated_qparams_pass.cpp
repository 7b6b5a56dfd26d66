// FoldAndAnnotateQParamsPass (upstream
// backends/arm/_passes/fold_qdq_with_annotated_qparams_pass.py): INT profile: integer lowering of
// quantised (PT2E q/dq) graphs.
//
// FoldAndAnnotateQParamsPass (upstream FoldAndAnnotateQParamsPass + the INT op visitors):
// for a quantised operator `dq -> op [-> relu/hardtanh/clamp] -> q` the dequantize inputs
// and the quantize output are folded away: the op reads the int8 sources directly and its
// input/output qparams are recorded (TensorMeta::quant of the int8 values it reads and
// produces). Because the reference executor has no quantised ATen kernels, the folded op is
// emitted right away in its integer TOSA form (upstream's INT op visitors):
//   - convolution: int8 CONV2D / CONV3D / DEPTHWISE_CONV2D with int32 accumulation (int32 bias
//     requantised to scale s_in * s_w[c]), per-channel RESCALE int32 -> int8 (s_in * s_w[c] /
//     s_out), CLAMP for a fused relu/hardtanh in the quantised domain;
//   - add/sub: both inputs RESCALEd to int32 at a common scale (2 * max(s_a, s_b) / 2^20, as
//     upstream's insert_rescales), int32 ADD/SUB, RESCALE to the output scale, fused CLAMP;
//   - mul: inputs RESCALEd to int32 (zero points removed), int32 MUL, RESCALE by
//     s_a * s_b / s_out;
//   - relu/hardtanh/clamp alone: RESCALE int8 -> int8 + CLAMP;
//   - data movement (view, permute, squeeze, slice, cat, ...): the same op on the int8 values
//     (RESCALE afterwards when input and output qparams differ);
//   - max_pool2d / avg_pool2d: MAX_POOL2D / AVG_POOL2D on int8 (avg: int32 accumulation with
//     the input zero point), RESCALE when input and output qparams differ.
//   - linear / addmm / mm (per-channel int8 weight), bmm / matmul of two activations: int8
//     MATMUL with zero points, int32 bias ADD, RESCALE (per output channel for a weight);
//   - sum over dims: RESCALE to int32 (zero point removed), REDUCE_SUM per axis, RESCALE;
//   - add/sub/mul by a scalar: RESCALE (mul) or an int32 ADD of the scalar at the common scale;
//   - 1-D convolutions run as int8 CONV2D of height 1.
// The pass runs early (before the float decompositions of linear/addmm/conv1d could split a
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/passes/rule_pass.h"
#include "core/exec/materialize.h"
#include "core/transforms/constant_values.h"
#include "core/ops/registry.h"
#include "core/backends/arm/passes/fold_qparams_common.h"
#include "core/ir/op_ref.h"

namespace ls::arm {

using passes::Rewriter;
using ir::DType;
using ir::Shape;

namespace {

/// Activation bounds (float) of relu / hardtanh / clamp; nullopt when the node is not one.
struct Act {
  double lo = -INFINITY, hi = INFINITY;
};

std::optional<Act> activationOf(const ir::Node& n) {
  const std::string& op = ir::opName(n.op);
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

Result<ValueRef> permute(Builder& b, ValueRef x, const std::vector<int64_t>& p) {
  return b.op("aten.permute_copy.default", {x, ir::IntList(p)}, {}, "permute");
}

Result<ValueRef> rescale(Builder& b, ValueRef x, double factor, int64_t izp, DType outT, int64_t ozp) {
  LS_ASSIGN_OR_RETURN(ms, quantizeScale(factor));
  const DType inT = b.meta(x).dtype;
  return b.op("tosa.RESCALE",
              {x, b.scalar(DType::Int32, double(ms.first), 1, "multiplier"), b.scalar(DType::Int8, double(ms.second), 1, "shift"),
               b.zeroPoint(inT, izp), b.zeroPoint(outT, ozp)},
              {{"scale32", true}, {"rounding_mode", "SINGLE_ROUND"}, {"per_channel", false}});
}

/// int8 `x` quantised with `in` brought to the qparams `out`: a RESCALE unless they are equal.
Result<ValueRef> requantize(Builder& b, ValueRef x, const QP& in, const QP& out) {
  if (in == out) return x;
  return rescale(b, x, in.scale / out.scale, in.zp, DType::Int8, out.zp);
}

/// Two int8 operands RESCALEd to int32 at upstream's common scale (20 bits of headroom below
/// twice the larger scale), for add/sub, minimum/maximum and comparisons.
struct CommonInt32 {
  ValueRef a, c;
  double scale;
};

Result<CommonInt32> commonInt32(Builder& b, const DqIn& a, const DqIn& c) {
  const double common = 2.0 * std::max(a.qp.scale, c.qp.scale) / double(1 << 20);
  LS_ASSIGN_OR_RETURN(ra, rescale(b, a.src, a.qp.scale / common, a.qp.zp, DType::Int32, 0));
  LS_ASSIGN_OR_RETURN(rc, rescale(b, c.src, c.qp.scale / common, c.qp.zp, DType::Int32, 0));
  return CommonInt32{ra, rc, common};
}

/// An int8 operand scaled by |factor| and the number v at one common int32 scale: v becomes an
/// int32 constant (nullopt when it does not fit), for the scalar forms.
Result<std::optional<CommonInt32>> commonInt32(Builder& b, const DqIn& a, double factor, double v,
                                               std::string_view hint) {
  const double sa = a.qp.scale * std::abs(factor);
  const double common = 2.0 * std::max(sa, std::abs(v) / 127.0) / double(1 << 20);
  const double vi = std::round(v / common);
  if (std::abs(vi) > 2147483647.0) return std::optional<CommonInt32>{};
  LS_ASSIGN_OR_RETURN(ra, rescale(b, a.src, sa / common, a.qp.zp, DType::Int32, 0));
  return std::optional<CommonInt32>{CommonInt32{ra, b.scalar(DType::Int32, vi, b.meta(ra).rank(), hint), common}};
}

/// CLAMP in the quantised domain of `out` for float bounds [lo, hi] (always within qmin/qmax).
Result<ValueRef> clampQ(Builder& b, ValueRef x, const Act& a, const QP& out) {
  // Each bound quantised and clamped to [qmin, qmax] (what quantizing the float result gives:
  // bounds beyond the range collapse onto its edge); min > max is torch's "max everywhere".
  int64_t lo = out.qmin, hi = out.qmax;
  if (std::isfinite(a.lo)) lo = std::clamp<int64_t>(out.zp + std::llround(a.lo / out.scale), out.qmin, out.qmax);
  if (std::isfinite(a.hi)) hi = std::clamp<int64_t>(out.zp + std::llround(a.hi / out.scale), out.qmin, out.qmax);
  if (lo > hi) lo = hi;
  return b.op("tosa.CLAMP", {x}, {{"min_val", lo}, {"max_val", hi}, {"nan_mode", "PROPAGATE"}});
}

/// `y` with the fused activation (relu / hardtanh / clamp) applied as a CLAMP, if there is one.
Result<ValueRef> withActivation(Builder& b, ValueRef y, const std::optional<Act>& act, const QP& out) {
  if (!act) return y;
  return clampQ(b, y, *act, out);
}

bool zeroPointsAllZero(const ir::Graph& g, const ir::Node& dq) {
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

std::optional<QConst> quantConstant(const ir::Graph& g, const ir::Arg& a, int64_t channels, int64_t channelAxis = 0) {
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

Result<ValueRef> perChannelRescale(Builder& b, ValueRef acc, const std::vector<double>& factors, int64_t ozp) {
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

}  // namespace

/// Ops that only move or select values, re-emitted on int8 sources (reemit).
const std::vector<std::string>& movedInt8Ops() {
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

class FoldAndAnnotateQParamsPass : public passes::RetracePass {
 public:
  FoldAndAnnotateQParamsPass()
      : RetracePass("FoldAndAnnotateQParamsPass",
                    "Folds dq -> op -> q into the op's input/output qparams and emits the op in integer TOSA "
                    "(int8 CONV2D/DEPTHWISE_CONV2D/MATMUL + RESCALE, int32 ADD/SUB/MUL/REDUCE_SUM, RESIZE, CLAMP, "
                    "int8 pools and views); the folded float ops are left dead for the DeadCodeEliminationPass "
                    "that follows it") {
    std::vector<std::string> t = {kQ};
    for (const auto& [op, tosaOp] : kCompares) t.push_back(op);
    targets(t);
    appliesTo(passes::Applicability::intOnly());
    compare_ = stat("compare", "comparisons of int8 values lowered to int32 EQUAL/GREATER/GREATER_EQUAL");
    conv_ = stat("conv", "convolutions lowered to int8 CONV2D/CONV3D/DEPTHWISE_CONV2D/TRANSPOSE_CONV2D + RESCALE");
    add_ = stat("add_sub", "add/sub lowered to int32 ADD/SUB between RESCALEs");
    mul_ = stat("mul", "mul lowered to int32 MUL between RESCALEs");
    act_ = stat("activation", "relu/hardtanh/clamp lowered to RESCALE + CLAMP");
    pool_ = stat("pool", "pools on int8");
    move_ = stat("data_movement", "view/permute/slice/cat/... on int8");
    matmul_ = stat("matmul", "linear/addmm/mm/bmm/matmul lowered to int8 MATMUL + RESCALE");
    sum_ = stat("sum", "sum lowered to int32 REDUCE_SUM between RESCALEs");
    minMax_ = stat("min_max", "minimum/maximum lowered to int32 MINIMUM/MAXIMUM between RESCALEs");
    neg_ = stat("neg", "neg lowered to int8 NEGATE");
    abs_ = stat("abs", "abs lowered to int32 ABS between RESCALEs");
    select_ = stat("select", "where lowered to int8 SELECT");
    unrepresentable_ = stat("kept_float_scale", "quantised ops left in float: a rescale factor no RESCALE can hold");
  }

  /// The quantised ops foldOne lowers (the producers of the quantize nodes it targets).
  std::vector<ir::OpId> documentedOps() const override {
    std::vector<ir::OpId> ops;
    for (const char* op :
         {"aten.convolution.default", "aten.add.Tensor", "aten.sub.Tensor", "aten.neg.default", "aten.abs.default",
          "aten.where.self", "aten.add.Scalar", "aten.sub.Scalar", "aten.mul.Scalar", "aten.rsub.Scalar",
          "aten.minimum.default", "aten.maximum.default", "aten.mul.Tensor", "aten.addmm.default",
          "aten.linear.default", "aten.mm.default", "aten.bmm.default", "aten.matmul.default", "aten.sum.dim_IntList",
          "aten.upsample_bilinear2d.vec", "aten.upsample_nearest2d.vec", "aten.relu.default", "aten.hardtanh.default",
          "aten.clamp.default", "aten.adaptive_avg_pool2d.default", "aten._adaptive_avg_pool2d.default",
          "aten.avg_pool2d.default", "aten.max_pool2d.default"})
      ops.push_back(ir::internOp(op));
    for (const std::string& op : movedInt8Ops()) ops.push_back(ir::internOp(op));
    for (const auto& [op, tosaOp] : kCompares) ops.push_back(ir::internOp(op));
    return ops;
  }
 protected:
  // One retrace (linear in the graph): each quantize is a hot node; the folded integer ops are
  // emitted in its place, reading the int8 sources of the dequantizes.
  Status rewrite(passes::Rewriter& rw) override {
    const ir::Node& q = rw.node();
    if (q.op != ir::internOp(kQ)) {  // a comparison: bool output, no qparams of its own
      LS_ASSIGN_OR_RETURN(c, foldCompare(rw, q));
      if (c) rw.replaceWith(*c);
      return Status::ok();
    }
    auto r = foldOne(rw, q);
    if (!r && isUnrepresentableScale(r.status())) {  // stays float: a float island, not an error
      bump(unrepresentable_);
      return Status::ok();
    }
    if (!r) return r.status();
    if (!r.value()) return Status::ok();
    ValueRef y = *r.value();
    annotateOutputChain(rw, y, toQuant(*perTensorQP(q)));
    annotateInputMoves(rw);
    rw.replaceWith(y);
    return Status::ok();
  }

 private:
  /// Folds the quantised op feeding quantize node `q`; nullopt when it does not match.
  Result<std::optional<ValueRef>> foldOne(passes::Rewriter& rw, const ir::Node& q) {
    if (q.meta().dtype != DType::Int8) return std::optional<ValueRef>{};
    auto outQ = perTensorQP(q);
    Matcher m(rw.graph(), &rw.sourceGraph());
    const ir::Node* p = q.args.empty() ? nullptr : m.producer(q.args[0]);
    if (!outQ || !p || !p->isCall()) return std::optional<ValueRef>{};
    // Fused activation: core -> act -> q.
    std::optional<Act> act = activationOf(*p);
    const ir::Node* core = p;
    if (act && !p->args.empty()) {
      const ir::Node* c = m.producer(p->args[0]);
      if (c && c->isCall() && m.singleUser(c->id) && isFusableCore(*c)) core = c;
    }
    if (!m.singleUser(p->id)) return std::optional<ValueRef>{};
    Builder b(rw);
    const std::string& op = ir::opName(core->op);
    if (core->op == LS_OP("aten.convolution.default")) return conv(b, m, *core, act, *outQ);
    if (core->op == LS_OP("aten.add.Tensor") || core->op == LS_OP("aten.sub.Tensor")) {
      if (core->args.size() > 1 && core->args[1].number())
        return addSubScalar(b, m, *core, act, *outQ, core->op == LS_OP("aten.sub.Tensor"));
      return addSub(b, m, *core, act, *outQ, core->op == LS_OP("aten.sub.Tensor"));
    }
    if (core->op == LS_OP("aten.neg.default") && !act) return neg(b, m, *core, *outQ);
    if (core->op == LS_OP("aten.abs.default") && !act) return abs(b, m, *core, *outQ);
    if (core->op == LS_OP("aten.where.self") && !act) return where(b, m, *core, *outQ);
    // Python-scalar forms (torch.mul(x, 2.0) exports as mul.Scalar): the scalar stays exact in
    // the integer arithmetic, as for the .Tensor forms with a number operand.
    if ((core->op == LS_OP("aten.add.Scalar") || core->op == LS_OP("aten.sub.Scalar")) && core->args.size() > 1)
      return addSubScalar(b, m, *core, act, *outQ, core->op == LS_OP("aten.sub.Scalar"));
    if (core->op == LS_OP("aten.mul.Scalar") && core->args.size() > 1) return mulScalar(b, m, *core, act, *outQ);
    if (core->op == LS_OP("aten.rsub.Scalar") && core->args.size() > 1) return rsubScalar(b, m, *core, act, *outQ);
    if (core->op == LS_OP("aten.minimum.default") || core->op == LS_OP("aten.maximum.default"))
      return minMax(b, m, *core, act, *outQ, core->op == LS_OP("aten.maximum.default"));
    if (core->op == LS_OP("aten.mul.Tensor")) {
      if (core->args.size() > 1 && core->args[1].number()) return mulScalar(b, m, *core, act, *outQ);
      return mul(b, m, *core, act, *outQ);
    }
    if (core->op == LS_OP("aten.addmm.default") || core->op == LS_OP("aten.linear.default") || core->op == LS_OP("aten.mm.default") ||
        core->op == LS_OP("aten.bmm.default") || core->op == LS_OP("aten.matmul.default"))
      return matmul(b, m, *core, act, *outQ);
    if (core->op == LS_OP("aten.sum.dim_IntList") && !act) return sum(b, m, *core, *outQ);
    if ((core->op == LS_OP("aten.upsample_bilinear2d.vec") || core->op == LS_OP("aten.upsample_nearest2d.vec")) && !act)
      return resize(b, m, *core, *outQ);
    if (act) {  // standalone activation
      auto in = core->args.empty() ? std::nullopt : m.dqInput(core->args[0]);
      if (!in) return std::optional<ValueRef>{};
      LS_ASSIGN_OR_RETURN(x, requantize(b, in->src, in->qp, *outQ));
      LS_ASSIGN_OR_RETURN(c, clampQ(b, x, *act, *outQ));
      bump(act_);
      return std::optional<ValueRef>{c};
    }
    if ((core->op == LS_OP("aten.adaptive_avg_pool2d.default") || core->op == LS_OP("aten._adaptive_avg_pool2d.default")) && !act)
      if (auto r = adaptivePool(b, m, *core, *outQ); !r || r.value()) return r;
    if (core->op == LS_OP("aten.avg_pool2d.default") || core->op == LS_OP("aten.max_pool2d.default"))
      return pool(b, m, *core, *outQ, core->op == LS_OP("aten.avg_pool2d.default"));
    return reemit(b, m, *core, *outQ);
  }

  /// The output qparams on the folded value and on the int8 values it is a view of: from `y`
  /// back through the CLAMP / transposes / reshapes this rewrite emitted to the RESCALE or op
  /// that produced them, so the NHWC values keep the annotation when the layout passes later
  /// cancel the transposes around them.
  static void annotateOutputChain(passes::Rewriter& rw, ValueRef y, std::shared_ptr<const ir::QuantParams> q) {
    static const std::vector<std::string> kThrough = {"tosa.CLAMP", "tosa.RESHAPE", "aten.permute_copy.default",
                                                      "aten.view_copy.default"};
    const ir::Graph& g = rw.graph();
    ValueRef v = y;
    while (v.node >= rw.firstEmittedId()) {
      const ir::Node& n = g.node(v.node);
      if (!n.isCall() || n.outputs[v.output].dtype != DType::Int8 || n.outputs[v.output].quant) break;
      rw.setQuant(v, q);
      if (std::find(kThrough.begin(), kThrough.end(), ir::opName(n.op)) == kThrough.end() || n.args.empty() ||
          !n.args[0].ref())
        break;
      v = *n.args[0].ref();
    }
  }

  /// Input side: the int8 values this rewrite moved (NHWC permute, slices of unread rows,
  /// views) carry the qparams of the value they were moved from.
  static void annotateInputMoves(passes::Rewriter& rw) {
    const ir::Graph& g = rw.graph();
    for (ir::NodeId id = rw.firstEmittedId(); id < g.nextId(); ++id) {  // emission order
      if (!g.contains(id)) continue;
      const ir::Node& n = g.node(id);
      if (!n.isCall() || n.outputs.size() != 1 || n.outputs[0].dtype != DType::Int8 || n.outputs[0].quant ||
          n.args.empty() || !n.args[0].ref() || !ops::movesValuesOnly(n.op))
        continue;
      const ir::TensorMeta& in = g.meta(*n.args[0].ref());
      if (in.dtype == DType::Int8 && in.quant && in.quant->scheme == ir::QScheme::PerTensor)
        rw.setQuant({id, 0}, in.quant);
    }
  }

  static bool isFusableCore(const ir::Node& n) {
    const std::string& op = ir::opName(n.op);
    return n.op == LS_OP("aten.convolution.default") || n.op == LS_OP("aten.add.Tensor") || n.op == LS_OP("aten.sub.Tensor") ||
           n.op == LS_OP("aten.mul.Tensor") || n.op == LS_OP("aten.addmm.default") || n.op == LS_OP("aten.linear.default") ||
           n.op == LS_OP("aten.mm.default") || n.op == LS_OP("aten.bmm.default") || n.op == LS_OP("aten.matmul.default");
  }

  /// The int32 bias of a quantised convolution (scale s_in * s_w[c]); zeros without one;
  /// nullopt when the bias is not a quantised constant of OC values.
  static Result<std::optional<exec::Tensor>> int32Bias(const ir::Graph& g, const ir::Node& n, int64_t OC, double inScale,
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
  Result<std::optional<ValueRef>> finishConv(Builder& b, const ir::Node& n, ValueRef acc, double inScale,
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
  Result<std::optional<ValueRef>> transposedConv(Builder& b, Matcher& m, const ir::Node& n, const In& in, QConst& w,
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

  Result<std::optional<ValueRef>> conv(Builder& b, Matcher& m, const ir::Node& n, std::optional<Act> act, const QP& out) {
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

  Result<std::optional<ValueRef>> addSub(Builder& b, Matcher& m, const ir::Node& n, std::optional<Act> act, const QP& out,
                                         bool sub) {
    if (n.args.size() < 2) return std::optional<ValueRef>{};
    auto alpha = sarg(n, 2).number();
    if (alpha && *alpha != 1.0) return std::optional<ValueRef>{};
    auto a = m.dqInput(n.args[0]), c = m.dqInput(n.args[1]);
    if (!a || !c) return std::optional<ValueRef>{};
    if (!matchRanks(b, *a, *c)) return std::optional<ValueRef>{};
    LS_ASSIGN_OR_RETURN(k, commonInt32(b, *a, *c));
    LS_ASSIGN_OR_RETURN(s, b.op(sub ? "tosa.SUB" : "tosa.ADD", {k.a, k.c}));
    LS_ASSIGN_OR_RETURN(y, rescale(b, s, k.scale / out.scale, 0, DType::Int8, out.zp));
    LS_ASSIGN_OR_RETURN(r, withActivation(b, y, act, out));
    bump(add_);
    return std::optional<ValueRef>{r};
  }

  /// neg: int8 NEGATE with the input's zero point on both sides (-(q - zp) + zp, clipped, is
  /// what quantizing the negated float with the same qparams gives; the quantizer shares them),
  /// then a RESCALE if the output's qparams differ.
  Result<std::optional<ValueRef>> neg(Builder& b, Matcher& m, const ir::Node& n, const QP& out) {
    auto in = n.args.empty() ? std::nullopt : m.dqInput(n.args[0]);
    if (!in) return std::optional<ValueRef>{};
    LS_ASSIGN_OR_RETURN(y, b.op("tosa.NEGATE", {in->src, b.zeroPoint(DType::Int8, in->qp.zp),
                                                b.zeroPoint(DType::Int8, in->qp.zp)}));
    LS_ASSIGN_OR_RETURN(r, requantize(b, y, in->qp, out));
    bump(neg_);
    return std::optional<ValueRef>{r};
  }

  /// aten comparison -> TOSA op; lt/le are GREATER/GREATER_EQUAL with the operands swapped.
  static constexpr std::pair<const char*, const char*> kCompares[] = {
      {"aten.eq.Tensor", "tosa.EQUAL"},  {"aten.ge.Tensor", "tosa.GREATER_EQUAL"}, {"aten.gt.Tensor", "tosa.GREATER"},
      {"aten.le.Tensor", "tosa.GREATER_EQUAL"}, {"aten.lt.Tensor", "tosa.GREATER"}, {"aten.eq.Scalar", "tosa.EQUAL"},
      {"aten.ge.Scalar", "tosa.GREATER_EQUAL"}, {"aten.gt.Scalar", "tosa.GREATER"},
      {"aten.le.Scalar", "tosa.GREATER_EQUAL"}, {"aten.lt.Scalar", "tosa.GREATER"}};

  /// A comparison of dequantized int8 values (or of one with a number): PRO-INT compares int32
  /// only, so both sides are RESCALEd to int32 at addSub's common scale (the number rounded to
  /// it) and compared there; the bool result replaces the float comparison.
  Result<std::optional<ValueRef>> foldCompare(passes::Rewriter& rw, const ir::Node& n) {
    const std::string& op = ir::opName(n.op);
    const char* tosaOp = nullptr;
    for (const auto& [a, t] : kCompares)
      if (op == a) tosaOp = t;
    if (!tosaOp || n.args.size() < 2) return std::optional<ValueRef>{};
    Matcher m(rw.graph(), &rw.sourceGraph());
    Builder b(rw);
    auto a = m.dqInput(n.args[0]);
    if (!a) return std::optional<ValueRef>{};
    ValueRef lhs, rhs;
    if (auto v = n.args[1].number()) {
      if (!std::isfinite(*v)) return std::optional<ValueRef>{};
      LS_ASSIGN_OR_RETURN(k, commonInt32(b, *a, 1.0, *v, "other"));
      if (!k) return std::optional<ValueRef>{};
      lhs = k->a, rhs = k->c;
    } else {
      auto c = m.dqInput(n.args[1]);
      if (!c || !matchRanks(b, *a, *c)) return std::optional<ValueRef>{};
      LS_ASSIGN_OR_RETURN(k, commonInt32(b, *a, *c));
      lhs = k.a, rhs = k.c;
    }
    const bool swap = op.rfind("aten.lt.", 0) == 0 || op.rfind("aten.le.", 0) == 0;
    LS_ASSIGN_OR_RETURN(r, b.op(tosaOp, {swap ? rhs : lhs, swap ? lhs : rhs}, {}, n.name));
    bump(compare_);
    return std::optional<ValueRef>{r};
  }

  /// where(cond, a, b) of int8 values: SELECT on int8 (PRO-INT) with both branches brought to the
  /// output's qparams (the quantizer shares them, so usually no RESCALE).
  Result<std::optional<ValueRef>> where(Builder& b, Matcher& m, const ir::Node& n, const QP& out) {
    if (n.args.size() < 3 || !n.args[0].ref()) return std::optional<ValueRef>{};
    const ValueRef cond = *n.args[0].ref();
    if (b.meta(cond).dtype != DType::Bool) return std::optional<ValueRef>{};
    auto x = m.dqInput(n.args[1]), y = m.dqInput(n.args[2]);
    if (!x || !y || !matchRanks(b, *x, *y)) return std::optional<ValueRef>{};
    LS_ASSIGN_OR_RETURN(rx, requantize(b, x->src, x->qp, out));
    LS_ASSIGN_OR_RETURN(ry, requantize(b, y->src, y->qp, out));
    ValueRef c = cond;
    const int rank = std::max(b.meta(rx).rank(), b.meta(ry).rank());
    if (b.meta(c).rank() < rank) {
      std::vector<int64_t> s(size_t(rank - b.meta(c).rank()), 1);
      for (int64_t d : b.meta(c).shape.toVector()) s.push_back(d);
      LS_ASSIGN_OR_RETURN(rc, b.reshape(c, ir::Shape(s)));
      c = rc;
    }
    LS_ASSIGN_OR_RETURN(r, b.op("tosa.SELECT", {c, rx, ry}));
    bump(select_);
    return std::optional<ValueRef>{r};
  }

  /// rsub(x, other, alpha) = other - alpha * x: x RESCALEd to int32 at a common scale with
  /// |alpha| folded in, then SUB from (alpha > 0) or ADD to (alpha < 0) the int32 constant
  /// other / common, RESCALEd to the output's qparams.
  Result<std::optional<ValueRef>> rsubScalar(Builder& b, Matcher& m, const ir::Node& n, std::optional<Act> act,
                                             const QP& out) {
    auto a = m.dqInput(n.args[0]);
    auto v = n.args[1].number();
    const double alpha = sarg(n, 2).number().value_or(1.0);
    if (!a || !v || !std::isfinite(*v) || !std::isfinite(alpha) || alpha == 0.0) return std::optional<ValueRef>{};
    LS_ASSIGN_OR_RETURN(k, commonInt32(b, *a, alpha, *v, "other"));
    if (!k) return std::optional<ValueRef>{};
    LS_ASSIGN_OR_RETURN(s, alpha > 0 ? b.op("tosa.SUB", {k->c, k->a}) : b.op("tosa.ADD", {k->a, k->c}));
    LS_ASSIGN_OR_RETURN(y, rescale(b, s, k->scale / out.scale, 0, DType::Int8, out.zp));
    LS_ASSIGN_OR_RETURN(r, withActivation(b, y, act, out));
    bump(add_);
    return std::optional<ValueRef>{r};
  }

  /// abs: PRO-INT has ABS on int32 only: the int8 input RESCALEd to int32 without its zero
  /// point, ABS, RESCALEd by s_in / s_out to the output's qparams.
  Result<std::optional<ValueRef>> abs(Builder& b, Matcher& m, const ir::Node& n, const QP& out) {
    auto in = n.args.empty() ? std::nullopt : m.dqInput(n.args[0]);
    if (!in) return std::optional<ValueRef>{};
    LS_ASSIGN_OR_RETURN(x, rescale(b, in->src, 1.0, in->qp.zp, DType::Int32, 0));
    LS_ASSIGN_OR_RETURN(a, b.op("tosa.ABS", {x}));
    LS_ASSIGN_OR_RETURN(y, rescale(b, a, in->qp.scale / out.scale, 0, DType::Int8, out.zp));
    bump(abs_);
    return std::optional<ValueRef>{y};
  }

  /// minimum/maximum: TOSA 1.0 defines MINIMUM/MAXIMUM on int32 only in PRO-INT, so both int8
  /// inputs are RESCALEd to int32 at addSub's common scale (exact when they share qparams, as
  /// the quantizer makes them), selected there and RESCALEd to the output's qparams.
  Result<std::optional<ValueRef>> minMax(Builder& b, Matcher& m, const ir::Node& n, std::optional<Act> act,
                                         const QP& out, bool isMax) {
    if (n.args.size() < 2) return std::optional<ValueRef>{};
    auto a = m.dqInput(n.args[0]), c = m.dqInput(n.args[1]);
    if (!a || !c) return std::optional<ValueRef>{};
    if (!matchRanks(b, *a, *c)) return std::optional<ValueRef>{};
    LS_ASSIGN_OR_RETURN(k, commonInt32(b, *a, *c));
    LS_ASSIGN_OR_RETURN(s, b.op(isMax ? "tosa.MAXIMUM" : "tosa.MINIMUM", {k.a, k.c}));
    LS_ASSIGN_OR_RETURN(y, rescale(b, s, k.scale / out.scale, 0, DType::Int8, out.zp));
    LS_ASSIGN_OR_RETURN(r, withActivation(b, y, act, out));
    bump(minMax_);
    return std::optional<ValueRef>{r};
  }

  /// mul: both inputs RESCALEd to int32 without zero point (scale 1), int32 MUL (shift 0),
  /// RESCALE by s_a * s_b / s_out (upstream's INT MUL).
  Result<std::optional<ValueRef>> mul(Builder& b, Matcher& m, const ir::Node& n, std::optional<Act> act, const QP& out) {
    if (n.args.size() < 2) return std::optional<ValueRef>{};
    auto a = m.dqInput(n.args[0]), c = m.dqInput(n.args[1]);
    if (!a || !c) return std::optional<ValueRef>{};
    if (!matchRanks(b, *a, *c)) return std::optional<ValueRef>{};
    LS_ASSIGN_OR_RETURN(ra, rescale(b, a->src, 1.0, a->qp.zp, DType::Int32, 0));
    LS_ASSIGN_OR_RETURN(rc, rescale(b, c->src, 1.0, c->qp.zp, DType::Int32, 0));
    LS_ASSIGN_OR_RETURN(p, b.mul(ra, rc));
    LS_ASSIGN_OR_RETURN(y, rescale(b, p, a->qp.scale * c->qp.scale / out.scale, 0, DType::Int8, out.zp));
    LS_ASSIGN_OR_RETURN(r, withActivation(b, y, act, out));
    bump(mul_);
    return std::optional<ValueRef>{r};
  }

  /// Broadcast operands of different rank (a [C] layer-norm weight against [N, T, C]): the
  /// lower-rank int8 source is reshaped with leading ones, as TOSA needs equal ranks.
  static bool matchRanks(Builder& b, DqIn& a, DqIn& c) {
    const int ra = b.meta(a.src).rank(), rc = b.meta(c.src).rank();
    if (ra == rc) return true;
    DqIn& lo = ra < rc ? a : c;
    const int want = std::max(ra, rc);
    std::vector<int64_t> s(size_t(want - std::min(ra, rc)), 1);
    for (int64_t d : b.meta(lo.src).shape.toVector()) s.push_back(d);
    auto r = b.reshape(lo.src, ir::Shape(s));
    if (!r) return false;
    lo.src = *r;
    return true;
  }

  /// add/sub of a scalar: the int8 input RESCALEd to int32 at the common scale (as addSub),
  /// the scalar added as an int32 constant at that scale, RESCALE to the output.
  Result<std::optional<ValueRef>> addSubScalar(Builder& b, Matcher& m, const ir::Node& n, std::optional<Act> act,
                                               const QP& out, bool sub) {
    auto a = m.dqInput(n.args[0]);
    auto v = n.args[1].number();
    auto alpha = sarg(n, 2).number();
    if (!a || !v || !std::isfinite(*v)) return std::optional<ValueRef>{};
    const double c = (sub ? -1.0 : 1.0) * *v * (alpha ? *alpha : 1.0);
    LS_ASSIGN_OR_RETURN(k, commonInt32(b, *a, 1.0, c, "addend"));
    if (!k) return std::optional<ValueRef>{};
    LS_ASSIGN_OR_RETURN(s, b.op("tosa.ADD", {k->a, k->c}));
    LS_ASSIGN_OR_RETURN(y, rescale(b, s, k->scale / out.scale, 0, DType::Int8, out.zp));
    LS_ASSIGN_OR_RETURN(r, withActivation(b, y, act, out));
    bump(add_);
    return std::optional<ValueRef>{r};
  }

  /// mul by a scalar c: one RESCALE by s_in * c / s_out (a negative c negates in int32 first).
  Result<std::optional<ValueRef>> mulScalar(Builder& b, Matcher& m, const ir::Node& n, std::optional<Act> act,
                                            const QP& out) {
    auto a = m.dqInput(n.args[0]);
    auto v = n.args[1].number();
    if (!a || !v || !std::isfinite(*v) || *v == 0.0) return std::optional<ValueRef>{};
    ValueRef r;
    if (*v > 0) {
      LS_ASSIGN_OR_RETURN(y, rescale(b, a->src, a->qp.scale * *v / out.scale, a->qp.zp, DType::Int8, out.zp));
      r = y;
    } else {
      LS_ASSIGN_OR_RETURN(ra, rescale(b, a->src, 1.0, a->qp.zp, DType::Int32, 0));
      LS_ASSIGN_OR_RETURN(neg, b.op("tosa.SUB", {b.scalar(DType::Int32, 0.0, b.meta(ra).rank(), "zero"), ra}));
      LS_ASSIGN_OR_RETURN(y, rescale(b, neg, a->qp.scale * -*v / out.scale, 0, DType::Int8, out.zp));
      r = y;
    }
    LS_ASSIGN_OR_RETURN(ra, withActivation(b, r, act, out));
    bump(mul_);
    return std::optional<ValueRef>{ra};
  }

  /// sum over dims: int8 -> int32 without zero point, one REDUCE_SUM per axis (int32
  /// accumulation), RESCALE by s_in / s_out, RESHAPE when keepdim is false.
  Result<std::optional<ValueRef>> sum(Builder& b, Matcher& m, const ir::Node& n, const QP& out) {
    auto a = n.args.empty() ? std::nullopt : m.dqInput(n.args[0]);
    if (!a || !sarg(n, 3).isNone()) return std::optional<ValueRef>{};
    const ir::TensorMeta& xm = b.meta(a->src);
    std::vector<int64_t> dims;
    if (auto d = sints(n, 1)) dims = *d;
    if (dims.empty())
      for (int i = 0; i < xm.rank(); ++i) dims.push_back(i);
    int64_t count = 1;
    for (int64_t& d : dims) {
      if (d < 0) d += xm.rank();
      if (d < 0 || d >= xm.rank()) return std::optional<ValueRef>{};
      count *= xm.shape[int(d)];
    }
    // 255 * count must fit int32.
    if (double(count) * 255.0 > 2147483647.0) return std::optional<ValueRef>{};
    LS_ASSIGN_OR_RETURN(ra, rescale(b, a->src, 1.0, a->qp.zp, DType::Int32, 0));
    ValueRef v = ra;
    for (int64_t d : dims) {
      LS_ASSIGN_OR_RETURN(t, b.op("tosa.REDUCE_SUM", {v}, {{"axis", d}}));
      v = t;
    }
    LS_ASSIGN_OR_RETURN(y, rescale(b, v, a->qp.scale / out.scale, 0, DType::Int8, out.zp));
    ValueRef r = y;
    const ir::Arg& kd = sarg(n, 2);
    if (!(kd.asBool() && *kd.asBool())) {
      LS_ASSIGN_OR_RETURN(t, b.reshape(r, n.meta().shape));
      r = t;
    }
    bump(sum_);
    return std::optional<ValueRef>{r};
  }

  /// upsample on int8: RESIZE in NHWC. NEAREST keeps int8; BILINEAR yields int32 scaled by
  /// y_n * x_n (the weights' unit), so the zero point times that unit is subtracted and the
  /// RESCALE divides it out: s_in / (s_out * y_n * x_n).
  Result<std::optional<ValueRef>> resize(Builder& b, Matcher& m, const ir::Node& n, const QP& out) {
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
  Result<std::optional<ValueRef>> adaptivePool(Builder& b, Matcher& m, const ir::Node& n, const QP& out) {
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
  static std::optional<QConst> linearWeight(const ir::Graph& g, const ir::Arg& a, bool transposed) {
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
  static std::optional<QConst> inOutWeight(const ir::Graph& g, const ir::Node& dq) {
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
  Result<std::optional<ValueRef>> matmul(Builder& b, Matcher& m, const ir::Node& n, std::optional<Act> act,
                                         const QP& out) {
    const ir::Graph& g = m.g_;
    const std::string& op = ir::opName(n.op);
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

  Result<std::optional<ValueRef>> pool(Builder& b, Matcher& m, const ir::Node& n, const QP& out, bool avg) {
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

  /// Ops that only move or select int8 values (max/min reductions select too): the same op on
  /// the int8 sources when every dequantized input shares one qparams set.
  Result<std::optional<ValueRef>> reemit(Builder& b, Matcher& m, const ir::Node& n, const QP& out) {
    const std::vector<std::string>& kMove = movedInt8Ops();
    const std::string& op = ir::opName(n.op);
    if (std::find(kMove.begin(), kMove.end(), op) == kMove.end()) return std::optional<ValueRef>{};
    std::optional<QP> inQ;
    bool ok = true;
    auto mapRef = [&](const ir::ValueRef& r) -> ir::ValueRef {
      auto d = m.dqInput(ir::Arg(r));
      if (!d || (inQ && !(*inQ == d->qp))) {
        ok = false;
        return r;
      }
      inQ = d->qp;
      return d->src;
    };
    std::vector<ir::Arg> args;
    for (const ir::Arg& a : n.args) {
      if (const ir::ValueRef* r = a.ref()) {
        args.push_back(ir::Arg(mapRef(*r)));
      } else if (const auto* l = a.asRefList()) {
        ir::RefList nl;
        for (const ir::ValueRef& x : *l) nl.push_back(x.isNone() ? x : mapRef(x));
        args.push_back(ir::Arg(nl));
      } else {
        args.push_back(a);
      }
    }
    for (const ir::Kwarg& k : n.kwargs)
      if (k.value.ref() || k.value.asRefList()) ok = false;
    if (!ok || !inQ) return std::optional<ValueRef>{};
    // The padding value in the quantised domain: value / scale + zero point (0 is the zero point).
    if (n.op == LS_OP("aten.constant_pad_nd.default")) {
      const double v = sarg(n, 2).number().value_or(0.0);
      const double q = std::nearbyint(v / inQ->scale) + double(inQ->zp);
      if (!std::isfinite(q)) return std::optional<ValueRef>{};
      while (args.size() < 3) args.push_back(ir::Arg());
      args[2] = std::clamp(q, -128.0, 127.0);
    }
    LS_ASSIGN_OR_RETURN(y, b.op(op, std::move(args), n.kwargs, n.name));
    LS_ASSIGN_OR_RETURN(r, requantize(b, y, *inQ, out));
    bump(move_);
    return std::optional<ValueRef>{r};
  }

  size_t conv_, add_, mul_, act_, pool_, move_, matmul_, sum_, minMax_, neg_, abs_, compare_, select_, unrepresentable_;
};

void registerFoldAndAnnotateQParamsPass(passes::PassRegistry& r) {
  r.add("FoldAndAnnotateQParamsPass", [] { return std::make_unique<FoldAndAnnotateQParamsPass>(); });
}

}  // namespace ls::arm
