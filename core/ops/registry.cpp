// Op registry: PyTorch schema-string parser, arg resolution, arity checks, inference cache.
#include "core/ops/registry.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <mutex>
#include <unordered_set>

#include "core/ops/builtin_ops.h"
#include "core/util/hash.h"

namespace ls::ops {

using ir::Arg;
using ir::ArgKind;

std::string_view argTypeName(ArgType t) {
  static constexpr std::string_view kNames[] = {"Tensor", "Tensor[]", "Tensor?[]", "int",   "int[]",
                                                "float",  "float[]",  "Scalar",    "bool",  "bool[]",
                                                "ScalarType", "Layout", "Device", "MemoryFormat", "str", "Any"};
  static_assert(std::size(kNames) == size_t(ArgType::COUNT), "name per ArgType");
  return t < ArgType::COUNT ? kNames[size_t(t)] : "?";
}

int OpSchema::argIndex(std::string_view argName) const {
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].name == argName) return int(i);
  return -1;
}

int OpSchema::positionalCount() const {
  int n = 0;
  for (const ArgSpec& a : args)
    if (!a.kwargOnly) ++n;
  return n;
}

// ------------------------------------------------------------------ schema parsing

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Splits on commas at bracket depth 0.
std::vector<std::string_view> splitTop(std::string_view s) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  bool quote = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '\'' || c == '"') quote = !quote;
    if (quote) continue;
    if (c == '(' || c == '[') ++depth;
    else if (c == ')' || c == ']') --depth;
    else if (c == ',' && depth == 0) {
      parts.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  auto last = trim(s.substr(start));
  if (!last.empty()) parts.push_back(last);
  return parts;
}

std::optional<Arg> parseNumber(std::string_view v) {
  int64_t i;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), i);
  if (ec == std::errc() && p == v.data() + v.size()) return Arg(i);
  double d;
  auto [p2, ec2] = std::from_chars(v.data(), v.data() + v.size(), d);
  if (ec2 == std::errc() && p2 == v.data() + v.size()) return Arg(d);
  return std::nullopt;
}

Result<Arg> parseDefault(std::string_view v, ArgType type) {
  v = trim(v);
  if (v == "None") return Arg();
  if (v == "True") return Arg(true);
  if (v == "False") return Arg(false);
  if (v.size() >= 2 && (v.front() == '\'' || v.front() == '"')) return Arg(std::string(v.substr(1, v.size() - 2)));
  if (v.front() == '[') {
    auto inner = v.substr(1, v.size() - 2);
    auto parts = splitTop(inner);
    if (type == ArgType::FloatList) {
      ir::FloatList l;
      for (auto p : parts) {
        auto n = parseNumber(p);
        if (!n) return Status::error("bad float list default '" + std::string(v) + "'");
        l.push_back(*n->number());
      }
      return Arg(l);
    }
    if (type == ArgType::BoolList) {
      ir::BoolList l;
      for (auto p : parts) l.push_back(p == "True");
      return Arg(l);
    }
    ir::IntList l;
    for (auto p : parts) {
      auto n = parseNumber(p);
      if (!n || !n->asInt()) return Status::error("bad int list default '" + std::string(v) + "'");
      l.push_back(*n->asInt());
    }
    return Arg(l);
  }
  if (auto n = parseNumber(v)) {
    if (type == ArgType::Float && n->asInt()) return Arg(double(*n->asInt()));
    return *n;
  }
  if (type == ArgType::MemoryFormat) {
    if (auto e = ir::parseEnum(ir::EnumKind::MemoryFormat, v)) return Arg(*e);
  }
  if (type == ArgType::Layout) {
    if (auto e = ir::parseEnum(ir::EnumKind::Layout, v)) return Arg(*e);
  }
  if (type == ArgType::ScalarType) {
    if (auto e = ir::parseEnum(ir::EnumKind::DType, v)) return Arg(*e);
  }
  if (v == "inf") return Arg(INFINITY);
  if (v == "-inf") return Arg(-INFINITY);
  return Status::error("unsupported default value '" + std::string(v) + "'");
}

