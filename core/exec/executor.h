// Reference executor: runs an ir::Graph on concrete tensors with naive-but-reasonable float
// and integer kernels, for semantic checks of passes (run before/after, compare outputs).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/exec/tensor.h"
#include "core/ir/graph.h"
#include "core/util/status.h"

namespace ls::ops {
class InferenceCache;
}  // namespace ls::ops

namespace ls::exec {

/// Materialised constant values, keyed by ir::Constant::contentHash: a constant's data when
/// present, else synthesizeConstant() (seeded by its name). Every graph version of a lineage
/// that shares this cache sees the same weights, and each constant is materialised once.
/// Share one cache across the runs of a pipeline (Executor takes a shared_ptr). Thread-safe.
class ConstantCache {
 public:
  /// The values of `c` (exec::materialize). A cached entry whose dtype or shape differs from
  /// `c` (a hash collision) is never returned: the values are then recomputed. An error when a
  /// recipe cannot be evaluated.
  Result<Tensor> fetch(const ir::Constant& c);
  /// fetch(), throwing std::runtime_error on an error.
  Tensor get(const ir::Constant& c);
  size_t size() const;
  void clear();
  uint64_t hits() const;
  uint64_t misses() const;

 private:
  mutable std::mutex mu_;
  std::unordered_map<uint64_t, Tensor> map_;
  uint64_t hits_ = 0, misses_ = 0;
};

/// Every node's outputs of one run (runAll), indexed by NodeId.
struct RunValues {
  std::vector<Tensor> outputs;                 ///< the graph outputs, in output-slot order
  std::vector<std::vector<Tensor>> byNode;     ///< byNode[id] = outputs of node id (empty if none)

  const std::vector<Tensor>& of(ir::NodeId id) const;
  /// Output `r.output` of node `r.node`; an undefined tensor if absent.
  const Tensor& at(ir::ValueRef r) const;
  /// Output `output` of the node named `name` in `g`; an undefined tensor if absent.
  const Tensor& byName(const ir::Graph& g, std::string_view name, uint32_t output = 0) const;
};

struct ExecOptions {
  /// Threads kernels may use; 0 = hardware concurrency capped at 4.
  int threads = 0;
  /// Compare every produced value with the graph's recorded metadata (dtype and shape) and
  /// fail on a mismatch (stale metadata after a pass is then reported, not silently used).
  bool checkMetadata = true;
  /// Record the time spent per op (see Executor::profile()).
  bool profile = false;
  /// Matrix products (mm, bmm, addmm, linear, convolution via GEMM) accumulate in double. A
  /// fake-quantised graph then rounds its products to quantisation steps as the exact int32
  /// accumulation of an integer lowering does, instead of flipping ties that float32
  /// summation order moved (INT verification turns it on).
  bool exactAccumulation = false;
  /// Float32 matrix products as one chain of fused multiply-adds per element in k order
  /// (exec::gemmOrdered): the same bits on every CPU, at float32 speed (the quantizer's
  /// calibration). exactAccumulation wins when both are set.
  bool orderedAccumulation = false;
  /// Evaluate float32 values in float64: float32 graph inputs and constants are widened,
  /// every float32 value the metadata inference gives a node is produced as float64 by its
  /// kernel, and the graph outputs (and runAll's values) come back rounded to float32. A
  /// quantised q/dq graph then rounds to quantisation steps the exact value an integer
  /// lowering computes (its dequantize, sums, bias add and x / scale no longer round to
  /// float32), so near-ties decide as the integer graph does (INT verification turns it on).
  /// A kernel without a float64 path fails with an error naming node and op.
  bool float64 = false;
  /// Keep the constants' values a run makes (synthesised, or computed from a recipe) in the
  /// executor's ConstantCache and exec::MaterializeCache, for the next run. Off: each is made
  /// for the run that reads it (exec::Retain::Transient) and freed after its last reader, so
  /// runEach() holds the weights of the nodes in flight instead of every weight of the graph
  /// (calibration of a large shape-only model). Values are the same either way.
  bool keepConstants = true;
};

class Executor;

/// Per node id of `g`: 1 when no graph input reaches the node's values (get_attr, and calls
/// that read only such values: a weight's transpose, a mask built from constants). runEach
/// computes them once for all runs; a lowering folds them into constants.
std::vector<uint8_t> inputFreeNodes(const ir::Graph& g);

/// Runs the nested graph of a delegate call. `inputs` are the call's input tensors in order;
/// returns the subgraph's outputs. The default runs `subgraph` with the same executor.
using DelegateRunner = std::function<Result<std::vector<Tensor>>(
    Executor& executor, const ir::Node& callNode, const ir::Graph& subgraph, const std::vector<Tensor>& inputs)>;

/// Runs graphs on concrete tensors. Kernels are looked up by op name in KernelRegistry;
/// output metadata comes from ops::inferNode. A call whose op has no kernel fails with an
/// error naming the node and the op. Not thread-safe: use one Executor per thread (they may
/// share a ConstantCache).
class Executor {
 public:
  explicit Executor(ExecOptions options = {}, std::shared_ptr<ConstantCache> constants = nullptr);

