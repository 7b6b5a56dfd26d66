// Node inspector model: the life of one node (by NodeId) across every pass of a trace.
// No ImGui: tested in tests/viewers/node_history_test.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/trace/trace.h"

namespace ls::viewmodel {

struct NodeEvent {
  enum class Kind : uint8_t { Created, Changed, Removed, COUNT };
  Kind kind = Kind::Changed;
  int pass = -1;          ///< record index of the pass that did it
  uint8_t what = 0;       ///< trace::ChangeBits for Changed
};
std::string_view nodeEventName(NodeEvent::Kind k);  // "created", "changed", "removed"
/// "op+args+meta" for a ChangeBits mask.
std::string changeBitsText(uint8_t what);

struct NodeHistory {
  bool inSource = false;
  /// First and last pass index after which the node exists (-1 = the source graph); both
  /// -2 when the node never exists.
  int first = -2, last = -2;
  std::vector<NodeEvent> events;  ///< pipeline order
};

/// Walks the trace's snapshots (only passes that changed the graph) and compares the node's
/// versions: pointer-equal versions are unchanged without comparison. With `nested`, the node
/// is looked up in that nested graph (path of subgraph names) of every snapshot.
NodeHistory nodeHistory(const trace::Trace& t, ir::NodeId id, const std::vector<std::string>& nested = {});

}  // namespace ls::viewmodel
