// Structural sharing of node versions between graphs read from files (.lstrace snapshots,
// recorder bundles): a node equal to the version of the same id in the previous graph becomes
// that version, as the TraceRecorder's snapshots share them in memory.
#pragma once

#include "core/ir/graph.h"

namespace ls::io {

/// Whether two node versions are the same (id, kind, flags, op, name, target, args, kwargs,
/// output metadata, module, provenance).
bool sameNodeVersion(const ir::Node& a, const ir::Node& b);

/// Rebuilds `g` so that every node equal to the version of the same id in `prev` shares
/// prev's node object. Order, constants and subgraphs are g's.
ir::Graph shareNodesWith(ir::Graph g, const ir::Graph& prev);

}  // namespace ls::io
