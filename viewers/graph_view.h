// Graph view: the layered layout of the selected snapshot (computed off the UI thread by
// graph_layout::LayoutCache), pan/zoom/fit, minimap, op-namespace colours, labels, diff colouring
// against the previous or pinned pass, node search, nested graphs opened in place.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <imgui.h>

#include "core/graph_layout/layout_cache.h"
#include "viewers/model/error_overlay.h"
#include "viewers/model/graph_model.h"
#include "viewers/model/module_folds.h"
#include "viewers/view_state.h"

namespace ls::viewers {

/// Derived data of one laid-out graph, rebuilt only when the graph or its layout changes.
struct CanvasData {
  const ir::Graph* graph = nullptr;
  std::shared_ptr<const graph_layout::Layout> layout;
  std::vector<uint8_t> nsByPos;        ///< OpNamespace per graph position (= layout node index)
  /// What a box says, built the first time it is drawn with labels (zoomed in, few are).
  struct Text {
    std::string label;   ///< op + shape
    std::string badges;  ///< badge line ("" without badges)
    bool done = false;
  };
  /// The text of the node at graph position `pos` (UI thread: filled on first use).
  const Text& text(size_t pos) const;
  std::vector<uint32_t> stubUsers;     ///< users of a producer with stub edges (0: none), per graph position
  std::vector<ImVec4> edgeBoxes;       ///< (minX, minY, maxX, maxY) per layout edge
  std::vector<uint32_t> minimapCells;  ///< node count per minimap cell
  int minimapCols = 0, minimapRows = 0;

  static CanvasData build(const ir::Graph& g, std::shared_ptr<const graph_layout::Layout> layout);

 private:
  mutable std::vector<Text> text_;
};

/// Camera: the canvas point shown at the top-left corner of the canvas rect, and the scale.
struct Camera {
  float zoom = 1.f;
  float x = 0.f, y = 0.f;
};

/// What one frame draws, for the status line, tests and benchmarks.
struct CanvasStats {
  int nodes = 0, edges = 0, labels = 0, ghosts = 0;
  int links = 0;   ///< "replaced by" links from removed nodes to their replacements
  int tinted = 0;  ///< nodes drawn in a partition colour
  int badges = 0;  ///< badge lines drawn
  int stubs = 0;   ///< edges drawn as stubs (a producer with many users)
  int errors = 0;  ///< nodes drawn with an error above tolerance (error overlay)
  int folds = 0;   ///< folded modules drawn (one box each)
  bool truncated = false;  ///< detail dropped to stay under 64k vertices (no VtxOffset support)
};

/// Everything drawCanvas needs besides the draw list and the camera.
struct CanvasFrame {
  const CanvasData* data = nullptr;
  const viewmodel::DrawDiff* diff = nullptr;         ///< null: no diff colouring
  const graph_layout::Layout* comparedLayout = nullptr;    ///< the compared graph's drawn layout
  const std::vector<viewmodel::GhostBox>* ghosts = nullptr;  ///< removed nodes' boxes (with diff)
  const ir::Graph* compared = nullptr;
  ir::NodeId selected = ir::kInvalidNode;
  const std::vector<uint8_t>* hitById = nullptr;     ///< search hits (1 per matching NodeId)
  const viewmodel::ErrorOverlay* errors = nullptr;   ///< active error overlay (localised pass) or null
  /// Partition colours by NodeId (0xAARRGGBB, 0 = none; viewmodel::partitionTints) or null.
  const std::vector<uint32_t>* tints = nullptr;
};

/// Draws nodes, edges, labels and ghosts of the visible part of the canvas into `dl`. Pure
/// drawing (no widgets): usable with an offscreen ImGui context (benchmarks).
CanvasStats drawCanvas(ImDrawList* dl, const CanvasFrame& f, const Camera& cam, ImVec2 origin, ImVec2 size);

class GraphView {
 public:
  explicit GraphView(graph_layout::LayoutCache& cache) : cache_(cache) {}

  /// Draws the toolbar, canvas, legend and minimap in the current window.
  void draw(ViewState& s);
  /// True while the shown graph's layout is queued or computing.
  bool layoutPending(const ViewState& s) const;

  // ---- actions (toolbar, keys, scripts)
  void requestFit() { fitPending_ = true; }
  void zoomBy(float factor) { zoomRequest_ *= factor; }
  void setSearch(const std::string& q) { search_ = q; }
  /// Moves to the next (+1) / previous (-1) search hit, selects and centres it. False if none.
  bool searchStep(ViewState& s, int dir);
  /// Moves to the next/previous changed, added or removed node of the diff, selects and
  /// centres it. False when the diff is empty.
  bool changeStep(ViewState& s, int dir);
  /// Added + changed + removed nodes of the diff at the selected pass (0 without a diff).
  size_t diffSize(const ViewState& s);
  size_t searchHitCount() const { return hits_.size(); }
  const Camera& camera() const { return cam_; }
  /// Long graphs wrapped into side-by-side columns of layers at Fit (toolbar "wrap").
  void setWrap(bool on) { wrap_ = on, fitPending_ = true; }
  bool wrap() const { return wrap_; }
  /// Columns of the shown layout (1: not wrapped).
  int columns() const { return data_ && compact_ ? wrapSpec_.columns(*compact_) : 1; }
  const CanvasStats& lastStats() const { return stats_; }

