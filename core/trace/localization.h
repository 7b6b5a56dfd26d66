// Numerics localisation of one pass (verify --each --localize, core/verify/localize.h): the
// per-node errors of the graph after the pass against the graph before it, on the same inputs,
// with the node where the error starts (the culprit). Data only; stored in the trace and in
// .lstrace files, shown by the app as a heat overlay on the graph and in the inspector.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/arg.h"

namespace ls::trace {

/// How a node of the graph after the pass found its counterpart before the pass.
enum class NodeMatch : uint8_t {
  SameId,      ///< the same NodeId (kept or rewritten in place)
  Provenance,  ///< a new node whose provenance names the removed node whose value it takes over
  COUNT
};
std::string_view nodeMatchName(NodeMatch m);  // "id", "provenance"

/// Error of one matched call node of the graph after the pass.
struct NodeError {
  ir::NodeId id = ir::kInvalidNode;       ///< in the graph after the pass
  ir::NodeId matched = ir::kInvalidNode;  ///< its counterpart in the graph before the pass
  NodeMatch match = NodeMatch::SameId;
  /// max |after - before| over the compared outputs (integers: in units).
  double maxAbsError = 0.0;
  /// The error in tolerances (Localization::metric): <= 1 is within tolerance; +inf for a
  /// NaN/inf mismatch.
  double error = 0.0;
  /// The largest `error` reaching this node through its inputs: of each input's matched
  /// producer, or through unmatched producers, of the nearest matched nodes above them.
  double inputError = 0.0;
  bool exceeds = false;  ///< error above tolerance
  /// exceeds while every input is within tolerance: an error starts here.
  bool source = false;
  bool operator==(const NodeError&) const = default;
};

/// A call node of the graph after the pass that was not compared, and why.
struct SkippedNode {
  ir::NodeId id = ir::kInvalidNode;
  std::string reason;  ///< e.g. "no counterpart before the pass", "f32[1,8,8,3] vs f32[1,3,8,8]"
  bool operator==(const SkippedNode&) const = default;
};

/// The localisation of one pass.
struct Localization {
  int32_t passIndex = -1;  ///< the localised pass (its record index in the trace)
  std::string pass;        ///< its name
  /// How `error` is measured, e.g. "max|a-b| / (atol + rtol * max|before|), atol 1e-05, rtol 0.0001".
  std::string metric;
  double rtol = 0.0, atol = 0.0;
  int64_t maxSteps = 0;
  bool scaleRelative = true;
  /// Matched call nodes, in the topological order of the graph after the pass.
  std::vector<NodeError> nodes;
  std::vector<SkippedNode> skipped;
  /// The first source in topological order: the node where the error starts (kInvalidNode:
  /// every matched node is within tolerance).
  ir::NodeId culprit = ir::kInvalidNode;

  /// The error of node `id` (graph after the pass), or null when it was not compared.
  const NodeError* find(ir::NodeId id) const;
  /// Indices into `nodes`, largest error first (ties: topological order).
  std::vector<size_t> ranked() const;
  size_t exceeding() const;
  bool operator==(const Localization&) const = default;
};

}  // namespace ls::trace
