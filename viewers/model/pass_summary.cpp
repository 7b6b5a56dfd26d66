// Pass summary for the pipeline view (see pass_summary.h).
#include "viewers/model/pass_summary.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/passes/pass_manager.h"
#include "viewers/model/timing_model.h"

namespace ls::viewmodel {

namespace {

std::string opOf(const ir::Graph& g, ir::NodeId id) {
  const ir::Node* n = g.find(id);
  if (!n) return "?";
  switch (n->kind) {
    case ir::NodeKind::Call: return std::string(ir::opName(n->op));
    case ir::NodeKind::GetAttr: return "constant";
    case ir::NodeKind::Placeholder: return "input";
    case ir::NodeKind::Output: return "output";
    default: break;
  }
  return "?";
}

/// "a + 2x b" for the ops of `ids`, sorted so equal multisets give equal text.
std::string opList(const ir::Graph& g, const std::vector<ir::NodeId>& ids) {
  std::map<std::string, size_t> count;
  for (ir::NodeId id : ids) ++count[opOf(g, id)];
  std::vector<std::string> parts;
  for (const auto& [op, n] : count) parts.push_back(n > 1 ? fmt::format("{}x {}", n, op) : op);
  return parts.empty() ? "nothing" : fmt::format("{}", fmt::join(parts, " + "));
}

std::string whatChanged(uint8_t what) {
  std::vector<std::string_view> w;
  if (what & trace::kOpChanged) w.push_back("op");
  if (what & trace::kArgsChanged) w.push_back("args");
  if (what & trace::kMetaChanged) w.push_back("meta");
  return fmt::format("{}", fmt::join(w, "+"));
}

/// Why a pass was skipped, in words; `ops` is the list the pass looks for.
std::string reasonText(const trace::PassRecord& r, const std::vector<std::string>& ops) {
  std::string why;
  switch (r.reason) {
    case passes::SkipReason::NoTargetOps:
      why = ops.empty() ? "no node of its target ops in the graph"
                        : fmt::format("none of its {} target op(s) is in the graph or a nested graph", ops.size());
      break;
    case passes::SkipReason::TargetsDisallowed: why = "every node of its target ops is flagged disallow-transform"; break;
    case passes::SkipReason::Profile: why = "does not apply to this profile"; break;
    case passes::SkipReason::Target: why = "does not apply to this hardware target"; break;
    case passes::SkipReason::Precondition: why = "its own check found nothing to do"; break;
    case passes::SkipReason::Disabled: why = "disabled by the user"; break;
    case passes::SkipReason::Cancelled: why = "the run was cancelled before it"; break;
    case passes::SkipReason::NotReached: why = "an earlier pass failed and the pipeline stopped"; break;
    default: why = "skipped"; break;
  }
  std::string out = fmt::format("{}: {}", passes::skipReasonName(r.reason), why);
  if (!r.message.empty() && r.message != passes::skipReasonName(r.reason)) out += " (" + r.message + ")";
  return out;
}

}  // namespace

std::vector<ChangeGroup> groupChanges(const ir::Graph& before, const ir::Graph& after, const trace::GraphDiff& d) {
  std::map<std::string, size_t> groups;
  std::vector<char> linkedAdded, linkedRemoved;
  auto mark = [](std::vector<char>& v, ir::NodeId id) {
    if (id >= v.size()) v.resize(size_t(id) + 1, 0);
    v[id] = 1;
  };
  auto marked = [](const std::vector<char>& v, ir::NodeId id) { return id < v.size() && v[id]; };
  for (const trace::ProvenanceLink& l : d.links) {
    ++groups[fmt::format("{} -> {} ({})", opList(before, l.from), opList(after, l.to), trace::linkKindName(l.kind))];
    for (ir::NodeId id : l.from) mark(linkedRemoved, id);
    for (ir::NodeId id : l.to) mark(linkedAdded, id);
  }
  for (ir::NodeId id : d.added)
    if (!marked(linkedAdded, id)) ++groups["+ " + opOf(after, id)];
  for (ir::NodeId id : d.removed)
    if (!marked(linkedRemoved, id)) ++groups["- " + opOf(before, id)];
  for (const trace::ChangedNode& c : d.changed) {
    const ir::Node* a = before.find(c.id);
    std::string op = opOf(after, c.id);
    if ((c.what & trace::kOpChanged) && a) op = opOf(before, c.id) + " -> " + op;
    ++groups[fmt::format("~ {} ({})", op, whatChanged(c.what))];
  }
  std::vector<ChangeGroup> out;
  for (auto& [text, n] : groups) out.push_back({n, text});
  std::stable_sort(out.begin(), out.end(), [](const ChangeGroup& x, const ChangeGroup& y) { return x.count > y.count; });
  return out;
}

PassSummary passSummary(const trace::Trace& t, int passIndex, const trace::GraphDiff* diff) {
  PassSummary s;
  if (passIndex < 0 || size_t(passIndex) >= t.records.size()) {
    s.title = "source graph";
    s.nodes = fmt::format("{} nodes", t.source ? t.source->size() : 0);
    return s;
  }
  const trace::PassRecord& r = t.records[size_t(passIndex)];
  s.title = fmt::format("#{} {}: {}", passIndex, r.name, passes::passStatusName(r.status));
  if (auto p = passes::PassRegistry::instance().create(r.name)) {
    s.description = p->description();
    for (ir::OpId op : p->targetOps()) s.targetOps.emplace_back(ir::opName(op));
  }
  if (r.status == passes::PassStatus::Skipped) s.reason = reasonText(r, s.targetOps);
  else if (r.status == passes::PassStatus::Failed) s.reason = r.message;
  s.timing = fmt::format("scan {}, run {}, verify {}", formatDuration(r.scanNs), formatDuration(r.runNs),
                         formatDuration(r.verifyNs));
  if (r.ran())
    s.nodes = fmt::format("{} -> {} nodes ({:+}); {} hot, {} fast-copied, {} re-inferred", r.nodesBefore, r.nodesAfter,
                          int64_t(r.nodesAfter) - int64_t(r.nodesBefore), r.hot, r.fastCopied, r.reinferred);
  for (const trace::StatValue& st : r.stats)
    if (st.value) s.statistics.emplace_back(st.name, st.value);
  if (r.status == passes::PassStatus::Changed) {
    const ir::Graph& a = t.graphBefore(passIndex);
    const ir::Graph& b = t.graphAfter(passIndex);
    if (diff) s.changes = groupChanges(a, b, *diff);
    else s.changes = groupChanges(a, b, trace::diffGraphs(a, b));
  }
  return s;
}

std::vector<std::string> summaryLines(const PassSummary& s) {
  std::vector<std::string> out{s.title};
  for (const std::string* l : {&s.description, &s.reason, &s.timing, &s.nodes})
    if (!l->empty()) out.push_back(*l);
  if (!s.targetOps.empty()) out.push_back(fmt::format("looks for: {}", fmt::join(s.targetOps, ", ")));
  for (const ChangeGroup& g : s.changes) out.push_back(fmt::format("{}x {}", g.count, g.text));
  for (const auto& [name, v] : s.statistics) out.push_back(fmt::format("{}: {}", name, v));
  return out;
}

}  // namespace ls::viewmodel
