// Kernel API of the reference executor: KernelCtx (resolved args, input tensors, output
// metadata) and the KernelRegistry that maps op names to kernel functions.
#pragma once

#include <fmt/format.h>

#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/exec/gemm.h"
#include "core/exec/tensor.h"
#include "core/ir/graph.h"
#include "core/ops/builtin_ops.h"
#include "core/ops/registry.h"
#include "core/util/status.h"

namespace ls::exec {

class Executor;

/// One operand of an elementwise op: a tensor, or a Python number in a Tensor slot
/// (torch 1.13 traces `x / 8` as div.Tensor(x, 8.0)) or a Scalar arg.
struct Operand {
  const Tensor* tensor = nullptr;  ///< null for a number
  double number = 0.0;
  int64_t intValue = 0;  ///< exact value when isInt
  bool isInt = false;   ///< the number was an int (or bool)
  bool isBool = false;  ///< the number was a bool
};

/// Everything a kernel sees while executing one call node. Args are resolved against the
/// op's schema exactly as ops::MetaCtx does (positional unless keyword-only, else keyword by
/// name, else the schema default, else None); ops without a schema see positional args only.
/// Output metadata comes from ops::inferNode, so kernels never re-derive shapes or dtypes.
class KernelCtx {
 public:
  KernelCtx(Executor& executor, const ir::Graph& graph, const ir::Node& node, const ops::OpSchema* schema,
            const std::vector<std::vector<Tensor>>& values, const std::vector<ir::TensorMeta>& outMetas, int threads);

  const ir::Graph& graph() const { return graph_; }
  const ir::Node& node() const { return node_; }
  const ops::OpSchema* schema() const { return schema_; }
  const std::string& opName() const;
  Executor& executor() { return executor_; }
  /// Threads a kernel may use (>= 1).
  int threads() const { return threads_; }
  /// How matrix products accumulate (ExecOptions::exactAccumulation, orderedAccumulation).
  Accumulation accumulation() const;

  // ---- args ----
  const ir::Arg& arg(int i) const;
  /// Index of a schema arg by name (-1 if absent or no schema).
  int argIndex(std::string_view name) const { return schema_ ? schema_->argIndex(name) : -1; }
  bool has(int i) const { return !arg(i).isNone(); }
  Result<int64_t> getInt(int i) const;
  Result<double> getFloat(int i) const;  ///< int / bool accepted
  Result<bool> getBool(int i) const;
  /// int[] arg; a single int expands to `expandTo` copies when expandTo > 0.
  Result<std::vector<int64_t>> getIntList(int i, int expandTo = 0) const;
  std::optional<ir::DType> getDType(int i) const;
  std::optional<std::string> getString(int i) const;

  // ---- tensors ----
  /// The tensor of a value reference; error if the producer has not run or lacks the output.
  Result<const Tensor*> value(ir::ValueRef r) const;
  /// All outputs of a node (for operator.getitem).
  const std::vector<Tensor>& nodeValues(ir::NodeId id) const;
  /// Tensor arg i (must be a reference).
  Result<const Tensor*> tensor(int i) const;
  /// Tensor[] / Tensor?[] arg i; null entries for None.
  Result<std::vector<const Tensor*>> tensorList(int i) const;
  /// Tensor-or-number arg i (elementwise operands, Scalar args).
  Result<Operand> operand(int i) const;

  // ---- outputs ----
  const std::vector<ir::TensorMeta>& outMetas() const { return outMetas_; }
  const ir::TensorMeta& outMeta(size_t k = 0) const { return outMetas_[k]; }
  /// Allocates output k (zero-filled) with its inferred dtype and shape and returns it. The
  /// reference stays valid while the kernel runs (k < outMetas().size()).
  Tensor& newOutput(size_t k = 0);
  /// newOutput without the zero fill, for a kernel that writes every element of it.
  Tensor& newOutputForOverwrite(size_t k = 0);
  /// Sets output k to an existing tensor (e.g. a reshaped view of an input).
  void setOutput(size_t k, Tensor t);
  /// The produced outputs, one per output value (undefined for non-tensor outputs).
  std::vector<Tensor> outputs;

  /// Error helper: the executor prefixes the node and op.
  template <typename... A>
  Status error(fmt::format_string<A...> f, A&&... a) const {
    return Status::error(fmt::format(f, std::forward<A>(a)...));
  }
  std::string argDesc(int i) const;  ///< "arg 'dim' (#1)"

 private:
  Executor& executor_;
  const ir::Graph& graph_;
  const ir::Node& node_;
  const ops::OpSchema* schema_;
  const std::vector<std::vector<Tensor>>& values_;
  const std::vector<ir::TensorMeta>& outMetas_;
  int threads_;
  std::vector<ir::TensorMeta> scratch_;        // MetaCtx's output slot, unused
  std::optional<ops::MetaCtx> resolver_;       // schema arg resolution
};

/// A kernel: reads ctx's inputs and args, fills ctx.outputs (usually via newOutput). Returns
/// an error saying what was expected; the executor prefixes node name and op.
using KernelFn = Status (*)(KernelCtx& ctx);

/// Op name -> kernel. The built-in kernel sets are registered by explicit calls from
/// instance() (not by static initialisers, which a static library would drop); another file
/// (e.g. TOSA kernels) adds its own with registerKernel, and instance() calls its
/// registration function. Thread-safe.
class KernelRegistry {
 public:
  static KernelRegistry& instance();

  /// Registers (or replaces) the kernel for an op overload name ("aten.add.Tensor").
  void registerKernel(std::string_view op, KernelFn fn);
  KernelFn find(ir::OpId op) const;
  KernelFn find(std::string_view op) const;
  /// Names of all ops with a kernel, sorted.
  std::vector<std::string> ops() const;

 private:
  mutable std::shared_mutex mu_;
  std::vector<KernelFn> byId_;
};

// Registration functions of the core kernel sets (called from KernelRegistry::instance();
// backends add theirs through registerBackend, core/passes/backend.h).
void registerElementwiseKernels(KernelRegistry& r);
void registerNnKernels(KernelRegistry& r);
void registerShapeKernels(KernelRegistry& r);
void registerQuantKernels(KernelRegistry& r);
void registerControlKernels(KernelRegistry& r);  ///< operator.getitem, call_delegate
void registerAttentionKernels(KernelRegistry& r);  ///< aten.scaled_dot_product_attention

using ops::kCallDelegateOp;  // core/ops/builtin_ops.h

}  // namespace ls::exec