  // ---- module folding (viewmodel::foldModules): modules drawn as one box until expanded
  enum class FoldMode : uint8_t { Auto, On, Off };
  /// Auto: folded when the graph has more than kFoldAbove nodes and module paths.
  void setFoldMode(FoldMode m);
  FoldMode foldMode() const { return foldMode_; }
  /// Whether the shown graph is drawn folded now.
  bool foldingActive(const ViewState& s) const;
  /// Expands the folded module `path` one level (its submodules become folds) / folds it
  /// again with everything below it. False when `path` is not a drawn fold / expanded module.
  bool expandModule(const std::string& path);
  bool collapseModule(const std::string& path);
  /// Folds in the drawn graph (0 when not folding).
  size_t foldCount() const { return folding_ ? foldShown_.folds.size() : 0; }
  static constexpr size_t kFoldAbove = 2000;   ///< Auto folds graphs with more nodes
  static constexpr size_t kFoldBudget = 400;   ///< boxes the first folded view aims at (at most)

 private:
  void refreshData(const ViewState& s, const GraphPtr& shown, const GraphPtr& compared);
  /// The graphs to lay out and draw for the real shown / compared graphs: folded while folding
  /// is active (cached by key and folding generation), else the graphs themselves.
  std::pair<GraphPtr, GraphPtr> drawnGraphs(const ViewState& s, const GraphPtr& shown, const GraphPtr& compared);
  /// Opens the folds around the selected node so it is drawn itself; true if anything opened.
  bool revealSelected(const ViewState& s);
  void centerOn(ir::NodeId id, float minZoom);
  ir::NodeId pick(ImVec2 canvasPoint) const;
  void drawToolbar(ViewState& s, const GraphPtr& shown);
  void drawLegend(ImDrawList* dl, ImVec2 origin);
  void drawMinimap(ImDrawList* dl, ImVec2 origin, ImVec2 size);
  /// Error overlay of a localised pass: rebuilt when the trace, pass or nested graph changes.
  void refreshErrorOverlay(const ViewState& s);
  void drawErrorLegend(ImDrawList* dl, ImVec2 origin, ImVec2 size) const;

  graph_layout::LayoutCache& cache_;
  Camera cam_;
  ImVec2 canvasSize_{1, 1};
  bool fitPending_ = false;  ///< fit the whole graph (Fit button, F)
  float zoomRequest_ = 1.f;
  CanvasStats stats_;

  // caches keyed by trace generation and GraphKey (never by address)
  uint64_t lastGeneration_ = 0;
  GraphKey shownKey_;  ///< the shown graph of the last refreshData
  std::unique_ptr<CanvasData> data_;
  GraphKey dataKey_;   ///< the graph data_ was built from
  std::shared_ptr<const graph_layout::Layout> comparedLayout_;
  /// Wrapping: the spec chosen at the last fit, the unwrapped layouts the drawn ones come from.
  bool wrap_ = true;
  graph_layout::WrapSpec wrapSpec_;
  std::shared_ptr<const graph_layout::Layout> rawLayout_, rawCompared_;
  std::shared_ptr<const graph_layout::Layout> compact_;  ///< the shown layout without empty layers, unwrapped
  graph_layout::WrapSpec dataSpec_;
  /// The layout to draw for `raw` under the current wrap spec.
  std::shared_ptr<const graph_layout::Layout> wrapped(const std::shared_ptr<const graph_layout::Layout>& raw) const;
  GraphKey diffShown_, diffCompared_;
  viewmodel::DrawDiff diff_;
  /// Removed nodes' boxes (placeGhosts) and what they were placed for.
  std::vector<viewmodel::GhostBox> ghosts_;
  std::shared_ptr<const graph_layout::Layout> ghostLayout_, ghostCompared_;  ///< held: compared by identity
  GraphKey ghostDiff_, ghostDiffCompared_;
  const viewmodel::GhostBox* ghostOf(ir::NodeId id) const;
  bool hasDiff_ = false;
  GraphPtr shownHold_, comparedHold_;  // keep the graphs alive while cached data points into them

  std::string search_, searchCached_;
  GraphKey searchGraph_;
  std::vector<ir::NodeId> hits_;
  std::vector<uint8_t> hitById_;
  int hitCursor_ = -1;
  int changeCursor_ = -1;
  std::vector<int> nsCount_;
  bool minimapDrag_ = false;

  /// Partition colours of the shown pass (top graph only), rebuilt when the trace or pass changes.
  std::vector<uint32_t> tints_;
  uint64_t tintsGeneration_ = 0;
  int tintsPass_ = -2;
  bool runHasDelegates_ = false;
  void refreshTints(const ViewState& s);

  FoldMode foldMode_ = FoldMode::Auto;
  bool folding_ = false;  ///< the last drawnGraphs folded
  bool foldRefit_ = false;  ///< folding switched: frame the new graph as a new trace is (legibly, at its inputs)
  std::set<std::string, std::less<>> expanded_;
  uint64_t foldGen_ = 1;  ///< bumped whenever expanded_ or the mode changes
  GraphKey expandedFor_;  ///< (trace generation, nested path) expanded_ was initialised for
  viewmodel::FoldIds foldIds_;
  viewmodel::FoldedGraph foldShown_, foldCompared_;
  GraphKey foldShownKey_, foldComparedKey_;
  GraphPtr foldShownReal_;  ///< the real graph foldShown_ was made from

  viewmodel::ErrorOverlay errors_;
  uint64_t errorsGeneration_ = 0;
  int errorsPass_ = -2;
  bool errorsNested_ = false;
};

}  // namespace ls::viewers