  /// Runs `g` on `inputs` (one per placeholder, in placeholder order) and returns the graph
  /// outputs in output-slot order. Intermediate values are freed after their last use.
  Result<std::vector<Tensor>> run(const ir::Graph& g, const std::vector<Tensor>& inputs);
  /// Like run(), keeping every node's outputs (for tests and debugging tools).
  Result<RunValues> runAll(const ir::Graph& g, const std::vector<Tensor>& inputs);
  /// Asked before each node runs, with the values computed so far (by NodeId): values to take
  /// instead of computing the node, or null to compute it. The caller guarantees they are
  /// what the node would compute (incremental re-runs after a pass).
  using ReuseFn = std::function<const std::vector<Tensor>*(const ir::Node& node,
                                                            const std::vector<std::vector<Tensor>>& values)>;
  /// Called with every node's outputs right after they are produced (calibration observers).
  using ObserveFn = std::function<void(const ir::Node& node, const std::vector<Tensor>& outputs)>;
  /// run() calling `observe` for every placeholder, get_attr and call node (values are still
  /// freed after their last use, so memory stays that of run()).
  Result<std::vector<Tensor>> run(const ir::Graph& g, const std::vector<Tensor>& inputs, const ObserveFn& observe);
  /// runAll() taking the values `reuse` offers as given.
  Result<RunValues> runAll(const ir::Graph& g, const std::vector<Tensor>& inputs, const ReuseFn& reuse);

  /// Called with the outputs of a node in run `run` of runEach(). Calls for different runs
  /// may come from different threads at the same time, never two for the same run.
  using RunObserveFn = std::function<void(size_t run, const ir::Node& node, const std::vector<Tensor>& outputs)>;
  /// run() once per entry of `inputs` (outputs per run, in that order), node by node across the
  /// runs: a node whose values do not depend on the graph inputs (a constant, or a call whose
  /// inputs are all such values, such as a weight's transpose) is computed once and shared by
  /// every run, and freed after its last use in all of them; the runs' calls of every other
  /// node are spread over threads() threads (their kernels then run on one thread each; a
  /// kernel's results never depend on its thread count), the runs one after the other for a
  /// graph with delegate calls. The values equal those of run() per input set, bit for bit.
  /// Memory: the live values of all the runs at once (shared ones once); a get_attr's value is
  /// made right before its first reader (graphs list them first). `observe`, if set,
  /// sees every placeholder, get_attr and call node of every run (shared values once per run).
  Result<std::vector<std::vector<Tensor>>> runEach(const ir::Graph& g, const std::vector<std::vector<Tensor>>& inputs,
                                                   const RunObserveFn& observe = nullptr);

  /// Runs the subgraph `name` of `parent` for a delegate call node (through the
  /// DelegateRunner). Errors name the call node and the subgraph.
  Result<std::vector<Tensor>> runDelegate(const ir::Graph& parent, const ir::Node& callNode, std::string_view name,
                                          const std::vector<Tensor>& inputs);
  void setDelegateRunner(DelegateRunner runner) { delegateRunner_ = std::move(runner); }
  /// Called after every node of a top-level run (not of delegate subgraphs) with the nodes done
  /// and the graph's node count, on the running thread (progress reporting).
  using NodeProgressFn = std::function<void(size_t done, size_t total)>;
  void setProgress(NodeProgressFn progress) { progress_ = std::move(progress); }

  ConstantCache& constants() { return *constants_; }
  const ExecOptions& options() const { return options_; }
  int threads() const { return threads_; }

  /// Seconds per op name accumulated over all runs since the last resetProfile() (only
  /// with ExecOptions::profile), sorted by time, largest first.
  std::vector<std::pair<std::string, double>> profile() const;
  void resetProfile() { profile_.clear(); }

 private:
  Status execute(const ir::Graph& g, const std::vector<Tensor>& inputs, bool keepAll,
                 std::vector<std::vector<Tensor>>& values, std::vector<Tensor>& outputs,
                 const ReuseFn* reuse = nullptr, const ObserveFn* observe = nullptr);
  /// The value of a placeholder given `t` (widened under float64, checked against metadata).
  Result<Tensor> inputValue(const ir::Graph& g, const ir::Node& node, Tensor t) const;
  /// The value of a get_attr node (through the ConstantCache, widened under float64).
  Result<Tensor> constantValue(const ir::Graph& g, const ir::Node& node);
  /// The output metadata of call node `node` (ops::inferNode; widened under float64).
  Status inferCall(const ir::Graph& g, const ir::Node& node, ops::InferenceCache& cache,
                   std::vector<ir::TensorMeta>& metas) const;
  /// Runs call node `node` on `values` with its kernel `fn` and inferred `metas` on `threads`
  /// threads into `outs`, checking what it produced; adds the kernel's seconds to `seconds`.
  Status callKernel(const ir::Graph& g, const ir::Node& node, const std::vector<std::vector<Tensor>>& values,
                    const std::vector<ir::TensorMeta>& metas, int threads, std::vector<Tensor>& outs,
                    double& seconds);
  /// The graph outputs from `values` (the output node's references, in slot order).
  Status collectOutputs(const ir::Graph& g, const ir::Node& outputNode, const std::vector<std::vector<Tensor>>& values,
                        std::vector<Tensor>& outputs) const;
  /// float64 runs: the graph outputs back to their float32 metadata.
  void narrowOutputs(const ir::Graph& g, std::vector<Tensor>& outputs) const;

  ExecOptions options_;
  int threads_ = 1;
  std::shared_ptr<ConstantCache> constants_;
  DelegateRunner delegateRunner_;
  NodeProgressFn progress_;
  int depth_ = 0;  // nested delegate depth (guards against self-referencing subgraphs)
  std::unordered_map<std::string, double> profile_;
};

}  // namespace ls::exec
