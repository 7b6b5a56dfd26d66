// In-place graph editing for passes that mutate directly (pattern match, rewire, erase),
// followed by a metadata refresh of every touched node and everything downstream of a change.
#pragma once

#include <unordered_map>
#include <unordered_set>

#include "core/passes/pass.h"

namespace ls::passes {

/// A value that replaces another keeps its quantisation annotation: when `to` (same dtype, and
/// the same shape unless the qparams are per tensor; no qparams of its own) takes the place of
/// a value annotated with `from.quant`, it
/// inherits them, so qparams recorded by a pass (FoldAndAnnotateQParamsPass) survive later
/// rewrites of the node that carries them.
void inheritQuant(ir::Graph& g, const ir::TensorMeta& from, ir::ValueRef to);

/// Meta functions do not know qparams: after re-inferring a node, outputs that keep their dtype
/// keep the annotation they had (`before`: the node's outputs before inference).
void keepQuantAnnotations(const std::vector<ir::TensorMeta>& before, std::vector<ir::TensorMeta>& after);

/// Edits one graph on behalf of a pass. New nodes record provenance (this pass, derived from
/// the given nodes). Call finish() once at the end: it re-infers touched nodes and every node
/// downstream whose input metadata changed, so no metadata is ever left stale.
class GraphEditor {
 public:
  GraphEditor(ir::Graph& g, const Pass& pass, PassContext& ctx) : g_(g), pass_(pass), ctx_(ctx) {}

  ir::Graph& graph() { return g_; }
  const ir::Graph& graph() const { return g_; }

  /// Inserts a call node before/after `anchor`; metadata inferred immediately. The engine
  /// primitives: passes build nodes through passes::NodeBuilder (node_builder.h).
  Result<ir::ValueRef> insertBefore(ir::NodeId anchor, std::string_view op, std::vector<ir::Arg> args,
                                    std::vector<ir::Kwarg> kwargs = {}, std::string_view nameHint = {},
                                    std::vector<ir::NodeId> derivedFrom = {});
  Result<ir::ValueRef> insertAfter(ir::NodeId anchor, std::string_view op, std::vector<ir::Arg> args,
                                   std::vector<ir::Kwarg> kwargs = {}, std::string_view nameHint = {},
                                   std::vector<ir::NodeId> derivedFrom = {});
  /// Adds a constant and its get_attr node before `anchor`.
  ir::ValueRef addConstant(ir::NodeId anchor, ir::Constant c, std::string_view nameHint,
                           std::vector<ir::NodeId> derivedFrom = {});

  /// Points every use of `from` at `to` (including output slots), except uses inside `to`'s
  /// own node. Returns the number of rewired uses.
  size_t replaceAllUses(ir::ValueRef from, ir::ValueRef to);
  /// Many replacements in one sweep over the graph (output 0 of each key node -> its value),
  /// where one replaceAllUses per value would rebuild the users index each time.
  size_t replaceAllUses(const std::unordered_map<ir::NodeId, ir::ValueRef>& into);
  /// Rewires one user's uses of `from` (all of its slots that read `from`).
  size_t replaceUse(ir::NodeId user, ir::ValueRef from, ir::ValueRef to);
  /// Rewires output slot `slot` of the graph's output node.
  bool replaceOutputSlot(size_t slot, ir::ValueRef to);
  /// Changes a node's op and/or args in place (same id).
  void setCall(ir::NodeId id, std::string_view op, std::vector<ir::Arg> args, std::vector<ir::Kwarg> kwargs);
  void setArgs(ir::NodeId id, std::vector<ir::Arg> args);
  /// Erases a node; fails if it still has users.
  Status erase(ir::NodeId id);
  /// Removes call/get_attr nodes no live node reads (to the fixpoint: chains go whole), and the
  /// constants only they read. Returns the count.
  size_t eliminateDeadCode();

  /// Refreshes metadata (touched nodes and downstream). Returns an error naming the node.
  Status finish();
  bool changed() const { return changed_; }

 private:
  Result<ir::ValueRef> insertAt(size_t pos, std::string_view op, std::vector<ir::Arg> args,
                                std::vector<ir::Kwarg> kwargs, std::string_view nameHint,
                                std::vector<ir::NodeId> derivedFrom);
  void touch(ir::NodeId id) {
    touched_.insert(id);
    changed_ = true;
  }

  ir::Graph& g_;
  const Pass& pass_;
  PassContext& ctx_;
  std::unordered_set<ir::NodeId> touched_;
  bool changed_ = false;
};

/// Base of in-place passes: implement transform(); the base runs finish() and reports
/// changed/unchanged.
class InPlacePass : public Pass {
 protected:
  using Pass::Pass;
  virtual Status transform(GraphEditor& ed) = 0;
  PassResult runImpl(ir::Graph& g, PassContext& ctx) final;
};

}  // namespace ls::passes
