// TOSA 1.0 legality validator (see tosa_validate.h). The type tables are the specification's
// (tosa_spec_tables.inc, generated from tosa.xml); the code maps both inputs (an IR graph of
// tosa.* nodes, a decoded flatbuffer) to one operator view and checks it against them.
#include "core/backends/arm/tosa/tosa_validate.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <map>
#include <optional>
#include <span>
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

struct Level {
  int64_t maxRank, maxKernel, maxStride, maxScale, maxLog2Size, maxTensorListSize;
};
// The specification's levels (tosa.xml <level>): 8K, and "none".
constexpr Level kLevel8K{6, 8192, 8192, 256, 31, 64};
constexpr Level kLevelNone{32, 2147483647, 2147483647, 2048, 63, 256};

// ---------------------------------------------------------------- element types

/// The specification's element types as a small enum (the checker compares one byte per
/// operand instead of strings); Other is a type TOSA 1.0 does not have (int64, float64, an
/// unknown flatbuffer enumerator), which no table entry matches.
enum class SType : uint8_t { Bool, I4, I8, I16, I32, I48, Fp16, Bf16, Fp32, Shape, Fp8E4M3, Fp8E5M2, Other };
constexpr std::string_view kSTypeNames[] = {"bool_t", "i4_t",   "i8_t",   "i16_t",   "i32_t",     "i48_t",
                                            "fp16_t", "bf16_t", "fp32_t", "shape_t", "fp8e4m3_t", "fp8e5m2_t"};

SType parseSType(std::string_view name) {
  for (size_t i = 0; i < std::size(kSTypeNames); ++i)
    if (kSTypeNames[i] == name) return SType(i);
  return SType::Other;
}

SType specType(ir::DType t) {
  switch (t) {
    case ir::DType::Bool: return SType::Bool;
    case ir::DType::Int8: return SType::I8;
    // Unsigned values reach TOSA 1.0 only as RESCALE operands with input/output_unsigned set,
    // written as INT8/INT16 (the writer refuses them elsewhere).
    case ir::DType::UInt8: return SType::I8;
    case ir::DType::UInt16: return SType::I16;
    case ir::DType::Int16: return SType::I16;
    case ir::DType::Int32: return SType::I32;
    case ir::DType::Float16: return SType::Fp16;
    case ir::DType::BFloat16: return SType::Bf16;
    case ir::DType::Float32: return SType::Fp32;
    default: return SType::Other;  // not a TOSA 1.0 type: no entry matches it
  }
}

SType specType(std::string_view fbName) {
  static constexpr std::pair<std::string_view, SType> m[] = {
      {"BOOL", SType::Bool}, {"INT4", SType::I4},     {"INT8", SType::I8},   {"INT16", SType::I16},
      {"INT32", SType::I32}, {"INT48", SType::I48},   {"FP16", SType::Fp16}, {"BF16", SType::Bf16},
      {"FP32", SType::Fp32}, {"SHAPE", SType::Shape}, {"FP8E4M3", SType::Fp8E4M3}, {"FP8E5M2", SType::Fp8E5M2}};
  for (auto [name, t] : m)
    if (name == fbName) return t;
  return SType::Other;
}

// ---------------------------------------------------------------- the tables, compiled once

/// Profiles and extensions as bits (an entry's profile, the options' allowed set): every name
/// the tables use, in order of first use.
constexpr uint32_t kUnknownProfile = 62;  ///< a name the tables never use: no entry needs it
constexpr uint32_t kNoProfile = 63;       ///< an entry that needs no second extension
uint32_t profileBit(std::string_view name) {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> v;
    for (const OpSpec& s : specs())
      for (const TypeSupport& t : s.support)
        for (std::string_view p : {std::string_view(t.profile), std::string_view(t.andProfile)})
          if (!p.empty() && std::find(v.begin(), v.end(), p) == v.end()) v.push_back(p);
    if (v.size() > kUnknownProfile) std::abort();  // the tables name at most a dozen
    return v;
  }();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return uint32_t(i);
  return kUnknownProfile;
}

}  // namespace

