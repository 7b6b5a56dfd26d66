// TOSA 1.0 legality validator (see tosa_validate.h). The type tables are the specification's
// (tosa_spec_tables.inc, generated from tosa.xml); the code maps both inputs (an IR graph of
// tosa.* nodes, a decoded flatbuffer) to one operator view and checks it against them.
#include "core/backends/arm/tosa/tosa_validate.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "core/backends/arm/tosa/tosa_ops.h"
#include "core/exec/materialize.h"
#include <cstring>

namespace ls::arm {

namespace {

// ---------------------------------------------------------------- the specification's tables

struct ArgSpec {
  const char* name;
  char category;     ///< 'i' input, 'o' output, 'a' attribute
  const char* type;  ///< tensor_t, tensor_list_t, shape_t, or an attribute type
  const char* elem;  ///< element-type variable ("in_out_t") or a concrete type ("i8_t"), "-" if none
  const char* rankMin;
  const char* rankMax;
};
struct TypeSupport {
  const char* mode;
  std::vector<std::pair<const char*, const char*>> types;  ///< variable -> type
  const char* profile;     ///< PRO-INT, PRO-FP or an extension
  const char* andProfile;  ///< a second extension also needed, "" if none
};
struct OpSpec {
  const char* name;
  const char* group;  ///< the spec's operator group (chapter)
  std::vector<ArgSpec> args;
  std::vector<TypeSupport> support;
};

const std::vector<OpSpec>& specs() {
  static const std::vector<OpSpec> v = {
#include "core/backends/arm/tosa/tosa_spec_tables.inc"
  };
  return v;
}

const OpSpec* findSpec(std::string_view name) {
  static const std::map<std::string, const OpSpec*, std::less<>> byName = [] {
    std::map<std::string, const OpSpec*, std::less<>> m;
    for (const OpSpec& s : specs()) m.emplace(s.name, &s);
    return m;
  }();
  auto it = byName.find(name);
  return it == byName.end() ? nullptr : it->second;
}

struct Level {
  int64_t maxRank, maxKernel, maxStride, maxScale, maxLog2Size, maxTensorListSize;
};
// The specification's levels (tosa.xml <level>): 8K, and "none".
constexpr Level kLevel8K{6, 8192, 8192, 256, 31, 64};
constexpr Level kLevelNone{32, 2147483647, 2147483647, 2048, 63, 256};

// ---------------------------------------------------------------- one operator, either source

struct Operand {
  std::string type;  ///< spec element type ("i8_t", "fp32_t", "shape_t"; "i64_t" etc. for none of them)
  std::vector<int64_t> shape;
  bool known = true;  ///< false: the operand could not be resolved (already reported)
  std::optional<std::vector<int64_t>> values;  ///< integer constant values when known (zero points, shifts)
};

struct OpView {
  std::string op;     ///< spec name
  /// Where the operator is, formatted only when a violation is reported (the check runs on
  /// every node of every graph written and every TOSA kernel call).
  const std::string* prefix = nullptr;  ///< nested-graph path ("" for the main graph)
  std::string_view nodeName;            ///< graph: the node's name
  const io::TosaRegionInfo* region = nullptr;  ///< file: region, block and operator index
  const io::TosaBlockInfo* block = nullptr;
  size_t index = 0;
  std::string where() const {
    if (block) return fmt::format("region '{}' block '{}' operator #{}", region->name, block->name, index);
    return fmt::format("{}node '{}'", prefix ? *prefix : std::string(), nodeName);
  }
  std::vector<Operand> inputs, outputs;
  std::map<std::string, std::vector<int64_t>> intAttrs;  ///< int and int-list attributes
};

std::string specType(ir::DType t) {
  switch (t) {
    case ir::DType::Bool: return "bool_t";
    case ir::DType::Int8: return "i8_t";
    // Unsigned values reach TOSA 1.0 only as RESCALE operands with input/output_unsigned set,
    // written as INT8/INT16 (the writer refuses them elsewhere).
    case ir::DType::UInt8: return "i8_t";
    case ir::DType::UInt16: return "i16_t";
    case ir::DType::Int16: return "i16_t";
    case ir::DType::Int32: return "i32_t";
    case ir::DType::Float16: return "fp16_t";
    case ir::DType::BFloat16: return "bf16_t";
    case ir::DType::Float32: return "fp32_t";
    default: return std::string(ir::dtypeName(t));  // not a TOSA 1.0 type: no entry matches it
  }
}

std::string specType(const std::string& fbName) {
  static const std::map<std::string, std::string> m = {
      {"BOOL", "bool_t"},  {"INT4", "i4_t"},      {"INT8", "i8_t"},       {"INT16", "i16_t"},
      {"INT32", "i32_t"},  {"INT48", "i48_t"},    {"FP16", "fp16_t"},     {"BF16", "bf16_t"},
      {"FP32", "fp32_t"},  {"SHAPE", "shape_t"},  {"FP8E4M3", "fp8e4m3_t"}, {"FP8E5M2", "fp8e5m2_t"}};
  auto it = m.find(fbName);
  return it == m.end() ? fbName : it->second;
}

// ---------------------------------------------------------------- checks

bool isTosaType(const std::string& t) {
  static const std::set<std::string> types = {"bool_t", "i4_t",   "i8_t",      "i16_t",     "i32_t",  "i48_t",
                                              "fp16_t", "bf16_t", "fp32_t",    "shape_t",   "fp8e4m3_t",
                                              "fp8e5m2_t"};
  return types.count(t) > 0;
}

std::set<std::string, std::less<>> allowedProfiles(const TosaCheckOptions& o) {
  std::set<std::string, std::less<>> s{"PRO-INT"};
  if (o.profile == TosaCheckOptions::Profile::Fp) s.insert("PRO-FP");
  for (const std::string& e : o.extensions) s.insert(e);
  return s;
}

int64_t rankLimit(std::string_view e, const Level& lv) {
  if (e == "MAX_RANK") return lv.maxRank;
  if (e == "MAX_RANK - 1") return lv.maxRank - 1;
  if (e == "MAX_RANK - 2") return lv.maxRank - 2;
  int64_t v = -1;  // "-", empty or not a number: no limit
  std::from_chars(e.data(), e.data() + e.size(), v);
  return v;
}

std::string describeTypes(const OpSpec& s, const TypeSupport& t) {
  std::vector<std::string> parts;
  for (auto [var, type] : t.types) parts.push_back(fmt::format("{}={}", var, type));
  std::string p = t.profile;
  if (*t.andProfile) p += std::string("+") + t.andProfile;
  (void)s;
  return fmt::format("{} ({})", fmt::join(parts, ", "), p);
}

/// The element type an argument expects under `t` (and the operator's attributes), or "" when
/// the tables leave it open.
std::string_view expected(const ArgSpec& a, const TypeSupport& t, const std::map<std::string, std::vector<int64_t>>& attrs) {
  static constexpr std::string_view concrete[] = {"bool_t", "i8_t", "i16_t", "i32_t", "i48_t", "fp16_t", "bf16_t", "fp32_t"};
  const std::string_view e = a.elem;
  if (e == "-" || e.empty()) return "";
  for (auto [var, type] : t.types)
    if (e == var) return type;
  if (e == "mul_t") {  // RESCALE: i32_t multipliers with scale32, else i16_t
    auto it = attrs.find("scale32");
    return it != attrs.end() && !it->second.empty() && it->second[0] ? "i32_t" : "i16_t";
  }
  return std::find(std::begin(concrete), std::end(concrete), e) != std::end(concrete) ? e : "";  // a concrete type (RESCALE shift: i8_t); other variables are open
}

class Checker {
 public:
  Checker(const TosaCheckOptions& o, std::vector<TosaViolation>& out)
      : o_(o), lv_(o.level8k ? kLevel8K : kLevelNone), allowed_(allowedProfiles(o)), out_(out) {}

