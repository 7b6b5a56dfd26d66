// NodeBuilder: the one way a pass builds nodes, whether it rewrites during a retrace (through
// the Rewriter of the hot node) or edits a graph in place (through a GraphEditor, anchored
// before or after a node). Every new node is a registered op with its metadata inferred at
// once and its provenance recorded (this pass, derived from the hot node or the anchor).
// Backends add their own operand helpers on top (arm::Builder: TOSA shapes, zero points).
#pragma once

#include <string_view>
#include <vector>

#include "core/passes/editor.h"
#include "core/passes/retrace.h"

namespace ls::passes {

class NodeBuilder {
 public:
  enum class Placement : uint8_t { Before, After };

  /// Retrace: nodes go before the hot node and derive from it.
  explicit NodeBuilder(Rewriter& rw) : rw_(&rw) {}
  /// In place: nodes go before (or after, in emission order) `anchor` and derive from it.
  NodeBuilder(GraphEditor& ed, ir::NodeId anchor, Placement where = Placement::Before)
      : ed_(&ed), anchor_(anchor), after_(where == Placement::After), derivedFrom_{anchor} {}

  /// A call node of a registered op; the error names the op when it is unknown or its args do
  /// not fit its schema or meta function.
  Result<ir::ValueRef> op(std::string_view op, std::vector<ir::Arg> args, std::vector<ir::Kwarg> kwargs = {},
                          std::string_view nameHint = {});
  /// A constant and its get_attr node (constants have no inputs: always placed before).
  ir::ValueRef constant(ir::Constant c, std::string_view nameHint);

  /// In place only: the nodes built from now on record these as what they derive from
  /// (default: the anchor). A retrace always derives new nodes from the hot node.
  void setDerivedFrom(std::vector<ir::NodeId> ids) { derivedFrom_ = std::move(ids); }

  const ir::TensorMeta& meta(ir::ValueRef r) const;
  /// The graph being built (a retrace's new graph, or the edited graph).
  const ir::Graph& graph() const;
  ir::ConstantStore& store() const { return *graph().storePtr(); }
  bool inRetrace() const { return rw_ != nullptr; }

 private:
  Rewriter* rw_ = nullptr;
  GraphEditor* ed_ = nullptr;
  ir::NodeId anchor_ = ir::kInvalidNode;
  bool after_ = false;
  std::vector<ir::NodeId> derivedFrom_;
};

}  // namespace ls::passes