bool isTosaExtension(std::string_view extension) {
  return extension.starts_with("EXT-") && profileBit(extension) != kUnknownProfile;
}

namespace {

/// What an argument's element type is under one type-support entry.
constexpr uint8_t kOpen = 0xFF;  ///< the tables leave it open
constexpr uint8_t kMul = 0xFE;   ///< RESCALE's mul_t: i32_t with scale32, else i16_t

struct RankLimit {
  int64_t value = -1;     ///< -1: no limit
  bool relative = false;  ///< MAX_RANK - value
  int64_t of(const Level& lv) const { return relative ? lv.maxRank - value : value; }
};
RankLimit parseRankLimit(std::string_view e) {
  if (e == "MAX_RANK") return {0, true};
  if (e == "MAX_RANK - 1") return {1, true};
  if (e == "MAX_RANK - 2") return {2, true};
  int64_t v = -1;  // "-", empty or not a number: no limit
  std::from_chars(e.data(), e.data() + e.size(), v);
  return {v, false};
}

/// The cheap ERROR_IF rules an operator has (see Checker::checkErrorIf).
enum class Rule : uint8_t { None, Rescale, Mul, Pool, Conv, DepthwiseConv, Resize };

struct CompiledArg {
  const ArgSpec* spec;
  bool list = false, shape = false;
  RankLimit rmin, rmax;
};
struct CompiledSupport {
  const TypeSupport* spec;
  uint32_t profile, andProfile;  ///< bits; andProfile kNoProfile when none is needed
  std::vector<uint8_t> expected;  ///< per argument: an SType, kOpen or kMul
};
struct CompiledOp {
  const OpSpec* spec;
  std::vector<CompiledArg> args;
  std::vector<CompiledSupport> support;
  size_t inputs = 0, outputs = 0;
  Rule rule = Rule::None;
  /// Zero-point ERROR_IF pairs (zero point argument, the operand it belongs to), argument indexes.
  std::vector<std::pair<size_t, size_t>> zeroPoints;
  int argIndex(std::string_view name) const {
    for (size_t i = 0; i < args.size(); ++i)
      if (name == args[i].spec->name) return int(i);
    return -1;
  }
};

CompiledOp compile(const OpSpec& s) {
  static constexpr std::string_view concrete[] = {"bool_t", "i8_t", "i16_t", "i32_t", "i48_t", "fp16_t", "bf16_t", "fp32_t"};
  CompiledOp c{&s, {}, {}};
  for (const ArgSpec& a : s.args) {
    c.args.push_back({&a, std::string_view(a.type) == "tensor_list_t", std::string_view(a.type) == "shape_t",
                      parseRankLimit(a.rankMin), parseRankLimit(a.rankMax)});
    c.inputs += a.category == 'i';
    c.outputs += a.category == 'o';
  }
  for (const TypeSupport& t : s.support) {
    CompiledSupport cs{&t, profileBit(t.profile), *t.andProfile ? profileBit(t.andProfile) : kNoProfile, {}};
    for (const ArgSpec& a : s.args) {
      const std::string_view e = a.elem;
      uint8_t x = kOpen;
      bool bound = false;
      if (e != "-" && !e.empty()) {
        for (auto [var, type] : t.types)
          if (e == var) {
            x = uint8_t(parseSType(type));  // every type the tables name is one of SType's
            bound = true;
            break;
          }
        if (!bound && e == "mul_t") x = kMul;
        else if (!bound && std::find(std::begin(concrete), std::end(concrete), e) != std::end(concrete))
          x = uint8_t(parseSType(e));  // a concrete type (RESCALE shift: i8_t); other variables are open
      }
      cs.expected.push_back(x);
    }
    c.support.push_back(std::move(cs));
  }
  const std::string_view n = s.name;
  if (n == "RESCALE") c.rule = Rule::Rescale;
  else if (n == "MUL") c.rule = Rule::Mul;
  else if (n == "AVG_POOL2D" || n == "MAX_POOL2D") c.rule = Rule::Pool;
  else if (n == "CONV2D" || n == "CONV3D" || n == "TRANSPOSE_CONV2D") c.rule = Rule::Conv;
  else if (n == "DEPTHWISE_CONV2D") c.rule = Rule::DepthwiseConv;
  else if (n == "RESIZE") c.rule = Rule::Resize;
  static const std::pair<std::string_view, std::vector<std::pair<std::string_view, std::string_view>>> zpOf[] = {
      {"CONV2D", {{"input_zp", "input"}, {"weight_zp", "weight"}}},
      {"CONV3D", {{"input_zp", "input"}, {"weight_zp", "weight"}}},
      {"DEPTHWISE_CONV2D", {{"input_zp", "input"}, {"weight_zp", "weight"}}},
      {"TRANSPOSE_CONV2D", {{"input_zp", "input"}, {"weight_zp", "weight"}}},
      {"AVG_POOL2D", {{"input_zp", "input"}, {"output_zp", "output"}}},
      {"MATMUL", {{"A_zp", "A"}, {"B_zp", "B"}}},
      {"NEGATE", {{"input1_zp", "input1"}, {"output_zp", "output"}}},
  };
  for (const auto& [op, pairs] : zpOf)
    if (op == n)
      for (auto [zp, of] : pairs)
        if (int z = c.argIndex(zp), t = c.argIndex(of); z >= 0 && t >= 0) c.zeroPoints.emplace_back(size_t(z), size_t(t));
  return c;
}

/// The compiled table of operator `name` (compiled on its first use: a one-shot run checks a
/// dozen of the spec's operators), or null when the spec has no such operator.
const CompiledOp* findSpec(std::string_view name) {
  static const std::unordered_map<std::string_view, size_t> byName = [] {
    std::unordered_map<std::string_view, size_t> m;
    for (size_t i = 0; i < specs().size(); ++i) m.emplace(specs()[i].name, i);
    return m;
  }();
  struct Slots {  // one per operator, owning what was compiled
    std::vector<std::atomic<const CompiledOp*>> v = std::vector<std::atomic<const CompiledOp*>>(specs().size());
    ~Slots() {
      for (auto& s : v) delete s.load();
    }
  };
  static Slots compiled;
  auto it = byName.find(name);
  if (it == byName.end()) return nullptr;
  std::atomic<const CompiledOp*>& slot = compiled.v[it->second];
  if (const CompiledOp* c = slot.load(std::memory_order_acquire)) return c;
  auto* fresh = new CompiledOp(compile(specs()[it->second]));
  const CompiledOp* expected = nullptr;
  if (slot.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel)) return fresh;
  delete fresh;  // another thread compiled it first
  return expected;
}

