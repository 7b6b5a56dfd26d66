// Graph diff by NodeId with provenance links.
#include "core/trace/diff.h"

#include <fmt/format.h>

#include <map>
#include <unordered_set>

namespace ls::trace {

std::string_view linkKindName(ProvenanceLink::Kind k) {
  switch (k) {
    case ProvenanceLink::Kind::Replace: return "replace";
    case ProvenanceLink::Kind::Fusion: return "fusion";
    case ProvenanceLink::Kind::Split: return "split";
    default: return "?";
  }
}

GraphDiff diffGraphs(const ir::Graph& a, const ir::Graph& b) {
  GraphDiff d;
  for (const ir::NodePtr& p : a.nodes())
    if (!b.contains(p->id)) d.removed.push_back(p->id);
  for (const ir::NodePtr& pb : b.nodes()) {
    const ir::NodePtr* pa = a.findPtr(pb->id);
    if (!pa) {
      d.added.push_back(pb->id);
      continue;
    }
    if (pa->get() == pb.get()) {
      ++d.unchanged;
      continue;
    }
    const ir::Node& na = **pa;
    const ir::Node& nb = *pb;
    uint8_t what = 0;
    if (na.op != nb.op || na.kind != nb.kind || na.target != nb.target) what |= kOpChanged;
    if (na.args != nb.args || na.kwargs != nb.kwargs) what |= kArgsChanged;
    if (na.outputs != nb.outputs) what |= kMetaChanged;
    if (what) d.changed.push_back({nb.id, what});
    else ++d.unchanged;
  }
  // Provenance: group added nodes by the removed nodes they derive from.
  std::unordered_set<ir::NodeId> removed(d.removed.begin(), d.removed.end());
  std::map<ir::NodeId, std::vector<ir::NodeId>> byOrigin;  // removed id -> added ids
  for (ir::NodeId id : d.added) {
    const ir::Node& n = b.node(id);
    std::vector<ir::NodeId> from;
    for (ir::NodeId src : n.provenance.derivedFrom)
      if (removed.count(src)) from.push_back(src);
    if (from.size() >= 2) {
      d.links.push_back({ProvenanceLink::Kind::Fusion, from, {id}, n.provenance.createdBy});
    } else if (from.size() == 1) {
      byOrigin[from[0]].push_back(id);
    }
  }
  for (auto& [origin, to] : byOrigin) {
    auto kind = to.size() > 1 ? ProvenanceLink::Kind::Split : ProvenanceLink::Kind::Replace;
    d.links.push_back({kind, {origin}, to, b.node(to[0]).provenance.createdBy});
  }
  return d;
}

std::string summarize(const GraphDiff& d) {
  std::string s = fmt::format("+{} -{} ~{} ={}", d.added.size(), d.removed.size(), d.changed.size(), d.unchanged);
  int shown = 0;
  for (const ProvenanceLink& l : d.links) {
    if (l.kind == ProvenanceLink::Kind::Replace) continue;
    if (shown++ == 3) {
      s += "; ...";
      break;
    }
    s += fmt::format("; {} {}->{} ({})", linkKindName(l.kind), l.from.size(), l.to.size(), l.pass);
  }
  return s;
}

}  // namespace ls::trace