Result<ArgSpec> parseArgSpec(std::string_view text) {
  ArgSpec spec;
  std::string_view def;
  auto eq = text.find('=');
  if (eq != std::string_view::npos) {
    def = trim(text.substr(eq + 1));
    text = trim(text.substr(0, eq));
  }
  auto sp = text.rfind(' ');
  if (sp == std::string_view::npos) return Status::error("argument without a name: '" + std::string(text) + "'");
  spec.name = std::string(trim(text.substr(sp + 1)));
  std::string type;
  for (char c : trim(text.substr(0, sp))) type += c;
  // Strip alias annotations "Tensor(a!)".
  if (auto p = type.find('('); p != std::string::npos) {
    auto q = type.find(')', p);
    type.erase(p, q == std::string::npos ? std::string::npos : q - p + 1);
  }
  if (!type.empty() && type.back() == '?') {
    spec.optional = true;
    type.pop_back();
  }
  bool list = false;
  if (auto p = type.find('['); p != std::string::npos) {
    list = true;
    type.erase(p);
  }
  bool elemOptional = false;
  if (!type.empty() && type.back() == '?') {
    elemOptional = true;
    type.pop_back();
  }
  if (type == "Tensor") spec.type = list ? (elemOptional ? ArgType::OptTensorList : ArgType::TensorList) : ArgType::Tensor;
  else if (type == "int" || type == "SymInt") spec.type = list ? ArgType::IntList : ArgType::Int;
  else if (type == "float") spec.type = list ? ArgType::FloatList : ArgType::Float;
  else if (type == "bool") spec.type = list ? ArgType::BoolList : ArgType::Bool;
  else if (type == "Scalar") spec.type = ArgType::Scalar;
  else if (type == "ScalarType") spec.type = ArgType::ScalarType;
  else if (type == "Layout") spec.type = ArgType::Layout;
  else if (type == "Device") spec.type = ArgType::Device;
  else if (type == "MemoryFormat") spec.type = ArgType::MemoryFormat;
  else if (type == "str") spec.type = ArgType::String;
  else spec.type = ArgType::Any;
  if (!def.empty()) {
    auto d = parseDefault(def, spec.type);
    if (!d) return d.status();
    spec.defaultValue = std::move(d).value();
  }
  return spec;
}

}  // namespace

Result<OpSchema> parseSchema(std::string_view text, MetaFn meta) {
  OpSchema s;
  s.doc = std::string(text);
  s.meta = meta;
  auto open = text.find('(');
  auto arrow = text.rfind("->");
  if (open == std::string_view::npos || arrow == std::string_view::npos)
    return Status::error("schema '" + std::string(text) + "': expected 'ns::name(args) -> returns'");
  auto close = text.rfind(')', arrow);
  std::string_view full = trim(text.substr(0, open));
  auto sep = full.find("::");
  if (sep == std::string_view::npos) return Status::error("schema '" + std::string(text) + "': expected 'ns::name'");
  std::string name = std::string(full.substr(0, sep)) + "." + std::string(full.substr(sep + 2));
  // Python operators ("operator.getitem") have no overload name.
  if (full.substr(0, sep) != "operator" && full.substr(sep + 2).find('.') == std::string_view::npos)
    name += ".default";
  s.name = name;
  bool kwOnly = false;
  for (auto part : splitTop(text.substr(open + 1, close - open - 1))) {
    if (part == "*") {
      kwOnly = true;
      continue;
    }
    auto spec = parseArgSpec(part);
    if (!spec) return Status::error("schema '" + std::string(text) + "': " + spec.message());
    spec->kwargOnly = kwOnly;
    s.args.push_back(std::move(spec).value());
  }
  std::string_view ret = trim(text.substr(arrow + 2));
  if (ret == "()") s.numOutputs = 0;
  else if (ret.front() == '(') s.numOutputs = int(splitTop(ret.substr(1, ret.size() - 2)).size());
  else if (ret.find("[]") != std::string_view::npos) s.numOutputs = -1;
  else s.numOutputs = 1;
  s.id = ir::internOp(s.name);
  return s;
}