// ---------------------------------------------------------------- one operator, either source

struct Operand {
  SType type = SType::Other;
  std::string_view otherName;      ///< the type's own name when it is no TOSA type ("int64", "UINT8")
  std::span<const int64_t> shape;  ///< points into the graph's metadata or the file's tensor
  bool known = true;  ///< false: the operand could not be resolved (already reported)
  /// Where its integer values come from (zero points, shifts), read only when a rule needs them.
  const ir::Graph* graph = nullptr;
  ir::ValueRef ref{};
  const io::TosaTensorInfo* tensor = nullptr;

  std::string_view typeName() const { return type == SType::Other ? otherName : kSTypeNames[size_t(type)]; }
};

/// An int or int-list attribute.
struct IntAttr {
  std::string_view name;
  std::span<const int64_t> list;  ///< a list attribute, else `scalar`
  int64_t scalar = 0;
  bool isList = false;
  std::span<const int64_t> values() const { return isList ? list : std::span<const int64_t>(&scalar, 1); }
};

struct OpView {
  std::string_view op;  ///< spec name
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
  std::vector<IntAttr> intAttrs;  ///< int, bool and int-list attributes

  /// Emptied for the next operator, keeping the vectors' storage.
  void reset() {
    op = {};
    prefix = nullptr;
    nodeName = {};
    region = nullptr;
    block = nullptr;
    index = 0;
    inputs.clear();
    outputs.clear();
    intAttrs.clear();
  }
  const IntAttr* attr(std::string_view name) const {
    for (size_t i = intAttrs.size(); i-- > 0;)  // the last of repeated names counts
      if (intAttrs[i].name == name) return &intAttrs[i];
    return nullptr;
  }
};

