// Executor: walks the graph in order, materialises inputs and constants, dispatches call
// nodes to kernels, checks produced values against metadata, frees dead values.
#include "core/exec/executor.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "core/exec/kernel.h"
#include "core/exec/materialize.h"
#include "core/exec/synth.h"
#include "core/ops/registry.h"

namespace ls::exec {

// ---------------------------------------------------------------- ConstantCache

Result<Tensor> ConstantCache::fetch(const ir::Constant& c) {
  uint64_t key = c.contentHash != 0 ? c.contentHash : ir::constantContentHash(c);
  {
    std::lock_guard lock(mu_);
    auto it = map_.find(key);
    if (it != map_.end() && it->second.dtype() == c.dtype && it->second.shape() == c.shape) {
      ++hits_;
      return it->second;
    }
    ++misses_;
  }
  // A view of the bytes (kernels never write into their inputs), or made once by materialize;
  // kept here too, so a run never loses a value to the shared cache's eviction.
  LS_ASSIGN_OR_RETURN(t, materialize(c));
  std::lock_guard lock(mu_);
  map_.emplace(key, t);
  return t;
}

Tensor ConstantCache::get(const ir::Constant& c) {
  auto t = fetch(c);
  if (!t) throw std::runtime_error(t.message());
  return std::move(*t);
}

size_t ConstantCache::size() const {
  std::lock_guard lock(mu_);
  return map_.size();
}

void ConstantCache::clear() {
  std::lock_guard lock(mu_);
  map_.clear();
  hits_ = misses_ = 0;
}

uint64_t ConstantCache::hits() const {
  std::lock_guard lock(mu_);
  return hits_;
}

uint64_t ConstantCache::misses() const {
  std::lock_guard lock(mu_);
  return misses_;
}

// ---------------------------------------------------------------- RunValues

const std::vector<Tensor>& RunValues::of(ir::NodeId id) const {
  static const std::vector<Tensor> kNone;
  return id < byNode.size() ? byNode[id] : kNone;
}

const Tensor& RunValues::at(ir::ValueRef r) const {
  static const Tensor kNone;
  const auto& v = of(r.node);
  return r.output < v.size() ? v[r.output] : kNone;
}

const Tensor& RunValues::byName(const ir::Graph& g, std::string_view name, uint32_t output) const {
  return at(ir::ValueRef{g.findByName(name), output});
}

// ---------------------------------------------------------------- Executor

namespace {

int defaultThreads() {
  unsigned hw = std::thread::hardware_concurrency();
  return int(std::clamp(hw, 1u, 4u));
}

Status checkAgainstMeta(const Tensor& t, const ir::TensorMeta& m, const char* what) {
  if (!m.isTensor()) return Status::ok();
  if (!t.defined())
    return Status::error(fmt::format("{}: no value, metadata says {}", what, ir::toString(m)));
  if (t.dtype() != m.dtype || t.shape() != m.shape)
    return Status::error(fmt::format("{}: value is {} but metadata says {}", what, ir::toString(t.meta()),
                                     ir::toString(ir::TensorMeta(m.dtype, m.shape))));
  return Status::ok();
}

/// `m` with float32 read as float64 (ExecOptions::float64).
ir::TensorMeta widened(const ir::TensorMeta& m) {
  if (m.dtype != ir::DType::Float32) return m;
  ir::TensorMeta w = m;
  w.dtype = ir::DType::Float64;
  return w;
}

/// A float64 value back to the float32 its metadata records (ExecOptions::float64).
void narrowTo(Tensor& t, const ir::TensorMeta& m) {
  if (t.defined() && t.dtype() == ir::DType::Float64 && m.dtype == ir::DType::Float32) t = t.to(ir::DType::Float32);
}

Result<std::vector<Tensor>> defaultDelegateRunner(Executor& ex, const ir::Node& callNode, const ir::Graph& sub,
                                                  const std::vector<Tensor>& inputs) {
  (void)callNode;
  return ex.run(sub, inputs);
}

}  // namespace

Executor::Executor(ExecOptions options, std::shared_ptr<ConstantCache> constants)
    : options_(options),
      threads_(options.threads > 0 ? options.threads : defaultThreads()),
      constants_(constants ? std::move(constants) : std::make_shared<ConstantCache>()),
      delegateRunner_(defaultDelegateRunner) {}

Result<std::vector<Tensor>> Executor::run(const ir::Graph& g, const std::vector<Tensor>& inputs) {
  std::vector<std::vector<Tensor>> values;
  std::vector<Tensor> outputs;
  LS_RETURN_IF_ERROR(execute(g, inputs, false, values, outputs));
  return outputs;
}

Result<RunValues> Executor::runAll(const ir::Graph& g, const std::vector<Tensor>& inputs) {
  RunValues r;
  LS_RETURN_IF_ERROR(execute(g, inputs, true, r.byNode, r.outputs));
  return r;
}

Result<std::vector<Tensor>> Executor::run(const ir::Graph& g, const std::vector<Tensor>& inputs,
                                          const ObserveFn& observe) {
  std::vector<std::vector<Tensor>> values;
  std::vector<Tensor> outputs;
  LS_RETURN_IF_ERROR(execute(g, inputs, false, values, outputs, nullptr, &observe));
  return outputs;
}

Result<RunValues> Executor::runAll(const ir::Graph& g, const std::vector<Tensor>& inputs, const ReuseFn& reuse) {
  RunValues r;
  LS_RETURN_IF_ERROR(execute(g, inputs, true, r.byNode, r.outputs, &reuse));
  return r;
}

Result<std::vector<Tensor>> Executor::runDelegate(const ir::Graph& parent, const ir::Node& callNode,
                                                  std::string_view name, const std::vector<Tensor>& inputs) {
  auto it = parent.subgraphs().find(name);
  if (it == parent.subgraphs().end() || !it->second)
    return Status::error(fmt::format("delegate '{}': the graph has no subgraph named '{}'", callNode.name, name));
  if (depth_ >= 16)
    return Status::error(fmt::format("delegate '{}': subgraph nesting deeper than 16 (recursive subgraph '{}'?)",
                                     callNode.name, name));
  ++depth_;
  auto r = delegateRunner_(*this, callNode, *it->second, inputs);
  --depth_;
  if (!r) return Status::error(fmt::format("delegate '{}' (subgraph '{}'): {}", callNode.name, name, r.message()));
  return r;
}

std::vector<std::pair<std::string, double>> Executor::profile() const {
  std::vector<std::pair<std::string, double>> out(profile_.begin(), profile_.end());
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.second > b.second; });
  return out;
}

