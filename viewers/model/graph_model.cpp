// Graph view model: namespaces, labels, diff marks, search, nested-graph references.
#include "viewers/model/graph_model.h"

#include <algorithm>
#include <array>

#include "core/ir/tensor_meta.h"
#include "viewers/model/pass_list.h"

namespace ls::viewmodel {

namespace {
constexpr std::array<std::string_view, size_t(OpNamespace::COUNT)> kNsNames = {
    "aten", "tosa", "quantized", "delegate", "input", "constant", "output", "unknown"};
static_assert(kNsNames.size() == size_t(OpNamespace::COUNT));
constexpr std::array<std::string_view, size_t(DiffMark::COUNT)> kMarkNames = {"none", "added", "changed"};
static_assert(kMarkNames.size() == size_t(DiffMark::COUNT));

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
}  // namespace

std::string_view opNamespaceName(OpNamespace ns) {
  return size_t(ns) < kNsNames.size() ? kNsNames[size_t(ns)] : "?";
}
std::string_view diffMarkName(DiffMark m) { return size_t(m) < kMarkNames.size() ? kMarkNames[size_t(m)] : "?"; }

OpNamespace classifyNode(const ir::Graph& g, const ir::Node& n) {
  switch (n.kind) {
    case ir::NodeKind::Placeholder: return g.constant(n.target) ? OpNamespace::Constant : OpNamespace::Input;
    case ir::NodeKind::GetAttr: return OpNamespace::Constant;
    case ir::NodeKind::Output: return OpNamespace::Output;
    default: break;
  }
  std::string_view op = n.target;
  if (op.find("delegate") != std::string_view::npos) return OpNamespace::Delegate;
  if (n.hasFlag(ir::kFlagOpaque)) return OpNamespace::Unknown;
  if (startsWith(op, "aten.") || startsWith(op, "operator.") || startsWith(op, "_operator.")) return OpNamespace::Aten;
  if (startsWith(op, "tosa.")) return OpNamespace::Tosa;
  if (startsWith(op, "quantized_decomposed.") || startsWith(op, "quantized.")) return OpNamespace::Quantized;
  return OpNamespace::Unknown;
}

std::string shortOpName(const ir::Node& n) {
  switch (n.kind) {
    case ir::NodeKind::Placeholder: return "input";
    case ir::NodeKind::GetAttr: return "const";
    case ir::NodeKind::Output: return "output";
    default: break;
  }
  std::string_view op = n.target;
  size_t dot = op.find('.');
  if (dot != std::string_view::npos) op.remove_prefix(dot + 1);
  if (op.size() > 8 && op.substr(op.size() - 8) == ".default") op.remove_suffix(8);
  return std::string(op);
}

std::string nodeLabel(const ir::Node& n) {
  std::string s = shortOpName(n);
  const ir::TensorMeta& m = n.meta(0);
  if (m.isTensor()) {
    s += ' ';
    s += ir::toString(m.shape);
  }
  return s;
}

DrawDiff prepareDiff(const trace::GraphDiff& d, const ir::Graph& shown) {
  DrawDiff out;
  out.markById.assign(shown.nextId(), uint8_t(DiffMark::None));
  auto mark = [&](ir::NodeId id, DiffMark m) {
    if (id >= out.markById.size()) out.markById.resize(size_t(id) + 1, uint8_t(DiffMark::None));
    out.markById[id] = uint8_t(m);
  };
  for (ir::NodeId id : d.added) mark(id, DiffMark::Added);
  for (const trace::ChangedNode& c : d.changed) mark(c.id, DiffMark::Changed);
  out.removed = d.removed;
  out.added = d.added.size();
  out.changed = d.changed.size();
  out.unchanged = d.unchanged;
  return out;
}

std::vector<ir::NodeId> searchNodes(const ir::Graph& g, std::string_view query) {
  std::vector<ir::NodeId> out;
  if (query.empty()) return out;
  constexpr std::string_view kModule = "module:";
  if (query.substr(0, kModule.size()) == kModule) {
    std::string_view path = query.substr(kModule.size());
    for (const ir::NodePtr& p : g.nodes()) {
      std::string_view m = p->module;
      if (m.empty()) continue;
      if (path.empty() || (m.substr(0, path.size()) == path && (m.size() == path.size() || m[path.size()] == '.')))
        out.push_back(p->id);
    }
    return out;
  }
  for (const ir::NodePtr& p : g.nodes())
    if (containsNoCase(p->name, query) || (p->isCall() && containsNoCase(p->target, query))) out.push_back(p->id);
  return out;
}

std::vector<std::string> nestedGraphRefs(const ir::Graph& g, const ir::Node& n) {
  std::vector<std::string> out;
  if (g.subgraphs().empty()) return out;
  auto consider = [&](std::string_view name) {
    if (g.subgraphs().count(name)) out.emplace_back(name);
  };
  auto visit = [&](const ir::Arg& a) {
    if (auto* s = std::get_if<std::string>(&a.v)) consider(*s);
    auto ref = [&](const ir::ValueRef& r) {
      if (const ir::Node* src = g.find(r.node); src && src->kind == ir::NodeKind::GetAttr) consider(src->target);
    };
    if (auto* r = a.ref()) ref(*r);
    if (auto* l = a.asRefList())
      for (const ir::ValueRef& r : *l)
        if (!r.isNone()) ref(r);
  };
  for (const ir::Arg& a : n.args) visit(a);
  for (const ir::Kwarg& k : n.kwargs) visit(k.value);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace ls::viewmodel