std::optional<std::vector<int64_t>> intValues(const ir::Graph& g, ir::ValueRef r);

/// The integer values of an operand that is a constant (zero points, shifts, scales).
std::optional<std::vector<int64_t>> valuesOf(const Operand& x) {
  if (x.graph) return intValues(*x.graph, x.ref);
  if (x.tensor && x.tensor->hasData && x.type != SType::Fp32 && x.type != SType::Fp16 && x.type != SType::Bf16 &&
      x.tensor->data.size() <= 4096 * 8)
    return x.tensor->ints();
  return std::nullopt;
}

// ---------------------------------------------------------------- checks

std::string describeTypes(const TypeSupport& t) {
  std::vector<std::string> parts;
  for (auto [var, type] : t.types) parts.push_back(fmt::format("{}={}", var, type));
  std::string p = t.profile;
  if (*t.andProfile) p += std::string("+") + t.andProfile;
  return fmt::format("{} ({})", fmt::join(parts, ", "), p);
}

class Checker {
 public:
  Checker(const TosaCheckOptions& o, std::vector<TosaViolation>& out)
      : o_(o), lv_(o.level8k ? kLevel8K : kLevelNone), allowed_(allowedProfiles(o)), out_(out) {}

  /// The view the next operator is described in (its storage reused from operator to operator).
  OpView& view() {
    view_.reset();
    return view_;
  }

