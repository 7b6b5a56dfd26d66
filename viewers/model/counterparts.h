// Which nodes of another pass's graph correspond to a node: the same NodeId where it survives,
// else the nodes that replaced it (provenance derivedFrom, followed pass by pass forward), or
// the nodes it came from (followed backward). Across two runs of the same model (e.g. tosa and
// tosa-permute), through the shared source graph; runs of unrelated graphs match by name. Used by
// the side-by-side panes to keep the selection in sync. No ImGui: tested in tests/viewers/counterparts_test.cpp.
#pragma once

#include <vector>

#include "core/trace/trace.h"

namespace ls::viewmodel {

/// The nodes of t.graphAfter(toPass) that correspond to `ids` in t.graphAfter(fromPass)
/// (passes -1 .. records-1; -1 = the source graph), sorted, without duplicates. Walks every
/// snapshot in between: forward, a node missing from the next snapshot is replaced by the
/// nodes derived from it; backward, a node missing from the earlier snapshot is replaced by
/// the nodes it was derived from.
std::vector<ir::NodeId> counterparts(const trace::Trace& t, int fromPass, int toPass, std::vector<ir::NodeId> ids);

/// Whether two runs start from the same graph: the same source, or sources with the same node
/// ids and names in the same order (a saved run of the same model), so NodeIds and provenance
/// can be followed from one into the other through the source.
bool sharedLineage(const trace::Trace& a, const trace::Trace& b);

/// The nodes of `to`.graphAfter(toPass) that correspond to `ids` in `from`.graphAfter(fromPass).
/// Same trace: counterparts(). Runs with a shared lineage: back to the source in `from`, then
/// forward in `to`. Otherwise: the nodes of the same name. Sorted, without duplicates.
std::vector<ir::NodeId> crossCounterparts(const trace::Trace& from, int fromPass, const trace::Trace& to, int toPass,
                                          std::vector<ir::NodeId> ids);

}  // namespace ls::viewmodel
