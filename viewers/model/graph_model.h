// Graph view model: op namespaces for colouring, node labels, diff marks for drawing, node
// search and nested-graph references. No ImGui: tested in tests/viewers/graph_model_test.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/ir/graph.h"
#include "core/graph_layout/graph_layout.h"
#include "core/trace/diff.h"

namespace ls::viewmodel {

/// What colour family a node gets in the graph view.
enum class OpNamespace : uint8_t {
  Aten,       ///< aten.* (and the operator.* helpers of FX graphs)
  Tosa,       ///< tosa.*
  Quantized,  ///< quantized_decomposed.*, quantized.*
  Delegate,   ///< delegate calls (nested graphs run by a backend)
  Input,      ///< placeholders (user inputs)
  Constant,   ///< get_attr and constant placeholders
  Output,     ///< the output node
  Unknown,    ///< ops the registry does not know (opaque) or of any other namespace
  Module,     ///< a folded module (viewmodel::foldModules): many nodes drawn as one box
  COUNT
};
std::string_view opNamespaceName(OpNamespace ns);

OpNamespace classifyNode(const ir::Graph& g, const ir::Node& n);

/// The target of the nodes that stand for a folded module (module_folds.h).
inline constexpr std::string_view kFoldTarget = "lowerscope.fold";
bool isFoldNode(const ir::Node& n);

/// The short op of a node for labels: "aten.convolution.default" -> "convolution",
/// "aten.add.Tensor" -> "add.Tensor", placeholders "input", get_attr "const", output "output".
std::string shortOpName(const ir::Node& n);
/// Label drawn in a box: short op, then the first output's type and shape
/// ("convolution f32[1,32,112,112]"); a folded module's path and node count.
std::string nodeLabel(const ir::Node& n);

/// A parameter input of a node drawn as a badge on it (graph_layout constantBadges).
struct Badge {
  ir::NodeId id = ir::kInvalidNode;  ///< the parameter node
  std::string text;                  ///< "weight 32x3x3x3", "input_zp=0", "shape=[1,-1]"
};
/// The badges of `n`: its inputs `isBadge` accepts, in argument order, each named by the op
/// schema's argument name ("#k" when the op has no schema) with its shape, or its value when
/// it is one element with bytes or a CONST_SHAPE-like nullary call's `values`.
std::vector<Badge> nodeBadges(const ir::Graph& g, const ir::Node& n, const std::function<bool(ir::NodeId)>& isBadge);
/// The badges as one line ("weight 32x3x3x3, bias 32, input_zp=0").
std::string badgeLine(const std::vector<Badge>& badges);
/// Box width (canvas units) for the label and the badge line of `n`, for
/// graph_layout::LayoutOptions::measureWidth: about 8.2 units per glyph, at most 480.
float measureNodeWidth(const ir::Graph& g, const ir::Node& n, bool badges);
/// The graph canvas's layout options (the app's, and ls_gui_bench's so it measures the same
/// layouts): constants beside their single user (`hideConstants`) or as badges on every user
/// (`constantBadges`, boxes one line taller), producers with more than 6 users drawn as stubs,
/// box widths from measureNodeWidth.
graph_layout::LayoutOptions canvasLayoutOptions(bool hideConstants, bool constantBadges);
/// The name of argument `k` of `n` from its op schema ("#k" when unknown).
std::string argName(const ir::Node& n, size_t k);

/// How one node of the shown graph is drawn against the comparison graph.
enum class DiffMark : uint8_t { None, Added, Changed, COUNT };
std::string_view diffMarkName(DiffMark m);

/// A diff prepared for drawing: dense marks by NodeId of the shown graph, removed nodes (drawn
/// as ghosts at their positions in the comparison layout), and counts for the legend.
struct DrawDiff {
  std::vector<uint8_t> markById;  ///< DiffMark by NodeId of the shown graph
  std::vector<ir::NodeId> removed;
  /// (removed node, node of the shown graph that replaced it or was fused from it), from the
  /// diff's provenance links; sorted.
  std::vector<std::pair<ir::NodeId, ir::NodeId>> replacedBy;
  size_t added = 0, changed = 0, unchanged = 0;
  DiffMark mark(ir::NodeId id) const { return id < markById.size() ? DiffMark(markById[id]) : DiffMark::None; }
  bool empty() const { return added == 0 && changed == 0 && removed.empty(); }
};
/// `d` must be diffGraphs(compared, shown).
DrawDiff prepareDiff(const trace::GraphDiff& d, const ir::Graph& shown);

/// Where a removed node is drawn: its box in the compared layout's row, moved sideways until it
/// covers no box of the shown layout and no other ghost (removed nodes get their own space).
struct GhostBox {
  ir::NodeId id = ir::kInvalidNode;
  float x = 0, y = 0, w = 0, h = 0;
};
/// Ghost boxes for `removed` (those with a box in `compared`; badges and attached constants,
/// which have no box of their own, are left out), in the order given.
std::vector<GhostBox> placeGhosts(const graph_layout::Layout& shown, const graph_layout::Layout& compared,
                                  const std::vector<ir::NodeId>& removed, float gap = 16.f);

/// Nodes whose name or op name contains `query` (case-insensitive), graph order. A query
/// `module:PATH` selects the nodes of one module instead (fxjson meta.module): those whose
/// module path is PATH or lies below it (`module:features.4` matches features.4.conv.1).
std::vector<ir::NodeId> searchNodes(const ir::Graph& g, std::string_view query);

/// Names of nested graphs of `g` a node refers to: string args naming a subgraph, or refs to a
/// get_attr whose target names one (delegate calls, control-flow bodies). Sorted, unique.
std::vector<std::string> nestedGraphRefs(const ir::Graph& g, const ir::Node& n);

}  // namespace ls::viewmodel