// ------------------------------------------------------------------ registry

OpRegistry& OpRegistry::instance() {
  static OpRegistry* reg = [] {
    auto* r = new OpRegistry();
    registerCoreOps(*r);
    return r;
  }();
  return *reg;
}

Status OpRegistry::add(std::string_view schemaText, MetaFn meta) {
  auto s = parseSchema(schemaText, meta);
  if (!s) return s.status();
  add(std::move(s).value());
  return Status::ok();
}

void OpRegistry::add(OpSchema schema) {
  if (schema.id == ir::kNoOp) schema.id = ir::internOp(schema.name);
  auto owned = std::make_unique<OpSchema>(std::move(schema));
  if (byId_.size() <= owned->id) byId_.resize(owned->id + 1, nullptr);
  byId_[owned->id] = owned.get();
  owned_.push_back(std::move(owned));
}

const OpSchema* OpRegistry::find(std::string_view name) const {
  ir::OpId id = ir::findOp(name);
  return id == ir::kNoOp ? nullptr : find(id);
}

const OpSchema* OpRegistry::functionalTwin(std::string_view name) const {
  // "ns.base.overload" (the overload may be absent: "aten.t" is not a valid target, but be lenient).
  const size_t dot1 = name.find('.');
  if (dot1 == std::string_view::npos || name.substr(0, dot1) != "aten") return nullptr;
  const size_t dot2 = name.find('.', dot1 + 1);
  const std::string_view base = name.substr(dot1 + 1, dot2 == std::string_view::npos ? name.npos : dot2 - dot1 - 1);
  const std::string_view overload = dot2 == std::string_view::npos ? std::string_view() : name.substr(dot2);
  if (base.empty() || base.back() == '_') return nullptr;  // in-place ops mutate: no functional twin
  auto lookup = [&](std::string_view b) {
    return find(fmt::format("aten.{}{}", b, overload));
  };
  if (base.size() < 5 || base.substr(base.size() - 5) != "_copy")
    if (const OpSchema* s = lookup(fmt::format("{}_copy", base))) return s;
  constexpr std::string_view kUnsafe = "unsafe_";
  if (base.substr(0, kUnsafe.size()) == kUnsafe) {
    const std::string_view safe = base.substr(kUnsafe.size());
    if (const OpSchema* s = lookup(fmt::format("{}_copy", safe))) return s;
    if (const OpSchema* s = lookup(safe)) return s;
  }
  return nullptr;
}

std::vector<const OpSchema*> OpRegistry::all() const {
  std::vector<const OpSchema*> out;
  for (const OpSchema* s : byId_)
    if (s) out.push_back(s);
  std::sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->name < b->name; });
  return out;
}

// ------------------------------------------------------------------ MetaCtx

MetaCtx::MetaCtx(const ir::Graph& graph, const ir::Node& node, const OpSchema& schema, std::vector<ir::TensorMeta>& o)
    : out(o), graph_(graph), node_(node), schema_(schema) {}

const Arg& MetaCtx::arg(int i) const {
  static const Arg kNone;
  if (i < 0 || size_t(i) >= schema_.args.size()) return kNone;
  if (size_t(i) < node_.args.size() && !schema_.args[i].kwargOnly) return node_.args[i];
  if (const Arg* k = node_.kwarg(schema_.args[i].name)) return *k;
  if (schema_.args[i].defaultValue) return *schema_.args[i].defaultValue;
  return kNone;
}

std::string MetaCtx::argDesc(int i) const {
  if (i < 0 || size_t(i) >= schema_.args.size()) return fmt::format("arg #{}", i);
  return fmt::format("arg '{}' (#{})", schema_.args[i].name, i);
}

static std::string_view argKindName(ArgKind k) {
  static constexpr std::string_view kNames[] = {"None", "bool", "int", "float", "string", "enum",
                                                "tensor", "int list", "float list", "bool list",
                                                "tensor list", "slice"};
  static_assert(std::size(kNames) == size_t(ArgKind::COUNT));
  return k < ArgKind::COUNT ? kNames[size_t(k)] : "?";
}

