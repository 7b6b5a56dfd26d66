// Graph view model: namespaces, labels, diff marks, search, nested-graph references.
#include "viewers/model/graph_model.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <unordered_map>
#include <optional>

#include <fmt/format.h>

#include "core/exec/materialize.h"
#include "core/graph_layout/graph_layout.h"
#include "core/ir/printer.h"
#include "core/ir/tensor_meta.h"
#include "core/ops/registry.h"
#include "viewers/model/pass_list.h"
#include "viewers/model/module_folds.h"

namespace ls::viewmodel {

namespace {
constexpr std::array<std::string_view, size_t(OpNamespace::COUNT)> kNsNames = {
    "aten", "tosa", "quantized", "delegate", "input", "constant", "output", "unknown", "module"};
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
  if (op == kFoldTarget) return OpNamespace::Module;
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

bool isFoldNode(const ir::Node& n) { return n.isCall() && n.target == kFoldTarget; }

std::string nodeLabel(const ir::Node& n) {
  if (isFoldNode(n)) return foldLabel(n);
  std::string s = shortOpName(n);
  const ir::TensorMeta& m = n.meta(0);
  if (m.isTensor()) {
    s += ' ';
    s += ir::dtypeShortName(m.dtype);
    s += ir::toString(m.shape);
  }
  return s;
}

std::string argName(const ir::Node& n, size_t k) {
  if (n.isCall())
    if (const ops::OpSchema* sc = ops::OpRegistry::instance().find(n.target); sc && k < sc->args.size())
      return sc->args[k].name;
  return "#" + std::to_string(k);
}

namespace {
/// "32x3x3x3" ("scalar" for rank 0).
std::string dims(const ir::Shape& s) {
  if (s.rank() == 0) return "scalar";
  std::string out;
  for (int i = 0; i < s.rank(); ++i) {
    if (i) out += 'x';
    out += std::to_string(s[i]);
  }
  return out;
}
/// The value of a one-element constant, when its bytes are present or it is derived (a recipe,
/// materialised through the shared cache).
std::optional<std::string> scalarValue(const ir::Constant& c) {
  if ((!c.hasData() && !c.recipe) || c.numel() != 1) return std::nullopt;
  exec::Tensor derived;
  if (!c.hasData()) {
    auto t = exec::materialize(c);
    if (!t) return std::nullopt;
    derived = std::move(*t);
  }
  const std::span<const uint8_t> b = c.hasData() ? c.data->bytes : std::span<const uint8_t>(derived.bytes(), derived.nbytes());
  auto get = [&](auto zero) -> std::optional<std::string> {
    if (b.size() < sizeof(zero)) return std::nullopt;
    std::memcpy(&zero, b.data(), sizeof(zero));
    return fmt::format("{}", zero);
  };
  switch (c.dtype) {
    case ir::DType::Float32: return get(float{});
    case ir::DType::Float64: return get(double{});
    case ir::DType::Int8: return b.empty() ? std::nullopt : std::optional<std::string>(std::to_string(int(int8_t(b[0]))));
    case ir::DType::UInt8: return b.empty() ? std::nullopt : std::optional<std::string>(std::to_string(int(b[0])));
    case ir::DType::Int16: return get(int16_t{});
    case ir::DType::Int32: return get(int32_t{});
    case ir::DType::Int64: return get(int64_t{});
    case ir::DType::Bool: return b.empty() ? std::nullopt : std::optional<std::string>(b[0] ? "true" : "false");
    default: return std::nullopt;
  }
}
}  // namespace

std::vector<Badge> nodeBadges(const ir::Graph& g, const ir::Node& n, const std::function<bool(ir::NodeId)>& isBadge) {
  std::vector<Badge> out;
  auto add = [&](const ir::ValueRef& r, const std::string& name) {
    if (r.isNone() || !isBadge(r.node)) return;
    const ir::Node* p = g.find(r.node);
    if (!p) return;
    Badge b;
    b.id = p->id;
    b.text = name;
    const ir::Constant* c = nullptr;
    if (p->kind == ir::NodeKind::GetAttr || p->kind == ir::NodeKind::Placeholder) c = g.constant(p->target);
    if (c) {
      if (auto v = scalarValue(*c)) b.text += "=" + *v;
      else b.text += " " + dims(c->shape);
    } else if (p->isCall() && p->args.empty() && p->kwargs.size() == 1) {
      // A nullary call defined by one kwarg (tosa.CONST_SHAPE values=[...]).
      b.text += "=" + ir::printArg(g, p->kwargs.front().value);
    } else if (p->meta(0).isTensor()) {
      b.text += " " + dims(p->meta(0).shape);
    }
    out.push_back(std::move(b));
  };
  for (size_t k = 0; k < n.args.size(); ++k) {
    const ir::Arg& a = n.args[k];
    if (const ir::ValueRef* r = a.ref()) add(*r, argName(n, k));
    else if (const auto* l = a.asRefList())
      for (size_t j = 0; j < l->size(); ++j) add((*l)[j], fmt::format("{}[{}]", argName(n, k), j));
  }
  for (const ir::Kwarg& kw : n.kwargs)
    if (const ir::ValueRef* r = kw.value.ref()) add(*r, kw.name);
  return out;
}

std::string badgeLine(const std::vector<Badge>& badges) {
  std::string s;
  for (const Badge& b : badges) {
    if (!s.empty()) s += ", ";
    s += b.text;
  }
  return s;
}

float measureNodeWidth(const ir::Graph& g, const ir::Node& n, bool badges) {
  size_t glyphs = std::max(nodeLabel(n).size(), n.name.size());
  if (isFoldNode(n)) glyphs = std::max(glyphs, foldOpSummary(n).size());
  else if (badges) {
    auto isParam = [&](ir::NodeId id) {
      const ir::Node* p = g.find(id);
      return p && graph_layout::isParameterNode(g, *p);
    };
    glyphs = std::max(glyphs, badgeLine(nodeBadges(g, n, isParam)).size());
  }
  return std::min(12.f + 8.2f * float(glyphs), 480.f);
}

graph_layout::LayoutOptions canvasLayoutOptions(bool hideConstants, bool constantBadges) {
  graph_layout::LayoutOptions lo;
  lo.hideConstants = hideConstants;
  lo.constantBadges = constantBadges;
  // Badges take a line of their own: op and type, badges, name.
  lo.nodeHeight = constantBadges ? 52.f : 36.f;
  // A value used by more than 6 nodes further down is drawn as stubs ("N users").
  lo.maxFanout = 6;
  // Box width from the label and badges (runs on the layout worker: pure string work).
  lo.measureWidth = [constantBadges](const ir::Graph& g, const ir::Node& n) { return measureNodeWidth(g, n, constantBadges); };
  return lo;
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
  for (const trace::ProvenanceLink& l : d.links)
    for (ir::NodeId from : l.from)
      for (ir::NodeId to : l.to) out.replacedBy.emplace_back(from, to);
  std::sort(out.replacedBy.begin(), out.replacedBy.end());  // by removed node: looked up by equal_range
  out.added = d.added.size();
  out.changed = d.changed.size();
  out.unchanged = d.unchanged;
  return out;
}

std::vector<GhostBox> placeGhosts(const graph_layout::Layout& shown, const graph_layout::Layout& compared,
                                  const std::vector<ir::NodeId>& removed, float gap) {
  // Occupied rectangles, indexed by horizontal band of the canvas (a band is as high as the
  // tallest box, so a box lies in at most two) and, within a band, by left edge. A ghost keeps
  // its row and moves left past the box it overlaps whose left edge is rightmost (the smallest
  // move), until it overlaps nothing; each look-up reads only the boxes whose left edge lies
  // within one box width of the ghost, so a run that removes thousands of nodes from a crowded
  // row costs what its moves cost, not boxes x ghosts x moves.
  struct Span {
    float x0, x1, y0, y1;
  };
  std::vector<Span> taken;
  taken.reserve(shown.nodes.size() + removed.size());
  float bandH = 1.f, widest = 0.f;
  for (const graph_layout::NodeBox& b : shown.nodes) bandH = std::max(bandH, b.h);
  const float top = shown.minY;
  auto band = [&](float y) { return int64_t(std::floor((y - top) / bandH)); };
  std::unordered_map<int64_t, std::multimap<float, uint32_t>> bands;  // band -> left edge -> span
  auto take = [&](const Span& sp) {
    const auto idx = uint32_t(taken.size());
    taken.push_back(sp);
    widest = std::max(widest, sp.x1 - sp.x0);
    for (int64_t k = band(sp.y0), last = band(sp.y1); k <= last; ++k) bands[k].emplace(sp.x0, idx);
  };
  for (const graph_layout::NodeBox& b : shown.nodes)
    if (b.w > 0 && b.h > 0) take({b.x, b.x + b.w, b.y, b.y + b.h});
  std::vector<GhostBox> out;
  for (ir::NodeId id : removed) {
    const graph_layout::NodeBox* b = compared.find(id);
    if (!b || b->w <= 0 || b->h <= 0) continue;
    GhostBox g{id, b->x, b->y, b->w, b->h};
    const float pad = gap * 0.5f;
    for (;;) {
      // The overlapped box with the rightmost left edge: left edges in (x - pad - widest,
      // x + w + pad) are the only ones whose box can reach the ghost.
      const Span* hit = nullptr;
      for (int64_t k = band(g.y), last = band(g.y + g.h); k <= last; ++k) {
        auto it = bands.find(k);
        if (it == bands.end()) continue;
        const std::multimap<float, uint32_t>& row = it->second;
        for (auto e = row.lower_bound(g.x + g.w + pad); e != row.begin();) {
          --e;
          if (e->first <= g.x - pad - widest || (hit && e->first <= hit->x0)) break;
          const Span& sp = taken[e->second];
          if (g.x < sp.x1 + pad && g.x + g.w > sp.x0 - pad && g.y < sp.y1 && g.y + g.h > sp.y0) {
            hit = &sp;
            break;
          }
        }
      }
      if (!hit) break;
      g.x = hit->x0 - gap - g.w;
    }
    take({g.x, g.x + g.w, g.y, g.y + g.h});
    out.push_back(g);
  }
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
