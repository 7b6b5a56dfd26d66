// Eval-mode batch norm matching, folding and decomposition (see batch_norm.h).
#include "core/transforms/batch_norm.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

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
                                                        const BatchNormOptions& o) {
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
      v[i].assign(size_t(C), defaults[i]);
      continue;
    }
    const ir::Constant* c = a.ref() ? constantBehind(g, *a.ref()) : nullptr;
    if (!c || c->numel() != C) return none;
    v[i] = constantValues(*c).toDoubles();
  }
  EvalBatchNorm m;
  m.bn = n.id;
  m.input = *in;
  for (ir::NodeId u : g.users(n.id)) {
    const ir::Node& un = g.node(u);
    const int64_t* idx = un.op == kGetitem && un.args.size() > 1 ? un.args[1].asInt() : nullptr;
    if (!idx) return none;  // read directly
    if (*idx == 0) m.getitems.push_back(u);
    else if (!g.users(u).empty()) return none;  // the saved mean / invstd are used
  }
  m.scale.resize(size_t(C));
  m.shift.resize(size_t(C));
  for (size_t c = 0; c < size_t(C); ++c) {
    m.scale[c] = v[0][c] / std::sqrt(v[3][c] + *eps);
    m.shift[c] = v[1][c] - v[2][c] * m.scale[c];
  }
  return std::optional<EvalBatchNorm>(std::move(m));
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
    LS_ASSIGN_OR_RETURN(m, matchEvalBatchNorm(g, g.node(id), opts_));
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
    const int64_t C = int64_t(m->scale.size());
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
    exec::Tensor w = constantValues(*wc).writable();
    const int64_t per = w.numel() / std::max<int64_t>(C, 1);
    if (w.dtype() == ir::DType::Float32) {
      float* wd = w.data<float>();
      for (int64_t c = 0; c < C; ++c)
        for (int64_t i = 0; i < per; ++i) wd[c * per + i] = float(double(wd[c * per + i]) * m->scale[size_t(c)]);
    } else {
      for (int64_t c = 0; c < C; ++c)
        for (int64_t i = 0; i < per; ++i) w.setDouble(c * per + i, w.getDouble(c * per + i) * m->scale[size_t(c)]);
    }
    std::vector<double> bias = bc ? constantValues(*bc).toDoubles() : std::vector<double>(size_t(C), 0.0);
    for (int64_t c = 0; c < C; ++c) bias[size_t(c)] = bias[size_t(c)] * m->scale[size_t(c)] + m->shift[size_t(c)];
    exec::Tensor bt = exec::Tensor::fromDoubles(wc->dtype, ir::Shape{C}, bias);
    const ir::NodeId pid = p->id;
    const std::string pname = p->name, wFqn = wc->fqn, bFqn = bc ? bc->fqn : "";  // copies: edits below
    passes::NodeBuilder build(ed, pid);
    build.setDerivedFrom({pid, id});
    ir::ValueRef nw =
        build.constant(makeConstant(g.store(), std::move(w), ir::ConstantKind::Parameter, wFqn), pname + "_fused_weight");
    ir::ValueRef nb =
        build.constant(makeConstant(g.store(), std::move(bt), ir::ConstantKind::Parameter, bFqn), pname + "_fused_bias");
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