Result<const ir::TensorMeta*> MetaCtx::tensor(int i) const {
  const Arg& a = arg(i);
  const ir::ValueRef* r = a.ref();
  if (!r) return error("{}: expected a tensor, got {}", argDesc(i), argKindName(a.kind()));
  const ir::TensorMeta& m = graph_.meta(*r);
  if (!m.isTensor()) return error("{}: refers to a value without tensor metadata", argDesc(i));
  return &m;
}

Result<std::vector<const ir::TensorMeta*>> MetaCtx::tensorList(int i) const {
  const Arg& a = arg(i);
  std::vector<const ir::TensorMeta*> out;
  if (const ir::RefList* l = a.asRefList()) {
    out.reserve(l->size());
    for (const ir::ValueRef& r : *l) {
      if (r.isNone()) {
        out.push_back(nullptr);
        continue;
      }
      const ir::TensorMeta& m = graph_.meta(r);
      if (!m.isTensor()) return error("{}: list element refers to a value without tensor metadata", argDesc(i));
      out.push_back(&m);
    }
    return out;
  }
  if (auto* il = a.asIntList(); il && il->empty()) return out;  // "[]" imports as an empty int list
  return error("{}: expected a list of tensors, got {}", argDesc(i), argKindName(a.kind()));
}

Result<int64_t> MetaCtx::getInt(int i) const {
  const Arg& a = arg(i);
  if (auto* v = a.asInt()) return *v;
  if (auto* b = a.asBool()) return int64_t(*b);
  if (auto* l = a.asIntList(); l && l->size() == 1) return (*l)[0];
  return error("{}: expected an int, got {}", argDesc(i), argKindName(a.kind()));
}

Result<double> MetaCtx::getFloat(int i) const {
  const Arg& a = arg(i);
  if (auto n = a.number()) return *n;
  return error("{}: expected a number, got {}", argDesc(i), argKindName(a.kind()));
}

Result<bool> MetaCtx::getBool(int i) const {
  const Arg& a = arg(i);
  if (auto* b = a.asBool()) return *b;
  if (auto* v = a.asInt(); v && (*v == 0 || *v == 1)) return *v == 1;
  return error("{}: expected a bool, got {}", argDesc(i), argKindName(a.kind()));
}

Result<std::vector<int64_t>> MetaCtx::getIntList(int i, int expandTo) const {
  const Arg& a = arg(i);
  if (auto* l = a.asIntList()) {
    if (expandTo > 0 && l->size() == 1) return std::vector<int64_t>(size_t(expandTo), (*l)[0]);
    return *l;
  }
  if (auto* v = a.asInt()) return std::vector<int64_t>(size_t(std::max(expandTo, 1)), *v);
  return error("{}: expected a list of ints, got {}", argDesc(i), argKindName(a.kind()));
}

std::optional<ir::DType> MetaCtx::getDType(int i) const {
  const Arg& a = arg(i);
  if (auto* e = a.asEnum(); e && e->kind == ir::EnumKind::DType) return ir::DType(e->value);
  if (auto* v = a.asInt()) return ir::dtypeFromTorchScalarType(*v);
  return std::nullopt;
}

// ------------------------------------------------------------------ arity / kind check