Status Executor::execute(const ir::Graph& g, const std::vector<Tensor>& inputs, bool keepAll,
                         std::vector<std::vector<Tensor>>& values, std::vector<Tensor>& outputs,
                         const ReuseFn* reuse, const ObserveFn* observe) {
  const std::string& model = g.modelName;
  auto where = [&](const ir::Node& n) {
    return fmt::format("{}node '{}' ({})", model.empty() ? "" : model + ": ", n.name,
                       n.isCall() ? ir::opName(n.op) : std::string(ir::nodeKindName(n.kind)));
  };
  const size_t n = g.size();
  values.assign(g.nextId(), {});
  outputs.clear();

  // Last reader (position) of every node, so values die as early as possible.
  std::vector<size_t> lastUse;
  if (!keepAll) {
    lastUse.assign(g.nextId(), 0);
    for (size_t pos = 0; pos < n; ++pos) {
      const ir::Node& node = g.at(pos);
      node.forEachInput([&](const ir::ValueRef& r) {
        if (r.node < lastUse.size()) lastUse[r.node] = std::max(lastUse[r.node], pos);
      });
    }
  }
  std::vector<std::vector<ir::NodeId>> dieAfter(keepAll ? 0 : n);
  if (!keepAll)
    for (size_t pos = 0; pos < n; ++pos) {
      ir::NodeId id = g.at(pos).id;
      dieAfter[std::max(lastUse[id], pos)].push_back(id);  // unused values die right away
    }

  ops::InferenceCache inferCache;
  std::vector<ir::TensorMeta> metas;
  auto wide = [&](const ir::TensorMeta& m) { return options_.float64 ? widened(m) : m; };
  const KernelRegistry& kernels = KernelRegistry::instance();
  size_t nextInput = 0;
  bool sawOutput = false;

  for (size_t pos = 0; pos < n; ++pos) {
    const ir::Node& node = g.at(pos);
    if (reuse && *reuse && node.kind != ir::NodeKind::Output)
      if (const std::vector<Tensor>* given = (*reuse)(node, values)) {
        if (node.kind == ir::NodeKind::Placeholder) ++nextInput;
        values[node.id] = *given;
        if (!keepAll)
          for (ir::NodeId dead : dieAfter[pos]) values[dead].clear();
        if (progress_ && depth_ == 0) progress_(pos + 1, n);
        continue;
      }
    switch (node.kind) {
      case ir::NodeKind::Placeholder: {
        if (nextInput >= inputs.size())
          return Status::error(fmt::format("{}: graph input #{} was not given ({} inputs passed)", where(node),
                                           nextInput, inputs.size()));
        Tensor t = inputs[nextInput++];
        if (options_.float64 && t.dtype() == ir::DType::Float32) t = t.to(ir::DType::Float64);
        if (options_.checkMetadata) LS_RETURN_IF_ERROR(checkAgainstMeta(t, wide(node.meta(0)), "input").withContext(where(node) + ": "));
        values[node.id] = {std::move(t)};
        break;
      }
      case ir::NodeKind::GetAttr: {
        const ir::Constant* c = g.constant(node.target);
        if (!c) return Status::error(fmt::format("{}: no constant named '{}'", where(node), node.target));
        auto fetched = constants_->fetch(*c);
        if (!fetched) return fetched.status().withContext(where(node) + ": ");
        Tensor t = std::move(*fetched);
        if (options_.checkMetadata) LS_RETURN_IF_ERROR(checkAgainstMeta(t, node.meta(0), "constant").withContext(where(node) + ": "));
        if (options_.float64 && t.dtype() == ir::DType::Float32) t = t.to(ir::DType::Float64);
        values[node.id] = {std::move(t)};
        break;
      }
      case ir::NodeKind::Output: {
        sawOutput = true;
        auto take = [&](const ir::ValueRef& r) -> Status {
          if (r.isNone()) {
            outputs.emplace_back();
            return Status::ok();
          }
          if (r.node >= values.size() || r.output >= values[r.node].size())
            return Status::error(fmt::format("{}: returned value #{} has no value", where(node), outputs.size()));
          outputs.push_back(values[r.node][r.output]);
          return Status::ok();
        };
        for (const ir::Arg& a : node.args) {
          if (const ir::RefList* l = a.asRefList()) {
            for (const ir::ValueRef& r : *l) LS_RETURN_IF_ERROR(take(r));
          } else if (const ir::ValueRef* r = a.ref()) {
            LS_RETURN_IF_ERROR(take(*r));
          }
        }
        break;
      }
      case ir::NodeKind::Call: {
        KernelFn fn = kernels.find(node.op);
        if (!fn)
          return Status::error(fmt::format("{}: no kernel for op '{}' in the reference executor", where(node),
                                           ir::opName(node.op)));
        Status st = ops::inferNode(g, node, metas, &inferCache);
        if (!st) return Status::error(fmt::format("{}: {}", where(node), st.message()));
        if (options_.float64)
          for (ir::TensorMeta& m : metas) m = widened(m);
        const ops::OpSchema* schema = ops::OpRegistry::instance().find(node.op);
        auto t0 = options_.profile ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
        KernelCtx ctx(*this, g, node, schema, values, metas, threads_);
        st = fn(ctx);
        if (!st) return Status::error(fmt::format("{}: {}", where(node), st.message()));
        if (options_.profile)
          profile_[ir::opName(node.op)] +=
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (ctx.outputs.size() != metas.size())
          return Status::error(fmt::format("{}: kernel produced {} outputs, metadata inference says {}", where(node),
                                           ctx.outputs.size(), metas.size()));
        for (size_t k = 0; k < metas.size(); ++k) {
          std::string what = fmt::format("output #{}", k);
          LS_RETURN_IF_ERROR(checkAgainstMeta(ctx.outputs[k], metas[k], what.c_str()).withContext(where(node) + ": "));
          if (options_.checkMetadata && k < node.outputs.size())
            LS_RETURN_IF_ERROR(checkAgainstMeta(ctx.outputs[k], wide(node.outputs[k]), what.c_str())
                                   .withContext(where(node) + ": recorded metadata is stale: "));
        }
        values[node.id] = std::move(ctx.outputs);
        break;
      }
      default: break;
    }
    if (observe && *observe && node.kind != ir::NodeKind::Output) (*observe)(node, values[node.id]);
    if (!keepAll)
      for (ir::NodeId dead : dieAfter[pos]) values[dead].clear();
    if (progress_ && depth_ == 0) progress_(pos + 1, n);
  }
  if (nextInput != inputs.size())
    return Status::error(fmt::format("{}graph has {} inputs, {} were passed", model.empty() ? "" : model + ": ",
                                     nextInput, inputs.size()));
  if (!sawOutput) return Status::error(fmt::format("{}graph has no output node", model.empty() ? "" : model + ": "));
  if (options_.float64 && depth_ == 0) {  // back to the graph's float32 at the boundary
    if (const ir::Node* out = g.outputNode()) {
      size_t k = 0;
      for (const ir::Arg& a : out->args) {
        auto narrowOut = [&](const ir::ValueRef& r) {
          if (k < outputs.size() && !r.isNone()) narrowTo(outputs[k], g.meta(r));
          ++k;
        };
        if (const ir::RefList* l = a.asRefList()) {
          for (const ir::ValueRef& r : *l) narrowOut(r);
        } else if (const ir::ValueRef* r = a.ref()) {
          narrowOut(*r);
        }
      }
    }
    if (keepAll)
      for (const ir::NodePtr& p : g.nodes())
        for (size_t k = 0; k < values[p->id].size() && k < p->outputs.size(); ++k) narrowTo(values[p->id][k], p->outputs[k]);
  }
  return Status::ok();
}

}  // namespace ls::exec
