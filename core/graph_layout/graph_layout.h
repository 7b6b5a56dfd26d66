// Layered (Sugiyama-style) layout of an ir::Graph: boxes and edge polylines for the graph
// canvas. Pure computation: no drawing, no GUI types.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/ir/graph.h"

namespace ls::graph_layout {

struct Point {
  float x = 0;
  float y = 0;
  bool operator==(const Point&) const = default;
};

/// How a fresh layout assigns x coordinates.
enum class Placement : uint8_t {
  /// Brandes-Koepf: four vertical alignments to median neighbours (straight chains and long
  /// edges), compacted and balanced.
  BrandesKoepf,
  /// Least-squares sweeps: each layer fitted to its neighbours' medians (smoother, may drift).
  LeastSquares,
  COUNT
};

/// Knobs of computeLayout. Units are canvas units (the GUI scales them by its zoom).
struct LayoutOptions {
  float nodeWidth = 160.f;    ///< box width when `measureWidth` is empty
  float minNodeWidth = 48.f;  ///< lower bound for measured widths
  float nodeHeight = 36.f;    ///< every box (and every layer row) has this height
  float layerGap = 48.f;      ///< vertical gap between two layer rows
  float nodeGap = 24.f;       ///< horizontal gap between two boxes of one layer
  float edgeGap = 12.f;       ///< horizontal gap next to an edge passing through a layer
  int crossingSweeps = 4;     ///< barycenter down+up sweep pairs (0: keep the initial order)
  Placement placement = Placement::BrandesKoepf;
  int placementSweeps = 4;    ///< least-squares down+up sweep pairs (incremental layouts use them)
  /// Edges spanning more layers than this are not routed through dummy nodes: their path is
  /// one straight segment (EdgePath::direct). Bounds the work for constants shared across a
  /// whole deep graph. <= 0: no limit.
  int maxEdgeSpan = 256;
  /// Attach constants (get_attr nodes, and placeholders whose target names a graph constant)
  /// that have no inputs and exactly one user to that user: they are drawn in the user's row,
  /// to its left, instead of taking part in layering (NodeBox::attachedTo is the user).
  bool hideConstants = false;
  /// Draw parameters as badges of their users: constants (as hideConstants) and nullary calls
  /// (e.g. tosa.CONST_SHAPE) with at least one user, however many users they have, take no
  /// part in layering and get no edge paths; their boxes are empty (w = h = 0) at the top-left
  /// of their first user (NodeBox::badge). The view draws them inside every user's box.
  /// Takes precedence over hideConstants for the nodes it covers.
  bool constantBadges = false;
  /// A producer with more than this many distinct users gets stub edges (EdgePath::stub):
  /// straight, not routed through dummy nodes, drawn by the view as a short stub at both ends
  /// ("N users") unless highlighted. Edges into the next layer are always routed. <= 0: no
  /// limit.
  int maxFanout = 0;
  /// Optional box width from the node (e.g. label length x average glyph width), clamped to
  /// at least minNodeWidth. Called on the thread that computes the layout (LayoutCache's
  /// worker): it must be thread-safe and must not call ImGui.
  std::function<float(const ir::Graph&, const ir::Node&)> measureWidth;
};

/// One node's box. (x, y) is the top-left corner.
struct NodeBox {
  ir::NodeId id = ir::kInvalidNode;
  float x = 0, y = 0, w = 0, h = 0;
  int layer = 0;
  /// For an attached constant (LayoutOptions::hideConstants): the node it is attached to.
  ir::NodeId attachedTo = ir::kInvalidNode;
  /// A parameter drawn as a badge of its users (LayoutOptions::constantBadges): attachedTo is
  /// its first user, the box is empty and sits at that user's top-left corner.
  bool badge = false;
  float centerX() const { return x + w * 0.5f; }
  bool attached() const { return attachedTo != ir::kInvalidNode; }
};

/// The drawn path of the edge `from` -> `to` (one per distinct producer/consumer pair).
///
/// points: source port (bottom of `from`), then for every layer the edge passes through two
/// points (top and bottom of that layer's row, same x), then the target port (top of `to`).
/// So an edge spanning s layers has 2 * s points. Edges from attached constants go up from
/// the constant's top, along the gap above the row and down into the top-left of the user
/// (4 points). Direct edges (span > maxEdgeSpan) have 2 points.
struct EdgePath {
  ir::NodeId from = ir::kInvalidNode;
  ir::NodeId to = ir::kInvalidNode;
  std::vector<Point> points;
  bool direct = false;
  /// From a producer with more than LayoutOptions::maxFanout users: two points like a direct
  /// edge; the view draws stubs at both ends unless the edge is highlighted.
  bool stub = false;
  /// Indices i where the path jumps: the segment points[i - 1] -> points[i] is not drawn
  /// (a layout wrapped into columns continues the edge at the top of the next column).
  std::vector<uint32_t> breaks;
};

/// Counters of one computeLayout call (for tests, benchmarks and the status bar).
struct LayoutStats {
  uint32_t realNodes = 0;          ///< nodes that took part in layering
  uint32_t attachedConstants = 0;  ///< nodes attached to their user (hideConstants)
  uint32_t dummies = 0;            ///< dummy nodes of long edges
  uint32_t directEdges = 0;        ///< edges longer than maxEdgeSpan
  uint32_t badges = 0;             ///< parameters drawn as badges (constantBadges)
  uint32_t stubEdges = 0;          ///< edges of producers with more than maxFanout users
  uint64_t initialCrossings = 0;   ///< crossings of the initial in-layer order
  uint64_t crossings = 0;          ///< crossings of the final in-layer order
  bool incremental = false;        ///< positions were kept from `previous`
  uint32_t kept = 0;               ///< surviving nodes whose box did not move at all
  uint32_t shifted = 0;            ///< surviving nodes moved down only (same x, lower layer)
  uint32_t moved = 0;              ///< surviving nodes whose x changed
};

/// The result: boxes for every node of the graph and one path per edge.
struct Layout {
  std::vector<NodeBox> nodes;  ///< in graph order
  std::vector<EdgePath> edges;
  /// Bounding box of all boxes and paths: [minX, minX + width] x [minY, minY + height].
  /// A fresh layout starts at (0, 0); an incremental one keeps its predecessor's frame, so
  /// minX may be negative.
  float minX = 0, minY = 0, width = 0, height = 0;
  int layerCount = 0;
  float layerPitch = 0;  ///< y of layer l's row is l * layerPitch
  float rowHeight = 0;   ///< height of a row (= nodeHeight)
  LayoutStats stats;
  /// Dense NodeId -> index into `nodes`; -1 when absent.
  std::vector<int32_t> indexById;

