// The shared ATen decompositions (see decompositions.h).
#include "core/transforms/decompositions.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "core/exec/tensor.h"
#include "core/ops/registry.h"
#include "core/passes/node_builder.h"
#include "core/passes/pass_manager.h"
#include "core/transforms/constant_values.h"
#include "core/ir/op_ref.h"

namespace ls::transforms {

using passes::Rewriter;

namespace {

/// Name hint of an emitted node: its op's short name, or "<node>_<op>" with nameAfterNode.
std::string hint(const Rewriter& rw, const DecomposeOptions& o, std::string_view what) {
  return o.nameAfterNode ? fmt::format("{}_{}", rw.node().name, what) : std::string(what);
}

/// Whether dtype `t` is decomposed under `o`.
bool supportedDtype(ir::DType t, const DecomposeOptions& o) {
  return o.float32Only ? t == ir::DType::Float32 : ir::isFloating(t);
}

/// The outcome for a node the decomposition does not cover: an error naming why, or "kept".
Result<bool> unsupported(const DecomposeOptions& o, std::string why) {
  if (o.rejectUnsupported) return Status::error(std::move(why));
  return false;
}

/// Arg 0 as a tensor value, or an error naming the op.
Result<ir::ValueRef> tensorInput(const Rewriter& rw, std::string_view what) {
  const ir::ValueRef* x = ops::schemaArg(rw.node(), 0).ref();
  if (!x) return Status::error(fmt::format("{} expects a tensor input", what));
  return *x;
}

/// Wraps `dims` to non-negative indices of `m` and returns the number of elements they
/// cover; an error naming the bad dim when one is out of range.
Result<int64_t> reducedCount(const ir::TensorMeta& m, ir::IntList& dims, std::string_view what) {
  int64_t count = 1;
  for (int64_t& d : dims) {
    const int64_t w = d < 0 ? d + m.rank() : d;
    if (w < 0 || w >= m.rank())
      return Status::error(fmt::format("{}: dim {} out of range for input {}", what, d, ir::toString(m)));
    d = w;
    count *= m.shape[int(w)];
  }
  return count;
}

/// mean over `dims` as upstream's DecomposeMeanDimPass leaves it: sum.dim_IntList(x, dims,
/// keepdim) * (1 / count), so the sum gets its own observer when quantised.
Result<ir::ValueRef> emitMean(Rewriter& rw, const DecomposeOptions& o, ir::ValueRef x, const ir::IntList& dims,
                              bool keepdim, int64_t count) {
  passes::NodeBuilder nb(rw);
  LS_ASSIGN_OR_RETURN(sum, nb.op("aten.sum.dim_IntList", {x, dims, keepdim}, {}, hint(rw, o, "sum")));
  return nb.op("aten.mul.Tensor", {sum, 1.0 / double(count)}, {}, hint(rw, o, "mul"));
}

/// The normalisation every norm decomposes to, over `dims` (keepdim): mean, d = x - mean,
/// biased variance mean(d * d), rstd = rsqrt(var + eps), normed = d * rstd.
struct Normalized {
  ir::ValueRef mean, rstd, normed;
};
Result<Normalized> emitNormalize(Rewriter& rw, const DecomposeOptions& o, ir::ValueRef x, const ir::IntList& dims,
                                 int64_t count, double eps) {
  passes::NodeBuilder nb(rw);
  LS_ASSIGN_OR_RETURN(mean, emitMean(rw, o, x, dims, true, count));
  LS_ASSIGN_OR_RETURN(d, nb.op("aten.sub.Tensor", {x, mean}, {}, hint(rw, o, "sub")));
  LS_ASSIGN_OR_RETURN(d2, nb.op("aten.mul.Tensor", {d, d}, {}, hint(rw, o, "mul")));
  LS_ASSIGN_OR_RETURN(var, emitMean(rw, o, d2, dims, true, count));  // biased, as every norm
  LS_ASSIGN_OR_RETURN(ve, nb.op("aten.add.Tensor", {var, eps}, {}, hint(rw, o, "add")));
  LS_ASSIGN_OR_RETURN(rstd, nb.op("aten.rsqrt.default", {ve}, {}, hint(rw, o, "rsqrt")));
  LS_ASSIGN_OR_RETURN(normed, nb.op("aten.mul.Tensor", {d, rstd}, {}, hint(rw, o, "mul")));
  return Normalized{mean, rstd, normed};
}

/// y * w + b with per-channel [C] weight and bias (either may be None) viewed as [1, C, 1, ...]
/// to broadcast over a rank-`rank` tensor.
Result<ir::ValueRef> channelAffine(Rewriter& rw, const DecomposeOptions& o, ir::ValueRef y, const ir::Arg& w,
                                   const ir::Arg& b, int rank, int64_t C) {
  passes::NodeBuilder nb(rw);
  ir::IntList cshape(size_t(rank), 1);
  cshape[1] = C;
  for (const ir::Arg* p : {&w, &b}) {
    const ir::ValueRef* r = p->ref();
    if (!r) continue;
    LS_ASSIGN_OR_RETURN(v, nb.op("aten.view_copy.default", {*r, cshape}, {}, hint(rw, o, "view")));
    LS_ASSIGN_OR_RETURN(t, nb.op(p == &w ? "aten.mul.Tensor" : "aten.add.Tensor", {y, v}, {},
                                 hint(rw, o, p == &w ? "mul" : "add")));
    y = t;
  }
  return y;
}

/// Replaces a norm node with (y, mean, rstd): outputs 1 and 2 are its recorded statistics, so
/// the decomposition's must have the same metadata.
Result<bool> replaceWithStats(Rewriter& rw, std::string_view op, ir::ValueRef y, ir::ValueRef mean, ir::ValueRef rstd) {
  const ir::Node& n = rw.node();
  const ir::ValueRef stats[2] = {mean, rstd};
  for (size_t i = 0; i < 2 && i + 1 < n.outputs.size(); ++i)
    if (rw.meta(stats[i]) != n.outputs[i + 1])
      return Status::error(fmt::format("{}: the decomposition's {} is {}, output {} is recorded as {}", op,
                                       i == 0 ? "mean" : "rstd", ir::toString(rw.meta(stats[i])), i + 1,
                                       ir::toString(n.outputs[i + 1])));
  rw.replaceWith({y, mean, rstd});
  return true;
}

/// A 0-d constant of dtype t holding v.
ir::ValueRef scalarConstant(Rewriter& rw, const DecomposeOptions& o, ir::DType t, double v, std::string_view what) {
  passes::NodeBuilder nb(rw);
  return nb.constant(makeConstant(*rw.graph().storePtr(), exec::Tensor::scalar(t, v)), hint(rw, o, what));
}

}  // namespace

Result<bool> decomposeSilu(Rewriter& rw, const DecomposeOptions& o) {
  passes::NodeBuilder nb(rw);
  LS_ASSIGN_OR_RETURN(x, tensorInput(rw, "silu"));
  const ir::DType t = rw.meta(x).dtype;
  if (!supportedDtype(t, o)) return unsupported(o, fmt::format("silu of a {} tensor", ir::dtypeName(t)));
  LS_ASSIGN_OR_RETURN(sig, nb.op("aten.sigmoid.default", {x}, {}, hint(rw, o, "sigmoid")));
  LS_ASSIGN_OR_RETURN(mul, nb.op("aten.mul.Tensor", {x, sig}, {}, hint(rw, o, "mul")));
  rw.replaceWith(mul);
  return true;
}

Result<bool> decomposeHardswish(Rewriter& rw, const DecomposeOptions& o) {
  passes::NodeBuilder nb(rw);
  static const ir::OpId kHardsigmoid = ir::internOp("aten.hardsigmoid.default");
  const bool sigmoidOnly = rw.node().op == kHardsigmoid;
  const char* what = sigmoidOnly ? "hardsigmoid" : "hardswish";
  LS_ASSIGN_OR_RETURN(x, tensorInput(rw, what));
  const ir::DType t = rw.meta(x).dtype;
  if (!supportedDtype(t, o)) return unsupported(o, fmt::format("{} of a {} tensor", what, ir::dtypeName(t)));
  // hardsigmoid(x) = clamp(x + 3, 0, 6) / 6 ; hardswish(x) = x * hardsigmoid(x)
  ir::ValueRef s;
  if (o.hardsigmoid == HardsigmoidForm::DivConstants) {
    ir::ValueRef three = scalarConstant(rw, o, t, 3.0, "three");
    ir::ValueRef six = scalarConstant(rw, o, t, 6.0, "six");
    LS_ASSIGN_OR_RETURN(a, nb.op("aten.add.Tensor", {x, three}, {}, hint(rw, o, "add")));
    LS_ASSIGN_OR_RETURN(c, nb.op("aten.clamp.default", {a, 0.0, 6.0}, {}, hint(rw, o, "clamp")));
    LS_ASSIGN_OR_RETURN(d, nb.op("aten.div.Tensor", {c, six}, {}, hint(rw, o, "div")));
    s = d;
  } else {
    LS_ASSIGN_OR_RETURN(a, nb.op("aten.add.Tensor", {x, 3.0}, {}, hint(rw, o, "add")));
    LS_ASSIGN_OR_RETURN(c, nb.op("aten.clamp.default", {a, 0.0, 6.0}, {}, hint(rw, o, "clamp")));
    LS_ASSIGN_OR_RETURN(m, nb.op("aten.mul.Tensor", {c, 1.0 / 6.0}, {}, hint(rw, o, "mul")));
    s = m;
  }
  if (sigmoidOnly) {
    rw.replaceWith(s);
    return true;
  }
  LS_ASSIGN_OR_RETURN(y, nb.op("aten.mul.Tensor", {x, s}, {}, hint(rw, o, "mul")));
  rw.replaceWith(y);
  return true;
}

Result<bool> decomposeMeanDim(Rewriter& rw, const DecomposeOptions& o) {
  const ir::Node& n = rw.node();
  LS_ASSIGN_OR_RETURN(x, tensorInput(rw, "mean.dim"));
  const ir::TensorMeta& m = rw.meta(x);
  if (!supportedDtype(m.dtype, o)) return unsupported(o, fmt::format("mean.dim of a {} tensor", ir::dtypeName(m.dtype)));
  // mean.default(x, *, dtype) is the mean over every dim (keepdim false).
  static const ir::OpId kMeanAll = ir::internOp("aten.mean.default");
  const bool all = n.op == kMeanAll;
  if (!ops::schemaArg(n, all ? 1 : 3).isNone()) return unsupported(o, "mean with an explicit dtype");
  ir::IntList dims;
  if (const ir::IntList* d = all ? nullptr : ops::schemaArg(n, 1).asIntList()) dims = *d;
  if (dims.empty())
    for (int d = 0; d < m.rank(); ++d) dims.push_back(d);
  LS_ASSIGN_OR_RETURN(count, reducedCount(m, dims, "mean.dim"));
  if (count <= 0) return unsupported(o, "mean.dim over an empty slice");
  const bool* kd = all ? nullptr : ops::schemaArg(n, 2).asBool();
  LS_ASSIGN_OR_RETURN(mean, emitMean(rw, o, x, dims, kd && *kd, count));
  rw.replaceWith(mean);
  return true;
}

Result<bool> decomposeLayerNorm(Rewriter& rw, const DecomposeOptions& o) {
  passes::NodeBuilder nb(rw);
  const ir::Node& n = rw.node();
  LS_ASSIGN_OR_RETURN(x, tensorInput(rw, "native_layer_norm"));
  const ir::TensorMeta& m = rw.meta(x);
  const ir::IntList* shape = ops::schemaArg(n, 1).asIntList();
  if (!shape || shape->empty() || int64_t(shape->size()) > m.rank())
    return Status::error(fmt::format("native_layer_norm: normalized_shape must be a non-empty int list of at most "
                                     "rank {} (input {})",
                                     m.rank(), ir::toString(m)));
  auto eps = ops::schemaArg(n, 4).number();
  if (!eps) return Status::error("native_layer_norm: eps must be a number");
  const ir::Arg& w = ops::schemaArg(n, 2);
  const ir::Arg& b = ops::schemaArg(n, 3);
  for (const ir::Arg* p : {&w, &b})
    if (!p->isNone() && !p->ref())
      return Status::error(fmt::format("native_layer_norm: {} must be a tensor or None", p == &w ? "weight" : "bias"));
  if (!supportedDtype(m.dtype, o))
    return unsupported(o, fmt::format("native_layer_norm of a {} tensor", ir::dtypeName(m.dtype)));
  if (o.float32Only)  // mixed dtypes are not quantised as one
    for (const ir::Arg* p : {&w, &b})
      if (p->ref() && rw.meta(*p->ref()).dtype != m.dtype)
        return unsupported(o, "native_layer_norm with a weight or bias of another dtype");
  ir::IntList dims;
  for (int64_t i = m.rank() - int64_t(shape->size()); i < m.rank(); ++i) dims.push_back(i);
  LS_ASSIGN_OR_RETURN(count, reducedCount(m, dims, "native_layer_norm"));
  if (count <= 0) return unsupported(o, "native_layer_norm over an empty slice");

  LS_ASSIGN_OR_RETURN(nz, emitNormalize(rw, o, x, dims, count, *eps));
  ir::ValueRef y = nz.normed;
  // The weight and bias have normalized_shape, the trailing dims of x: they broadcast as they
  // are (no view to rank r needed, unlike upstream's explicit view_copy).
  if (const ir::ValueRef* wr = w.ref()) {
    LS_ASSIGN_OR_RETURN(t, nb.op("aten.mul.Tensor", {y, *wr}, {}, hint(rw, o, "mul")));
    y = t;
  }
  if (const ir::ValueRef* br = b.ref()) {
    LS_ASSIGN_OR_RETURN(t, nb.op("aten.add.Tensor", {y, *br}, {}, hint(rw, o, "add")));
    y = t;
  }
  // Outputs 1 and 2 of native_layer_norm are the keepdim mean and rstd: users reading them
  // (through getitem 1 / 2) are rewired to these values.
  return replaceWithStats(rw, "native_layer_norm", y, nz.mean, nz.rstd);
}

// Softmax: upstream has a stable (DecomposeSoftmaxPass: amax, sub, exp, sum, reciprocal, mul)
// and an unstable (DecomposeSoftmaxUnstablePass: exp, sum, reciprocal, mul) decomposition,
// both in transform_for_annotation_pipeline; ArmPassManager.configure_skip_passes keeps one.
// The default pipeline config (SoftmaxDecompositionConfig.MASKED, and STABLE) skips the
// unstable one, and newer releases drop the UNSTABLE option altogether, so the stable form is
// the only one here, for every user. It is also the one that quantises well: x - amax(x) <= 0
// puts exp's output in (0, 1] whatever the logits' range, so its int8 observer and the TABLE
// behind exp cover a fixed interval, and the sum is >= 1, keeping the reciprocal's range
// within (0, 1].
//
// Log-softmax: upstream's DecomposeSoftmaxPass takes log(softmax(x)) for it. Here it is
// (x - amax) - log(sum(exp(x - amax))) instead: with int8 activations the softmax output
// (scale about 1/255) flushes every probability below half a step to 0, whose log is -inf and
// then clamps to the table's minimum, which loses exactly the small log-probabilities
// log_softmax is used for; x - amax keeps the logits' own resolution and the log only sees
// the sum, in [1, N].
Result<bool> decomposeGroupNorm(Rewriter& rw, const DecomposeOptions& o) {
  passes::NodeBuilder nb(rw);
  const ir::Node& n = rw.node();
  LS_ASSIGN_OR_RETURN(x, tensorInput(rw, "native_group_norm"));
  const ir::TensorMeta& m = rw.meta(x);
  auto N = ops::schemaArg(n, 3).asInt(), C = ops::schemaArg(n, 4).asInt(), HxW = ops::schemaArg(n, 5).asInt();
  auto G = ops::schemaArg(n, 6).asInt();
  auto eps = ops::schemaArg(n, 7).number();
  if (!N || !C || !HxW || !G || !eps)
    return Status::error("native_group_norm: N, C, HxW and group must be ints and eps a number");
  if (m.rank() < 2 || m.shape[0] != *N || m.shape[1] != *C || *G <= 0 || *C % *G != 0 ||
      (*N) * (*C) * (*HxW) != m.shape.numel())
    return Status::error(fmt::format("native_group_norm: input {} does not match N={}, C={}, HxW={}, group={}",
                                     ir::toString(m), *N, *C, *HxW, *G));
  const ir::Arg& w = ops::schemaArg(n, 1);
  const ir::Arg& b = ops::schemaArg(n, 2);
  for (const ir::Arg* p : {&w, &b})
    if (!p->isNone() && !p->ref())
      return Status::error(fmt::format("native_group_norm: {} must be a tensor or None", p == &w ? "weight" : "bias"));
  if (!supportedDtype(m.dtype, o))
    return unsupported(o, fmt::format("native_group_norm of a {} tensor", ir::dtypeName(m.dtype)));
  const int64_t count = (*C / *G) * (*HxW);
  if (count <= 0) return unsupported(o, "native_group_norm over an empty group");
  // [N, C, *] -> [N, G, C/G * HxW]: each group's elements along the last dim.
  LS_ASSIGN_OR_RETURN(xr, nb.op("aten.view_copy.default", {x, ir::IntList{*N, *G, count}}, {}, hint(rw, o, "view")));
  LS_ASSIGN_OR_RETURN(nz, emitNormalize(rw, o, xr, ir::IntList{2}, count, *eps));
  LS_ASSIGN_OR_RETURN(back, nb.op("aten.view_copy.default", {nz.normed, ir::IntList(m.shape.toVector())}, {},
                                  hint(rw, o, "view")));
  LS_ASSIGN_OR_RETURN(y, channelAffine(rw, o, back, w, b, m.rank(), *C));
  // Outputs 1 and 2 are mean and rstd as [N, G].
  LS_ASSIGN_OR_RETURN(mean2, nb.op("aten.view_copy.default", {nz.mean, ir::IntList{*N, *G}}, {}, hint(rw, o, "view")));
  LS_ASSIGN_OR_RETURN(rstd2, nb.op("aten.view_copy.default", {nz.rstd, ir::IntList{*N, *G}}, {}, hint(rw, o, "view")));
  return replaceWithStats(rw, "native_group_norm", y, mean2, rstd2);
}

Result<bool> decomposeBatchNormTraining(Rewriter& rw, const DecomposeOptions& o) {
  passes::NodeBuilder nb(rw);
  const ir::Node& n = rw.node();
  const ir::Arg& training = ops::schemaArg(n, 5);
  if (!training.asBool() || !*training.asBool()) return false;  // eval: folded or decomposed with running stats
  LS_ASSIGN_OR_RETURN(x, tensorInput(rw, "batch norm"));
  const ir::TensorMeta& m = rw.meta(x);
  auto eps = ops::schemaArg(n, 7).number();
  if (!eps) return Status::error("batch norm: eps must be a number");
  if (m.rank() < 2) return Status::error(fmt::format("batch norm: expected an input of rank >= 2, got {}", ir::toString(m)));
  if (!supportedDtype(m.dtype, o)) return unsupported(o, fmt::format("batch norm of a {} tensor", ir::dtypeName(m.dtype)));
  const int64_t C = m.shape[1];
  const ir::Arg& w = ops::schemaArg(n, 1);
  const ir::Arg& b = ops::schemaArg(n, 2);
  for (const ir::Arg* p : {&w, &b}) {
    if (!p->isNone() && !p->ref())
      return Status::error(fmt::format("batch norm: {} must be a tensor or None", p == &w ? "weight" : "bias"));
    if (p->ref() && rw.meta(*p->ref()).numel() != C)
      return Status::error(fmt::format("batch norm: {} has {} elements, expected {} (the channels)",
                                       p == &w ? "weight" : "bias", rw.meta(*p->ref()).numel(), C));
  }
  ir::IntList dims{0};
  for (int64_t d = 2; d < m.rank(); ++d) dims.push_back(d);
  LS_ASSIGN_OR_RETURN(count, reducedCount(m, dims, "batch norm"));
  if (count <= 0) return unsupported(o, "batch norm over an empty batch");
  LS_ASSIGN_OR_RETURN(nz, emitNormalize(rw, o, x, dims, count, *eps));
  LS_ASSIGN_OR_RETURN(y, channelAffine(rw, o, nz.normed, w, b, m.rank(), C));
  // Outputs 1 and 2 (save_mean, save_invstd) are the per-channel statistics, [C].
  LS_ASSIGN_OR_RETURN(mean1, nb.op("aten.view_copy.default", {nz.mean, ir::IntList{C}}, {}, hint(rw, o, "view")));
  LS_ASSIGN_OR_RETURN(rstd1, nb.op("aten.view_copy.default", {nz.rstd, ir::IntList{C}}, {}, hint(rw, o, "view")));
  return replaceWithStats(rw, "batch norm", y, mean1, rstd1);
}

Result<bool> decomposeSoftmax(Rewriter& rw, const DecomposeOptions& o) {
  passes::NodeBuilder nb(rw);
  const ir::Node& n = rw.node();
  const bool log = n.op == LS_OP("aten._log_softmax.default") || n.op == LS_OP("aten.log_softmax.int");
  const char* what = log ? "log_softmax" : "softmax";
  LS_ASSIGN_OR_RETURN(x, tensorInput(rw, what));
  const int64_t* dim = ops::schemaArg(n, 1).asInt();
  if (!dim) return Status::error(fmt::format("{} expects an int dim", what));
  const ir::TensorMeta& m = rw.meta(x);
  if (!supportedDtype(m.dtype, o) || n.outputs.size() != 1 || n.outputs[0].dtype != m.dtype)
    return unsupported(o, fmt::format("{} of a {} tensor to {}", what, ir::dtypeName(m.dtype),
                                      n.outputs.empty() ? "nothing" : ir::dtypeName(n.outputs[0].dtype)));
  ir::IntList dims{*dim};
  LS_ASSIGN_OR_RETURN(count, reducedCount(m, dims, what));
  (void)count;
  LS_ASSIGN_OR_RETURN(mx, nb.op("aten.amax.default", {x, dims, true}, {}, hint(rw, o, "amax")));
  LS_ASSIGN_OR_RETURN(sh, nb.op("aten.sub.Tensor", {x, mx}, {}, hint(rw, o, "sub")));
  LS_ASSIGN_OR_RETURN(e, nb.op("aten.exp.default", {sh}, {}, hint(rw, o, "exp")));
  LS_ASSIGN_OR_RETURN(s, nb.op("aten.sum.dim_IntList", {e, dims, true}, {}, hint(rw, o, "sum")));
  if (log) {
    LS_ASSIGN_OR_RETURN(l, nb.op("aten.log.default", {s}, {}, hint(rw, o, "log")));
    LS_ASSIGN_OR_RETURN(y, nb.op("aten.sub.Tensor", {sh, l}, {}, hint(rw, o, "sub")));
    rw.replaceWith(y);
  } else {
    LS_ASSIGN_OR_RETURN(r, nb.op("aten.reciprocal.default", {s}, {}, hint(rw, o, "reciprocal")));
    LS_ASSIGN_OR_RETURN(y, nb.op("aten.mul.Tensor", {e, r}, {}, hint(rw, o, "mul")));
    rw.replaceWith(y);
  }
  return true;
}

Result<bool> decomposeDiv(Rewriter& rw, const DecomposeOptions& o) {
  passes::NodeBuilder nb(rw);
  static const ir::OpId kTensorMode = ir::internOp("aten.div.Tensor_mode");
  const ir::Node& n = rw.node();
  if (n.op == kTensorMode && !ops::schemaArg(n, 2).isNone())
    return false;  // a rounding mode: DecomposeDivTensorModePass (Arm) decomposes it, else the support check names it
  LS_ASSIGN_OR_RETURN(a0, tensorInput(rw, "div"));
  // True division computes in the result's dtype: torch promotes an integer operand (a float
  // divided by arange(1, T + 1), or an integer tensor by a float one) to it.
  const ir::DType t = n.meta().dtype;
  if (!supportedDtype(t, o)) return unsupported(o, fmt::format("division of a {} tensor", ir::dtypeName(rw.meta(a0).dtype)));
  const ir::Arg toT = ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(t)});
  auto promoted = [&](ir::ValueRef v) -> Result<ir::ValueRef> {
    if (rw.meta(v).dtype == t) return v;
    return nb.op("aten._to_copy.default", {v}, {{"dtype", toT}}, hint(rw, o, "to_copy"));
  };
  LS_ASSIGN_OR_RETURN(a, promoted(a0));
  const ir::Arg& b = ops::schemaArg(n, 1);
  if (auto v = b.number()) {
    // x / +-0 is x * +-inf exactly in IEEE arithmetic (+-inf, or NaN for 0 and NaN).
    const double r = *v == 0.0 ? std::copysign(INFINITY, *v) : 1.0 / *v;
    LS_ASSIGN_OR_RETURN(mul, nb.op("aten.mul.Tensor", {a, r}, {}, hint(rw, o, "mul")));
    rw.replaceWith(mul);
    return true;
  }
  const ir::ValueRef* br = b.ref();
  if (!br) return Status::error("div: the divisor must be a tensor or a number");
  LS_ASSIGN_OR_RETURN(divisor, promoted(*br));
  LS_ASSIGN_OR_RETURN(rec, nb.op("aten.reciprocal.default", {divisor}, {}, hint(rw, o, "reciprocal")));
  LS_ASSIGN_OR_RETURN(mul, nb.op("aten.mul.Tensor", {a, rec}, {}, hint(rw, o, "mul")));
  rw.replaceWith(mul);
  return true;
}