  void check(const OpView& v) {
    const OpSpec* s = findSpec(v.op);
    if (!s) return add(v, fmt::format("'{}' is not a TOSA {} operator", v.op, tosaSpecVersion()));
    // Map operands onto the spec's input/output arguments (a tensor list takes the rest).
    std::vector<std::pair<const ArgSpec*, const Operand*>> bound;
    size_t in = 0, out = 0;
    bool list = false;
    for (const ArgSpec& a : s->args) {
      if (a.category == 'i') {
        if (std::string_view(a.type) == "tensor_list_t") {
          list = true;
          if (int64_t(v.inputs.size() - in) > lv_.maxTensorListSize)
            add(v, fmt::format("{} tensors in the list '{}', level {} allows at most {} (MAX_TENSOR_LIST_SIZE)",
                               v.inputs.size() - in, a.name, o_.level8k ? "8K" : "none", lv_.maxTensorListSize));
          for (; in < v.inputs.size(); ++in) bound.emplace_back(&a, &v.inputs[in]);
        } else if (in < v.inputs.size()) {
          bound.emplace_back(&a, &v.inputs[in++]);
        } else {
          return add(v, fmt::format("missing input '{}' (the spec lists {} inputs, the operator has {})", a.name,
                                    countOf(*s, 'i'), v.inputs.size()));
        }
      } else if (a.category == 'o') {
        if (out < v.outputs.size()) bound.emplace_back(&a, &v.outputs[out++]);
        else return add(v, fmt::format("missing output '{}'", a.name));
      }
    }
    if (!list && in < v.inputs.size())
      add(v, fmt::format("{} inputs, the spec lists {}", v.inputs.size(), countOf(*s, 'i')));
    if (out < v.outputs.size()) add(v, fmt::format("{} outputs, the spec lists {}", v.outputs.size(), countOf(*s, 'o')));

    // Ranks, sizes and shape operands.
    for (auto [a, x] : bound) {
      if (!x->known) continue;
      if (std::string_view(a->type) == "shape_t") {
        if (x->type != "shape_t")
          add(v, fmt::format("'{}' must be a shape (CONST_SHAPE), got a {} tensor", a->name, x->type));
        continue;
      }
      const int64_t rank = int64_t(x->shape.size());
      const int64_t rmin = rankLimit(a->rankMin, lv_), rmax = rankLimit(a->rankMax, lv_);
      if (rmax >= 0 && rank > rmax)
        add(v, fmt::format("'{}' has rank {}, at most {} allowed ({}{})", a->name, rank, rmax, a->rankMax,
                           o_.level8k ? ", level 8K" : ""));
      if (rmin >= 0 && rank < rmin) add(v, fmt::format("'{}' has rank {}, at least {} needed", a->name, rank, rmin));
      int64_t elems = 1;
      bool big = false;
      for (int64_t d : x->shape)
        if (__builtin_mul_overflow(elems, std::max<int64_t>(d, 1), &elems) || elems > (int64_t(1) << 62)) {
          big = true;  // the count is reported as at least 2^62; multiplying on would overflow
          elems = int64_t(1) << 62;
          break;
        }
      if (big || (lv_.maxLog2Size < 63 && elems > (int64_t(1) << lv_.maxLog2Size)))
        add(v, fmt::format("'{}' has {} elements, more than 2^{} (MAX_LOG2_SIZE)", a->name, elems, lv_.maxLog2Size));
    }

    // Data types: one combination of the spec for an allowed profile must match every operand.
    if (o_.skipNonTosaTypes)
      for (auto [a, x] : bound)
        if (x->known && !isTosaType(x->type)) return checkErrorIf(v, *s, bound);
    const std::vector<const TypeSupport*>& candidates = candidatesOf(*s);
    bool typed = false, match = false;
    for (const TypeSupport* t : candidates) {
      bool ok = true;
      for (auto [a, x] : bound) {
        if (!x->known || std::string_view(a->type) == "shape_t") continue;
        const std::string_view e = expected(*a, *t, v.intAttrs);
        if (e.empty()) continue;
        typed = true;
        if (x->type != e) ok = false;
      }
      if (ok) {
        match = true;
        break;
      }
    }
    if (!match && (typed || candidates.empty())) {
      std::vector<std::string> found;
      for (auto [a, x] : bound)
        if (x->known && std::string_view(a->elem) != "-") found.push_back(fmt::format("{}={}", a->name, x->type));
      std::vector<std::string> allowed, other;
      for (const TypeSupport& t : s->support)
        (std::find(candidates.begin(), candidates.end(), &t) != candidates.end() ? allowed : other)
            .push_back(describeTypes(*s, t));
      add(v, fmt::format("operand types {} are not a {} combination of {} for {}; allowed: {}{}",
                         fmt::join(found, ", "), tosaSpecVersion(), v.op, profileName(),
                         allowed.empty() ? "none" : fmt::format("{}", fmt::join(allowed, "; ")),
                         other.empty() ? "" : fmt::format(" (other profiles/extensions: {})", fmt::join(other, "; "))));
    }
    checkErrorIf(v, *s, bound);
  }