static bool kindFits(ArgType t, bool optional, const Arg& a) {
  ArgKind k = a.kind();
  if (k == ArgKind::None) return optional || t == ArgType::Any || t == ArgType::Scalar;
  switch (t) {
    case ArgType::Tensor:
      // A Python number in a Tensor slot is how torch 1.13 traces `x / 8` (wrapped number).
      return k == ArgKind::Ref || k == ArgKind::Int || k == ArgKind::Float || k == ArgKind::Bool;
    case ArgType::TensorList:
    case ArgType::OptTensorList: return k == ArgKind::RefList || (k == ArgKind::IntList && a.asIntList()->empty());
    case ArgType::Int: return k == ArgKind::Int || k == ArgKind::Bool;
    case ArgType::IntList: return k == ArgKind::IntList || k == ArgKind::Int;
    case ArgType::Float: return k == ArgKind::Float || k == ArgKind::Int || k == ArgKind::Bool;
    case ArgType::FloatList:
      return k == ArgKind::FloatList || k == ArgKind::IntList || k == ArgKind::Float || k == ArgKind::Int;
    case ArgType::Scalar: return k == ArgKind::Float || k == ArgKind::Int || k == ArgKind::Bool;
    case ArgType::Bool: return k == ArgKind::Bool || k == ArgKind::Int;
    case ArgType::BoolList: return k == ArgKind::BoolList || k == ArgKind::Bool;
    case ArgType::ScalarType: return k == ArgKind::Enum || k == ArgKind::Int;
    case ArgType::Layout:
    case ArgType::Device:
    case ArgType::MemoryFormat: return k == ArgKind::Enum || k == ArgKind::String || k == ArgKind::Int;
    case ArgType::String: return k == ArgKind::String;
    default: return true;
  }
}

const ir::Arg& schemaArg(const ir::Node& n, int i) {
  static const ir::Arg kNone;
  const OpSchema* s = OpRegistry::instance().find(n.op);
  if (!s) return i >= 0 && size_t(i) < n.args.size() ? n.args[size_t(i)] : kNone;
  if (i < 0 || size_t(i) >= s->args.size()) return kNone;
  const ArgSpec& spec = s->args[size_t(i)];
  if (!spec.kwargOnly && size_t(i) < n.args.size()) return n.args[size_t(i)];
  if (const ir::Arg* kw = n.kwarg(spec.name)) return *kw;
  if (spec.defaultValue) return *spec.defaultValue;
  return kNone;
}

bool movesValuesOnly(ir::OpId op) {
  static const std::unordered_set<ir::OpId> ops = [] {
    std::unordered_set<ir::OpId> s;
    for (const char* n :
         {"aten.view_copy.default", "aten.view.default", "aten.reshape.default", "aten.permute_copy.default",
          "aten.permute.default", "aten.transpose_copy.int", "aten.t_copy.default", "aten.slice_copy.Tensor",
          "aten.select_copy.int", "aten.squeeze_copy.dims", "aten.squeeze_copy.dim", "aten.unsqueeze_copy.default",
          "aten.expand_copy.default", "aten.repeat.default", "aten.clone.default", "aten.flatten.using_ints",
          "tosa.TRANSPOSE", "tosa.RESHAPE", "tosa.SLICE", "tosa.TILE", "tosa.IDENTITY", "tosa.REVERSE"})
      s.insert(ir::internOp(n));
    return s;
  }();
  return ops.count(op) > 0;
}

Status checkArgs(const OpSchema& schema, const ir::Node& node, const ir::Graph& graph) {
  (void)graph;
  const int npos = schema.positionalCount();
  if (int(node.args.size()) > npos)
    return Status::error(fmt::format("{}: takes at most {} positional arguments, got {}", schema.name, npos,
                                     node.args.size()));
  std::vector<uint8_t> given(schema.args.size(), 0);
  for (size_t i = 0; i < node.args.size(); ++i) given[i] = 1;
  for (const ir::Kwarg& k : node.kwargs) {
    int idx = schema.argIndex(k.name);
    if (idx < 0) return Status::error(fmt::format("{}: unknown keyword argument '{}'", schema.name, k.name));
    if (given[size_t(idx)])
      return Status::error(fmt::format("{}: argument '{}' given twice", schema.name, k.name));
    given[size_t(idx)] = 2;
  }
  for (size_t i = 0; i < schema.args.size(); ++i) {
    const ArgSpec& spec = schema.args[i];
    if (!given[i]) {
      if (!spec.defaultValue && !spec.optional)
        return Status::error(fmt::format("{}: missing required argument '{}' (#{})", schema.name, spec.name, i));
      continue;
    }
    const Arg& a = given[i] == 1 ? node.args[i] : *node.kwarg(spec.name);
    if (!kindFits(spec.type, spec.optional, a))
      return Status::error(fmt::format("{}: argument '{}' (#{}): expected {}{}, got {}", schema.name, spec.name, i,
                                       argTypeName(spec.type), spec.optional ? "?" : "", argKindName(a.kind())));
  }
  return Status::ok();
}

