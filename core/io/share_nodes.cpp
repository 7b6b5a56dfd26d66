// Structural sharing of node versions between snapshots read from files.
#include "core/io/share_nodes.h"

namespace ls::io {

bool sameNodeVersion(const ir::Node& a, const ir::Node& b) {
  return a.id == b.id && a.kind == b.kind && a.flags == b.flags && a.op == b.op && a.name == b.name &&
         a.target == b.target && a.args == b.args && a.kwargs == b.kwargs && a.outputs == b.outputs &&
         a.module == b.module && a.provenance == b.provenance;
}

ir::Graph shareNodesWith(ir::Graph g, const ir::Graph& prev) {
  ir::Graph out = g.shellCopy();
  out.reserveNodes(g.size());
  for (size_t i = 0; i < g.size(); ++i) {
    const ir::NodePtr& p = g.ptrAt(i);
    const ir::NodePtr* old = prev.findPtr(p->id);
    if (old && sameNodeVersion(**old, *p))
      out.appendShared(*old);
    else
      out.appendShared(p);
  }
  out.reserveIds(g.nextId());
  return out;
}

}  // namespace ls::io