  const NodeBox* find(ir::NodeId id) const {
    if (id >= indexById.size() || indexById[id] < 0) return nullptr;
    return &nodes[size_t(indexById[id])];
  }
};

/// True for nodes hideConstants may attach: get_attr, or a placeholder whose target is a
/// constant of `g`.
bool isConstantNode(const ir::Graph& g, const ir::Node& n);
/// True for nodes constantBadges draws as badges (when they have users and no inputs):
/// constant nodes and nullary calls (tosa.CONST_SHAPE, folded factories).
bool isParameterNode(const ir::Graph& g, const ir::Node& n);

/// Lays out `g`: (a) layering (longest path from the inputs, then every node moved toward
/// the side with more edges: sources sit right above their first user), (b) dummy nodes on
/// edges spanning more than one layer, (c) crossing reduction by barycenter sweeps, keeping
/// the best order seen, (d) coordinates: per layer a weighted least-squares fit of every
/// node to the median of its neighbours subject to no overlap (exact, by pool-adjacent-
/// violators), alternating down/up sweeps, (e) edge polylines with ports spread over the
/// box edges. Deterministic: the same graph and options give an identical layout.
///
/// Stability (`previous` = layout of an earlier snapshot of the same lineage, e.g. the pass
/// before). When at least half of the nodes survive (same NodeId, laid out standalone in
/// `previous`) or were derived (Provenance::derivedFrom) from nodes of `previous`, the
/// layout is incremental and guarantees:
///  - a surviving node keeps its layer unless a node inserted above it needs room: then it
///    moves down by the least amount the edges require (so do the nodes below it). Layers are
///    never compacted, so removing nodes never moves the others (a gap is left);
///  - a surviving node keeps its exact x unless new nodes or new edge routes in its layer do
///    not fit between the surviving nodes: then only the survivors of that layer that must
///    make room move, by the least-squares minimum;
///  - hence a survivor whose layer is unchanged and whose row had room keeps its exact box,
///    and long edges between survivors keep their routes;
///  - a new node derived from removed nodes starts at their layer and x (a 1:1 replacement
///    takes the replaced node's place), other new nodes sit between their neighbours.
/// With fewer survivors, `previous` only seeds the initial in-layer order.
/// Reads only immutable parts of `g` (no lazy indices): concurrent calls are safe while
/// nobody mutates `g`.
Layout computeLayout(const ir::Graph& g, const LayoutOptions& options, const Layout* previous = nullptr);

/// 1 for every layer of `layout` that holds a drawn box (not a badge), else 0.
std::vector<uint8_t> occupiedLayers(const Layout& layout);

/// `layout` without the layers `keep` marks 0 (layers holding only edges that pass through,
/// or left empty by nodes an earlier pass removed): the layers below move up, edges drop their
/// points in removed layers. Give the shown layout and the one it is compared with the same
/// `keep` (the union of both occupancies) so removed nodes keep their own rows. Returns the
/// layout unchanged when every layer is kept.
Layout compactLayers(const Layout& layout, const std::vector<uint8_t>& keep);

/// How a layout is wrapped into side-by-side columns of layers (wrapColumns).
struct WrapSpec {
  int layersPerColumn = 0;  ///< <= 0 or >= layerCount: no wrapping
  float columnGap = 120.f;  ///< horizontal gap between two columns
  int columns(const Layout& l) const {
    return layersPerColumn <= 0 ? 1 : std::max(1, (l.layerCount + layersPerColumn - 1) / layersPerColumn);
  }
};

/// The number of layers per column that lets a view of `viewW` x `viewH` (screen units) show
/// the whole of `layout` at the largest zoom (at most `maxZoom`); 0 when one column is best.
/// Long chains (tall, narrow graphs) wrap into several columns.
WrapSpec chooseWrap(const Layout& layout, float viewW, float viewH, float maxZoom = 1.f, float columnGap = 120.f);

/// `layout` with layers [c * n, (c + 1) * n) moved to column c: shifted right by c column
/// widths (the layout's width + gap) and up by c * n layer pitches, so every column starts at
/// the top. Edges crossing from one column to the next get a break (EdgePath::breaks): they
/// leave the bottom of their column and re-enter at the top of the next, each end marked by a
/// short stub. Boxes keep their NodeIds, so find(), picking and ghosts work unchanged.
/// layerCount, layerPitch and rowHeight are kept (layer l is drawn in row l mod n).
Layout wrapColumns(const Layout& layout, const WrapSpec& spec);

/// Number of pairwise crossings of edge segments between adjacent layer rows (direct edges
/// and attached-constant edges are not counted). Segments that share an end point never cross.
uint64_t countCrossings(const Layout& layout);

}  // namespace ls::graph_layout
