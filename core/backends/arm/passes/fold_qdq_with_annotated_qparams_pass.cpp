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
#include "core/backends/arm/passes/fold_qparams_common.h"
#include "core/exec/materialize.h"
#include "core/ir/op_ref.h"
#include "core/ops/registry.h"
#include "core/passes/rule_pass.h"
#include "core/transforms/constant_values.h"

namespace ls::arm {
namespace fold_qparams {

FoldAndAnnotateQParamsPass::FoldAndAnnotateQParamsPass()
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
std::vector<ir::OpId> FoldAndAnnotateQParamsPass::documentedOps() const {
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

// One retrace (linear in the graph): each quantize is a hot node; the folded integer ops are
// emitted in its place, reading the int8 sources of the dequantizes.
Status FoldAndAnnotateQParamsPass::rewrite(passes::Rewriter& rw) {
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

/// Folds the quantised op feeding quantize node `q`; nullopt when it does not match.
Result<std::optional<ValueRef>> FoldAndAnnotateQParamsPass::foldOne(passes::Rewriter& rw, const ir::Node& q) {
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
void FoldAndAnnotateQParamsPass::annotateOutputChain(passes::Rewriter& rw, ValueRef y, std::shared_ptr<const ir::QuantParams> q) {
  static const std::vector<ir::OpId> kThrough = {LS_OP("tosa.CLAMP"), LS_OP("tosa.RESHAPE"),
                                                 LS_OP("aten.permute_copy.default"), LS_OP("aten.view_copy.default")};
  const ir::Graph& g = rw.graph();
  ValueRef v = y;
  while (v.node >= rw.firstEmittedId()) {
    const ir::Node& n = g.node(v.node);
    if (!n.isCall() || n.outputs[v.output].dtype != DType::Int8 || n.outputs[v.output].quant) break;
    rw.setQuant(v, q);
    if (std::find(kThrough.begin(), kThrough.end(), n.op) == kThrough.end() || n.args.empty() ||
        !n.args[0].ref())
      break;
    v = *n.args[0].ref();
  }
}

/// Input side: the int8 values this rewrite moved (NHWC permute, slices of unread rows,
/// views) carry the qparams of the value they were moved from.
void FoldAndAnnotateQParamsPass::annotateInputMoves(passes::Rewriter& rw) {
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

bool FoldAndAnnotateQParamsPass::isFusableCore(const ir::Node& n) {
  return n.op == LS_OP("aten.convolution.default") || n.op == LS_OP("aten.add.Tensor") || n.op == LS_OP("aten.sub.Tensor") ||
         n.op == LS_OP("aten.mul.Tensor") || n.op == LS_OP("aten.addmm.default") || n.op == LS_OP("aten.linear.default") ||
         n.op == LS_OP("aten.mm.default") || n.op == LS_OP("aten.bmm.default") || n.op == LS_OP("aten.matmul.default");
}

Result<std::optional<ValueRef>> FoldAndAnnotateQParamsPass::addSub(Builder& b, Matcher& m, const ir::Node& n, std::optional<Act> act, const QP& out,
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
Result<std::optional<ValueRef>> FoldAndAnnotateQParamsPass::neg(Builder& b, Matcher& m, const ir::Node& n, const QP& out) {
  auto in = n.args.empty() ? std::nullopt : m.dqInput(n.args[0]);
  if (!in) return std::optional<ValueRef>{};
  LS_ASSIGN_OR_RETURN(y, b.op("tosa.NEGATE", {in->src, b.zeroPoint(DType::Int8, in->qp.zp),
                                              b.zeroPoint(DType::Int8, in->qp.zp)}));
  LS_ASSIGN_OR_RETURN(r, requantize(b, y, in->qp, out));
  bump(neg_);
  return std::optional<ValueRef>{r};
}

/// A comparison of dequantized int8 values (or of one with a number): PRO-INT compares int32
/// only, so both sides are RESCALEd to int32 at addSub's common scale (the number rounded to
/// it) and compared there; the bool result replaces the float comparison.
Result<std::optional<ValueRef>> FoldAndAnnotateQParamsPass::foldCompare(passes::Rewriter& rw, const ir::Node& n) {
  static const std::vector<std::pair<ir::OpId, const char*>> kCompareIds = [] {
    std::vector<std::pair<ir::OpId, const char*>> ids;
    for (const auto& [a, t] : kCompares) ids.emplace_back(ir::internOp(a), t);
    return ids;
  }();
  const char* tosaOp = nullptr;
  for (const auto& [id, t] : kCompareIds)
    if (n.op == id) tosaOp = t;
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
  const bool swap = n.op == LS_OP("aten.lt.Tensor") || n.op == LS_OP("aten.lt.Scalar") ||
                    n.op == LS_OP("aten.le.Tensor") || n.op == LS_OP("aten.le.Scalar");
  LS_ASSIGN_OR_RETURN(r, b.op(tosaOp, {swap ? rhs : lhs, swap ? lhs : rhs}, {}, n.name));
  bump(compare_);
  return std::optional<ValueRef>{r};
}

/// where(cond, a, b) of int8 values: SELECT on int8 (PRO-INT) with both branches brought to the
/// output's qparams (the quantizer shares them, so usually no RESCALE).
Result<std::optional<ValueRef>> FoldAndAnnotateQParamsPass::where(Builder& b, Matcher& m, const ir::Node& n, const QP& out) {
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
Result<std::optional<ValueRef>> FoldAndAnnotateQParamsPass::rsubScalar(Builder& b, Matcher& m, const ir::Node& n, std::optional<Act> act,
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
Result<std::optional<ValueRef>> FoldAndAnnotateQParamsPass::abs(Builder& b, Matcher& m, const ir::Node& n, const QP& out) {
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
Result<std::optional<ValueRef>> FoldAndAnnotateQParamsPass::minMax(Builder& b, Matcher& m, const ir::Node& n, std::optional<Act> act,
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
Result<std::optional<ValueRef>> FoldAndAnnotateQParamsPass::mul(Builder& b, Matcher& m, const ir::Node& n, std::optional<Act> act, const QP& out) {
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
bool FoldAndAnnotateQParamsPass::matchRanks(Builder& b, DqIn& a, DqIn& c) {
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
Result<std::optional<ValueRef>> FoldAndAnnotateQParamsPass::addSubScalar(Builder& b, Matcher& m, const ir::Node& n, std::optional<Act> act,
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
Result<std::optional<ValueRef>> FoldAndAnnotateQParamsPass::mulScalar(Builder& b, Matcher& m, const ir::Node& n, std::optional<Act> act,
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
Result<std::optional<ValueRef>> FoldAndAnnotateQParamsPass::sum(Builder& b, Matcher& m, const ir::Node& n, const QP& out) {
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

/// Ops that only move or select int8 values (max/min reductions select too): the same op on
/// the int8 sources when every dequantized input shares one qparams set.
Result<std::optional<ValueRef>> FoldAndAnnotateQParamsPass::reemit(Builder& b, Matcher& m, const ir::Node& n, const QP& out) {
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

}  // namespace fold_qparams

void registerFoldAndAnnotateQParamsPass(passes::PassRegistry& r) {
  r.add("FoldAndAnnotateQParamsPass", [] { return std::make_unique<fold_qparams::FoldAndAnnotateQParamsPass>(); });
}

}  // namespace ls::arm
