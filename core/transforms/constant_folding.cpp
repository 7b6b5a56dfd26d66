// Constant folding with the reference executor (see constant_folding.h).
#include "core/transforms/constant_folding.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/exec/executor.h"
#include "core/exec/kernel.h"
#include "core/exec/materialize.h"
#include "core/ir/op_ref.h"
#include "core/ir/printer.h"
#include "core/passes/node_builder.h"
#include "core/passes/pass_manager.h"
#include "core/transforms/constant_values.h"

namespace ls::transforms {

namespace {

/// Recipe "fold": one call node (plus the arg-less calls it reads, e.g. tosa.CONST_SHAPE) over
/// input constants, evaluated by the reference executor on a one-op graph whose placeholders
/// take the inputs' values. Its attributes are that graph printed (op, scalar arguments,
/// metadata; nodes named canonically), so the same op over the same constants is one recipe.
class FoldRecipe : public exec::TensorRecipe {
 public:
  FoldRecipe(std::string op, std::string attrs, std::vector<ir::Constant> inputs, ir::Graph mini, ir::DType dtype,
             ir::Shape shape, std::string args)
      : TensorRecipe(std::move(op), std::move(attrs), std::move(inputs), dtype, std::move(shape)),
        mini_(std::move(mini)),
        args_(std::move(args)) {
    mini_.buildIndices();  // concurrent compute() calls only read it
  }

  Result<exec::Tensor> compute(const std::vector<exec::Tensor>& inputs) const override {
    exec::Executor ex(exec::ExecOptions{.threads = 1});
    LS_ASSIGN_OR_RETURN(values, ex.run(mini_, inputs));
    if (values.empty()) return Status::error("evaluation gave no value");
    return std::move(values[0]);
  }

  /// "add(conv1.bias, c_3)": the op's short name over its printed arguments, each input
  /// placeholder replaced by the input's description.
  std::string describe() const override {
    std::string s = args_;
    for (size_t i = inputs().size(); i-- > 0;) {
      const std::string key = fmt::format("%in{}", i);
      for (size_t at = s.find(key); at != std::string::npos; at = s.find(key, at)) {
        const std::string d = describeInput(inputs()[i]);
        s.replace(at, key.size(), d);
        at += d.size();
      }
    }
    std::string_view op = this->op();
    if (auto dot = op.find('.'); dot != std::string_view::npos) op = op.substr(dot + 1);
    if (auto dot = op.rfind('.'); dot != std::string_view::npos) op = op.substr(0, dot);
    return fmt::format("{}({})", op, s);
  }

