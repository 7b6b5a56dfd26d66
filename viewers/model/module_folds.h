// Module folding: the nodes of one module (fxjson meta.module, kept through the passes) drawn as
// one box until it is expanded, so a 10k-node model opens as its module tree. A folded graph
// is an ordinary ir::Graph (laid out and drawn like any other): unfolded nodes keep their ids
// and node versions, each collapsed module becomes one "fold" node with a fresh id, and edges
// into, out of and between folds are aggregated (one per producer and user).
// No ImGui: tested in tests/viewers/module_folds_test.cpp.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/ir/graph.h"
#include "viewers/model/graph_model.h"

namespace ls::viewmodel {

/// "encoder.layers.encoder_layer_3  54 nodes" for a fold node.
std::string foldLabel(const ir::Node& fold);
/// The fold's op histogram, most frequent first, at most `top` ops ("12 linear, 6 add, 4 view").
std::string foldOpSummary(const ir::Node& fold, size_t top = 4);
/// Module prefixes of a path, outermost first: "a.b.c" -> {"a", "a.b", "a.b.c"}.
std::vector<std::string> modulePrefixes(std::string_view path);

/// Ids for folds, by module path: shared by the shown and the compared graph (a fold keeps its
/// id in both, so diff marks and selection line up), above every real id of both graphs.
class FoldIds {
 public:
  /// Makes sure fold ids lie above `nextId` (a graph's Graph::nextId()); forgets the assigned
  /// ids when they do not.
  void reserve(ir::NodeId nextId);
  ir::NodeId idOf(const std::string& path);
  ir::NodeId base() const { return base_; }

 private:
  ir::NodeId base_ = 0;
  std::map<std::string, ir::NodeId, std::less<>> ids_;
};

struct Fold {
  std::string path;
  ir::NodeId id = ir::kInvalidNode;
  std::vector<ir::NodeId> members;  ///< graph order
};

struct FoldedGraph {
  std::shared_ptr<const ir::Graph> graph;  ///< what is laid out and drawn
  std::vector<Fold> folds;
  std::vector<ir::NodeId> foldOf;  ///< by real NodeId: the fold holding it, or kInvalidNode
  /// The fold holding real node `id`, or kInvalidNode when it is drawn itself.
  ir::NodeId foldOfNode(ir::NodeId id) const { return id < foldOf.size() ? foldOf[id] : ir::kInvalidNode; }
  /// The id drawn for real node `id`: its fold, or itself.
  ir::NodeId drawnId(ir::NodeId id) const {
    const ir::NodeId f = foldOfNode(id);
    return f == ir::kInvalidNode ? id : f;
  }
  const Fold* fold(ir::NodeId foldId) const;
  const Fold* foldByPath(std::string_view path) const;
};

/// Folds `g`: a call node whose module path has a prefix not in `expanded` goes into the fold
/// of the outermost such prefix; constants (get_attr, constant placeholders) go into the fold
/// all their users are in; inputs, the output and nodes without module stay. Folds of one node
/// are not made. When aggregated edges would make a cycle (a module whose nodes interleave with
/// another's), the folds on the cycle are left expanded, so the result is always a DAG in
/// topological order.
FoldedGraph foldModules(const ir::Graph& g, const std::set<std::string, std::less<>>& expanded, FoldIds& ids);

/// The default expansion of a large graph: every module prefix shallower than the deepest
/// level at which the folded graph still has at most `budget` boxes (whole levels of the
/// module tree, so repeated blocks fold alike).
std::set<std::string, std::less<>> autoExpand(const ir::Graph& g, size_t budget);

/// The prefixes to add to `expanded` so that real node `id` is drawn itself (no-op when it is).
std::vector<std::string> revealPath(const ir::Graph& g, ir::NodeId id, const std::set<std::string, std::less<>>& expanded);

/// Diff marks of a folded pair: `d` is prepareDiff over the real graphs; folds of `shown` that
/// hold an added or changed node, or the fold of the same module in `compared` lost a node, are
/// marked changed (added when every member is added); "replaced by" links point at the fold of
/// a folded replacement, links from folded removed nodes are dropped.
void foldDiff(DrawDiff& d, const FoldedGraph& shown, const FoldedGraph* compared);

}  // namespace ls::viewmodel
