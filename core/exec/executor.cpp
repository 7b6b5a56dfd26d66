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
#include "core/exec/parallel.h"
#include "core/exec/synth.h"
#include "core/ops/registry.h"
#include "core/ir/op_ref.h"

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

namespace {

std::string whereOf(const ir::Graph& g, const ir::Node& n) {
  return fmt::format("{}node '{}' ({})", g.modelName.empty() ? "" : g.modelName + ": ", n.name,
                     n.isCall() ? ir::opName(n.op) : std::string(ir::nodeKindName(n.kind)));
}

std::string graphPrefix(const ir::Graph& g) { return g.modelName.empty() ? "" : g.modelName + ": "; }

}  // namespace

std::vector<uint8_t> inputFreeNodes(const ir::Graph& g) {
  std::vector<uint8_t> free(g.nextId(), 0);
  for (const ir::NodePtr& p : g.nodes()) {
    if (p->kind == ir::NodeKind::GetAttr) free[p->id] = 1;
    if (p->kind != ir::NodeKind::Call) continue;
    bool all = true;
    p->forEachInput([&](const ir::ValueRef& r) { all = all && r.node < free.size() && free[r.node]; });
    free[p->id] = all;
  }
  return free;
}

namespace {

/// dieAfter[pos]: the nodes whose values are dead once the node at `pos` has run (after their
/// last reader; a value nobody reads dies right after it is made).
std::vector<std::vector<ir::NodeId>> deathSchedule(const ir::Graph& g) {
  const size_t n = g.size();
  std::vector<size_t> lastUse(g.nextId(), 0);
  for (size_t pos = 0; pos < n; ++pos)
    g.at(pos).forEachInput([&](const ir::ValueRef& r) {
      if (r.node < lastUse.size()) lastUse[r.node] = std::max(lastUse[r.node], pos);
    });
  std::vector<std::vector<ir::NodeId>> dieAfter(n);
  for (size_t pos = 0; pos < n; ++pos) {
    ir::NodeId id = g.at(pos).id;
    dieAfter[std::max(lastUse[id], pos)].push_back(id);
  }
  return dieAfter;
}

}  // namespace

Result<Tensor> Executor::inputValue(const ir::Graph& g, const ir::Node& node, Tensor t) const {
  if (options_.float64 && t.dtype() == ir::DType::Float32) t = t.to(ir::DType::Float64);
  if (options_.checkMetadata) {
    const ir::TensorMeta& m = node.meta(0);
    LS_RETURN_IF_ERROR(
        checkAgainstMeta(t, options_.float64 ? widened(m) : m, "input").withContext(whereOf(g, node) + ": "));
  }
  return t;
}

Result<Tensor> Executor::constantValue(const ir::Graph& g, const ir::Node& node) {
  const ir::Constant* c = g.constant(node.target);
  if (!c) return Status::error(fmt::format("{}: no constant named '{}'", whereOf(g, node), node.target));
  auto fetched = options_.keepConstants ? constants_->fetch(*c) : materialize(*c, Retain::Transient);
  if (!fetched) return fetched.status().withContext(whereOf(g, node) + ": ");
  Tensor t = std::move(*fetched);
  if (options_.checkMetadata)
    LS_RETURN_IF_ERROR(checkAgainstMeta(t, node.meta(0), "constant").withContext(whereOf(g, node) + ": "));
  if (options_.float64 && t.dtype() == ir::DType::Float32) t = t.to(ir::DType::Float64);
  return t;
}

Status Executor::inferCall(const ir::Graph& g, const ir::Node& node, ops::InferenceCache& cache,
                           std::vector<ir::TensorMeta>& metas) const {
  Status st = ops::inferNode(g, node, metas, &cache);
  if (!st) return Status::error(fmt::format("{}: {}", whereOf(g, node), st.message()));
  if (options_.float64)
    for (ir::TensorMeta& m : metas) m = widened(m);
  return Status::ok();
}

