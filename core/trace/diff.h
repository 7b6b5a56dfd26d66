// Graph diff between any two snapshots, by NodeId: added / removed / changed / unchanged, plus
// provenance links (fusion N->1, split 1->N, 1:1 replacement).
#pragma once

#include <string>
#include <vector>

#include "core/ir/graph.h"

namespace ls::trace {

enum ChangeBits : uint8_t { kOpChanged = 1, kArgsChanged = 2, kMetaChanged = 4 };

struct ChangedNode {
  ir::NodeId id;
  uint8_t what = 0;  ///< ChangeBits
};

struct ProvenanceLink {
  enum class Kind : uint8_t { Replace, Fusion, Split, COUNT };
  Kind kind = Kind::Replace;
  std::vector<ir::NodeId> from;  ///< removed nodes (in `a`)
  std::vector<ir::NodeId> to;    ///< added nodes (in `b`)
  std::string pass;              ///< the creating pass of the added nodes
};
std::string_view linkKindName(ProvenanceLink::Kind k);  // "replace", "fusion", "split"

struct GraphDiff {
  std::vector<ir::NodeId> added;    ///< ids in b only (b's order)
  std::vector<ir::NodeId> removed;  ///< ids in a only (a's order)
  std::vector<ChangedNode> changed; ///< same id, different op/args/metadata (b's order)
  size_t unchanged = 0;
  std::vector<ProvenanceLink> links;
  bool empty() const { return added.empty() && removed.empty() && changed.empty(); }
};

/// Diffs two graphs of one lineage (ids are stable across passes). Nodes shared by pointer
/// are unchanged without comparison; args compare value refs by id. Nested graphs are not
/// included (diff them separately by name).
GraphDiff diffGraphs(const ir::Graph& a, const ir::Graph& b);

/// Human summary: "+3 -5 ~2 =180; fusion 2->1 (FuseBatchNorm)".
std::string summarize(const GraphDiff& d);

}  // namespace ls::trace