  void check(const OpView& v) {
    const CompiledOp* c = findSpec(v.op);
    if (!c) return add(v, fmt::format("'{}' is not a TOSA {} operator", v.op, tosaSpecVersion()));
    // Map operands onto the spec's input/output arguments (a tensor list takes the rest).
    bound_.clear();
    size_t in = 0, out = 0;
    bool list = false;
    for (size_t ai = 0; ai < c->args.size(); ++ai) {
      const CompiledArg& a = c->args[ai];
      if (a.spec->category == 'i') {
        if (a.list) {
          list = true;
          if (int64_t(v.inputs.size() - in) > lv_.maxTensorListSize)
            add(v, fmt::format("{} tensors in the list '{}', level {} allows at most {} (MAX_TENSOR_LIST_SIZE)",
                               v.inputs.size() - in, a.spec->name, o_.level8k ? "8K" : "none", lv_.maxTensorListSize));
          for (; in < v.inputs.size(); ++in) bound_.push_back({ai, &v.inputs[in]});
        } else if (in < v.inputs.size()) {
          bound_.push_back({ai, &v.inputs[in++]});
        } else {
          return add(v, fmt::format("missing input '{}' (the spec lists {} inputs, the operator has {})", a.spec->name,
                                    c->inputs, v.inputs.size()));
        }
      } else if (a.spec->category == 'o') {
        if (out < v.outputs.size()) bound_.push_back({ai, &v.outputs[out++]});
        else return add(v, fmt::format("missing output '{}'", a.spec->name));
      }
    }
    if (!list && in < v.inputs.size()) add(v, fmt::format("{} inputs, the spec lists {}", v.inputs.size(), c->inputs));
    if (out < v.outputs.size()) add(v, fmt::format("{} outputs, the spec lists {}", v.outputs.size(), c->outputs));

    // Ranks, sizes and shape operands.
    for (auto [ai, x] : bound_) {
      const CompiledArg& a = c->args[ai];
      if (!x->known) continue;
      if (a.shape) {
        if (x->type != SType::Shape)
          add(v, fmt::format("'{}' must be a shape (CONST_SHAPE), got a {} tensor", a.spec->name, x->typeName()));
        continue;
      }
      const int64_t rank = int64_t(x->shape.size());
      const int64_t rmin = a.rmin.of(lv_), rmax = a.rmax.of(lv_);
      if (rmax >= 0 && rank > rmax)
        add(v, fmt::format("'{}' has rank {}, at most {} allowed ({}{})", a.spec->name, rank, rmax, a.spec->rankMax,
                           o_.level8k ? ", level 8K" : ""));
      if (rmin >= 0 && rank < rmin) add(v, fmt::format("'{}' has rank {}, at least {} needed", a.spec->name, rank, rmin));
      int64_t elems = 1;
      bool big = false;
      for (int64_t d : x->shape)
        if (__builtin_mul_overflow(elems, std::max<int64_t>(d, 1), &elems) || elems > (int64_t(1) << 62)) {
          big = true;  // the count is reported as at least 2^62; multiplying on would overflow
          elems = int64_t(1) << 62;
          break;
        }
      if (big || (lv_.maxLog2Size < 63 && elems > (int64_t(1) << lv_.maxLog2Size)))
        add(v, fmt::format("'{}' has {} elements, more than 2^{} (MAX_LOG2_SIZE)", a.spec->name, elems, lv_.maxLog2Size));
    }

    // Data types: one combination of the spec for an allowed profile must match every operand.
    if (o_.skipNonTosaTypes)
      for (auto [ai, x] : bound_)
        if (x->known && x->type == SType::Other) return checkErrorIf(v, *c);
    const IntAttr* scale32 = nullptr;
    bool scale32Read = false;
    bool typed = false, match = false, anyCandidate = false;
    for (const CompiledSupport& t : c->support) {
      if (!allowed(t)) continue;
      anyCandidate = true;
      bool ok = true;
      for (auto [ai, x] : bound_) {
        if (!x->known || c->args[ai].shape) continue;
        uint8_t e = t.expected[ai];
        if (e == kOpen) continue;
        if (e == kMul) {
          if (!scale32Read) scale32 = v.attr("scale32"), scale32Read = true;
          e = uint8_t(scale32 && !scale32->values().empty() && scale32->values()[0] ? SType::I32 : SType::I16);
        }
        typed = true;
        if (x->type != SType(e)) ok = false;
      }
      if (ok) {
        match = true;
        break;
      }
    }
    if (!match && (typed || !anyCandidate)) {
      std::vector<std::string> found;
      for (auto [ai, x] : bound_)
        if (x->known && std::string_view(c->args[ai].spec->elem) != "-")
          found.push_back(fmt::format("{}={}", c->args[ai].spec->name, x->typeName()));
      std::vector<std::string> allowedTypes, other;
      for (const CompiledSupport& t : c->support) (allowed(t) ? allowedTypes : other).push_back(describeTypes(*t.spec));
      add(v, fmt::format("operand types {} are not a {} combination of {} for {}; allowed: {}{}",
                         fmt::join(found, ", "), tosaSpecVersion(), v.op, profileName(),
                         allowedTypes.empty() ? "none" : fmt::format("{}", fmt::join(allowedTypes, "; ")),
                         other.empty() ? "" : fmt::format(" (other profiles/extensions: {})", fmt::join(other, "; "))));
    }
    checkErrorIf(v, *c);
  }

 private:
  struct Bound {
    size_t arg;
    const Operand* x;
  };

  static uint64_t allowedProfiles(const TosaCheckOptions& o) {
    uint64_t m = uint64_t(1) << profileBit("PRO-INT");
    if (o.profile == TosaCheckOptions::Profile::Fp) m |= uint64_t(1) << profileBit("PRO-FP");
    for (const std::string& e : o.extensions)
      if (uint32_t b = profileBit(e); b != kUnknownProfile) m |= uint64_t(1) << b;
    return m;
  }
  bool allowed(const CompiledSupport& t) const {
    return (allowed_ >> t.profile & 1) && (t.andProfile == kNoProfile || (allowed_ >> t.andProfile & 1));
  }
  std::string profileName() const {
    std::string p = o_.profile == TosaCheckOptions::Profile::Int ? "PRO-INT" : "PRO-FP/PRO-INT";
    for (const std::string& e : o_.extensions) p += "+" + e;
    return p;
  }
  void add(const OpView& v, std::string msg) { out_.push_back({v.where(), std::string(v.op), std::move(msg)}); }

