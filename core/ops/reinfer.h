// Whole-graph re-inference: recomputes every node's metadata from the graph inputs, ignoring
// what was recorded, and compares (`lowerscope-cli info --check-shapes`).
#pragma once

#include <string>
#include <vector>

#include "core/ops/registry.h"

namespace ls::ops {

struct MetaMismatch {
  ir::NodeId id = ir::kInvalidNode;
  std::string name;
  std::string op;
  std::string recorded;  ///< printed recorded metadata
  std::string inferred;  ///< printed inferred metadata ("" when inference failed)
  std::string error;     ///< inference error, if any
};

struct ReinferReport {
  size_t checked = 0;  ///< call nodes re-inferred
  size_t opaque = 0;   ///< unknown ops (recorded metadata kept, not checked)
  size_t agreed = 0;
  std::vector<MetaMismatch> mismatches;
  uint64_t cacheHits = 0, cacheMisses = 0;
};

/// Re-infers every call node of `g` (and nested graphs, names prefixed "sub/"), feeding each
/// node the inferred metadata of its inputs, and compares with the recorded metadata
/// (dtype, shape, dim order). Placeholders and constants keep their recorded metadata.
ReinferReport reinferGraph(const ir::Graph& g, InferenceCache* cache = nullptr);

/// Re-infers in place: replaces every call node's outputs with inferred ones. Fails with the
/// first inference error (which names the node).
Status refreshAllMeta(ir::Graph& g, InferenceCache* cache = nullptr);

}  // namespace ls::ops