 private:
  ir::Graph mini_;
  std::string args_;
};

}  // namespace

Result<std::shared_ptr<const exec::TensorRecipe>> foldRecipe(const ir::Graph& g, const ir::Node& n,
                                                             bool argLessProducers) {
  // A one-op graph: a placeholder per distinct constant input, copies of arg-less producers.
  ir::Graph mini;
  std::vector<ir::Constant> inputs;
  std::map<ir::NodeId, ir::NodeId> remap;
  Status bad = Status::ok();
  ir::Node call = n;
  call.id = ir::kInvalidNode;
  call.name = "op";
  call.provenance = {};
  int producers = 0;
  auto kernelFor = [&](const ir::Node& x) {
    if (exec::KernelRegistry::instance().find(x.op) == nullptr && bad.isOk())
      bad = Status::error(fmt::format("'{}': no reference kernel for {}", n.name, x.target));
  };
  kernelFor(n);
  call.forEachInputMutable([&](ir::ValueRef& r) {
    auto it = remap.find(r.node);
    if (it == remap.end()) {
      const ir::Node* src = g.find(r.node);
      const ir::Constant* c = src && src->kind == ir::NodeKind::GetAttr ? g.constant(src->target) : nullptr;
      if (!c && !(argLessProducers && src && src->isCall() && src->args.empty())) {
        if (bad.isOk()) bad = Status::error(fmt::format("'{}': an input is not a constant", n.name));
        return;
      }
      ir::Node copy;
      if (c) {
        copy.kind = ir::NodeKind::Placeholder;
        copy.name = copy.target = fmt::format("in{}", inputs.size());
        copy.outputs = src->outputs;
        inputs.push_back(*c);
      } else {
        kernelFor(*src);
        copy = *src;
        copy.id = ir::kInvalidNode;
        copy.name = fmt::format("p{}", producers++);
        copy.provenance = {};
      }
      it = remap.emplace(r.node, mini.append(std::move(copy))).first;
    }
    r.node = it->second;
  });
  LS_RETURN_IF_ERROR(bad);
  const ir::NodeId callId = mini.append(std::move(call));
  ir::Node out;
  out.kind = ir::NodeKind::Output;
  out.name = "output";
  out.target = "output";
  out.args.push_back(ir::Arg(ir::RefList{ir::ValueRef{callId, 0}}));
  out.outputs.push_back(n.outputs.at(0));
  mini.append(std::move(out));
  std::string args = ir::printArgs(mini, mini.node(callId));
  std::string attrs = ir::printGraph(mini);
  const ir::TensorMeta& om = n.outputs.at(0);
  return std::shared_ptr<const exec::TensorRecipe>(std::make_shared<FoldRecipe>(
      n.target, std::move(attrs), std::move(inputs), std::move(mini), om.dtype, om.shape, std::move(args)));
}

Result<ir::Constant> foldedConstant(const ir::Graph& g, const ir::Node& n, bool argLessProducers,
                                    ir::ConstantKind kind, std::string fqn) {
  LS_ASSIGN_OR_RETURN(r, foldRecipe(g, n, argLessProducers));
  return exec::recipeConstant(r, kind, std::move(fqn));
}

Result<exec::Tensor> evaluateOnConstants(const ir::Graph& g, const ir::Node& n, bool argLessProducers) {
  LS_ASSIGN_OR_RETURN(c, foldedConstant(g, n, argLessProducers));
  c.name = n.name;
  LS_ASSIGN_OR_RETURN(v, exec::materialize(c));
  return std::move(v).writable();
}

FoldConstantsPass::FoldConstantsPass(std::string name, std::string desc, std::vector<std::string> targetOps,
                                     ConstantFoldingOptions o)
    : InPlacePass(std::move(name), std::move(desc)), opts_(o) {
  if (!targetOps.empty()) targets(targetOps);
  folded_ = stat("folded", "ops folded into constants");
  skippedNoData_ = stat("skipped_no_data", "candidates left alone because a constant has no data");
  skippedLarge_ = stat("skipped_large", "candidates left alone because the result is too large");
}

namespace {

/// Every constant input's values are the file's (Constant::valuesKnown), for requireData.
bool inputValuesKnown(const ir::Graph& g, const ir::Node& n) {
  bool known = true;
  n.forEachInput([&](const ir::ValueRef& r) {
    const ir::Constant* c = constantBehind(g, r);
    known = known && (!c || c->valuesKnown());
  });
  return known;
}

}  // namespace

const ir::Node* constantInputsOf(const ir::Graph& g, const ir::Node& n, bool argLessProducers) {
  const ir::Node* first = nullptr;
  bool ok = true;
  n.forEachInput([&](const ir::ValueRef& r) {
    const ir::Node* p = g.find(r.node);
    if (p && p->kind == ir::NodeKind::GetAttr && g.constant(p->target)) {
      if (!first) first = p;
    } else if (!(argLessProducers && p && p->isCall() && p->args.empty())) {
      ok = false;
    }
  });
  return ok ? first : nullptr;
}

const ir::Node* FoldConstantsPass::foldable(const ir::Graph& g, const ir::Node& n) const {
  static const ir::OpId kGetitem = ir::internOp("operator.getitem");
  static const ir::OpId kDelegate = ir::internOp(exec::kCallDelegateOp);
  if (!n.isCall() || n.op == kGetitem || n.op == kDelegate || n.outputs.size() != 1 || !n.outputs[0].isTensor())
    return nullptr;
  if (targetOps().empty() ? exec::KernelRegistry::instance().find(n.op) == nullptr : !isTargeted(n.op)) return nullptr;
  return constantInputsOf(g, n, opts_.argLessProducers);
}

passes::ShouldRun FoldConstantsPass::shouldRunImpl(const ir::Graph& g, const passes::PassContext& ctx) const {
  if (!targetOps().empty()) return InPlacePass::shouldRunImpl(g, ctx);
  for (const ir::NodePtr& p : g.nodes())
    if (foldable(g, *p)) return passes::ShouldRun::yes();
  return passes::ShouldRun::no(passes::SkipReason::Precondition, "no op with only constant inputs");
}

Status FoldConstantsPass::transform(passes::GraphEditor& ed) {
  ir::Graph& g = ed.graph();
  std::vector<ir::NodeId> order;
  if (targetOps().empty()) {
    for (const ir::NodePtr& p : g.nodes()) order.push_back(p->id);
  } else {
    for (ir::OpId op : targetOps())
      for (ir::NodeId id : g.nodesOfOp(op)) order.push_back(id);
    std::sort(order.begin(), order.end(), [&](auto a, auto b) { return g.position(a) < g.position(b); });
  }
  for (ir::NodeId id : order) {
    if (!g.contains(id)) continue;
    const ir::Node& n = g.node(id);
    const ir::Node* src = foldable(g, n);
    if (!src || !allowedToTransform(n)) continue;
    if (opts_.requireData && !inputValuesKnown(g, n)) {
      bump(skippedNoData_);
      continue;
    }
    if (opts_.maxElements > 0 && n.outputs[0].numel() > opts_.maxElements) {
      bump(skippedLarge_);
      continue;
    }
    const ir::Constant& sc = *g.constant(src->target);
    auto c = foldedConstant(g, n, opts_.argLessProducers, sc.kind, sc.fqn);
    if (!c) return c.status().withContext(fmt::format("{}: folding failed: ", name()));
    const std::string base = (opts_.nameAfterInput ? src->name : n.name) + "_folded";
    passes::NodeBuilder build(ed, id);
    build.setDerivedFrom({id, src->id});
    ir::ValueRef v = build.constant(std::move(*c), base);
    ed.replaceAllUses({id, 0}, v);
    LS_RETURN_IF_ERROR(ed.erase(id));
    bump(folded_);
  }
  if (ed.changed()) ed.eliminateDeadCode();
  return Status::ok();
}

bool foldsAnyOp(ir::OpId op) {
  static const std::vector<uint8_t> excluded = [] {
    std::vector<uint8_t> x;
    for (const std::string& name : exec::KernelRegistry::instance().ops()) {
      const std::string_view n = name;
      // q/dq (a weight's int8 form stays as it is, as torch's constant_fold keeps dequantize),
      // the integer rescale and table ops (their results depend on qparams the fold cannot
      // see), control ops. (No random op has a reference kernel: nothing to freeze.)
      const ir::OpId id = ir::internOp(n);
      const bool skip = n.starts_with("quantized_decomposed.") || id == LS_OP("tosa.RESCALE") ||
                        id == LS_OP("tosa.TABLE") || id == LS_OP("operator.getitem") || id == LS_OP(exec::kCallDelegateOp);
      if (!skip) continue;
      if (x.size() <= id) x.resize(id + 1, 0);
      x[id] = 1;
    }
    return x;
  }();
  return exec::KernelRegistry::instance().find(op) != nullptr && !(op < excluded.size() && excluded[op]);
}

namespace {

std::vector<std::string> anyOpTargets() {
  std::vector<std::string> out;
  for (const std::string& name : exec::KernelRegistry::instance().ops())
    if (foldsAnyOp(ir::internOp(name))) out.push_back(name);
  return out;
}

/// Whether `n` reads or makes a value with qparams and does not only move values.
bool quantisedCompute(const ir::Graph& g, const ir::Node& n) {
  if (ops::movesValuesOnly(n.op)) return false;
  bool q = !n.outputs.empty() && n.outputs[0].quant != nullptr;
  n.forEachInput([&](const ir::ValueRef& r) { q = q || g.meta(r).quant != nullptr; });
  return q;
}

}  // namespace

FoldConstantsRetracePass::FoldConstantsRetracePass(std::string name, std::string desc,
                                                   std::vector<std::string> targetOps, ConstantFoldingOptions o)
    : RetracePass(std::move(name), std::move(desc)), opts_(o) {
  targets(o.anyOp ? anyOpTargets() : targetOps);
  folded_ = stat("folded", "ops folded into constants");
  skippedNoData_ = stat("skipped_no_data", "candidates left alone because a constant has no data");
  skippedLarge_ = stat("skipped_large", "candidates left alone because the result is too large");
}

const ir::Node* FoldConstantsRetracePass::candidate(const ir::Graph& g, const ir::Node& n) const {
  if (n.outputs.size() != 1 || !n.outputs[0].isTensor() || !allowedToTransform(n)) return nullptr;
  if (opts_.anyOp && quantisedCompute(g, n)) return nullptr;
  if (opts_.keepValueMoves && ops::movesValuesOnly(n.op)) return nullptr;
  return constantInputsOf(g, n, opts_.argLessProducers);
}

passes::ShouldRun FoldConstantsRetracePass::shouldRunImpl(const ir::Graph& g, const passes::PassContext& ctx) const {
  passes::ShouldRun s = RetracePass::shouldRunImpl(g, ctx);
  if (!s.run || anyTargetNode(g, [&](const ir::Graph& in, const ir::Node& n) { return candidate(in, n) != nullptr; }))
    return s;
  return passes::ShouldRun::no(passes::SkipReason::Precondition, "no target op with only constant inputs");
}

Status FoldConstantsRetracePass::rewrite(passes::Rewriter& rw) {
  const ir::Node& n = rw.node();
  const ir::Graph& g = rw.graph();
  const ir::Node* src = candidate(g, n);
  if (!src) return Status::ok();
  if (opts_.requireData && !inputValuesKnown(g, n)) {
    bump(skippedNoData_);
    return Status::ok();
  }
  if (opts_.maxElements > 0 && n.outputs[0].numel() > opts_.maxElements) {
    bump(skippedLarge_);
    return Status::ok();
  }
  const ir::Constant& sc = *g.constant(src->target);
  auto c = foldedConstant(g, n, opts_.argLessProducers, sc.kind, sc.fqn);
  if (!c) return c.status().withContext(fmt::format("{}: folding failed: ", name()));
  rw.replaceWith(passes::NodeBuilder(rw).constant(std::move(*c), (opts_.nameAfterInput ? src->name : n.name) + "_folded"));
  bump(folded_);
  return Status::ok();
}

FoldConstantViewsPass::FoldConstantViewsPass()
    : FoldConstantsPass("FoldConstantViewsPass", "Folds shape-only ops on constants that carry data into new constants",
                        {"aten.t_copy.default", "aten.transpose_copy.int", "aten.permute_copy.default",
                         "aten.view_copy.default", "aten.unsqueeze_copy.default", "aten.squeeze_copy.dim",
                         "aten.squeeze_copy.dims", "aten.squeeze_copy.default"},
                        ConstantFoldingOptions{.requireData = true}) {}

void registerConstantFoldingPasses(passes::PassRegistry& r) {
  r.add("FoldConstantViewsPass", [] { return std::make_unique<FoldConstantViewsPass>(); });
}

}  // namespace ls::transforms
