// Transform-for-annotation decompositions (see tfa_passes.h).
#include "core/quant/tfa_passes.h"

#include <fmt/format.h>

#include <optional>

#include "core/ops/registry.h"

namespace ls::quant {

namespace {

using passes::Rewriter;


/// Reduced dims of `m` as non-negative indices and the number of elements they cover;
/// an error naming the bad dim when one is out of range.
Result<int64_t> reducedCount(const ir::TensorMeta& m, ir::IntList& dims, std::string_view op) {
  int64_t count = 1;
  for (int64_t& d : dims) {
    const int64_t w = d < 0 ? d + m.rank() : d;
    if (w < 0 || w >= m.rank())
      return Status::error(fmt::format("{}: dim {} out of range for input {}", op, d, ir::toString(m)));
    d = w;
    count *= m.shape[int(w)];
  }
  return count;
}

/// mean over `dims` as upstream's DecomposeMeanDimPass leaves it: sum.dim_IntList(x, dims,
/// keepdim) * (1 / count), so the sum gets its own observer.
Result<ir::ValueRef> emitMean(Rewriter& rw, ir::ValueRef x, const ir::IntList& dims, bool keepdim, int64_t count) {
  auto sum = rw.emit("aten.sum.dim_IntList", {x, dims, keepdim}, {}, "sum");
  if (!sum) return sum;
  return rw.emit("aten.mul.Tensor", {*sum, 1.0 / double(count)}, {}, "mul");
}

/// The float32 tensor input (arg 0) of a softmax-like node and its wrapped dim (arg 1), or
/// nullopt when the node is to be kept (not float32 in and out: nothing to quantise).
struct SoftmaxInput {
  ir::ValueRef x;
  int64_t dim;
};
Result<std::optional<SoftmaxInput>> softmaxInput(const Rewriter& rw, std::string_view what) {
  const ir::Node& n = rw.node();
  const ir::ValueRef* x = ops::schemaArg(n, 0).ref();
  if (!x) return Status::error(fmt::format("{} expects a tensor input", what));
  const int64_t* dim = ops::schemaArg(n, 1).asInt();
  if (!dim) return Status::error(fmt::format("{} expects an int dim", what));
  const ir::TensorMeta& m = rw.meta(*x);
  if (m.dtype != ir::DType::Float32 || n.outputs.size() != 1 || n.outputs[0].dtype != ir::DType::Float32)
    return std::optional<SoftmaxInput>();
  ir::IntList dims{*dim};
  auto count = reducedCount(m, dims, what);
  if (!count) return count.status();
  return std::optional<SoftmaxInput>(SoftmaxInput{*x, dims[0]});
}

/// The shared front of both softmax decompositions: m = amax(x, dim, keepdim),
/// shifted = x - m, e = exp(shifted), s = sum(e, dim, keepdim).
struct StableExp {
  ir::ValueRef shifted, e, sum;
};
Result<StableExp> emitStableExp(Rewriter& rw, const SoftmaxInput& in) {
  const ir::IntList dims{in.dim};
  auto mx = rw.emit("aten.amax.default", {in.x, dims, true}, {}, "amax");
  if (!mx) return mx.status();
  auto sh = rw.emit("aten.sub.Tensor", {in.x, *mx}, {}, "sub");
  if (!sh) return sh.status();
  auto e = rw.emit("aten.exp.default", {*sh}, {}, "exp");
  if (!e) return e.status();
  auto s = rw.emit("aten.sum.dim_IntList", {*e, dims, true}, {}, "sum");
  if (!s) return s.status();
  return StableExp{*sh, *e, *s};
}

}  // namespace

DecomposeSiluPass::DecomposeSiluPass()
    : RetracePass("DecomposeSiluPass", "silu(x) -> x * sigmoid(x) before quantisation annotation") {
  targets({"aten.silu.default"});
  checkAllowed(true);
  decomposed_ = stat("decomposed", "silu nodes decomposed");
}

Status DecomposeSiluPass::rewrite(passes::Rewriter& rw) {
  const ir::Node& n = rw.node();
  const ir::ValueRef* x = n.args.empty() ? nullptr : n.args[0].ref();
  if (!x) return Status::error("node '" + n.name + "': silu expects a tensor input");
  auto sig = rw.emit("aten.sigmoid.default", {*x}, {}, "sigmoid");
  if (!sig) return sig.status();
  auto mul = rw.emit("aten.mul.Tensor", {*x, *sig}, {}, "mul");
  if (!mul) return mul.status();
  rw.replaceWith(*mul);
  bump(decomposed_);
  return Status::ok();
}

DecomposeDivPass::DecomposeDivPass()
    : RetracePass("DecomposeDivPass", "a / b -> a * reciprocal(b) before quantisation annotation") {
  targets({"aten.div.Tensor"});
  checkAllowed(true);
  decomposed_ = stat("decomposed", "div nodes decomposed");
}

Status DecomposeDivPass::rewrite(passes::Rewriter& rw) {
  const ir::Node& n = rw.node();
  if (n.args.size() < 2) return Status::error("node '" + n.name + "': div expects two operands");
  const ir::Arg& a = n.args[0];
  const ir::Arg& b = n.args[1];
  if (!a.ref() || !ir::isFloating(rw.meta(*a.ref()).dtype)) return Status::ok();  // integer division: keep
  if (auto v = b.number()) {
    if (*v == 0.0) return Status::ok();  // keep inf/nan semantics of x / 0 as they are
    auto mul = rw.emit("aten.mul.Tensor", {a, 1.0 / *v}, {}, "mul");
    if (!mul) return mul.status();
    rw.replaceWith(*mul);
  } else if (const ir::ValueRef* br = b.ref()) {
    if (!ir::isFloating(rw.meta(*br).dtype)) return Status::ok();
    auto rec = rw.emit("aten.reciprocal.default", {*br}, {}, "reciprocal");
    if (!rec) return rec.status();
    auto mul = rw.emit("aten.mul.Tensor", {a, *rec}, {}, "mul");
    if (!mul) return mul.status();
    rw.replaceWith(*mul);
  } else {
    return Status::ok();
  }
  bump(decomposed_);
  return Status::ok();
}

DecomposeMeanDimPass::DecomposeMeanDimPass()
    : RetracePass("DecomposeMeanDimPass", "mean.dim -> sum.dim_IntList * (1 / N) before quantisation annotation") {
  targets({"aten.mean.dim"});
  checkAllowed(true);
  decomposed_ = stat("decomposed", "mean.dim nodes decomposed");
}

Status DecomposeMeanDimPass::rewrite(passes::Rewriter& rw) {
  const ir::Node& n = rw.node();
  const ir::ValueRef* x = n.args.empty() ? nullptr : n.args[0].ref();
  if (!x) return Status::error("node '" + n.name + "': mean.dim expects a tensor input");
  const ir::TensorMeta& m = rw.meta(*x);
  if (m.dtype != ir::DType::Float32) return Status::ok();
  if (n.args.size() > 3 && !n.args[3].isNone()) return Status::ok();  // explicit dtype: keep
  if (const ir::Arg* dt = n.kwarg("dtype"); dt && !dt->isNone()) return Status::ok();
  ir::IntList dims;
  if (n.args.size() > 1 && n.args[1].asIntList()) dims = *n.args[1].asIntList();
  if (dims.empty())
    for (int d = 0; d < m.rank(); ++d) dims.push_back(d);
  auto count = reducedCount(m, dims, fmt::format("node '{}': mean.dim", n.name));
  if (!count) return count.status();
  if (*count <= 0) return Status::ok();
  bool keepdim = false;
  if (n.args.size() > 2 && n.args[2].asBool()) keepdim = *n.args[2].asBool();
  if (const ir::Arg* k = n.kwarg("keepdim"); k && k->asBool()) keepdim = *k->asBool();
  auto mean = emitMean(rw, *x, dims, keepdim, *count);
  if (!mean) return mean.status();
  rw.replaceWith(*mean);
  bump(decomposed_);
  return Status::ok();
}

DecomposeLayerNormPass::DecomposeLayerNormPass()
    : RetracePass("DecomposeLayerNormPass",
                  "native_layer_norm -> mean, x - mean, variance, rsqrt, * weight, + bias before quantisation "
                  "annotation") {
  targets({"aten.native_layer_norm.default"});
  checkAllowed(true);
  decomposed_ = stat("decomposed", "native_layer_norm nodes decomposed");
}

Status DecomposeLayerNormPass::rewrite(Rewriter& rw) {
  const ir::Node& n = rw.node();
  const ir::ValueRef* x = ops::schemaArg(n, 0).ref();
  if (!x) return Status::error("native_layer_norm expects a tensor input");
  const ir::TensorMeta& m = rw.meta(*x);
  if (m.dtype != ir::DType::Float32) return Status::ok();  // only float32 is quantised
  const ir::IntList* shape = ops::schemaArg(n, 1).asIntList();
  if (!shape || shape->empty() || int64_t(shape->size()) > m.rank())
    return Status::error(fmt::format("native_layer_norm: normalized_shape must be a non-empty int list of at most "
                                     "rank {} (input {})",
                                     m.rank(), ir::toString(m)));
  auto eps = ops::schemaArg(n, 4).number();
  if (!eps) return Status::error("native_layer_norm: eps must be a number");
  const ir::Arg& w = ops::schemaArg(n, 2);
  const ir::Arg& b = ops::schemaArg(n, 3);
  for (const ir::Arg* p : {&w, &b}) {
    if (p->isNone()) continue;
    if (!p->ref())
      return Status::error(fmt::format("native_layer_norm: {} must be a tensor or None", p == &w ? "weight" : "bias"));
    if (rw.meta(*p->ref()).dtype != ir::DType::Float32) return Status::ok();  // mixed dtypes: keep
  }
  ir::IntList dims;
  for (int64_t i = m.rank() - int64_t(shape->size()); i < m.rank(); ++i) dims.push_back(i);
  auto count = reducedCount(m, dims, "native_layer_norm");
  if (!count) return count.status();
  if (*count <= 0) return Status::ok();  // empty normalised slices: nothing to compute

  auto mean = emitMean(rw, *x, dims, true, *count);
  if (!mean) return mean.status();
  auto d = rw.emit("aten.sub.Tensor", {*x, *mean}, {}, "sub");
  if (!d) return d.status();
  auto d2 = rw.emit("aten.mul.Tensor", {*d, *d}, {}, "mul");
  if (!d2) return d2.status();
  auto var = emitMean(rw, *d2, dims, true, *count);  // biased variance, as layer_norm
  if (!var) return var.status();
  auto ve = rw.emit("aten.add.Tensor", {*var, *eps}, {}, "add");
  if (!ve) return ve.status();
  auto rstd = rw.emit("aten.rsqrt.default", {*ve}, {}, "rsqrt");
  if (!rstd) return rstd.status();
  auto y = rw.emit("aten.mul.Tensor", {*d, *rstd}, {}, "mul");
  if (!y) return y.status();
  // The weight and bias have normalized_shape, the trailing dims of x: they broadcast as they
  // are (no view to rank r needed, unlike upstream's explicit view_copy).
  if (const ir::ValueRef* wr = w.ref()) {
    y = rw.emit("aten.mul.Tensor", {*y, *wr}, {}, "mul");
    if (!y) return y.status();
  }
  if (const ir::ValueRef* br = b.ref()) {
    y = rw.emit("aten.add.Tensor", {*y, *br}, {}, "add");
    if (!y) return y.status();
  }
  // Outputs 1 and 2 of native_layer_norm are the keepdim mean and rstd: users reading them
  // (through getitem 1 / 2) are rewired to these values. Their metadata must be the node's.
  const ir::ValueRef stats[2] = {*mean, *rstd};
  for (size_t i = 0; i < 2 && i + 1 < n.outputs.size(); ++i)
    if (rw.meta(stats[i]) != n.outputs[i + 1])
      return Status::error(fmt::format("native_layer_norm: the decomposition's {} is {}, output {} is recorded as {}",
                                       i == 0 ? "mean" : "rstd", ir::toString(rw.meta(stats[i])), i + 1,
                                       ir::toString(n.outputs[i + 1])));
  rw.replaceWith({*y, *mean, *rstd});
  bump(decomposed_);
  return Status::ok();
}

// Softmax: upstream has a stable (DecomposeSoftmaxPass: amax, sub, exp, sum, reciprocal, mul)
// and an unstable (DecomposeSoftmaxUnstablePass: exp, sum, reciprocal, mul) decomposition,
// both in transform_for_annotation_pipeline; ArmPassManager.configure_skip_passes keeps one.
// The default pipeline config (SoftmaxDecompositionConfig.MASKED, and STABLE) skips the
// unstable one, and newer releases drop the UNSTABLE option altogether, so the INT path
// annotates the stable form, which is the one followed here. It is also the one that
// quantises well: x - amax(x) <= 0 puts exp's output in (0, 1] whatever the logits' range, so
// its int8 observer and the TABLE behind exp cover a fixed interval, and the sum is >= 1,
// keeping the reciprocal's range within (0, 1].

DecomposeSoftmaxPass::DecomposeSoftmaxPass()
    : RetracePass("DecomposeSoftmaxPass",
                  "softmax -> exp(x - amax) * reciprocal(sum(exp(x - amax))) before quantisation annotation") {
  targets({"aten._softmax.default", "aten.softmax.int"});
  checkAllowed(true);
  decomposed_ = stat("decomposed", "softmax nodes decomposed");
}

Status DecomposeSoftmaxPass::rewrite(Rewriter& rw) {
  auto in = softmaxInput(rw, "softmax");
  if (!in) return in.status();
  if (!*in) return Status::ok();
  auto st = emitStableExp(rw, **in);
  if (!st) return st.status();
  auto r = rw.emit("aten.reciprocal.default", {st->sum}, {}, "reciprocal");
  if (!r) return r.status();
  auto y = rw.emit("aten.mul.Tensor", {st->e, *r}, {}, "mul");
  if (!y) return y.status();
  rw.replaceWith(*y);
  bump(decomposed_);
  return Status::ok();
}

// Log-softmax: upstream's DecomposeSoftmaxPass takes log(softmax(x)) for it. Here it is
// (x - amax) - log(sum(exp(x - amax))) instead: with int8 activations the softmax output
// (scale about 1/255) flushes every probability below half a step to 0, whose log is -inf and
// then clamps to the table's minimum, which loses exactly the small log-probabilities
// log_softmax is used for; x - amax keeps the logits' own resolution and the log only sees
// the sum, in [1, N].

DecomposeLogSoftmaxPass::DecomposeLogSoftmaxPass()
    : RetracePass("DecomposeLogSoftmaxPass",
                  "log_softmax -> (x - amax) - log(sum(exp(x - amax))) before quantisation annotation") {
  targets({"aten._log_softmax.default", "aten.log_softmax.int"});
  checkAllowed(true);
  decomposed_ = stat("decomposed", "log_softmax nodes decomposed");
}

Status DecomposeLogSoftmaxPass::rewrite(Rewriter& rw) {
  auto in = softmaxInput(rw, "log_softmax");
  if (!in) return in.status();
  if (!*in) return Status::ok();
  auto st = emitStableExp(rw, **in);
  if (!st) return st.status();
  auto l = rw.emit("aten.log.default", {st->sum}, {}, "log");
  if (!l) return l.status();
  auto y = rw.emit("aten.sub.Tensor", {st->shifted, *l}, {}, "sub");
  if (!y) return y.status();
  rw.replaceWith(*y);
  bump(decomposed_);
  return Status::ok();
}

std::vector<std::unique_ptr<passes::Pass>> builtinTfaPasses() {
  // Upstream order: layer norm first (its means go through the mean decomposition there;
  // here they are emitted as sum * 1/N directly), softmaxes after the division.
  std::vector<std::unique_ptr<passes::Pass>> v;
  v.push_back(std::make_unique<DecomposeLayerNormPass>());
  v.push_back(std::make_unique<DecomposeMeanDimPass>());
  v.push_back(std::make_unique<DecomposeDivPass>());
  v.push_back(std::make_unique<DecomposeSiluPass>());
  v.push_back(std::make_unique<DecomposeSoftmaxPass>());
  v.push_back(std::make_unique<DecomposeLogSoftmaxPass>());
  return v;
}

}  // namespace ls::quant
