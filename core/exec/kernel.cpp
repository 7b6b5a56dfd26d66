// KernelCtx arg/tensor resolution and the kernel registry.
#include "core/exec/kernel.h"


#include <algorithm>
#include <mutex>

#include "core/exec/executor.h"

namespace ls::exec {

using ir::Arg;
using ir::ArgKind;

Accumulation KernelCtx::accumulation() const {
  const ExecOptions& o = executor_.options();
  return o.exactAccumulation ? Accumulation::Exact : o.orderedAccumulation ? Accumulation::Ordered : Accumulation::Blas;
}

KernelCtx::KernelCtx(Executor& executor, const ir::Graph& graph, const ir::Node& node, const ops::OpSchema* schema,
                     const std::vector<std::vector<Tensor>>& values, const std::vector<ir::TensorMeta>& outMetas,
                     int threads)
    : executor_(executor), graph_(graph), node_(node), schema_(schema), values_(values), outMetas_(outMetas),
      threads_(std::max(threads, 1)) {
  if (schema_) resolver_.emplace(graph_, node_, *schema_, scratch_);
  // One slot per output up front, so references returned by newOutput() stay valid.
  outputs.resize(outMetas_.size());
}

const std::string& KernelCtx::opName() const { return ir::opName(node_.op); }

const Arg& KernelCtx::arg(int i) const {
  static const Arg kNone;
  if (resolver_) return resolver_->arg(i);
  if (i >= 0 && size_t(i) < node_.args.size()) return node_.args[size_t(i)];
  return kNone;
}

std::string KernelCtx::argDesc(int i) const {
  if (resolver_) return resolver_->argDesc(i);
  return fmt::format("arg #{}", i);
}

Result<int64_t> KernelCtx::getInt(int i) const {
  const Arg& a = arg(i);
  if (auto* v = a.asInt()) return *v;
  if (auto* b = a.asBool()) return int64_t(*b);
  if (auto* l = a.asIntList(); l && l->size() == 1) return (*l)[0];
  return error("{}: expected an int", argDesc(i));
}

Result<double> KernelCtx::getFloat(int i) const {
  if (auto n = arg(i).number()) return *n;
  return error("{}: expected a number", argDesc(i));
}

Result<bool> KernelCtx::getBool(int i) const {
  const Arg& a = arg(i);
  if (auto* b = a.asBool()) return *b;
  if (auto* v = a.asInt(); v && (*v == 0 || *v == 1)) return *v == 1;
  return error("{}: expected a bool", argDesc(i));
}

Result<std::vector<int64_t>> KernelCtx::getIntList(int i, int expandTo) const {
  const Arg& a = arg(i);
  if (auto* l = a.asIntList()) {
    if (expandTo > 0 && l->size() == 1) return std::vector<int64_t>(size_t(expandTo), (*l)[0]);
    return *l;
  }
  if (auto* v = a.asInt()) return std::vector<int64_t>(size_t(std::max(expandTo, 1)), *v);
  return error("{}: expected a list of ints", argDesc(i));
}

std::optional<ir::DType> KernelCtx::getDType(int i) const {
  const Arg& a = arg(i);
  if (auto* e = a.asEnum(); e && e->kind == ir::EnumKind::DType) return ir::DType(e->value);
  if (auto* v = a.asInt()) return ir::dtypeFromTorchScalarType(*v);
  return std::nullopt;
}

std::optional<std::string> KernelCtx::getString(int i) const {
  if (auto* s = arg(i).asString()) return *s;
  return std::nullopt;
}

Result<const Tensor*> KernelCtx::value(ir::ValueRef r) const {
  if (r.node >= values_.size() || r.output >= values_[r.node].size() || !values_[r.node][r.output].defined()) {
    const ir::Node* src = graph_.find(r.node);
    return error("input {}#{} has no value (producer not executed or output is not a tensor)",
                 src ? src->name : std::to_string(r.node), r.output);
  }
  return &values_[r.node][r.output];
}

const std::vector<Tensor>& KernelCtx::nodeValues(ir::NodeId id) const {
  static const std::vector<Tensor> kNone;
  return id < values_.size() ? values_[id] : kNone;
}

Result<const Tensor*> KernelCtx::tensor(int i) const {
  const ir::ValueRef* r = arg(i).ref();
  if (!r) return error("{}: expected a tensor", argDesc(i));
  return value(*r);
}

Result<std::vector<const Tensor*>> KernelCtx::tensorList(int i) const {
  const Arg& a = arg(i);
  std::vector<const Tensor*> out;
  if (const ir::RefList* l = a.asRefList()) {
    for (const ir::ValueRef& r : *l) {
      if (r.isNone()) {
        out.push_back(nullptr);
        continue;
      }
      auto t = value(r);
      if (!t) return t.status();
      out.push_back(t.value());
    }
    return out;
  }
  if (auto* il = a.asIntList(); il && il->empty()) return out;
  return error("{}: expected a list of tensors", argDesc(i));
}

Result<Operand> KernelCtx::operand(int i) const {
  const Arg& a = arg(i);
  Operand o;
  if (const ir::ValueRef* r = a.ref()) {
    auto t = value(*r);
    if (!t) return t.status();
    o.tensor = t.value();
    return o;
  }
  if (auto* b = a.asBool()) {
    o.number = *b ? 1.0 : 0.0;
    o.intValue = *b ? 1 : 0;
    o.isInt = o.isBool = true;
    return o;
  }
  if (auto* v = a.asInt()) {
    o.number = double(*v);
    o.intValue = *v;
    o.isInt = true;
    return o;
  }
  if (auto* f = a.asFloat()) {
    o.number = *f;
    return o;
  }
  return error("{}: expected a tensor or a number", argDesc(i));
}

Tensor& KernelCtx::newOutput(size_t k) {
  if (outputs.size() <= k) outputs.resize(k + 1);
  const ir::TensorMeta& m = outMetas_[k];
  outputs[k] = Tensor(m.dtype, m.shape);
  return outputs[k];
}

Tensor& KernelCtx::newOutputForOverwrite(size_t k) {
  if (outputs.size() <= k) outputs.resize(k + 1);
  const ir::TensorMeta& m = outMetas_[k];
  outputs[k] = Tensor::uninitialized(m.dtype, m.shape);
  return outputs[k];
}

void KernelCtx::setOutput(size_t k, Tensor t) {
  if (outputs.size() <= k) outputs.resize(k + 1);
  outputs[k] = std::move(t);
}

// ---------------------------------------------------------------- registry

KernelRegistry& KernelRegistry::instance() {
  static KernelRegistry* reg = [] {
    auto* r = new KernelRegistry();
    registerElementwiseKernels(*r);
    registerNnKernels(*r);
    registerShapeKernels(*r);
    registerQuantKernels(*r);
    registerControlKernels(*r);
    registerAttentionKernels(*r);
    return r;
  }();
  return *reg;
}

void KernelRegistry::registerKernel(std::string_view op, KernelFn fn) {
  ir::OpId id = ir::internOp(op);
  std::unique_lock lock(mu_);
  if (byId_.size() <= id) byId_.resize(id + 1, nullptr);
  byId_[id] = fn;
}

KernelFn KernelRegistry::find(ir::OpId op) const {
  std::shared_lock lock(mu_);
  return op < byId_.size() ? byId_[op] : nullptr;
}

KernelFn KernelRegistry::find(std::string_view op) const {
  ir::OpId id = ir::findOp(op);
  return id == ir::kNoOp ? nullptr : find(id);
}

std::vector<std::string> KernelRegistry::ops() const {
  std::shared_lock lock(mu_);
  std::vector<std::string> out;
  for (size_t i = 0; i < byId_.size(); ++i)
    if (byId_[i]) out.push_back(ir::opName(ir::OpId(i)));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace ls::exec
