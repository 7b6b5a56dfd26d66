// Constant folding with the reference executor (see constant_folding.h).
#include "core/transforms/constant_folding.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/exec/executor.h"
#include "core/exec/kernel.h"
#include "core/passes/node_builder.h"
#include "core/passes/pass_manager.h"
#include "core/transforms/constant_values.h"

namespace ls::transforms {

Result<exec::Tensor> evaluateOnConstants(const ir::Graph& g, const ir::Node& n, bool argLessProducers) {
  // A one-op graph over copies of the constant inputs, run by the reference executor.
  ir::Graph mini;
  mini.shareStore(g.storePtr());
  std::map<ir::NodeId, ir::NodeId> remap;
  Status bad = Status::ok();
  ir::Node call = n;
  call.id = ir::kInvalidNode;
  call.forEachInputMutable([&](ir::ValueRef& r) {
    auto it = remap.find(r.node);
    if (it == remap.end()) {
      const ir::Node* src = g.find(r.node);
      const bool constant = src && src->kind == ir::NodeKind::GetAttr && g.constant(src->target);
      if (!constant && !(argLessProducers && src && src->isCall() && src->args.empty())) {
        if (bad.isOk()) bad = Status::error(fmt::format("'{}': an input is not a constant", n.name));
        return;
      }
      if (constant) mini.setConstant(*g.constant(src->target));
      ir::Node copy = *src;
      copy.id = ir::kInvalidNode;
      it = remap.emplace(r.node, mini.append(std::move(copy))).first;
    }
    r.node = it->second;
  });
  LS_RETURN_IF_ERROR(bad);
  ir::ValueRef res{mini.append(std::move(call)), 0};
  ir::Node out;
  out.kind = ir::NodeKind::Output;
  out.name = "output";
  out.target = "output";
  out.args.push_back(ir::Arg(ir::RefList{res}));
  out.outputs.push_back(n.outputs.at(0));
  mini.append(std::move(out));
  std::vector<exec::Tensor> values;
  {
    // The executor (and its constant cache) goes first, so a result that shares storage with
    // a synthesised input (a view op) owns it alone and writable() needs no copy.
    exec::Executor ex(exec::ExecOptions{.threads = 1});
    LS_ASSIGN_OR_RETURN(run, ex.run(mini, {}));
    values = std::move(run);
  }
  if (values.empty()) return Status::error(fmt::format("'{}': evaluation gave no value", n.name));
  return std::move(values[0]).writable();
}

FoldConstantsPass::FoldConstantsPass(std::string name, std::string desc, std::vector<std::string> targetOps,
                                     ConstantFoldingOptions o)
    : InPlacePass(std::move(name), std::move(desc)), opts_(o) {
  if (!targetOps.empty()) targets(targetOps);
  folded_ = stat("folded", "ops folded into constants");
  skippedNoData_ = stat("skipped_no_data", "candidates left alone because a constant has no data");
  skippedLarge_ = stat("skipped_large", "candidates left alone because the result is too large");
}

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
    if (opts_.requireData) {
      bool allData = true;
      n.forEachInput([&](const ir::ValueRef& r) {
        const ir::Constant* c = constantBehind(g, r);
        allData = allData && (!c || c->hasData());
      });
      if (!allData) {
        bump(skippedNoData_);
        continue;
      }
    }
    if (opts_.maxElements > 0 && n.outputs[0].numel() > opts_.maxElements) {
      bump(skippedLarge_);
      continue;
    }
    auto values = evaluateOnConstants(g, n, opts_.argLessProducers);
    if (!values) return values.status().withContext(fmt::format("{}: folding failed: ", name()));
    const ir::Constant& sc = *g.constant(src->target);
    ir::Constant c = makeConstant(g.store(), std::move(*values), sc.kind, sc.fqn);
    const std::string base = (opts_.nameAfterInput ? src->name : n.name) + "_folded";
    passes::NodeBuilder build(ed, id);
    build.setDerivedFrom({id, src->id});
    ir::ValueRef v = build.constant(std::move(c), base);
    ed.replaceAllUses({id, 0}, v);
    LS_RETURN_IF_ERROR(ed.erase(id));
    bump(folded_);
  }
  if (ed.changed()) ed.eliminateDeadCode();
  return Status::ok();
}

FoldConstantsRetracePass::FoldConstantsRetracePass(std::string name, std::string desc,
                                                   std::vector<std::string> targetOps, ConstantFoldingOptions o)
    : RetracePass(std::move(name), std::move(desc)), opts_(o) {
  targets(targetOps);
  folded_ = stat("folded", "ops folded into constants");
  skippedNoData_ = stat("skipped_no_data", "candidates left alone because a constant has no data");
  skippedLarge_ = stat("skipped_large", "candidates left alone because the result is too large");
}

Status FoldConstantsRetracePass::rewrite(passes::Rewriter& rw) {
  const ir::Node& n = rw.node();
  const ir::Graph& g = rw.graph();
  if (n.outputs.size() != 1 || !n.outputs[0].isTensor() || !allowedToTransform(n)) return Status::ok();
  const ir::Node* src = constantInputsOf(g, n, opts_.argLessProducers);
  if (!src) return Status::ok();
  if (opts_.requireData) {
    bool allData = true;
    n.forEachInput([&](const ir::ValueRef& r) {
      const ir::Constant* c = constantBehind(g, r);
      allData = allData && (!c || c->hasData());
    });
    if (!allData) {
      bump(skippedNoData_);
      return Status::ok();
    }
  }
  if (opts_.maxElements > 0 && n.outputs[0].numel() > opts_.maxElements) {
    bump(skippedLarge_);
    return Status::ok();
  }
  auto values = evaluateOnConstants(g, n, opts_.argLessProducers);
  if (!values) return values.status().withContext(fmt::format("{}: folding failed: ", name()));
  const ir::Constant& sc = *g.constant(src->target);
  ir::Constant c = makeConstant(*g.storePtr(), std::move(*values), sc.kind, sc.fqn);
  rw.replaceWith(passes::NodeBuilder(rw).constant(std::move(c), (opts_.nameAfterInput ? src->name : n.name) + "_folded"));
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
