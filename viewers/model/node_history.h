// Node inspector model: the life of one node (by NodeId) across every pass of a trace, what a
// pass changed in it field by field, and its lineage: the value followed through the nodes that
// replaced it or were fused from it (provenance), pass by pass.
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

/// One field of a node that differs between two versions (the same NodeId before and after a
/// pass), with both values printed.
struct FieldChange {
  enum class Field : uint8_t { Op, Arg, Kwarg, Output, Module, Flags, COUNT };
  Field field = Field::Op;
  size_t index = 0;   ///< argument / output index (Arg, Output)
  std::string name;   ///< "op", the argument's schema name, the kwarg name, "out 0", "module", "flags"
  std::string before, after;
};
/// The fields of `after` (in `afterGraph`) that differ from `before` (in `beforeGraph`): op and
/// target, each positional argument (named from the op schema) and keyword argument (added or
/// dropped ones too), each output's dtype/shape/quantisation, module and flags. Node references
/// print as %name in their own graph. Empty when the versions are equal.
std::vector<FieldChange> nodeFieldChanges(const ir::Graph& beforeGraph, const ir::Node& before, const ir::Graph& afterGraph,
                                          const ir::Node& after);
/// The change of `changes` for argument `index` / kwarg `name` / output `index`, or null.
const FieldChange* findChange(const std::vector<FieldChange>& changes, FieldChange::Field f, size_t index,
                              std::string_view name = {});

/// One step of a node's lineage.
struct LineageEntry {
  enum class Kind : uint8_t { Source, Created, Changed, ReplacedBy, FusedFrom, Removed, COUNT };
  Kind kind = Kind::Changed;
  int pass = -1;                     ///< the pass that did it (-1: the source graph)
  ir::NodeId node = ir::kInvalidNode;  ///< the node to select at `pass` (after it; a removed node: its ghost)
  std::string text;                  ///< "#12 RewriteConv2d: %convolution replaced by %conv2d (tosa.CONV2D), +2"
  bool selected = false;             ///< the entry is about the node the lineage was asked for
};
std::string_view lineageKindName(LineageEntry::Kind k);
/// The lineage of node `id` (as it exists after pass `atPass`, -1 = source), in pipeline order:
/// backward through the nodes it was created from (provenance derivedFrom, the producer of the
/// value: the last of them in graph order), forward through the nodes that replaced it when a
/// pass removed it (the last of the replacements in graph order: the one producing the value),
/// with every change of each node on the way. At most `maxSteps` replacement steps each way.
std::vector<LineageEntry> nodeLineage(const trace::Trace& t, ir::NodeId id, int atPass,
                                      const std::vector<std::string>& nested = {}, int maxSteps = 32);

}  // namespace ls::viewmodel
