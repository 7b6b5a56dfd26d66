// Node history across a trace's snapshots.
#include "viewers/model/node_history.h"

#include <array>

#include "core/trace/diff.h"

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

}  // namespace ls::viewmodel