// ---------------------------------------------------------------- passes

DecompositionPass::DecompositionPass(std::string name, std::string desc, std::vector<std::string> targetOps, Fn fn,
                                     DecomposeOptions o)
    : RetracePass(std::move(name), std::move(desc)), fn_(fn), opts_(o) {
  targets(targetOps);
  checkAllowed(o.honourDisallowFlag);
  decomposed_ = stat("decomposed", "nodes decomposed");
}

Status DecompositionPass::rewrite(Rewriter& rw) {
  LS_ASSIGN_OR_RETURN(done, fn_(rw, opts_));
  if (done) {
    bump(decomposed_);
    decomposed(rw.node());
  }
  return Status::ok();
}

DecomposeSiluPass::DecomposeSiluPass(DecomposeOptions o)
    : DecompositionPass("DecomposeSiluPass", "silu -> x * sigmoid(x)", {"aten.silu.default"}, decomposeSilu, o) {}

DecomposeHardswishPass::DecomposeHardswishPass(DecomposeOptions o)
    : DecompositionPass("DecomposeHardswishPass", "hardswish -> x * clamp(x + 3, 0, 6) / 6",
                        {"aten.hardswish.default"}, decomposeHardswish, o) {}

DecomposeHardsigmoidPass::DecomposeHardsigmoidPass(DecomposeOptions o)
    : DecompositionPass("DecomposeHardsigmoidPass", "hardsigmoid -> clamp(x + 3, 0, 6) / 6",
                        {"aten.hardsigmoid.default"}, decomposeHardswish, o) {}

