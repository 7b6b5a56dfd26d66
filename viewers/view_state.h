// ViewState: what every view reads and writes (the selected pass, node, pin, filters, the
// open nested graph) plus requests from views to the shell. Views hold only view state; the
// traces are immutable and owned here by shared pointer.
#pragma once

#include <climits>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/graph_layout/layout_cache.h"
#include "core/ir/graph.h"
#include "viewers/model/pass_list.h"
#include "viewers/model/run_job.h"

namespace ls::viewers {

using GraphPtr = std::shared_ptr<const ir::Graph>;
inline constexpr int kNoPin = INT_MIN;

/// The generation of a trace (0 without one): what caches of trace-derived data compare.
inline uint64_t generationOf(const viewmodel::TracePtr& t) { return t ? t->generation : 0; }

/// Value identity of a graph of run A: trace generation, snapshot (-1 = source) and nested
/// graph path. Caches of graph-derived data compare keys, never graph addresses (a freed
/// graph's address is reused). The default key (generation 0) stands for "no graph".
struct GraphKey {
  uint64_t generation = 0;
  int snapshot = -1;
  std::vector<std::string> path;
  /// Drawn as folded modules (the graph view's folding generation; 0: not folded).
  uint64_t fold = 0;
  bool operator==(const GraphKey&) const = default;
};

enum class CenterTab : uint8_t { Graph, Timing, Delegation, IrDiff, Panes, COUNT };

struct ViewState {
  // ---- data (immutable, shared)
  viewmodel::TracePtr trace;         ///< run A (the one stepped through)
  viewmodel::TracePtr compareTrace;  ///< run B for the timing comparison (may be null)
  /// The timed repeats of A and B behind the comparison (null for a saved trace as B).
  viewmodel::AbRepeatsPtr compareRepeats;
  int compareRepeat = 5;  ///< measured runs per side of the next comparison
  /// While `trace` shows the run that prepared the pipeline's source (Trace::preparation, the
  /// quantizer's passes), the pipeline run itself; null otherwise.
  viewmodel::TracePtr pipelineTrace;
  std::string labelA = "A", labelB = "B";

  // ---- selection
  int selectedPass = -1;  ///< record index; -1 = the source graph
  ir::NodeId selectedNode = ir::kInvalidNode;
  int pinnedPass = kNoPin;  ///< diff against this pass instead of the previous one
  /// One side-by-side pane: a pass (-1 = the source graph) of run A, or of run B (compareTrace).
  struct PaneRef {
    int pass = -1;
    bool runB = false;
    bool operator==(const PaneRef&) const = default;
  };
  /// Passes shown side by side in the Panes tab (at most kMaxPanes), in the order they were
  /// added. Selection and camera are shared by the panes.
  std::vector<PaneRef> panes;
  static constexpr size_t kMaxPanes = 4;
  /// Adds a pass of run A (or B) as a pane (no-op if present; the oldest pane goes when there
  /// are kMaxPanes).
  void addPane(int pass, bool runB = false);
  /// The run a pane shows (null: run B is gone).
  const viewmodel::TracePtr& paneTrace(const PaneRef& p) const { return p.runB ? compareTrace : trace; }
  std::vector<std::string> subgraphPath;  ///< nested graph open in the canvas ("" = main)
  viewmodel::PassFilter filter;
  CenterTab tab = CenterTab::Graph;
  bool diffEnabled = true;
  bool partitionColours = false;  ///< colour the graph by XNNPACK partition (instead of the diff)

  // ---- requests (set by views or the script runner, consumed by the graph view / shell)
  bool fitRequested = true;
  bool centerRequested = false;  ///< centre the graph view on selectedNode
  bool tabChangeRequested = false;
  std::optional<viewmodel::RunConfig> compareRequest;  ///< run B with this config
  /// Show the preparation run (true) or the pipeline run again (false); the shell swaps.
  std::optional<bool> preparationRequest;
  std::string statusMessage;  ///< last export / action result for the status bar
  std::vector<std::string> importWarnings;  ///< the open file's non-fatal load findings (status bar tooltip)

  /// The graph after `pass` (-1 = source) of run A, with the open nested graph applied; null
  /// when there is no trace or the nested graph does not exist at that pass.
  GraphPtr graphAt(int pass) const;
  GraphPtr shownGraph() const { return graphAt(selectedPass); }
  /// The graph the shown one is diffed against: the pinned pass, else the graph before the
  /// selected pass; null for the source row or when diffing is off.
  GraphPtr comparedGraph() const;
  /// Keys of graphAt / shownGraph / comparedGraph (the default key where those are null).
  GraphKey graphKeyAt(int pass) const;
  GraphKey shownKey() const { return graphKeyAt(selectedPass); }
  GraphKey comparedKey() const;
  /// Selects a pass, clamped to [-1, last]; keeps the selected node.
  void selectPass(int pass);
  /// Brings every index into the runs it refers to back in range after the runs changed (a new
  /// run, a failed open, a cleared comparison): the selected and pinned pass are clamped to run A,
  /// panes whose run or pass is gone are dropped. The shell calls it once per frame, after taking
  /// finished jobs and before any view reads the state, so no view indexes a run with a stale
  /// index. Returns true when something was out of range.
  bool revalidate();
  int passCount() const { return trace ? int(trace->records.size()) : 0; }
};

/// Requests the layouts of run A's lineage in order (each snapshot incremental from the one
/// before it), then the shown graph, so it is laid out first.
void requestLineageLayouts(graph_layout::LayoutCache& cache, const ViewState& s);

}  // namespace ls::viewers