  /// The operand bound to argument `arg` (the first, for a list), or null.
  const Operand* operand(int arg) const {
    for (auto [ai, x] : bound_)
      if (int(ai) == arg) return x;
    return nullptr;
  }
  const Operand* operand(const CompiledOp& c, std::string_view name) const { return operand(c.argIndex(name)); }

  /// The cheap ERROR_IF conditions: zero points of non-int8 operands, RESCALE / MUL shifts,
  /// and the kernel/stride/pad/scale level limits of the attributes.
  void checkErrorIf(const OpView& v, const CompiledOp& c) {
    for (auto [zi, ti] : c.zeroPoints) {
      const Operand* z = operand(int(zi));
      const Operand* t = operand(int(ti));
      if (!z || !t || !t->known || t->type == SType::I8) continue;
      if (auto zv = valuesOf(*z))
        for (int64_t x : *zv)
          if (x != 0)
            add(v, fmt::format("{} is {}, but must be 0 for a {} '{}' (ERROR_IF)", c.args[zi].spec->name, x,
                               t->typeName(), c.args[ti].spec->name));
    }
    if (c.rule == Rule::Rescale)
      if (const Operand* sh = operand(c, "shift"))
        if (auto sv = valuesOf(*sh))
          for (int64_t x : *sv)
            if (x < 2 || x > 62) add(v, fmt::format("shift {} is outside [2, 62] (ERROR_IF)", x));
    if (c.rule == Rule::Mul)
      if (const Operand* sh = operand(c, "shift"))
        if (auto sv = valuesOf(*sh)) {
          const Operand* a = operand(c, "input1");
          for (int64_t x : *sv) {
            if (a && a->known && a->type != SType::I32 && x != 0)
              add(v, fmt::format("shift {} must be 0 for {} operands (ERROR_IF)", x, a->typeName()));
            if (x < 0 || x > 63) add(v, fmt::format("shift {} is outside [0, 63] (ERROR_IF)", x));
          }
        }
    auto limit = [&](const char* attr, int64_t max, const char* what) {
      const IntAttr* a = v.attr(attr);
      if (!a) return;
      for (int64_t x : a->values())
        if (x > max) add(v, fmt::format("{} {} is above {} ({}{})", attr, x, max, what, o_.level8k ? ", level 8K" : ""));
    };
    if (c.rule == Rule::Pool) {
      limit("kernel", lv_.maxKernel, "MAX_KERNEL");
      limit("stride", lv_.maxStride, "MAX_STRIDE");
      limit("pad", lv_.maxKernel, "MAX_KERNEL");
    }
    if (c.rule == Rule::Conv || c.rule == Rule::DepthwiseConv) {
      limit("stride", lv_.maxStride, "MAX_STRIDE");
      limit("pad", lv_.maxKernel, "MAX_KERNEL");
      limit("out_pad", lv_.maxKernel, "MAX_KERNEL");
      // dilation * kernel size: the weight's spatial dims (OHWI / ODHWI; depthwise HWCM).
      const Operand* w = operand(c, "weight");
      const IntAttr* dil = v.attr("dilation");
      if (w && w->known && w->shape.size() >= 3) {
        std::span<const int64_t> k =
            c.rule == Rule::DepthwiseConv ? w->shape.first(2) : w->shape.subspan(1, w->shape.size() - 2);
        for (size_t i = 0; i < k.size(); ++i) {
          int64_t d = dil && i < dil->values().size() ? dil->values()[i] : 1;
          int64_t dk = 0;
          if (__builtin_mul_overflow(d, k[i], &dk) || dk > lv_.maxKernel)
            add(v, fmt::format("dilation x kernel {} x {} is above {} (MAX_KERNEL)", d, k[i], lv_.maxKernel));
        }
      }
    }
    if (c.rule == Rule::Resize)
      if (const Operand* sc = operand(c, "scale"))
        if (auto sv = valuesOf(*sc); sv && sv->size() == 4) {
          const auto& q = *sv;
          for (int i = 0; i < 2; ++i)
            if (int64_t lim = 0; q[size_t(2 * i + 1)] > 0 &&
                                 !__builtin_mul_overflow(lv_.maxScale, q[size_t(2 * i + 1)], &lim) && q[size_t(2 * i)] > lim)
              add(v, fmt::format("scale {}/{} is above {} (MAX_SCALE)", q[size_t(2 * i)], q[size_t(2 * i + 1)],
                                 lv_.maxScale));
        }
  }

