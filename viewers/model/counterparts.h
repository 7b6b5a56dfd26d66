// Which nodes of another pass's graph correspond to a node: the same NodeId where it survives,
// else the nodes that replaced it (provenance derivedFrom, followed pass by pass forward), or
// the nodes it came from (followed backward). Used by the side-by-side panes to keep the
// selection in sync. No ImGui: tested in tests/viewers/counterparts_test.cpp.
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

}  // namespace ls::viewmodel