 private:
  /// The type combinations of `s` under the allowed profiles (worked out once per operator).
  const std::vector<const TypeSupport*>& candidatesOf(const OpSpec& s) {
    auto [it, fresh] = candidates_.try_emplace(&s);
    if (fresh)
      for (const TypeSupport& t : s.support)
        if (allowed_.count(t.profile) && (!*t.andProfile || allowed_.count(t.andProfile))) it->second.push_back(&t);
    return it->second;
  }
  static size_t countOf(const OpSpec& s, char c) {
    return size_t(std::count_if(s.args.begin(), s.args.end(), [&](const ArgSpec& a) { return a.category == c; }));
  }
  std::string profileName() const {
    std::string p = o_.profile == TosaCheckOptions::Profile::Int ? "PRO-INT" : "PRO-FP/PRO-INT";
    for (const std::string& e : o_.extensions) p += "+" + e;
    return p;
  }
  void add(const OpView& v, std::string msg) { out_.push_back({v.where(), v.op, std::move(msg)}); }

  const Operand* operand(const std::vector<std::pair<const ArgSpec*, const Operand*>>& bound, std::string_view name) {
    for (auto [a, x] : bound)
      if (name == a->name) return x;
    return nullptr;
  }

  /// The cheap ERROR_IF conditions: zero points of non-int8 operands, RESCALE / MUL shifts,
  /// and the kernel/stride/pad/scale level limits of the attributes.
  void checkErrorIf(const OpView& v, const OpSpec& s, const std::vector<std::pair<const ArgSpec*, const Operand*>>& bound) {
    (void)s;
    static const std::map<std::string, std::vector<std::pair<std::string, std::string>>> zpOf = {
        {"CONV2D", {{"input_zp", "input"}, {"weight_zp", "weight"}}},
        {"CONV3D", {{"input_zp", "input"}, {"weight_zp", "weight"}}},
        {"DEPTHWISE_CONV2D", {{"input_zp", "input"}, {"weight_zp", "weight"}}},
        {"TRANSPOSE_CONV2D", {{"input_zp", "input"}, {"weight_zp", "weight"}}},
        {"AVG_POOL2D", {{"input_zp", "input"}, {"output_zp", "output"}}},
        {"MATMUL", {{"A_zp", "A"}, {"B_zp", "B"}}},
        {"NEGATE", {{"input1_zp", "input1"}, {"output_zp", "output"}}},
    };
    if (auto it = zpOf.find(v.op); it != zpOf.end())
      for (const auto& [zp, of] : it->second) {
        const Operand* z = operand(bound, zp);
        const Operand* t = operand(bound, of);
        if (!z || !t || !z->values || !t->known) continue;
        if (t->type != "i8_t")
          for (int64_t x : *z->values)
            if (x != 0) add(v, fmt::format("{} is {}, but must be 0 for a {} '{}' (ERROR_IF)", zp, x, t->type, of));
      }
    if (v.op == "RESCALE")
      if (const Operand* sh = operand(bound, "shift"); sh && sh->values)
        for (int64_t x : *sh->values)
          if (x < 2 || x > 62) add(v, fmt::format("shift {} is outside [2, 62] (ERROR_IF)", x));
    if (v.op == "MUL")
      if (const Operand* sh = operand(bound, "shift"); sh && sh->values) {
        const Operand* a = operand(bound, "input1");
        for (int64_t x : *sh->values) {
          if (a && a->known && a->type != "i32_t" && x != 0)
            add(v, fmt::format("shift {} must be 0 for {} operands (ERROR_IF)", x, a->type));
          if (x < 0 || x > 63) add(v, fmt::format("shift {} is outside [0, 63] (ERROR_IF)", x));
        }
      }
    auto limit = [&](const char* attr, int64_t max, const char* what) {
      auto it = v.intAttrs.find(attr);
      if (it == v.intAttrs.end()) return;
      for (int64_t x : it->second)
        if (x > max) add(v, fmt::format("{} {} is above {} ({}{})", attr, x, max, what, o_.level8k ? ", level 8K" : ""));
    };
    if (v.op == "AVG_POOL2D" || v.op == "MAX_POOL2D") {
      limit("kernel", lv_.maxKernel, "MAX_KERNEL");
      limit("stride", lv_.maxStride, "MAX_STRIDE");
      limit("pad", lv_.maxKernel, "MAX_KERNEL");
    }
    if (v.op == "CONV2D" || v.op == "CONV3D" || v.op == "DEPTHWISE_CONV2D" || v.op == "TRANSPOSE_CONV2D") {
      limit("stride", lv_.maxStride, "MAX_STRIDE");
      limit("pad", lv_.maxKernel, "MAX_KERNEL");
      limit("out_pad", lv_.maxKernel, "MAX_KERNEL");
      // dilation * kernel size: the weight's spatial dims (OHWI / ODHWI; depthwise HWCM).
      const Operand* w = operand(bound, "weight");
      auto dil = v.intAttrs.find("dilation");
      if (w && w->known && w->shape.size() >= 3) {
        std::vector<int64_t> k;
        if (v.op == "DEPTHWISE_CONV2D") k = {w->shape[0], w->shape[1]};
        else k.assign(w->shape.begin() + 1, w->shape.end() - 1);
        for (size_t i = 0; i < k.size(); ++i) {
          int64_t d = dil != v.intAttrs.end() && i < dil->second.size() ? dil->second[i] : 1;
          int64_t dk = 0;
          if (__builtin_mul_overflow(d, k[i], &dk) || dk > lv_.maxKernel)
            add(v, fmt::format("dilation x kernel {} x {} is above {} (MAX_KERNEL)", d, k[i], lv_.maxKernel));
        }
      }
    }
    if (v.op == "RESIZE")
      if (const Operand* sc = operand(bound, "scale"); sc && sc->values && sc->values->size() == 4) {
        const auto& q = *sc->values;
        for (int i = 0; i < 2; ++i)
          if (int64_t lim = 0; q[size_t(2 * i + 1)] > 0 &&
                               !__builtin_mul_overflow(lv_.maxScale, q[size_t(2 * i + 1)], &lim) && q[size_t(2 * i)] > lim)
            add(v, fmt::format("scale {}/{} is above {} (MAX_SCALE)", q[size_t(2 * i)], q[size_t(2 * i + 1)],
                               lv_.maxScale));
      }
  }