// ------------------------------------------------------------------ inference cache

bool InferenceCache::lookup(uint64_t hash, std::string_view key, std::vector<ir::TensorMeta>& out) {
  auto range = entries_.equal_range(hash);
  for (auto it = range.first; it != range.second; ++it) {
    if (it->second.key == key) {
      out = it->second.out;
      ++hits_;
      return true;
    }
  }
  ++misses_;
  return false;
}

void InferenceCache::insert(uint64_t hash, std::string key, const std::vector<ir::TensorMeta>& out) {
  entries_.emplace(hash, Entry{std::move(key), out});
}

namespace {

template <typename T>
void put(std::string& k, const T& v) {
  k.append(reinterpret_cast<const char*>(&v), sizeof(T));
}

void putMeta(std::string& k, const ir::TensorMeta& m) {
  put(k, uint8_t(m.dtype));
  put(k, uint8_t(m.rank()));
  k.append(reinterpret_cast<const char*>(m.shape.begin()), sizeof(int64_t) * size_t(m.rank()));
  for (int i = 0; i < m.dimOrder.rank(); ++i) put(k, uint8_t(m.dimOrder[i]));
  if (m.quant) {
    const ir::QuantParams& q = *m.quant;
    put(k, uint8_t(1 + uint8_t(q.scheme)));
    put(k, uint8_t(q.storage));
    put(k, q.axis);
    put(k, q.qmin);
    put(k, q.qmax);
    put(k, uint32_t(q.scales.size()));
    k.append(reinterpret_cast<const char*>(q.scales.data()), q.scales.size() * sizeof(double));
    k.append(reinterpret_cast<const char*>(q.zeroPoints.data()), q.zeroPoints.size() * sizeof(int64_t));
  } else {
    put(k, uint8_t(0));
  }
}

// Serialises everything a meta function may read: op, every resolved schema arg (tensor
// metas for refs, values for scalars). Returns false when the node is not cacheable.
bool buildKey(std::string& k, const ir::Graph& g, const ir::Node& n, const OpSchema& s) {
  static const ir::OpId getitemOp = ir::internOp("operator.getitem");
  k.clear();
  put(k, s.id);
  auto putArg = [&](const Arg& a) {
    put(k, uint8_t(a.kind()));
    switch (a.kind()) {
      case ArgKind::None: break;
      case ArgKind::Bool: put(k, uint8_t(*a.asBool())); break;
      case ArgKind::Int: put(k, *a.asInt()); break;
      case ArgKind::Float: put(k, *a.asFloat()); break;
      case ArgKind::String: {
        const std::string& str = *a.asString();
        put(k, uint32_t(str.size()));
        k += str;
        break;
      }
      case ArgKind::Enum: put(k, a.asEnum()->kind), put(k, a.asEnum()->value); break;
      case ArgKind::Ref: {
        const ir::Node* src = g.find(a.ref()->node);
        if (!src) return;
        if (s.id == getitemOp) {
          // getitem reads the producer's output list: key on the count and the selected output.
          put(k, uint32_t(src->outputs.size()));
          const ir::Arg* idx = n.args.size() > 1 ? &n.args[1] : nullptr;
          int64_t i = idx && idx->asInt() ? *idx->asInt() : 0;
          put(k, i);
          if (i >= 0 && size_t(i) < src->outputs.size()) putMeta(k, src->outputs[size_t(i)]);
        } else {
          putMeta(k, src->meta(a.ref()->output));
          // A nullary call (e.g. tosa.CONST_SHAPE) is defined by its kwargs: readers may
          // depend on those values (a RESHAPE's shape), so they are part of the key.
          if (src->kind == ir::NodeKind::Call && src->args.empty())
            for (const ir::Kwarg& kw : src->kwargs) {
              k += kw.name;
              if (auto* il = kw.value.asIntList())
                k.append(reinterpret_cast<const char*>(il->data()), il->size() * sizeof(int64_t));
              else if (auto* fl = std::get_if<ir::FloatList>(&kw.value.v))
                k.append(reinterpret_cast<const char*>(fl->data()), fl->size() * sizeof(double));
              else if (auto* iv = kw.value.asInt())
                put(k, *iv);
              else if (auto* fv = kw.value.asFloat())
                put(k, *fv);
              else if (auto* sv = kw.value.asString())
                k += *sv;
            }
        }
        break;
      }
      case ArgKind::IntList: {
        const auto& l = *a.asIntList();
        put(k, uint32_t(l.size()));
        k.append(reinterpret_cast<const char*>(l.data()), l.size() * sizeof(int64_t));
        break;
      }
      case ArgKind::FloatList: {
        const auto& l = std::get<ir::FloatList>(a.v);
        put(k, uint32_t(l.size()));
        k.append(reinterpret_cast<const char*>(l.data()), l.size() * sizeof(double));
        break;
      }
      case ArgKind::BoolList: {
        const auto& l = std::get<ir::BoolList>(a.v);
        put(k, uint32_t(l.size()));
        k.append(reinterpret_cast<const char*>(l.data()), l.size());
        break;
      }
      case ArgKind::RefList: {
        const auto& l = *a.asRefList();
        put(k, uint32_t(l.size()));
        for (const ir::ValueRef& r : l) {
          if (r.isNone()) {
            put(k, uint8_t(0));
            continue;
          }
          put(k, uint8_t(1));
          putMeta(k, g.meta(r));
        }
        break;
      }
      case ArgKind::Slice: {
        const auto& sl = std::get<ir::SliceArg>(a.v);
        for (auto& o : {sl.start, sl.stop, sl.step}) {
          put(k, uint8_t(o.has_value()));
          if (o) put(k, *o);
        }
        break;
      }
      default: break;
    }
  };
  for (size_t i = 0; i < s.args.size(); ++i) {
    const Arg* a = nullptr;
    if (i < n.args.size() && !s.args[i].kwargOnly) a = &n.args[i];
    else if (const Arg* kw = n.kwarg(s.args[i].name)) a = kw;
    else if (s.args[i].defaultValue) a = &*s.args[i].defaultValue;
    static const Arg kNone;
    putArg(a ? *a : kNone);
  }
  return true;
}

}  // namespace

