// Eval-mode batch norm matching, folding and decomposition (see batch_norm.h).
#include "core/transforms/batch_norm.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/exec/materialize.h"
#include "core/ops/registry.h"
#include "core/passes/node_builder.h"
#include "core/transforms/constant_values.h"

namespace ls::transforms {

namespace {

bool supportedDtype(ir::DType t, const BatchNormOptions& o) {
  return o.float32Only ? t == ir::DType::Float32 : ir::isFloating(t);
}

/// Batch norm nodes of `g` in graph order.
std::vector<ir::NodeId> batchNormsInOrder(const ir::Graph& g, const std::vector<ir::OpId>& ops) {
  std::vector<ir::NodeId> ids;
  for (ir::OpId op : ops)
    for (ir::NodeId id : g.nodesOfOp(op)) ids.push_back(id);
  std::sort(ids.begin(), ids.end(), [&](auto a, auto b) { return g.position(a) < g.position(b); });
  return ids;
}

/// getitem(bn, 0) users read `v`; the batch norm and its getitems go.
Status replaceBatchNorm(passes::GraphEditor& ed, const EvalBatchNorm& m, ir::ValueRef v) {
  ir::Graph& g = ed.graph();
  for (ir::NodeId gi : m.getitems) ed.replaceAllUses({gi, 0}, v);
  std::vector<ir::NodeId> users(g.users(m.bn).begin(), g.users(m.bn).end());
  for (ir::NodeId u : users) LS_RETURN_IF_ERROR(ed.erase(u));
  return ed.erase(m.bn);
}

const std::vector<std::string> kBatchNormOps = {"aten.native_batch_norm.default",
                                                "aten._native_batch_norm_legit_no_training.default"};

}  // namespace

Result<std::optional<EvalBatchNorm>> matchEvalBatchNorm(const ir::Graph& g, const ir::Node& n,
                                                        const BatchNormOptions& o, bool scaleShift) {
  static const ir::OpId kLegit = ir::internOp("aten._native_batch_norm_legit_no_training.default");
  static const ir::OpId kLegacy = ir::internOp("aten.native_batch_norm.default");
  static const ir::OpId kGetitem = ir::internOp("operator.getitem");
  const std::optional<EvalBatchNorm> none;
  const bool legit = n.op == kLegit;
  if ((!legit && n.op != kLegacy) || (o.honourDisallowFlag && n.hasFlag(ir::kFlagDisallowTransform))) return none;
  if (!legit) {
    const bool* training = ops::schemaArg(n, 5).asBool();
    if (!training) return none;
    if (*training) {
      if (o.rejectTraining) return Status::error(fmt::format("node '{}': training-mode batch norm cannot be lowered", n.name));
      return none;
    }
  }
  auto eps = ops::schemaArg(n, legit ? 6 : 7).number();
  const ir::ValueRef* in = ops::schemaArg(n, 0).ref();
  if (!eps || !in) return none;
  const ir::TensorMeta& xm = g.meta(*in);
  if (xm.rank() < 2 || !supportedDtype(xm.dtype, o)) return none;
  const int64_t C = xm.shape[1];
  // weight, bias, running_mean, running_var: a constant of C values, or None (1, 0, 0, 1).
  std::vector<double> v[4];
  const double defaults[4] = {1.0, 0.0, 0.0, 1.0};
  for (int i = 0; i < 4; ++i) {
    const ir::Arg& a = ops::schemaArg(n, i + 1);
    if (a.isNone()) {
      if (scaleShift) v[i].assign(size_t(C), defaults[i]);
      continue;
    }
    const ir::Constant* c = a.ref() ? constantBehind(g, *a.ref()) : nullptr;
    if (!c || c->numel() != C) return none;
    if (scaleShift) v[i] = constantValues(*c).toDoubles();
  }
  EvalBatchNorm m;
  m.bn = n.id;
  m.channels = C;
  m.input = *in;
  for (ir::NodeId u : g.users(n.id)) {
    const ir::Node& un = g.node(u);
    const int64_t* idx = un.op == kGetitem && un.args.size() > 1 ? un.args[1].asInt() : nullptr;
    if (!idx) return none;  // read directly
    if (*idx == 0) m.getitems.push_back(u);
    else if (!g.users(u).empty()) return none;  // the saved mean / invstd are used
  }
  m.eps = *eps;
  for (int i = 0; i < 4; ++i)
    if (const ir::ValueRef* r = ops::schemaArg(n, i + 1).ref()) m.params[size_t(i)] = *constantBehind(g, *r);
  if (scaleShift) batchNormScaleShift(v, m.eps, m.scale, m.shift);
  return std::optional<EvalBatchNorm>(std::move(m));
}

void batchNormScaleShift(const std::vector<double> (&v)[4], double eps, std::vector<double>& scale,
                         std::vector<double>& shift) {
  const size_t C = v[0].size();
  scale.resize(C);
  shift.resize(C);
  for (size_t c = 0; c < C; ++c) {
    scale[c] = v[0][c] / std::sqrt(v[3][c] + eps);
    shift[c] = v[1][c] - v[2][c] * scale[c];
  }
}

exec::Tensor foldBatchNormWeight(const exec::Tensor& w, const std::vector<double>& scale) {
  const int64_t C = int64_t(scale.size());
  const int64_t per = w.numel() / std::max<int64_t>(C, 1);
  // Written straight into a new tensor: one pass over the weight, not a copy and then a scale
  // (nor a zero fill first, when the channels cover every element).
  exec::Tensor out = C * per == w.numel() ? exec::Tensor::uninitialized(w.dtype(), w.shape())
                                          : exec::Tensor(w.dtype(), w.shape());
  if (w.dtype() == ir::DType::Float32) {
    const float* wd = w.data<float>();
    float* od = out.data<float>();
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < per; ++i) od[c * per + i] = float(double(wd[c * per + i]) * scale[size_t(c)]);
  } else {
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < per; ++i) out.setDouble(c * per + i, w.getDouble(c * per + i) * scale[size_t(c)]);
  }
  return out;
}

