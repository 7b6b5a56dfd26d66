// Retrace engine (the ExportPass equivalent): rebuilds the graph in order; nodes of targeted
// ops ("hot") go through the pass's rewrite hook and meta inference, all other nodes are
// fast-copied with their metadata and keep their NodeId. When a rewrite changes a value's
// metadata, downstream nodes are re-inferred (never left stale, never a give-up).
#pragma once

#include <unordered_map>

#include "core/passes/pass.h"

namespace ls::passes {

class RetraceEngine;

/// The rewrite hook's view of one hot node. Args of node() are already mapped into the graph
/// being built; emitted nodes are placed before the hot node's position.
class Rewriter {
 public:
  const ir::Node& node() const { return node_; }
  const ir::Graph& graph() const;  ///< the graph being built (inputs of node() live here)
  /// The graph as it was before this pass (complete: users of any of its nodes are known).
  const ir::Graph& sourceGraph() const;
  const ir::TensorMeta& meta(ir::ValueRef r) const;
  const ir::TensorMeta& inputMeta(size_t argIndex) const;  ///< meta of a ref arg, none otherwise
  const PassContext& context() const { return ctx_; }

  /// Emits a new call node (metadata inferred); provenance: this pass, derived from node().
  /// The engine primitive: passes build nodes through passes::NodeBuilder (node_builder.h).
  Result<ir::ValueRef> emit(std::string_view op, std::vector<ir::Arg> args, std::vector<ir::Kwarg> kwargs = {},
                            std::string_view nameHint = {});
  /// Adds a constant (Constant + get_attr node) and returns its value.
  ir::ValueRef addConstant(ir::Constant c, std::string_view nameHint);
  /// Keeps the node (same id) with a new op and/or args; metadata re-inferred.
  void rewriteInPlace(std::string_view op, std::vector<ir::Arg> args, std::vector<ir::Kwarg> kwargs = {});
  void setArgs(std::vector<ir::Arg> args) { rewriteInPlace(ir::opName(node_.op), std::move(args), node_.kwargs); }
  /// Replaces every output of the node by existing values (one per output; a none ref for an
  /// output that must not be used any more). The node itself disappears.
  void replaceWith(std::vector<ir::ValueRef> values);
  void replaceWith(ir::ValueRef v) { replaceWith(std::vector<ir::ValueRef>{v}); }
  /// Records qparams on a value emitted by this rewrite (no effect on other values).
  void setQuant(ir::ValueRef v, std::shared_ptr<const ir::QuantParams> q);
  /// Node ids from here on were emitted by this rewrite.
  ir::NodeId firstEmittedId() const { return firstNew_; }

 private:
  friend class RetraceEngine;
  Rewriter(RetraceEngine& e, ir::Node& node, PassContext& ctx, ir::NodeId firstNew)
      : engine_(e), node_(node), ctx_(ctx), firstNew_(firstNew) {}
  RetraceEngine& engine_;
  ir::Node& node_;
  PassContext& ctx_;
  ir::NodeId firstNew_;
  bool replaced_ = false;
  bool modified_ = false;
  std::vector<ir::ValueRef> replacement_;
};

/// Base of passes that rewrite during the retrace. Implement rewrite() for hot nodes.
class RetracePass : public Pass {
 protected:
  using Pass::Pass;
  /// Called for every hot node (targeted op, allowed to transform). Doing nothing keeps it.
  virtual Status rewrite(Rewriter& rw) = 0;
  PassResult runImpl(ir::Graph& g, PassContext& ctx) final;
  friend class RetraceEngine;
};

/// Runs the retrace of `pass` over `g` (and nested graphs). Exposed for tests/benchmarks.
/// With `pass` == null every node is cold: a pure copy (fast-copy or full re-inference).
Result<bool> retrace(RetracePass* pass, ir::Graph& g, PassContext& ctx);

}  // namespace ls::passes