  const TosaCheckOptions& o_;
  Level lv_;
  std::set<std::string, std::less<>> allowed_;
  std::unordered_map<const OpSpec*, std::vector<const TypeSupport*>> candidates_;
  std::vector<TosaViolation>& out_;
};

// ---------------------------------------------------------------- IR graph -> views

std::optional<std::vector<int64_t>> intValues(const ir::Graph& g, ir::ValueRef r) {
  const ir::Node* n = g.find(r.node);
  if (!n) return std::nullopt;
  if (auto shape = constShapeValues(g, r)) return shape;
  if (n->kind != ir::NodeKind::GetAttr) return std::nullopt;
  const ir::Constant* c = g.constant(n->target);
  if (!c || (!c->hasData() && !c->recipe) || ir::isFloating(c->dtype) || c->numel() > 4096) return std::nullopt;
  if (!c->hasData()) {  // a derived constant (e.g. a folded shape): its values, made once
    auto t = exec::materialize(*c);
    if (!t) return std::nullopt;
    if (t->dtype() != ir::DType::Bool && t->dtype() != ir::DType::UInt8 && t->dtype() != ir::DType::Int8 &&
        t->dtype() != ir::DType::Int16 && t->dtype() != ir::DType::Int32 && t->dtype() != ir::DType::Int64)
      return std::nullopt;
    return t->toInts();
  }
  const auto& b = c->data->bytes;
  const size_t es = size_t(ir::dtypeSize(c->dtype));
  if (es == 0 || b.size() != size_t(c->numel()) * es) return std::nullopt;
  std::vector<int64_t> v(size_t(c->numel()));
  for (size_t i = 0; i < v.size(); ++i) {
    int64_t x = 0;
    switch (c->dtype) {
      case ir::DType::Bool: case ir::DType::UInt8: x = b[i]; break;
      case ir::DType::Int8: x = int8_t(b[i]); break;
      case ir::DType::Int16: { int16_t t; std::memcpy(&t, &b[i * 2], 2); x = t; break; }
      case ir::DType::Int32: { int32_t t; std::memcpy(&t, &b[i * 4], 4); x = t; break; }
      case ir::DType::Int64: { std::memcpy(&x, &b[i * 8], 8); break; }
      default: return std::nullopt;
    }
    v[i] = x;
  }
  return v;
}

Operand operandOf(const ir::Graph& g, ir::ValueRef r) {
  Operand o;
  const ir::Node* n = g.find(r.node);
  if (!n || r.output >= n->outputs.size()) {
    o.known = false;
    return o;
  }
  const ir::TensorMeta& m = n->outputs[r.output];
  static const ir::OpId constShape = ir::internOp("tosa.CONST_SHAPE");
  o.type = n->op == constShape ? "shape_t" : specType(m.dtype);
  o.shape = m.shape.toVector();
  o.values = intValues(g, r);
  return o;
}

void checkNode(const ir::Graph& g, const ir::Node& n, const std::string& prefix, Checker& ck,
               std::vector<TosaViolation>& out) {
  {
    OpView v;
    v.prefix = &prefix;
    v.nodeName = n.name;
    if (n.kind == ir::NodeKind::GetAttr) {
      v.op = "CONST";
      for (const ir::TensorMeta& m : n.outputs) v.outputs.push_back(Operand{specType(m.dtype), m.shape.toVector()});
      ck.check(v);
      return;
    }
    if (!n.isCall()) return;
    const TosaSerialization* ser = tosaSerialization(n.op);
    if (!ser) {
      out.push_back({v.where(), std::string(ir::opName(n.op)), "not a TOSA operator (no TOSA lowering)"});
      return;
    }
    v.op = ser->specName;
    if (v.op == "CONST_SHAPE") return;  // a shape literal: checked where it is used
    for (const ir::Arg& a : n.args) {
      if (const ir::ValueRef* r = a.ref()) v.inputs.push_back(operandOf(g, *r));
      else if (const ir::RefList* l = a.asRefList())
        for (const ir::ValueRef& r2 : *l) v.inputs.push_back(operandOf(g, r2));
    }
    for (size_t i = 0; i < n.outputs.size(); ++i) v.outputs.push_back(operandOf(g, ir::ValueRef{n.id, uint32_t(i)}));
    for (const ir::Kwarg& k : n.kwargs) {
      if (const int64_t* x = k.value.asInt()) v.intAttrs[k.name] = {*x};
      else if (const bool* bv = k.value.asBool()) v.intAttrs[k.name] = {*bv ? 1 : 0};
      else if (const ir::IntList* l = k.value.asIntList()) v.intAttrs[k.name] = *l;
    }
    ck.check(v);
  }
}

void graphViews(const ir::Graph& g, const std::string& prefix, Checker& ck, std::vector<TosaViolation>& out) {
  for (const ir::NodePtr& p : g.nodes()) checkNode(g, *p, prefix, ck, out);
  for (const auto& [name, sub] : g.subgraphs()) graphViews(*sub, prefix + name + "/", ck, out);
}

}  // namespace

const char* tosaSpecVersion() { return LS_TOSA_SPEC_VERSION; }

const std::vector<TosaSpecOp>& tosaSpecOps() {
  static const std::vector<TosaSpecOp> v = [] {
    std::vector<TosaSpecOp> out;
    for (const OpSpec& s : specs()) {
      TosaSpecOp o{s.name, s.group, {}, {}};
      for (const ArgSpec& a : s.args) o.args.push_back({a.name, a.category, a.type, a.elem, a.rankMin, a.rankMax});
      for (const TypeSupport& t : s.support) {
        TosaSpecSupport ts{t.mode, t.profile, t.andProfile, {}};
        for (auto [var, type] : t.types) ts.types.emplace_back(var, type);
        o.support.push_back(std::move(ts));
      }
      out.push_back(std::move(o));
    }
    return out;
  }();
  return v;
}

std::vector<TosaViolation> validateTosaGraph(const ir::Graph& g, const TosaCheckOptions& o) {
  std::vector<TosaViolation> out;
  Checker ck(o, out);
  graphViews(g, "", ck, out);
  return out;
}

std::vector<TosaViolation> validateTosaNode(const ir::Graph& g, const ir::Node& n, const TosaCheckOptions& o) {
  std::vector<TosaViolation> out;
  Checker ck(o, out);
  static const std::string kMain;
  checkNode(g, n, kMain, ck, out);
  return out;
}

std::vector<TosaViolation> validateTosaFile(const io::TosaFileInfo& f, const TosaCheckOptions& o) {
  std::vector<TosaViolation> out;
  Checker ck(o, out);
  for (const io::TosaRegionInfo& region : f.regions)
    for (const io::TosaBlockInfo& block : region.blocks) {
      std::map<std::string, const io::TosaTensorInfo*> tensors;
      for (const io::TosaTensorInfo& t : block.tensors) tensors[t.name] = &t;
      auto operand = [&](const std::string& name) {
        Operand x;
        auto it = tensors.find(name);
        if (it == tensors.end()) {
          x.known = false;
          return x;
        }
        x.type = specType(it->second->dtype);
        x.shape = it->second->shape;
        if (it->second->hasData && x.type != "fp32_t" && x.type != "fp16_t" && x.type != "bf16_t" &&
            it->second->data.size() <= 4096 * 8)
          x.values = it->second->ints();
        return x;
      };
      for (size_t i = 0; i < block.operators.size(); ++i) {
        const io::TosaOperatorInfo& op = block.operators[i];
        OpView v;
        v.op = op.op;
        v.region = &region;
        v.block = &block;
        v.index = i;
        for (const std::string& n : op.inputs) v.inputs.push_back(operand(n));
        for (const std::string& n : op.outputs) v.outputs.push_back(operand(n));
        for (const auto& [k, val] : op.attributes) {
          if (const int64_t* x = std::get_if<int64_t>(&val)) v.intAttrs[k] = {*x};
          else if (const bool* bv = std::get_if<bool>(&val)) v.intAttrs[k] = {*bv ? 1 : 0};
          else if (const auto* l = std::get_if<std::vector<int64_t>>(&val)) v.intAttrs[k] = *l;
        }
        ck.check(v);
      }
    }
  return out;
}

std::string formatViolations(const std::vector<TosaViolation>& v, const TosaCheckOptions& o, size_t limit) {
  std::string s = fmt::format("{} TOSA {} violation(s) (profile {}, level {}):", v.size(), tosaSpecVersion(),
                              o.profile == TosaCheckOptions::Profile::Int ? "int" : "fp", o.level8k ? "8K" : "none");
  for (size_t i = 0; i < v.size() && i < limit; ++i) s += "\n  " + v[i].str();
  if (v.size() > limit) s += fmt::format("\n  ... and {} more", v.size() - limit);
  return s;
}

}  // namespace ls::arm