exec::Tensor foldBatchNormBias(const exec::Tensor* b, ir::DType dtype, const std::vector<double>& scale,
                               const std::vector<double>& shift) {
  const size_t C = scale.size();
  std::vector<double> bias = b ? b->toDoubles() : std::vector<double>(C, 0.0);
  for (size_t c = 0; c < C; ++c) bias[c] = bias[c] * scale[c] + shift[c];
  return exec::Tensor::fromDoubles(dtype, ir::Shape{int64_t(C)}, bias);
}

namespace {

/// Recipe "fold_bn": a conv/linear weight (part "weight") or bias (part "bias", none: zeros)
/// with an eval batch norm folded in (foldBatchNormWeight / foldBatchNormBias over
/// batchNormScaleShift of the batch norm's weight, bias, running mean and var; a missing one
/// counts as 1, 0, 0, 1).
class FoldBatchNormRecipe : public exec::TensorRecipe {
 public:
  FoldBatchNormRecipe(bool weight, const ir::Constant* target, const EvalBatchNorm& m, ir::DType dtype,
                      ir::Shape shape)
      : TensorRecipe("fold_bn", attrsOf(weight, target != nullptr, m), inputsOf(target, m), dtype, std::move(shape)),
        weight_(weight),
        hasTarget_(target != nullptr),
        eps_(m.eps) {
    for (size_t i = 0; i < 4; ++i) present_[i] = m.params[i].has_value();
  }

  Result<exec::Tensor> compute(const std::vector<exec::Tensor>& in) const override {
    const size_t C = size_t(shape()[0]);
    const double defaults[4] = {1.0, 0.0, 0.0, 1.0};
    std::vector<double> v[4];
    size_t next = hasTarget_ ? 1 : 0;
    for (size_t i = 0; i < 4; ++i) {
      if (present_[i]) v[i] = in.at(next++).toDoubles();
      else v[i].assign(C, defaults[i]);
    }
    std::vector<double> scale, shift;
    batchNormScaleShift(v, eps_, scale, shift);
    if (weight_) return foldBatchNormWeight(in.at(0), scale);
    return foldBatchNormBias(hasTarget_ ? &in.at(0) : nullptr, dtype(), scale, shift);
  }

  /// "fold_bn(conv1.weight, bn1.*)"
  std::string describe() const override {
    std::string bn = "bn";
    for (size_t i = 0, k = hasTarget_ ? 1 : 0; i < 4; ++i) {
      if (!present_[i]) continue;
      std::string d = describeInput(inputs()[k++]);
      auto dot = d.rfind('.');
      if (dot == std::string::npos) dot = d.rfind('_');
      bn = dot == std::string::npos ? d : d.substr(0, dot) + ".*";
      break;
    }
    return fmt::format("fold_bn({}, {})", hasTarget_ ? describeInput(inputs()[0]) : "zeros", bn);
  }