  const TosaCheckOptions& o_;
  Level lv_;
  uint64_t allowed_;
  std::vector<TosaViolation>& out_;
  OpView view_;
  std::vector<Bound> bound_;
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

Operand operandOf(const ir::Graph& g, const ir::Node* n, ir::ValueRef r) {
  Operand o;
  if (!n || r.output >= n->outputs.size()) {
    o.known = false;
    return o;
  }
  const ir::TensorMeta& m = n->outputs[r.output];
  static const ir::OpId constShape = ir::internOp("tosa.CONST_SHAPE");
  o.type = n->op == constShape ? SType::Shape : specType(m.dtype);
  if (o.type == SType::Other) o.otherName = ir::dtypeName(m.dtype);
  o.shape = m.shape.dims();
  o.graph = &g;
  o.ref = r;
  return o;
}

void checkNode(const ir::Graph& g, const ir::Node& n, const std::string& prefix, Checker& ck,
               std::vector<TosaViolation>& out) {
  OpView& v = ck.view();
  v.prefix = &prefix;
  v.nodeName = n.name;
  if (n.kind == ir::NodeKind::GetAttr) {
    v.op = "CONST";
    for (const ir::TensorMeta& m : n.outputs) {
      Operand x;
      x.type = specType(m.dtype);
      if (x.type == SType::Other) x.otherName = ir::dtypeName(m.dtype);
      x.shape = m.shape.dims();
      v.outputs.push_back(x);
    }
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
    if (const ir::ValueRef* r = a.ref()) v.inputs.push_back(operandOf(g, g.find(r->node), *r));
    else if (const ir::RefList* l = a.asRefList())
      for (const ir::ValueRef& r2 : *l) v.inputs.push_back(operandOf(g, g.find(r2.node), r2));
  }
  for (size_t i = 0; i < n.outputs.size(); ++i) v.outputs.push_back(operandOf(g, &n, ir::ValueRef{n.id, uint32_t(i)}));
  for (const ir::Kwarg& k : n.kwargs) {
    if (const int64_t* x = k.value.asInt()) v.intAttrs.push_back({k.name, {}, *x, false});
    else if (const bool* bv = k.value.asBool()) v.intAttrs.push_back({k.name, {}, *bv ? 1 : 0, false});
    else if (const ir::IntList* l = k.value.asIntList()) v.intAttrs.push_back({k.name, *l, 0, true});
  }
  ck.check(v);
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
      std::unordered_map<std::string_view, const io::TosaTensorInfo*> tensors;
      for (const io::TosaTensorInfo& t : block.tensors) tensors[t.name] = &t;  // the last of repeated names
      auto operand = [&](const std::string& name) {
        Operand x;
        auto it = tensors.find(name);
        if (it == tensors.end()) {
          x.known = false;
          return x;
        }
        x.type = specType(it->second->dtype);
        if (x.type == SType::Other) x.otherName = it->second->dtype;
        x.shape = it->second->shape;
        x.tensor = it->second;
        return x;
      };
      for (size_t i = 0; i < block.operators.size(); ++i) {
        const io::TosaOperatorInfo& op = block.operators[i];
        OpView& v = ck.view();
        v.op = op.op;
        v.region = &region;
        v.block = &block;
        v.index = i;
        for (const std::string& n : op.inputs) v.inputs.push_back(operand(n));
        for (const std::string& n : op.outputs) v.outputs.push_back(operand(n));
        for (const auto& [k, val] : op.attributes) {
          if (const int64_t* x = std::get_if<int64_t>(&val)) v.intAttrs.push_back({k, {}, *x, false});
          else if (const bool* bv = std::get_if<bool>(&val)) v.intAttrs.push_back({k, {}, *bv ? 1 : 0, false});
          else if (const auto* l = std::get_if<std::vector<int64_t>>(&val)) v.intAttrs.push_back({k, *l, 0, true});
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
