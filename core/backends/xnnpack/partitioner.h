// XNNPACK partitioner: a supported-op table (as upstream's op configs), grouping of connected
// supported nodes into delegate subgraphs without cycles, and the partition report.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "core/passes/pass.h"

namespace ls::xnnpack {

using passes::ShouldRun;

/// Why `n` (a call node of `g`) cannot be delegated to XNNPACK, or nullopt when it can.
/// Checks the supported-op table, Python-scalar operands, dtypes and per-op constraints
/// (softmax over the last dim, mean over H and W of a 4-D input, cat with <= 5 inputs...).
std::optional<std::string> unsupportedReason(const ir::Graph& g, const ir::Node& n);

/// What the partitioner left in a graph.
struct PartitionReport {
  int64_t delegates = 0;       ///< call_delegate nodes running an XNNPACK subgraph
  int64_t delegatedNodes = 0;  ///< call nodes inside those subgraphs
  std::map<std::string, int64_t> undelegated;       ///< op -> count of top-level call nodes left
  std::map<std::string, std::string> reasons;       ///< op -> why (first node's reason)
};

/// The report of a partitioned graph (delegate subgraphs are named "xnnpack_delegate_*").
PartitionReport partitionReport(const ir::Graph& g);

/// Groups supported nodes into delegate subgraphs: each partition becomes one
/// lowerscope.call_delegate(name, inputs) node whose nested graph `name` holds the
/// partition's nodes (placeholders for its inputs, copies of the constants it reads).
/// Partitions are grown in topological order; a node joins the partitions of its inputs
/// (merging them) only when no path leaves and re-enters the merged set, so the graph of
/// partitions stays acyclic.
class XnnpackPartitionPass : public passes::Pass {
 public:
  XnnpackPartitionPass();
  ShouldRun shouldRunImpl(const ir::Graph& g, const passes::PassContext& ctx) const override;

 protected:
  passes::PassResult runImpl(ir::Graph& g, passes::PassContext& ctx) override;
  size_t delegates_, delegated_, undelegated_;
};

}  // namespace ls::xnnpack