 private:
  static std::string attrsOf(bool weight, bool hasTarget, const EvalBatchNorm& m) {
    // "part=weight;target=true;eps=0x1.4f8b588e368f1p-17;params=1111". The eps text is kept
    // from the last call (every batch norm of a model has the same eps): fmt's hex float
    // formatting was half the cost of building the recipe.
    thread_local uint64_t lastBits = 0;
    thread_local std::string epsText;
    uint64_t bits;
    std::memcpy(&bits, &m.eps, sizeof bits);
    if (epsText.empty() || bits != lastBits) {
      epsText = fmt::format("{:a}", m.eps);
      lastBits = bits;
    }
    std::string s = weight ? "part=weight;target=" : "part=bias;target=";
    s += hasTarget ? "true" : "false";
    s += ";eps=";
    s += epsText;
    s += ";params=";
    for (const auto& p : m.params) s += p ? '1' : '0';
    return s;
  }
  static std::vector<ir::Constant> inputsOf(const ir::Constant* target, const EvalBatchNorm& m) {
    std::vector<ir::Constant> in;
    in.reserve(1 + m.params.size());
    if (target) in.push_back(*target);
    for (const auto& p : m.params)
      if (p) in.push_back(*p);
    return in;
  }
  bool weight_, hasTarget_;
  double eps_;
  bool present_[4] = {};
};

}  // namespace

std::shared_ptr<const exec::TensorRecipe> foldBatchNormRecipe(bool weight, const ir::Constant* target,
                                                              const EvalBatchNorm& m, ir::DType dtype) {
  ir::Shape shape = weight ? target->shape : ir::Shape{m.channels};
  return std::make_shared<FoldBatchNormRecipe>(weight, target, m, dtype, std::move(shape));
}

// ---------------------------------------------------------------- FuseBatchNormPass

FuseBatchNormPass::FuseBatchNormPass(std::string name, BatchNormOptions o)
    : InPlacePass(std::move(name), o.foldIntoLinear ? "Folds eval batch norm into the weights of the preceding conv/linear"
                                                    : "Folds eval batch norm into the preceding convolution"),
      opts_(o) {
  targets(kBatchNormOps);
  checkAllowed(o.honourDisallowFlag);
  fused_ = stat("fused", "batch norms folded into weights");
  kept_ = stat("kept", "batch norms left for the decomposition (no single-use conv/linear with constant weights)");
}

Status FuseBatchNormPass::transform(passes::GraphEditor& ed) {
  static const ir::OpId kConv = ir::internOp("aten.convolution.default");
  static const ir::OpId kLinear = ir::internOp("aten.linear.default");
  ir::Graph& g = ed.graph();
  for (ir::NodeId id : batchNormsInOrder(g, targetOps())) {
    // The fold is a recipe: the match alone, not the statistics' values.
    LS_ASSIGN_OR_RETURN(m, matchEvalBatchNorm(g, g.node(id), opts_, false));
    if (!m) continue;
    const ir::Node* p = g.find(m->input.node);
    auto keep = [&] { bump(kept_); };
    if (!p || !p->isCall() || m->input.output != 0 || g.users(p->id).size() != 1 ||
        (opts_.honourDisallowFlag && p->hasFlag(ir::kFlagDisallowTransform))) {
      keep();
      continue;
    }
    const bool conv = p->op == kConv;
    if (!conv && !(opts_.foldIntoLinear && p->op == kLinear)) {
      keep();
      continue;
    }
    if (conv) {
      const bool* tr = ops::schemaArg(*p, 6).asBool();
      if (!tr || *tr) {  // transposed weights are [in, out/g, ...]
        keep();
        continue;
      }
    }
    const int64_t C = m->channels;
    const ir::Constant* wc = p->args.size() > 1 && p->args[1].ref() ? constantBehind(g, *p->args[1].ref()) : nullptr;
    if (!wc || wc->shape.rank() < 1 || wc->shape[0] != C || !supportedDtype(wc->dtype, opts_)) {
      keep();
      continue;
    }
    const ir::Arg& bArg = ops::schemaArg(*p, 2);
    const ir::Constant* bc = bArg.ref() ? constantBehind(g, *bArg.ref()) : nullptr;
    if ((!bArg.isNone() && !bc) || (bc && bc->numel() != C)) {  // a computed bias: leave it
      keep();
      continue;
    }
    ir::Constant nwc = exec::recipeConstant(foldBatchNormRecipe(true, wc, *m, wc->dtype), ir::ConstantKind::Parameter, wc->fqn);
    ir::Constant nbc = exec::recipeConstant(foldBatchNormRecipe(false, bc, *m, wc->dtype), ir::ConstantKind::Parameter,
                                            bc ? bc->fqn : "");
    const ir::NodeId pid = p->id;
    const std::string pname = p->name;  // a copy: edits below
    passes::NodeBuilder build(ed, pid);
    build.setDerivedFrom({pid, id});
    ir::ValueRef nw = build.constant(std::move(nwc), pname + "_fused_weight");
    ir::ValueRef nb = build.constant(std::move(nbc), pname + "_fused_bias");
    std::vector<ir::Arg> args = g.node(pid).args;
    args[1] = nw;
    if (args.size() > 2) args[2] = nb;
    else args.push_back(nb);
    ed.setArgs(pid, std::move(args));
    ed.graph().mutableNode(pid).provenance.derivedFrom.push_back(id);
    LS_RETURN_IF_ERROR(replaceBatchNorm(ed, *m, {pid, 0}));
    bump(fused_);
  }
  if (ed.changed()) ed.eliminateDeadCode();
  return Status::ok();
}

