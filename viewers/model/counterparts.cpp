// Node counterparts across passes (see counterparts.h).
#include "viewers/model/counterparts.h"

#include <algorithm>
#include <unordered_set>

namespace ls::viewmodel {

namespace {

void normalise(std::vector<ir::NodeId>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

/// One snapshot step forward: survivors keep their id, the others map to their derived nodes.
std::vector<ir::NodeId> stepForward(const ir::Graph& next, const std::vector<ir::NodeId>& ids) {
  std::vector<ir::NodeId> out;
  std::unordered_set<ir::NodeId> gone;
  for (ir::NodeId id : ids) (next.find(id) ? out.push_back(id) : (void)gone.insert(id));
  if (!gone.empty())
    for (const ir::NodePtr& p : next.nodes())
      for (ir::NodeId src : p->provenance.derivedFrom)
        if (gone.count(src)) {
          out.push_back(p->id);
          break;
        }
  normalise(out);
  return out;
}

/// One snapshot step backward: nodes absent before map to the nodes they were derived from.
std::vector<ir::NodeId> stepBackward(const ir::Graph& cur, const ir::Graph& prev, const std::vector<ir::NodeId>& ids) {
  std::vector<ir::NodeId> out;
  for (ir::NodeId id : ids) {
    if (prev.find(id)) {
      out.push_back(id);
      continue;
    }
    if (const ir::Node* n = cur.find(id))
      for (ir::NodeId src : n->provenance.derivedFrom)
        if (prev.find(src)) out.push_back(src);
  }
  normalise(out);
  return out;
}

}  // namespace

std::vector<ir::NodeId> counterparts(const trace::Trace& t, int fromPass, int toPass, std::vector<ir::NodeId> ids) {
  normalise(ids);
  const int last = int(t.records.size()) - 1;
  fromPass = std::clamp(fromPass, -1, last);
  toPass = std::clamp(toPass, -1, last);
  // Only passes that produced a new snapshot change anything.
  if (toPass >= fromPass) {
    for (int p = fromPass + 1; p <= toPass && !ids.empty(); ++p)
      if (t.records[size_t(p)].snapshot >= 0) ids = stepForward(t.graphAfter(p), ids);
  } else {
    for (int p = fromPass; p > toPass && !ids.empty(); --p)
      if (t.records[size_t(p)].snapshot >= 0) ids = stepBackward(t.graphAfter(p), t.graphBefore(p), ids);
  }
  // Whatever the walk kept exists in the target graph.
  const ir::Graph& target = t.graphAfter(toPass);
  ids.erase(std::remove_if(ids.begin(), ids.end(), [&](ir::NodeId id) { return !target.find(id); }), ids.end());
  return ids;
}

bool sharedLineage(const trace::Trace& a, const trace::Trace& b) {
  if (!a.source || !b.source) return false;
  if (a.source == b.source) return true;
  const ir::Graph& x = *a.source;
  const ir::Graph& y = *b.source;
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i)
    if (x.at(i).id != y.at(i).id || x.at(i).name != y.at(i).name) return false;
  return true;
}

std::vector<ir::NodeId> crossCounterparts(const trace::Trace& from, int fromPass, const trace::Trace& to, int toPass,
                                          std::vector<ir::NodeId> ids) {
  if (&from == &to) return counterparts(from, fromPass, toPass, std::move(ids));
  if (sharedLineage(from, to)) return counterparts(to, -1, toPass, counterparts(from, fromPass, -1, std::move(ids)));
  const ir::Graph& a = from.graphAfter(fromPass);
  const ir::Graph& b = to.graphAfter(toPass);
  std::vector<ir::NodeId> out;
  for (ir::NodeId id : ids)
    if (const ir::Node* n = a.find(id))
      if (ir::NodeId m = b.findByName(n->name); m != ir::kInvalidNode) out.push_back(m);
  normalise(out);
  return out;
}

}  // namespace ls::viewmodel