DecomposeMeanDimPass::DecomposeMeanDimPass(DecomposeOptions o)
    : DecompositionPass("DecomposeMeanDimPass", "mean.dim / mean -> sum.dim_IntList * (1/N)",
                        {"aten.mean.dim", "aten.mean.default"},
                        decomposeMeanDim, o) {}

DecomposeLayerNormPass::DecomposeLayerNormPass(DecomposeOptions o)
    : DecompositionPass("DecomposeLayerNormPass", "native_layer_norm -> mean, x - mean, variance, rsqrt, affine",
                        {"aten.native_layer_norm.default"}, decomposeLayerNorm, o) {}

DecomposeGroupNormPass::DecomposeGroupNormPass(DecomposeOptions o)
    : DecompositionPass("DecomposeGroupNormPass", "native_group_norm -> per-group mean, variance, rsqrt, affine",
                        {"aten.native_group_norm.default"}, decomposeGroupNorm, o) {}

DecomposeBatchNormTrainingPass::DecomposeBatchNormTrainingPass(DecomposeOptions o)
    : DecompositionPass("DecomposeBatchNormTrainingPass",
                        "training-mode batch norm (InstanceNorm, no running stats) -> batch mean, variance, rsqrt, "
                        "affine",
                        {"aten.native_batch_norm.default", "aten._native_batch_norm_legit.default"},
                        decomposeBatchNormTraining, o) {}