Status Executor::callKernel(const ir::Graph& g, const ir::Node& node, const std::vector<std::vector<Tensor>>& values,
                            const std::vector<ir::TensorMeta>& metas, int threads, std::vector<Tensor>& outs,
                            double& seconds) {
  KernelFn fn = KernelRegistry::instance().find(node.op);
  if (!fn)
    return Status::error(fmt::format("{}: no kernel for op '{}' in the reference executor", whereOf(g, node),
                                     ir::opName(node.op)));
  const ops::OpSchema* schema = ops::OpRegistry::instance().find(node.op);
  auto t0 = options_.profile ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
  KernelCtx ctx(*this, g, node, schema, values, metas, threads);
  Status st = fn(ctx);
  if (!st) return Status::error(fmt::format("{}: {}", whereOf(g, node), st.message()));
  if (options_.profile) seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (ctx.outputs.size() != metas.size())
    return Status::error(fmt::format("{}: kernel produced {} outputs, metadata inference says {}", whereOf(g, node),
                                     ctx.outputs.size(), metas.size()));
  for (size_t k = 0; k < metas.size(); ++k) {
    std::string what = fmt::format("output #{}", k);
    LS_RETURN_IF_ERROR(checkAgainstMeta(ctx.outputs[k], metas[k], what.c_str()).withContext(whereOf(g, node) + ": "));
    if (options_.checkMetadata && k < node.outputs.size())
      LS_RETURN_IF_ERROR(checkAgainstMeta(ctx.outputs[k], options_.float64 ? widened(node.outputs[k]) : node.outputs[k],
                                          what.c_str())
                             .withContext(whereOf(g, node) + ": recorded metadata is stale: "));
  }
  outs = std::move(ctx.outputs);
  return Status::ok();
}

Status Executor::collectOutputs(const ir::Graph& g, const ir::Node& outputNode,
                                const std::vector<std::vector<Tensor>>& values, std::vector<Tensor>& outputs) const {
  auto take = [&](const ir::ValueRef& r) -> Status {
    if (r.isNone()) {
      outputs.emplace_back();
      return Status::ok();
    }
    if (r.node >= values.size() || r.output >= values[r.node].size())
      return Status::error(fmt::format("{}: returned value #{} has no value", whereOf(g, outputNode), outputs.size()));
    outputs.push_back(values[r.node][r.output]);
    return Status::ok();
  };
  for (const ir::Arg& a : outputNode.args) {
    if (const ir::RefList* l = a.asRefList()) {
      for (const ir::ValueRef& r : *l) LS_RETURN_IF_ERROR(take(r));
    } else if (const ir::ValueRef* r = a.ref()) {
      LS_RETURN_IF_ERROR(take(*r));
    }
  }
  return Status::ok();
}

