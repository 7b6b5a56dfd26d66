// Stable textual form of graphs.
#include "core/ir/printer.h"

#include <fmt/format.h>

namespace ls::ir {
namespace {

std::string refText(const Graph& g, const ValueRef& r) {
  if (r.isNone()) return "None";
  const Node* n = g.find(r.node);
  std::string s = n ? "%" + n->name : fmt::format("%<dangling:{}>", r.node);
  if (r.output > 0) s += fmt::format("#{}", r.output);
  return s;
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') { out += "\\n"; continue; }
    out += c;
  }
  out += '"';
  return out;
}

template <typename T, typename F>
std::string list(const std::vector<T>& v, F&& f) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += f(v[i]);
  }
  return s + "]";
}

std::string metaText(const Node& n) {
  if (n.outputs.size() == 1 && !n.hasFlag(kFlagOutputsAsList)) return toString(n.outputs[0]);
  std::string s = "(";
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    if (i) s += ", ";
    s += toString(n.outputs[i]);
  }
  return s + ")";
}

}  // namespace

std::string printArg(const Graph& g, const Arg& a) {
  struct V {
    const Graph& g;
    std::string operator()(std::monostate) const { return "None"; }
    std::string operator()(bool b) const { return b ? "True" : "False"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return formatFloat(d); }
    std::string operator()(const std::string& s) const { return quoted(s); }
    std::string operator()(const EnumArg& e) const { return enumToString(e); }
    std::string operator()(const ValueRef& r) const { return refText(g, r); }
    std::string operator()(const IntList& l) const {
      return list(l, [](int64_t v) { return std::to_string(v); });
    }
    std::string operator()(const FloatList& l) const { return list(l, [](double v) { return formatFloat(v); }); }
    std::string operator()(const BoolList& l) const {
      return list(l, [](uint8_t v) { return std::string(v ? "True" : "False"); });
    }
    std::string operator()(const RefList& l) const {
      return list(l, [&](const ValueRef& r) { return refText(g, r); });
    }
    std::string operator()(const SliceArg& s) const {
      auto o = [](const std::optional<int64_t>& v) { return v ? std::to_string(*v) : std::string("None"); };
      return fmt::format("slice({}, {}, {})", o(s.start), o(s.stop), o(s.step));
    }
  };
  return std::visit(V{g}, a.v);
}

std::string printArgs(const Graph& g, const Node& n) {
  std::string s;
  for (size_t i = 0; i < n.args.size(); ++i) {
    if (i) s += ", ";
    s += printArg(g, n.args[i]);
  }
  for (const Kwarg& k : n.kwargs) {
    if (!s.empty()) s += ", ";
    s += k.name + "=" + printArg(g, k.value);
  }
  return s;
}

std::string printNode(const Graph& g, const Node& n) {
  switch (n.kind) {
    case NodeKind::Placeholder: return fmt::format("%{} = placeholder[{}] : {}", n.name, n.target, metaText(n));
    case NodeKind::GetAttr: return fmt::format("%{} = get_attr[{}] : {}", n.name, n.target, metaText(n));
    case NodeKind::Output: {
      std::string s = "return ";
      if (!n.args.empty()) {
        if (auto* l = n.args[0].asRefList()) {
          s += "(";
          for (size_t i = 0; i < l->size(); ++i) {
            if (i) s += ", ";
            s += refText(g, (*l)[i]);
          }
          s += ")";
        } else {
          s += printArg(g, n.args[0]);
        }
      }
      return s;
    }
    case NodeKind::Call:
    default: {
      std::string s = fmt::format("%{} = {}({}) : {}", n.name, opName(n.op), printArgs(g, n), metaText(n));
      if (n.hasFlag(kFlagOpaque)) s += " [opaque]";
      return s;
    }
  }
}

std::string printGraph(const Graph& g) {
  std::string out;
  out.reserve(g.size() * 64);
  for (const NodePtr& p : g.nodes()) {
    out += printNode(g, *p);
    out += '\n';
  }
  for (const auto& [name, sg] : g.subgraphs()) {
    out += "subgraph " + name + " {\n";
    out += printGraph(*sg);
    out += "}\n";
  }
  return out;
}

}  // namespace ls::ir

namespace ls::ir {

std::string printConstant(const Constant& c) {
  std::string s = fmt::format("{}: {}{} {}", c.name, dtypeName(c.dtype), toString(c.shape), constantKindName(c.kind));
  if (!c.fqn.empty()) s += " fqn=" + c.fqn;
  if (c.recipe) s += ", recipe: " + c.recipe->describe();
  else if (c.hasData()) s += fmt::format(", {} bytes", c.data->bytes.size());
  else s += ", shape-only (synthesised)";
  return s;
}

}  // namespace ls::ir