Status inferNode(const ir::Graph& graph, const ir::Node& node, std::vector<ir::TensorMeta>& out,
                 InferenceCache* cache) {
  if (node.kind != ir::NodeKind::Call) {
    out = node.outputs;
    return Status::ok();
  }
  const OpSchema* schema = OpRegistry::instance().find(node.op);
  if (!schema || !schema->meta || node.hasFlag(ir::kFlagOpaque)) {
    out = node.outputs;  // opaque: keep what was recorded
    return Status::ok();
  }
  thread_local std::string key;
  uint64_t h = 0;
  if (cache) {
    buildKey(key, graph, node, *schema);
    h = hashBytes(key.data(), key.size());
    if (cache->lookup(h, key, out)) return Status::ok();
  }
  out.clear();
  MetaCtx ctx(graph, node, *schema, out);
  Status st = schema->meta(ctx);
  if (!st.isOk()) return Status::error(fmt::format("node '{}' ({}): {}", node.name, schema->name, st.message()));
  if (schema->numOutputs >= 0 && int(out.size()) != schema->numOutputs)
    return Status::error(fmt::format("node '{}' ({}): meta function produced {} outputs, schema declares {}",
                                     node.name, schema->name, out.size(), schema->numOutputs));
  if (cache) cache->insert(h, key, out);
  return Status::ok();
}

}  // namespace ls::ops