void Executor::narrowOutputs(const ir::Graph& g, std::vector<Tensor>& outputs) const {
  const ir::Node* out = g.outputNode();
  if (!out) return;
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

Status Executor::execute(const ir::Graph& g, const std::vector<Tensor>& inputs, bool keepAll,
                         std::vector<std::vector<Tensor>>& values, std::vector<Tensor>& outputs,
                         const ReuseFn* reuse, const ObserveFn* observe) {
  const size_t n = g.size();
  values.assign(g.nextId(), {});
  outputs.clear();
  // Last reader (position) of every node, so values die as early as possible.
  const std::vector<std::vector<ir::NodeId>> dieAfter = keepAll ? std::vector<std::vector<ir::NodeId>>{} : deathSchedule(g);

  ops::InferenceCache inferCache;
  std::vector<ir::TensorMeta> metas;
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
          return Status::error(fmt::format("{}: graph input #{} was not given ({} inputs passed)", whereOf(g, node),
                                           nextInput, inputs.size()));
        LS_ASSIGN_OR_RETURN(t, inputValue(g, node, inputs[nextInput++]));
        values[node.id] = {std::move(t)};
        break;
      }
      case ir::NodeKind::GetAttr: {
        LS_ASSIGN_OR_RETURN(t, constantValue(g, node));
        values[node.id] = {std::move(t)};
        break;
      }
      case ir::NodeKind::Output:
        sawOutput = true;
        LS_RETURN_IF_ERROR(collectOutputs(g, node, values, outputs));
        break;
      case ir::NodeKind::Call: {
        LS_RETURN_IF_ERROR(inferCall(g, node, inferCache, metas));
        double seconds = 0.0;
        std::vector<Tensor> outs;
        LS_RETURN_IF_ERROR(callKernel(g, node, values, metas, threads_, outs, seconds));
        if (options_.profile) profile_[ir::opName(node.op)] += seconds;
        values[node.id] = std::move(outs);
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
    return Status::error(fmt::format("{}graph has {} inputs, {} were passed", graphPrefix(g), nextInput, inputs.size()));
  if (!sawOutput) return Status::error(fmt::format("{}graph has no output node", graphPrefix(g)));
  if (options_.float64 && depth_ == 0) {  // back to the graph's float32 at the boundary
    narrowOutputs(g, outputs);
    if (keepAll)
      for (const ir::NodePtr& p : g.nodes())
        for (size_t k = 0; k < values[p->id].size() && k < p->outputs.size(); ++k) narrowTo(values[p->id][k], p->outputs[k]);
  }
  return Status::ok();
}

Result<std::vector<std::vector<Tensor>>> Executor::runEach(const ir::Graph& g,
                                                           const std::vector<std::vector<Tensor>>& inputs,
                                                           const RunObserveFn& observe) {
  const size_t runs = inputs.size(), n = g.size();
  std::vector<std::vector<Tensor>> outputs(runs);
  if (runs == 0) return outputs;
  // Shared: what no graph input reaches, made once for all runs.
  const std::vector<uint8_t> shared = inputFreeNodes(g);
  bool delegates = false;
  for (size_t pos = 0; pos < n; ++pos)
    if (g.at(pos).kind == ir::NodeKind::Call && g.at(pos).op == LS_OP(kCallDelegateOp)) delegates = true;
  const std::vector<std::vector<ir::NodeId>> dieAfter = deathSchedule(g);
  // A get_attr is made right before its first reader (makeBefore), not where the graph lists
  // it: graphs list every get_attr first, and a run would otherwise hold all the weights from
  // its start (which matters when they are not kept, ExecOptions::keepConstants).
  std::vector<size_t> firstUse(g.nextId(), n);
  for (size_t pos = n; pos-- > 0;)
    g.at(pos).forEachInput([&](const ir::ValueRef& r) {
      if (r.node < firstUse.size()) firstUse[r.node] = pos;
    });
  std::vector<std::vector<ir::NodeId>> makeBefore(n);
  for (size_t pos = 0; pos < n; ++pos) {
    const ir::Node& node = g.at(pos);
    if (node.kind == ir::NodeKind::GetAttr && firstUse[node.id] > pos && firstUse[node.id] < n)
      makeBefore[firstUse[node.id]].push_back(node.id);
  }
  // The runs share threads_ threads (each run's kernels then single-threaded); delegate calls
  // re-enter this executor (its nesting depth), so such graphs run the runs one by one.
  const int runThreads = delegates ? 1 : int(std::min<size_t>(size_t(threads_), runs));
  const int kernelThreads = std::max(1, threads_ / std::max(runThreads, 1));
  WorkerPool pool(runThreads);

  std::vector<std::vector<std::vector<Tensor>>> values(runs, std::vector<std::vector<Tensor>>(g.nextId()));
  std::vector<size_t> nextInput(runs, 0);
  std::vector<Status> errors(runs, Status::ok());
  ops::InferenceCache inferCache;
  std::vector<ir::TensorMeta> metas;
  bool sawOutput = false;
  auto observeAll = [&](const ir::Node& node, size_t r) {
    if (observe && node.kind != ir::NodeKind::Output) observe(r, node, values[r][node.id]);
  };

  auto makeConstant = [&](const ir::Node& node) -> Status {
    LS_ASSIGN_OR_RETURN(t, constantValue(g, node));
    for (size_t r = 0; r < runs; ++r) {
      values[r][node.id] = {t};
      observeAll(node, r);
    }
    return Status::ok();
  };

  for (size_t pos = 0; pos < n; ++pos) {
    const ir::Node& node = g.at(pos);
    for (ir::NodeId id : makeBefore[pos]) LS_RETURN_IF_ERROR(makeConstant(g.node(id)));
    switch (node.kind) {
      case ir::NodeKind::Placeholder:
        for (size_t r = 0; r < runs; ++r) {
          if (nextInput[r] >= inputs[r].size())
            return Status::error(fmt::format("run {}: {}: graph input #{} was not given ({} inputs passed)", r,
                                             whereOf(g, node), nextInput[r], inputs[r].size()));
          LS_ASSIGN_OR_RETURN(t, inputValue(g, node, inputs[r][nextInput[r]++]));
          values[r][node.id] = {std::move(t)};
          observeAll(node, r);
        }
        break;
      case ir::NodeKind::GetAttr:
        if (firstUse[node.id] <= pos || firstUse[node.id] == n) LS_RETURN_IF_ERROR(makeConstant(node));
        break;
      case ir::NodeKind::Output:
        sawOutput = true;
        for (size_t r = 0; r < runs; ++r) LS_RETURN_IF_ERROR(collectOutputs(g, node, values[r], outputs[r]));
        break;
      case ir::NodeKind::Call: {
        LS_RETURN_IF_ERROR(inferCall(g, node, inferCache, metas));
        double seconds = 0.0;
        if (shared[node.id]) {  // once, on all the threads, for every run
          std::vector<Tensor> outs;
          LS_RETURN_IF_ERROR(callKernel(g, node, values[0], metas, threads_, outs, seconds));
          for (size_t r = 0; r < runs; ++r) {
            values[r][node.id] = outs;
            observeAll(node, r);
          }
        } else {
          // Threads only for work that pays for starting them (parallelFor's rule of thumb).
          int64_t elements = 0;
          for (const ir::TensorMeta& m : metas) elements += m.isTensor() ? m.shape.numel() : 0;
          const bool split = runThreads > 1 && elements * int64_t(runs) >= 100000;
          std::vector<double> secs(runs, 0.0);
          auto runOne = [&](int64_t r) {
            std::vector<Tensor> outs;
            errors[r] = callKernel(g, node, values[r], metas, split ? kernelThreads : threads_, outs, secs[r]);
            if (!errors[r]) return;
            values[r][node.id] = std::move(outs);
            observeAll(node, size_t(r));
          };
          if (split) pool.forEach(int64_t(runs), runOne);
          else
            for (size_t r = 0; r < runs; ++r) runOne(int64_t(r));
          for (size_t r = 0; r < runs; ++r) {
            if (!errors[r]) return Status::error(fmt::format("run {}: {}", r, errors[r].message()));
            seconds += secs[r];
          }
        }
        if (options_.profile) profile_[ir::opName(node.op)] += seconds;
        break;
      }
      default: break;
    }
    for (size_t r = 0; r < runs; ++r)
      for (ir::NodeId dead : dieAfter[pos]) values[r][dead].clear();
    if (progress_ && depth_ == 0) progress_(pos + 1, n);
  }
  for (size_t r = 0; r < runs; ++r)
    if (nextInput[r] != inputs[r].size())
      return Status::error(fmt::format("run {}: {}graph has {} inputs, {} were passed", r, graphPrefix(g),
                                       nextInput[r], inputs[r].size()));
  if (!sawOutput) return Status::error(fmt::format("{}graph has no output node", graphPrefix(g)));
  if (options_.float64 && depth_ == 0)
    for (std::vector<Tensor>& o : outputs) narrowOutputs(g, o);
  return outputs;
}

}  // namespace ls::exec