// ---------------------------------------------------------------- DecomposeBatchNormPass

DecomposeBatchNormPass::DecomposeBatchNormPass(std::string name, BatchNormOptions o)
    : InPlacePass(std::move(name), o.decomposition == BatchNormDecomposition::DepthwiseConv
                                       ? "Turns a remaining eval batch norm into a 1x1 depthwise convolution"
                                       : "Turns a remaining eval batch norm into x * scale + shift"),
      opts_(o) {
  targets(kBatchNormOps);
  checkAllowed(o.honourDisallowFlag);
  decomposed_ = stat("decomposed", "batch norms decomposed");
}

Status DecomposeBatchNormPass::transform(passes::GraphEditor& ed) {
  ir::Graph& g = ed.graph();
  for (ir::NodeId id : batchNormsInOrder(g, targetOps())) {
    const std::string name = g.node(id).name;
    auto where = [&] { return fmt::format("{} at '{}': ", this->name(), name); };
    LS_ASSIGN_OR_RETURN(m, matchEvalBatchNorm(g, g.node(id), opts_));
    if (!m) continue;
    const ir::TensorMeta xm = g.meta(m->input);
    const int64_t C = xm.shape[1];
    Result<ir::ValueRef> out = Status::ok();
    passes::NodeBuilder build(ed, id);
    if (opts_.decomposition == BatchNormDecomposition::DepthwiseConv) {
      if (xm.rank() != 3 && xm.rank() != 4) continue;
      const int k = xm.rank() - 2;
      ir::Shape ws{C, 1};
      for (int i = 0; i < k; ++i) ws.push(1);
      exec::Tensor w = exec::Tensor::fromDoubles(xm.dtype, ws, m->scale);
      exec::Tensor b = exec::Tensor::fromDoubles(xm.dtype, ir::Shape{C}, m->shift);
      ir::ValueRef wv = build.constant(makeConstant(g.store(), w, ir::ConstantKind::Parameter), name + "_dw_weight");
      ir::ValueRef bv = build.constant(makeConstant(g.store(), b, ir::ConstantKind::Parameter), name + "_dw_bias");
      ir::IntList ones(size_t(k), 1), zeros(size_t(k), 0);
      out = build.op("aten.convolution.default", {m->input, wv, bv, ones, zeros, ones, false, zeros, C}, {},
                     name + "_dwconv");
    } else {
      ir::Shape s = ir::Shape::ofRank(xm.rank() - 1, 1);
      s[0] = C;
      ir::ValueRef sc = build.constant(makeConstant(g.store(), exec::Tensor::fromDoubles(xm.dtype, s, m->scale)), "bn_scale");
      ir::ValueRef sf = build.constant(makeConstant(g.store(), exec::Tensor::fromDoubles(xm.dtype, s, m->shift)), "bn_shift");
      out = build.op("aten.mul.Tensor", {m->input, sc}, {}, "mul");
      if (out) out = build.op("aten.add.Tensor", {*out, sf}, {}, "add");
    }
    if (!out) return out.status().withContext(where());
    LS_RETURN_IF_ERROR(replaceBatchNorm(ed, *m, *out));
    bump(decomposed_);
  }
  if (ed.changed()) ed.eliminateDeadCode();
  return Status::ok();
}

}  // namespace ls::transforms
