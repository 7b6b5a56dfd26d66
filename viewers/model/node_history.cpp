// Node history across a trace's snapshots.
#include "viewers/model/node_history.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "core/ir/printer.h"
#include "core/trace/diff.h"
#include "viewers/model/graph_model.h"

namespace ls::viewmodel {

namespace {
constexpr std::array<std::string_view, size_t(NodeEvent::Kind::COUNT)> kEventNames = {"created", "changed", "removed"};
static_assert(kEventNames.size() == size_t(NodeEvent::Kind::COUNT));

uint8_t compareNodes(const ir::Node& a, const ir::Node& b) {
  uint8_t what = 0;
  if (a.op != b.op || a.target != b.target || a.kind != b.kind) what |= trace::kOpChanged;
  auto sameArg = [](const ir::Arg& x, const ir::Arg& y) { return x.v == y.v; };
  bool argsSame = a.args.size() == b.args.size() && a.kwargs.size() == b.kwargs.size();
  for (size_t i = 0; argsSame && i < a.args.size(); ++i) argsSame = sameArg(a.args[i], b.args[i]);
  for (size_t i = 0; argsSame && i < a.kwargs.size(); ++i)
    argsSame = a.kwargs[i].name == b.kwargs[i].name && sameArg(a.kwargs[i].value, b.kwargs[i].value);
  if (!argsSame) what |= trace::kArgsChanged;
  if (a.outputs != b.outputs) what |= trace::kMetaChanged;
  return what;
}
}  // namespace

std::string_view nodeEventName(NodeEvent::Kind k) {
  return size_t(k) < kEventNames.size() ? kEventNames[size_t(k)] : "?";
}

std::string changeBitsText(uint8_t what) {
  std::string s;
  auto add = [&](uint8_t bit, const char* name) {
    if (!(what & bit)) return;
    if (!s.empty()) s += '+';
    s += name;
  };
  add(trace::kOpChanged, "op");
  add(trace::kArgsChanged, "args");
  add(trace::kMetaChanged, "meta");
  return s;
}

namespace {
const ir::Graph* resolve(const ir::Graph* g, const std::vector<std::string>& nested) {
  for (const std::string& name : nested) {
    if (!g) return nullptr;
    auto it = g->subgraphs().find(name);
    g = it == g->subgraphs().end() ? nullptr : it->second.get();
  }
  return g;
}
}  // namespace

NodeHistory nodeHistory(const trace::Trace& t, ir::NodeId id, const std::vector<std::string>& nested) {
  NodeHistory h;
  const ir::Graph* src = resolve(t.source.get(), nested);
  const ir::NodePtr* cur = src ? src->findPtr(id) : nullptr;
  ir::NodePtr prev = cur ? *cur : nullptr;
  h.inSource = prev != nullptr;
  if (prev) h.first = h.last = -1;
  for (const trace::PassRecord& r : t.records) {
    if (r.snapshot < 0 || size_t(r.snapshot) >= t.snapshots.size()) {
      if (prev) h.last = r.index;
      continue;
    }
    const ir::Graph* g = resolve(t.snapshots[size_t(r.snapshot)].get(), nested);
    const ir::NodePtr* p = g ? g->findPtr(id) : nullptr;
    ir::NodePtr now = p ? *p : nullptr;
    if (now && !prev) {
      h.events.push_back({NodeEvent::Kind::Created, r.index, 0});
      if (h.first == -2) h.first = r.index;
    } else if (!now && prev) {
      h.events.push_back({NodeEvent::Kind::Removed, r.index, 0});
    } else if (now && prev && now != prev) {
      uint8_t what = compareNodes(*prev, *now);
      if (what) h.events.push_back({NodeEvent::Kind::Changed, r.index, what});
    }
    if (now) h.last = r.index;
    prev = now;
  }
  return h;
}

// ---- field changes

std::vector<FieldChange> nodeFieldChanges(const ir::Graph& ga, const ir::Node& a, const ir::Graph& gb, const ir::Node& b) {
  using F = FieldChange::Field;
  std::vector<FieldChange> out;
  auto opText = [](const ir::Node& n) { return n.isCall() ? n.target : std::string(ir::nodeKindName(n.kind)); };
  if (a.kind != b.kind || a.target != b.target || a.op != b.op) out.push_back({F::Op, 0, "op", opText(a), opText(b)});
  const size_t args = std::max(a.args.size(), b.args.size());
  for (size_t i = 0; i < args; ++i) {
    const bool inA = i < a.args.size(), inB = i < b.args.size();
    if (inA && inB && a.args[i].v == b.args[i].v) continue;
    out.push_back({F::Arg, i, argName(inB ? b : a, i), inA ? ir::printArg(ga, a.args[i]) : "(absent)",
                   inB ? ir::printArg(gb, b.args[i]) : "(absent)"});
  }
  for (const ir::Kwarg& k : b.kwargs) {
    const ir::Arg* old = a.kwarg(k.name);
    if (old && old->v == k.value.v) continue;
    out.push_back({F::Kwarg, 0, k.name, old ? ir::printArg(ga, *old) : "(absent)", ir::printArg(gb, k.value)});
  }
  for (const ir::Kwarg& k : a.kwargs)
    if (!b.kwarg(k.name)) out.push_back({F::Kwarg, 0, k.name, ir::printArg(ga, k.value), "(absent)"});
  const size_t outs = std::max(a.outputs.size(), b.outputs.size());
  for (size_t i = 0; i < outs; ++i) {
    const bool inA = i < a.outputs.size(), inB = i < b.outputs.size();
    if (inA && inB && a.outputs[i] == b.outputs[i]) continue;
    out.push_back({F::Output, i, fmt::format("out {}", i), inA ? ir::toString(a.outputs[i]) : "(absent)",
                   inB ? ir::toString(b.outputs[i]) : "(absent)"});
  }
  if (a.module != b.module) out.push_back({F::Module, 0, "module", a.module, b.module});
  if (a.flags != b.flags) out.push_back({F::Flags, 0, "flags", fmt::format("{:#x}", a.flags), fmt::format("{:#x}", b.flags)});
  return out;
}

const FieldChange* findChange(const std::vector<FieldChange>& changes, FieldChange::Field f, size_t index, std::string_view name) {
  for (const FieldChange& c : changes)
    if (c.field == f && (f == FieldChange::Field::Kwarg ? c.name == name : c.index == index)) return &c;
  return nullptr;
}

// ---- lineage

namespace {
constexpr std::array<std::string_view, size_t(LineageEntry::Kind::COUNT)> kLineageNames = {
    "source", "created", "changed", "replaced by", "fused from", "removed"};
static_assert(kLineageNames.size() == size_t(LineageEntry::Kind::COUNT));

const ir::Graph* graphAt(const trace::Trace& t, int pass, const std::vector<std::string>& nested) {
  return resolve(&t.graphAfter(pass), nested);
}
std::string passText(const trace::Trace& t, int pass) {
  if (pass < 0 || size_t(pass) >= t.records.size()) return "source";
  return fmt::format("#{} {}", pass, t.records[size_t(pass)].name);
}
std::string nodeText(const ir::Graph* g, ir::NodeId id, bool withOp) {
  const ir::Node* n = g ? g->find(id) : nullptr;
  if (!n) return fmt::format("node {}", id);
  return withOp ? fmt::format("%{} ({})", n->name, n->isCall() ? n->target : std::string(ir::nodeKindName(n->kind)))
                : "%" + n->name;
}
/// The node of `ids` that comes last in `g` (the producer of the value), or kInvalidNode.
ir::NodeId lastInGraph(const ir::Graph* g, const std::vector<ir::NodeId>& ids) {
  ir::NodeId best = ir::kInvalidNode;
  size_t bestPos = 0;
  for (ir::NodeId id : ids)
    if (g && g->contains(id) && (best == ir::kInvalidNode || g->position(id) > bestPos)) best = id, bestPos = g->position(id);
  return best;
}
std::string namesText(const ir::Graph* g, const std::vector<ir::NodeId>& ids, size_t max = 3) {
  std::string s;
  for (size_t i = 0; i < ids.size() && i < max; ++i) s += (i ? ", " : "") + nodeText(g, ids[i], false);
  if (ids.size() > max) s += fmt::format(", +{}", ids.size() - max);
  return s;
}
}  // namespace

std::string_view lineageKindName(LineageEntry::Kind k) {
  return size_t(k) < kLineageNames.size() ? kLineageNames[size_t(k)] : "?";
}

std::vector<LineageEntry> nodeLineage(const trace::Trace& t, ir::NodeId id, int atPass, const std::vector<std::string>& nested,
                                      int maxSteps) {
  using K = LineageEntry::Kind;
  std::vector<LineageEntry> out;
  const ir::Graph* here = graphAt(t, atPass, nested);
  if (!here || !here->contains(id)) {
    // A removed node selected as its ghost: it exists before the pass.
    here = graphAt(t, atPass - 1, nested);
    if (!here || !here->contains(id)) return out;
  }
  // The chain of nodes carrying the value, and the pass at which each link was made.
  struct Link {
    int pass;
    std::vector<ir::NodeId> sources;  ///< what the next node came from (backward) / the replacements (forward)
    bool backward;
  };
  std::vector<ir::NodeId> chain{id};
  std::vector<Link> links;  // links[k] joins chain[k] and chain[k + 1]
  std::vector<NodeHistory> hist{nodeHistory(t, id, nested)};
  for (int step = 0; step < maxSteps; ++step) {
    const NodeHistory& h = hist.front();
    if (h.inSource || h.first < 0) break;
    const int c = h.first;
    const ir::Graph* after = graphAt(t, c, nested);
    const ir::Node* n = after ? after->find(chain.front()) : nullptr;
    if (!n) break;
    const ir::NodeId prev = lastInGraph(graphAt(t, c - 1, nested), n->provenance.derivedFrom);
    if (prev == ir::kInvalidNode || std::find(chain.begin(), chain.end(), prev) != chain.end()) break;
    chain.insert(chain.begin(), prev);
    links.insert(links.begin(), Link{c, n->provenance.derivedFrom, true});
    hist.insert(hist.begin(), nodeHistory(t, prev, nested));
  }
  for (int step = 0; step < maxSteps; ++step) {
    const NodeHistory& h = hist.back();
    if (h.events.empty() || h.events.back().kind != NodeEvent::Kind::Removed) break;
    const int r = h.events.back().pass;
    const ir::Graph* after = graphAt(t, r, nested);
    if (!after) break;
    std::vector<ir::NodeId> repl;
    for (const ir::NodePtr& p : after->nodes()) {
      const auto& d = p->provenance.derivedFrom;
      if (std::find(d.begin(), d.end(), chain.back()) != d.end()) repl.push_back(p->id);
    }
    const ir::NodeId next = lastInGraph(after, repl);
    if (next == ir::kInvalidNode || std::find(chain.begin(), chain.end(), next) != chain.end()) break;
    chain.push_back(next);
    links.push_back(Link{r, std::move(repl), false});
    hist.push_back(nodeHistory(t, next, nested));
  }

  auto add = [&](K kind, int pass, ir::NodeId node, std::string text) {
    out.push_back({kind, pass, node, fmt::format("{}: {}", passText(t, pass), text), node == id});
  };
  for (size_t k = 0; k < chain.size(); ++k) {
    const NodeHistory& h = hist[k];
    const ir::NodeId n = chain[k];
    if (k == 0) {
      if (h.inSource) add(K::Source, -1, n, nodeText(graphAt(t, -1, nested), n, true));
      else if (h.first >= 0) add(K::Created, h.first, n, nodeText(graphAt(t, h.first, nested), n, true) + " created");
    } else {
      const Link& l = links[k - 1];
      const ir::Graph* before = graphAt(t, l.pass - 1, nested);
      const ir::Graph* after = graphAt(t, l.pass, nested);
      if (l.backward && l.sources.size() > 1)
        add(K::FusedFrom, l.pass, n, fmt::format("{} fused from {}", nodeText(after, n, true), namesText(before, l.sources, 4)));
      else if (l.backward)
        add(K::ReplacedBy, l.pass, n, fmt::format("{} replaced by {}", nodeText(before, chain[k - 1], false), nodeText(after, n, true)));
      else
        add(K::ReplacedBy, l.pass, n,
            fmt::format("{} replaced by {}{}", nodeText(before, chain[k - 1], false), nodeText(after, n, true),
                        l.sources.size() > 1 ? fmt::format(" (with {} more)", l.sources.size() - 1) : ""));
    }
    for (const NodeEvent& e : h.events) {
      if (e.kind == NodeEvent::Kind::Changed)
        add(K::Changed, e.pass, n, fmt::format("{} changed ({})", nodeText(graphAt(t, e.pass, nested), n, false), changeBitsText(e.what)));
      else if (e.kind == NodeEvent::Kind::Removed && !(k + 1 < chain.size() && !links[k].backward && links[k].pass == e.pass))
        add(K::Removed, e.pass, n, nodeText(graphAt(t, e.pass - 1, nested), n, false) + " removed");
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const LineageEntry& a, const LineageEntry& b) { return a.pass < b.pass; });
  return out;
}

}  // namespace ls::viewmodel