DecomposeSoftmaxPass::DecomposeSoftmaxPass(DecomposeOptions o)
    : DecompositionPass("DecomposeSoftmaxPass", "softmax -> exp(x - amax) * reciprocal(sum(exp(x - amax)))",
                        {"aten._softmax.default", "aten.softmax.int"}, decomposeSoftmax, o) {}

DecomposeLogSoftmaxPass::DecomposeLogSoftmaxPass(DecomposeOptions o)
    : DecompositionPass("DecomposeLogSoftmaxPass", "log_softmax -> (x - amax) - log(sum(exp(x - amax)))",
                        {"aten._log_softmax.default", "aten.log_softmax.int"}, decomposeSoftmax, o) {}

DecomposeDivPass::DecomposeDivPass(DecomposeOptions o)
    : DecompositionPass("DecomposeDivPass", "div -> mul by reciprocal",
                        {"aten.div.Tensor", "aten.div.Scalar", "aten.div.Tensor_mode"}, decomposeDiv, o) {}

void registerDecompositionPasses(passes::PassRegistry& r) {
  r.add("DecomposeSiluPass", [] { return std::make_unique<DecomposeSiluPass>(); });
  r.add("DecomposeHardswishPass", [] { return std::make_unique<DecomposeHardswishPass>(); });
  r.add("DecomposeHardsigmoidPass", [] { return std::make_unique<DecomposeHardsigmoidPass>(); });
  r.add("DecomposeMeanDimPass", [] { return std::make_unique<DecomposeMeanDimPass>(); });
  r.add("DecomposeLayerNormPass", [] { return std::make_unique<DecomposeLayerNormPass>(); });
  r.add("DecomposeGroupNormPass", [] { return std::make_unique<DecomposeGroupNormPass>(); });
  r.add("DecomposeBatchNormTrainingPass", [] { return std::make_unique<DecomposeBatchNormTrainingPass>(); });
  r.add("DecomposeSoftmaxPass", [] { return std::make_unique<DecomposeSoftmaxPass>(); });
  r.add("DecomposeLogSoftmaxPass", [] { return std::make_unique<DecomposeLogSoftmaxPass>(); });
  r.add("DecomposeDivPass", [] { return std::make_unique<DecomposeDivPass>(); });
}

}  // namespace ls::transforms
