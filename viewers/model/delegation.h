// What a partitioned graph delegates (the XNNPACK view): each delegate with its node count and
// ops, and each op left undelegated with its count, its nodes and the partitioner's reason, as
// `lowerscope-cli lower --pipeline xnnpack` prints. No ImGui: tested in
// tests/viewers/delegation_test.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/ir/graph.h"
#include "core/trace/trace.h"

namespace ls::viewmodel {

struct DelegateRow {
  std::string name;   ///< the nested graph ("xnnpack_delegate_0")
  ir::NodeId node = ir::kInvalidNode;  ///< its call_delegate node in the top graph
  int64_t nodes = 0;  ///< call nodes inside
  std::vector<std::pair<std::string, int64_t>> ops;  ///< op -> count, most frequent first
};

struct UndelegatedRow {
  std::string op;
  int64_t count = 0;
  std::string reason;                ///< the partitioner's reason (first node's)
  std::vector<ir::NodeId> nodes;     ///< the top-graph nodes of this op
};

struct Delegation {
  std::vector<DelegateRow> delegates;
  std::vector<UndelegatedRow> undelegated;  ///< most frequent first
  int64_t delegatedNodes = 0;
  int64_t topLevelCalls = 0;  ///< call nodes left in the top graph (not delegates)
  bool any() const { return !delegates.empty(); }
};

/// The call_delegate nodes of `g` (top graph), in graph order.
std::vector<ir::NodeId> delegateNodes(const ir::Graph& g);

/// The delegation of `g` (a graph after XnnpackPartitionPass; a graph without delegates gives
/// an empty Delegation whose undelegated rows say why each op would not be delegated).
Delegation delegation(const ir::Graph& g);

/// Distinct colours for partition `index` (0, 1, ...), as RGB bytes.
uint32_t partitionColour(size_t index);

/// Partition colours for the graph after pass `pass` of `t` (0 = no partition), by NodeId: in a
/// partitioned graph its delegate nodes; before the partitioner ran, the nodes each delegate of
/// the first partitioned snapshot was made from (provenance, followed back through the passes
/// between). Empty when the run has no delegates.
std::vector<uint32_t> partitionTints(const trace::Trace& t, int pass);

}  // namespace ls::viewmodel
