// TOSA 1.0 flatbuffer writer and reader (schema: core/backends/arm/tosa/schema/tosa.fbs).
#include "core/io/flatbuffer_file.h"
#include "core/backends/arm/tosa/tosa_writer.h"
#include "core/backends/arm/tosa/tosa_validate.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <flatbuffers/flatbuffers.h>

#include <algorithm>
#include <functional>
#include <string_view>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <unordered_map>
#include <unordered_set>

#include "core/backends/arm/tosa/tosa_ops.h"
#include "core/exec/materialize.h"
#include "core/exec/parallel.h"
#include "core/exec/synth.h"
#include "core/exec/tensor.h"
#include "core/backends/arm/tosa/schema/tosa_generated.h"
#include "core/ops/registry.h"
#include "core/util/atomic_file.h"

namespace ls::io {

static_assert(sizeof(kTosaIdentifier) == flatbuffers::kFileIdentifierLength + 1);

namespace {

namespace fb = flatbuffers;

// ======================================================================== op names

/// tosa::Op for a spec name ("CONV2D"), if the schema has it.
std::optional<tosa::Op> opFromName(std::string_view name) {
  const char* const* names = tosa::EnumNamesOp();
  for (int i = int(tosa::Op::MIN) + 1; i <= int(tosa::Op::MAX); ++i)
    if (name == names[i]) return tosa::Op(i);
  return std::nullopt;
}

/// "tosa.CONV2D" / "tosa.CONV2D.default" -> "CONV2D"; nullopt for non-TOSA op names.
std::optional<std::string_view> tosaSpecName(std::string_view op) {
  if (op.substr(0, 5) != "tosa.") return std::nullopt;
  op.remove_prefix(5);
  if (op.size() > 8 && op.substr(op.size() - 8) == ".default") op.remove_suffix(8);
  if (op.empty()) return std::nullopt;
  return op;
}

// ======================================================================== writer

/// Internal error carrier: thrown deep inside attribute/tensor helpers, caught once in
/// serializeTosa and turned into a Status (keeps the per-op code readable).
struct WriteError {
  std::string message;
};

[[noreturn]] void raise(std::string msg) { throw WriteError{std::move(msg)}; }

std::string argKindName(const ir::Arg& a) {
  switch (a.kind()) {
    case ir::ArgKind::None: return "None";
    case ir::ArgKind::Bool: return "a bool";
    case ir::ArgKind::Int: return "an int";
    case ir::ArgKind::Float: return "a float";
    case ir::ArgKind::String: return "a string";
    case ir::ArgKind::Enum: return "an enum";
    case ir::ArgKind::Ref: return "a value reference";
    case ir::ArgKind::IntList: return "an int list";
    case ir::ArgKind::FloatList: return "a float list";
    case ir::ArgKind::BoolList: return "a bool list";
    case ir::ArgKind::RefList: return "a list of value references";
    case ir::ArgKind::Slice: return "a slice";
    default: return "an unknown argument kind";
  }
}

/// Element bytes of `v` stored as `t` (little endian); error text says what did not fit.
bool encodeScalar(double v, bool isInt, int64_t iv, ir::DType t, std::vector<uint8_t>& out, std::string& why) {
  auto putInt = [&](int64_t x, int64_t lo, int64_t hi, int bytes) {
    if (x < lo || x > hi) {
      why = fmt::format("value {} out of range [{}, {}] of {}", x, lo, hi, ir::dtypeName(t));
      return false;
    }
    uint64_t u = uint64_t(x);
    for (int i = 0; i < bytes; ++i) out.push_back(uint8_t(u >> (8 * i)));
    return true;
  };
  if (ir::isIntegral(t, true)) {
    int64_t x = iv;
    if (!isInt) {
      if (!std::isfinite(v) || v != std::floor(v)) {
        why = fmt::format("value {} is not an integer, but the tensor is {}", ir::formatFloat(v), ir::dtypeName(t));
        return false;
      }
      x = int64_t(v);
    }
    switch (t) {
      case ir::DType::Bool: return putInt(x, 0, 1, 1);
      case ir::DType::Int8: return putInt(x, -128, 127, 1);
      case ir::DType::UInt8: return putInt(x, 0, 255, 1);
      case ir::DType::Int16: return putInt(x, -32768, 32767, 2);
      case ir::DType::UInt16: return putInt(x, 0, 65535, 2);
      case ir::DType::Int32: return putInt(x, INT32_MIN, INT32_MAX, 4);
      default: break;
    }
  } else {
    double d = isInt ? double(iv) : v;
    auto put16 = [&](uint16_t h) {
      out.push_back(uint8_t(h));
      out.push_back(uint8_t(h >> 8));
      return true;
    };
    switch (t) {
      case ir::DType::Float32: {
        float f = float(d);
        uint32_t u;
        std::memcpy(&u, &f, 4);
        for (int i = 0; i < 4; ++i) out.push_back(uint8_t(u >> (8 * i)));
        return true;
      }
      case ir::DType::Float16: return put16(exec::floatToHalf(float(d)));
      case ir::DType::BFloat16: return put16(exec::floatToBfloat16(float(d)));
      default: break;
    }
  }
  why = fmt::format("cannot store values as {}", ir::dtypeName(t));
  return false;
}

class TosaWriter {
 public:
  TosaWriter(const ir::Graph& g, const TosaWriteOptions& opts, TosaWriteReport& report)
      : g_(g), opts_(opts), report_(report), b_(initialSize(g)) {}

  /// The finished flatbuffer, valid while the writer lives.
  std::string_view run() {
    g_.buildIndices();
    std::vector<std::string> bad = nonTosaNodes(g_);
    if (!bad.empty()) {
      std::string list;
      for (const std::string& s : bad) list += "\n  " + s;
      raise(fmt::format("graph is not pure TOSA: {} node(s) with non-TOSA ops (lower with the tosa pipeline "
                        "first):{}",
                        bad.size(), list));
    }
    for (const ir::NodePtr& p : g_.nodes()) {
      const ir::Node& n = *p;
      switch (n.kind) {
        case ir::NodeKind::Placeholder: placeholder(n); break;
        case ir::NodeKind::GetAttr: getAttr(n); break;
        case ir::NodeKind::Call: call(n); break;
        case ir::NodeKind::Output: output(n); break;
        default: raise(fmt::format("node '{}': unknown node kind", n.name));
      }
    }
    if (!sawOutput_) raise("graph has no output node");
    if (outputs_.empty()) raise("graph returns no values: a TOSA block needs at least one output");

    auto version = tosa::CreateVersion(b_, kTosaVersionMajor, kTosaVersionMinor, kTosaVersionPatch, kTosaVersionDraft);
    auto block = tosa::CreateTosaBasicBlockDirect(b_, "main", &operators_, &tensors_, &inputs_, &outputs_);
    std::vector<fb::Offset<tosa::TosaBasicBlock>> blocks{block};
    auto region = tosa::CreateTosaRegionDirect(b_, "main", &blocks);
    std::vector<fb::Offset<tosa::TosaRegion>> regions{region};
    auto root = tosa::CreateTosaGraphDirect(b_, version, &regions);
    tosa::FinishTosaGraphBuffer(b_, root);
    fillDeferred();
    report_.operators = operators_.size();
    report_.tensors = tensors_.size();
    return {reinterpret_cast<const char*>(b_.GetBufferPointer()), b_.GetSize()};
  }

 private:
  /// The builder's first allocation: room for every constant's bytes (each 8-aligned) plus the
  /// structure, so large weights are copied into it once instead of again at each doubling.
  /// Pages never written cost nothing, so counting a constant no node reads is harmless.
  static size_t initialSize(const ir::Graph& g) {
    size_t bytes = std::max<size_t>(4096, g.size() * 256);
    for (const auto& [name, c] : g.constants())
      if (c.numel() > 0) bytes += (size_t(c.numel()) * ir::dtypeSize(c.dtype) + 15) & ~size_t(7);
    return std::min<size_t>(bytes, FLATBUFFERS_MAX_BUFFER_SIZE);
  }

  // ---------------------------------------------------------------- values and tensors

  struct Value {
    fb::Offset<fb::String> name;
    std::string text;
    bool isShape = false;  ///< a CONST_SHAPE output (shape_t operand)
  };

  static uint64_t key(ir::ValueRef r) { return (uint64_t(r.node) << 32) | r.output; }

  std::string where(const ir::Node& n) const {
    return n.isCall() ? fmt::format("node '{}' ({})", n.name, n.target) : fmt::format("node '{}'", n.name);
  }

  std::string tensorName(const ir::Node& n, uint32_t output) const {
    return output == 0 ? n.name : fmt::format("{}:{}", n.name, output);
  }

  /// True when an unsigned value may be stored as TOSA INT8/INT16: produced by a RESCALE
  /// with output_unsigned (or a graph input, constant or tosa.CONST) and read only by RESCALEs that
  /// declare it unsigned (input_unsigned for input/input_zp, output_unsigned for output_zp)
  /// or by the output node.
  bool unsignedAllowed(ir::ValueRef r) const {
    const ir::Node& p = g_.node(r.node);
    auto flag = [](const ir::Node& n, const char* k) {
      const ir::Arg* a = n.kwarg(k);
      return a && a->asBool() && *a->asBool();
    };
    auto isRescale = [](const ir::Node& n) {
      auto s = tosaSpecName(n.target);
      return n.isCall() && s && *s == "RESCALE";
    };
    auto isConst = [](const ir::Node& n) {
      auto s = tosaSpecName(n.target);
      return n.isCall() && s && *s == "CONST";
    };
    if (p.isCall() && !isConst(p) && !(isRescale(p) && flag(p, "output_unsigned"))) return false;
    for (ir::NodeId u : g_.users(r.node)) {
      const ir::Node& un = g_.node(u);
      if (un.kind == ir::NodeKind::Output) continue;
      if (!isRescale(un)) return false;
      for (size_t i = 0; i < un.args.size(); ++i) {
        const ir::ValueRef* a = un.args[i].ref();
        if (!a || *a != r) continue;
        bool ok = ((i == 0 || i == 3) && flag(un, "input_unsigned")) || (i == 4 && flag(un, "output_unsigned"));
        if (!ok) return false;
      }
    }
    return true;
  }

  tosa::DType tosaType(const ir::Node& n, uint32_t output, ir::DType t) const {
    switch (t) {
      case ir::DType::Bool: return tosa::DType::BOOL;
      case ir::DType::Int8: return tosa::DType::INT8;
      case ir::DType::Int16: return tosa::DType::INT16;
      case ir::DType::Int32: return tosa::DType::INT32;
      case ir::DType::Float16: return tosa::DType::FP16;
      case ir::DType::BFloat16: return tosa::DType::BF16;
      case ir::DType::Float32: return tosa::DType::FP32;
      case ir::DType::UInt8:
      case ir::DType::UInt16:
        if (unsignedAllowed({n.id, output})) return t == ir::DType::UInt8 ? tosa::DType::INT8 : tosa::DType::INT16;
        raise(fmt::format("{}: output {} has dtype {}: TOSA 1.0 has no unsigned tensor types; an unsigned value "
                          "must come from a RESCALE with output_unsigned=true (or be a graph input) and be read "
                          "only by RESCALEs with input_unsigned=true",
                          where(n), output, ir::dtypeName(t)));
      default:
        raise(fmt::format("{}: output {} has dtype {}, which TOSA 1.0 cannot represent (supported: bool, int8, "
                          "int16, int32, float16, bfloat16, float32)",
                          where(n), output, ir::dtypeName(t)));
    }
  }

  std::vector<int32_t> tosaShape(const ir::Node& n, const ir::Shape& s) const {
    std::vector<int32_t> out;
    for (int64_t d : s.dims()) {
      if (d < 0 || d > std::numeric_limits<int32_t>::max())
        raise(fmt::format("{}: dimension {} of shape {} does not fit TOSA's int32 shape", where(n), d,
                          ir::toString(s)));
      out.push_back(int32_t(d));
    }
    return out;
  }

  /// The data of a constant tensor: `size` bytes that `fill` writes into the flatbuffer.
  struct ConstFill {
    size_t size = 0;
    std::function<void(std::span<uint8_t>)> fill;
    /// Filled after the structure is built, in parallel with the other deferred ones: `fill`
    /// must then read only what outlives the writer's run (the graph's constants).
    bool deferred = false;
  };

  /// A deferred CONST's data: `size` bytes ending `fromEnd` bytes before the buffer's end (the
  /// builder grows towards the front, so that distance stays valid when it reallocates).
  struct Pending {
    size_t fromEnd = 0;
    ConstFill data;
  };

  /// Below this many bytes of deferred CONSTs, thread start-up would cost more than it saves.
  static constexpr size_t kParallelBytes = 4u << 20;

  /// Fills the deferred CONSTs, largest first, over the machine's threads when there are
  /// megabytes to fill (a recipe's values are computed straight into the buffer;
  /// materializeInto is thread-safe). The first error in graph order is raised.
  void fillDeferred() {
    uint8_t* end = b_.GetBufferPointer() + b_.GetSize();
    std::vector<size_t> sizes;
    for (const Pending& p : pending_) sizes.push_back(p.data.size);
    std::vector<std::string> errors(pending_.size());
    exec::forEachLargestFirst(sizes, kParallelBytes, [&](size_t i) {
      Pending& p = pending_[i];
      try {
        p.data.fill(std::span<uint8_t>(end - p.fromEnd, p.data.size));
      } catch (const WriteError& e) {
        errors[i] = e.message;
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });
    for (const std::string& e : errors)
      if (!e.empty()) raise(e);
  }

  static ConstFill copyOf(std::span<const uint8_t> bytes) {
    return {bytes.size(), [bytes](std::span<uint8_t> dst) {
              if (!bytes.empty()) std::memcpy(dst.data(), bytes.data(), bytes.size());
            }};
  }

  /// Adds the tensor of output `output` of `n` (with `data` when constant) and records the
  /// value's name.
  fb::Offset<fb::String> addTensor(const ir::Node& n, uint32_t output, tosa::DType type,
                                   const std::vector<int32_t>& shape, const std::optional<ConstFill>& data,
                                   bool isShape = false) {
    std::string text = tensorName(n, output);
    if (!tensorNames_.insert(text).second)
      raise(fmt::format("{}: tensor name '{}' is used twice", where(n), text));
    fb::Offset<fb::Vector<uint8_t>> dataOff = 0;
    if (data) {
      report_.constantBytes += data->size;
      if (report_.constantBytes >= FLATBUFFERS_MAX_BUFFER_SIZE / 2)
        raise(fmt::format("{}: constant data exceeds the 2 GB flatbuffer limit", where(n)));
      b_.ForceVectorAlignment(data->size, sizeof(uint8_t), 8);
      uint8_t* dst = nullptr;
      dataOff = b_.CreateUninitializedVector(data->size, sizeof(uint8_t), &dst);
      if (data->deferred) pending_.push_back({size_t(b_.GetCurrentBufferPointer() + b_.GetSize() - dst), *data});
      else data->fill(std::span<uint8_t>(dst, data->size));
    }
    auto name = b_.CreateSharedString(text);
    auto shapeOff = b_.CreateVector(shape);
    tensors_.push_back(tosa::CreateTosaTensor(b_, name, shapeOff, type, dataOff));
    values_[key({n.id, output})] = Value{name, text, isShape};
    return name;
  }

  fb::Offset<fb::String> addValueTensor(const ir::Node& n, uint32_t output) {
    const ir::TensorMeta& m = n.meta(output);
    if (!m.isTensor()) raise(fmt::format("{}: output {} is not a tensor (no dtype recorded)", where(n), output));
    return addTensor(n, output, tosaType(n, output, m.dtype), tosaShape(n, m.shape), std::nullopt);
  }

  void addOperator(tosa::Op op, tosa::Attribute attrType, fb::Offset<void> attr,
                   const std::vector<fb::Offset<fb::String>>& ins, const std::vector<fb::Offset<fb::String>>& outs) {
    operators_.push_back(tosa::CreateTosaOperatorDirect(b_, op, attrType, attr, &ins, &outs));
  }

  // ---------------------------------------------------------------- constants

  /// A CONST for graph constant `c` as read by node `n`: its bytes, or for a recipe or a
  /// shape-only constant (when allowed) its values, written straight into the flatbuffer.
  void emitGraphConstant(const ir::Node& n, const ir::Constant& c) {
    const ir::TensorMeta& m = n.meta();
    if (m.dtype != c.dtype)
      raise(fmt::format("{}: constant '{}' is {} but the node's metadata says {}", where(n), c.name,
                        ir::dtypeName(c.dtype), ir::dtypeName(m.dtype)));
    if (m.numel() != c.numel())
      raise(fmt::format("{}: constant '{}' has shape {} ({} elements) but the node's metadata says {}", where(n),
                        c.name, ir::toString(c.shape), c.numel(), ir::toString(m.shape)));
    size_t want = size_t(c.numel()) * size_t(ir::dtypeSize(c.dtype));
    if (c.hasData() && c.data->bytes.size() != want)
      raise(fmt::format("{}: constant '{}' holds {} bytes, expected {} for {} {}", where(n), c.name,
                        c.data->bytes.size(), want, ir::dtypeName(c.dtype), ir::toString(c.shape)));
    if (!c.hasData() && !c.recipe && !opts_.synthesizeMissingData)
      raise(fmt::format("{}: constant '{}' has no data (shape-only weight); a TOSA CONST needs its values "
                        "(materialise constants first, or allow synthesised values)",
                        where(n), c.name));
    // A recipe's values (derived in the pipeline, as a folded constant's bytes always were
    // written) or synthesised ones: from the shared cache when there, else computed into the
    // flatbuffer for this copy alone (caching them would hold the weights twice).
    auto fill = [this, &n, &c](std::span<uint8_t> dst) {  // n and c are the graph's
      Status st = exec::materializeInto(c, dst);
      if (!st) raise(fmt::format("{}: {}", where(n), st.message()));
    };
    if (!c.hasData() && !c.recipe) report_.synthesized.push_back(c.name);
    emitConst(n, ConstFill{want, fill, /*deferred=*/true});
  }

  void emitConst(const ir::Node& n, const ConstFill& data) {
    const ir::TensorMeta& m = n.meta();
    auto name = addTensor(n, 0, tosaType(n, 0, m.dtype), tosaShape(n, m.shape), data);
    addOperator(tosa::Op::CONST, tosa::Attribute::ConstAttribute, tosa::CreateConstAttribute(b_).Union(), {}, {name});
  }

  void placeholder(const ir::Node& n) {
    // A placeholder that stands for a constant with data (lifted parameter) is a CONST.
    if (const ir::Constant* c = g_.constant(n.target); c && c->valuesKnown()) {
      if (!g_.users(n.id).empty()) emitGraphConstant(n, *c);
      return;
    }
    inputs_.push_back(addValueTensor(n, 0));
  }

  void getAttr(const ir::Node& n) {
    if (g_.users(n.id).empty()) return;  // dead constant: nothing reads it
    const ir::Constant* c = g_.constant(n.target);
    if (!c) raise(fmt::format("{}: get_attr target '{}' is not a constant of the graph", where(n), n.target));
    emitGraphConstant(n, *c);
  }

  void output(const ir::Node& n) {
    sawOutput_ = true;
    ir::RefList refs;
    if (!n.args.empty()) {
      if (auto* l = n.args[0].asRefList()) refs = *l;
      else if (auto* r = n.args[0].ref()) refs.push_back(*r);
    }
    std::unordered_set<uint64_t> seen;
    for (size_t i = 0; i < refs.size(); ++i) {
      const ir::ValueRef& r = refs[i];
      if (r.isNone()) continue;  // a returned None is no TOSA output (docs/FXJSON.md)
      if (!seen.insert(key(r)).second)
        raise(fmt::format("output slot {} repeats the value of an earlier slot ('{}'): TOSA block outputs must be "
                          "distinct tensors (run EnsureUniqueOutputNodesPass)",
                          i, g_.node(r.node).name));
      outputs_.push_back(value(n, r, fmt::format("output slot {}", i)).name);
    }
  }

  // ---------------------------------------------------------------- operators

  const Value& value(const ir::Node& user, ir::ValueRef r, const std::string& what) const {
    auto it = values_.find(key(r));
    if (it == values_.end()) {
      const ir::Node* p = g_.find(r.node);
      raise(fmt::format("{}: {} reads '{}', which produced no TOSA tensor", where(user), what,
                        p ? tensorName(*p, r.output) : std::string("<missing node>")));
    }
    return it->second;
  }

  fb::Offset<fb::String> input(const ir::Node& n, size_t i, std::string_view inName, bool wantShape) {
    const ir::Arg& a = n.args[i];
    const ir::ValueRef* r = a.ref();
    if (!r)
      raise(fmt::format("{}: input {} ('{}') must be a value reference, got {}", where(n), i, inName,
                        argKindName(a)));
    const Value& v = value(n, *r, fmt::format("input {} ('{}')", i, inName));
    if (wantShape && !v.isShape)
      raise(fmt::format("{}: input {} ('{}') is a shape operand and must refer to a tosa.CONST_SHAPE node, got '{}'",
                        where(n), i, inName, v.text));
    if (!wantShape && v.isShape)
      raise(fmt::format("{}: input {} ('{}') must be a tensor, got the shape value '{}' (tosa.CONST_SHAPE)",
                        where(n), i, inName, v.text));
    return v.name;
  }

  /// A tosa.* call node. Everything about the op comes from the op registry: inputs are the
  /// schema's positional args in order, attributes its kwargs (types, defaults), the output
  /// rule its meta function; the op table in core/backends/arm/tosa/tosa_ops.cpp adds what only
  /// the serialization needs (attribute table layout, shape operands, metadata copies).
  void call(const ir::Node& n) {
    std::string_view specName = *tosaSpecName(n.target);  // nonTosaNodes() ran before
    std::optional<tosa::Op> op = opFromName(specName);
    if (!op) raise(fmt::format("{}: '{}' is not a TOSA 1.0 operator", where(n), specName));
    const ops::OpSchema* schema = ops::OpRegistry::instance().find(arm::tosaOp(specName));
    const arm::TosaSerialization* ser = schema ? arm::tosaSerialization(schema->id) : nullptr;
    if (!ser)
      raise(fmt::format("{}: TOSA operator {} is not supported by this writer ({})", where(n), specName,
                        schema ? "it is in the op registry but has no serialization descriptor: add it to the TOSA op "
                                 "table in core/backends/arm/tosa/tosa_ops.cpp"
                               : "not in the TOSA op table of core/backends/arm/tosa/tosa_ops.cpp"));
    if (n.outputs.size() != 1)
      raise(fmt::format("{}: expected exactly one output (TOSA operators have one), got {}", where(n),
                        n.outputs.size()));

    // Attributes: only the schema's kwargs (the spec's snake_case names) are accepted.
    std::string allowed;
    for (const ops::ArgSpec& a : schema->args)
      if (a.kwargOnly) allowed += (allowed.empty() ? "" : ",") + a.name;
    for (const ir::Kwarg& k : n.kwargs) {
      int i = schema->argIndex(k.name);
      if (i < 0 || !schema->args[size_t(i)].kwargOnly)
        raise(fmt::format("{}: unexpected attribute '{}' ({} attributes: {})", where(n), k.name, specName,
                          allowed.empty() ? std::string("none") : allowed));
    }

    // Inputs: the schema's positional args, in order.
    const size_t npos = size_t(schema->positionalCount());
    std::vector<fb::Offset<fb::String>> inNames;
    if (n.args.size() != npos) {
      std::string names;
      for (size_t i = 0; i < npos; ++i) names += (names.empty() ? "" : ", ") + schema->args[i].name;
      raise(fmt::format("{}: expected {} input(s) ({}), got {}", where(n), npos, names.empty() ? "none" : names,
                        n.args.size()));
    }
    for (size_t i = 0; i < npos; ++i) {
      const ops::ArgSpec& spec = schema->args[i];
      if (spec.type == ops::ArgType::TensorList) {
        const ir::RefList* l = n.args[i].asRefList();
        if (!l || l->empty())
          raise(fmt::format("{}: input {} ('{}') must be a non-empty list of value references, got {}", where(n), i,
                            spec.name, argKindName(n.args[i])));
        for (size_t j = 0; j < l->size(); ++j) {
          if ((*l)[j].isNone()) raise(fmt::format("{}: input {} ('{}') element {} is None", where(n), i, spec.name, j));
          const Value& v = value(n, (*l)[j], fmt::format("input {} ('{}') element {}", i, spec.name, j));
          if (v.isShape)
            raise(fmt::format("{}: input {} ('{}') element {} must be a tensor, got the shape value '{}'", where(n), i,
                              spec.name, j, v.text));
          inNames.push_back(v.name);
        }
      } else {
        bool shape = std::find(ser->shapeInputs.begin(), ser->shapeInputs.end(), spec.name) != ser->shapeInputs.end();
        inNames.push_back(input(n, i, spec.name, shape));
      }
    }

    if (*op == tosa::Op::CONST_SHAPE) {
      constShape(n);
    } else if (*op == tosa::Op::CONST) {
      tosaConst(n);
    } else {
      if (!ser->metadataCopies.empty()) checkRedundantType(n);
      auto attr = attribute(n, *schema, *ser);
      auto out = addValueTensor(n, 0);
      addOperator(*op, tosa::Attribute(uint8_t(*op)), attr, inNames, {out});
    }
    checkInference(n, *schema, *ser);
  }

  void constShape(const ir::Node& n) {
    const ir::Arg* a = n.kwarg("values");
    const ir::IntList* vals = a ? a->asIntList() : nullptr;
    if (!vals)
      raise(fmt::format("{}: missing attribute 'values' (the shape's int list), got {}", where(n),
                        a ? argKindName(*a) : std::string("nothing")));
    std::vector<uint8_t> bytes;
    for (int64_t v : *vals)
      for (int i = 0; i < 8; ++i) bytes.push_back(uint8_t(uint64_t(v) >> (8 * i)));
    auto name = addTensor(n, 0, tosa::DType::SHAPE, {int32_t(vals->size())}, copyOf(bytes), true);
    addOperator(tosa::Op::CONST_SHAPE, tosa::Attribute::ConstShapeAttribute,
                tosa::CreateConstShapeAttribute(b_).Union(), {}, {name});
  }

  void tosaConst(const ir::Node& n) {
    const ir::TensorMeta& m = n.meta();
    if (!m.isTensor()) raise(fmt::format("{}: output has no dtype", where(n)));
    const ir::Arg* a = n.kwarg("values");
    if (!a) raise(fmt::format("{}: missing attribute 'values' (the constant's elements, row-major)", where(n)));
    std::vector<uint8_t> bytes;
    std::string why;
    size_t count = 0;
    auto put = [&](double v, bool isInt, int64_t iv) {
      ++count;
      if (!encodeScalar(v, isInt, iv, m.dtype, bytes, why))
        raise(fmt::format("{}: attribute 'values' element {}: {}", where(n), count - 1, why));
    };
    if (auto* l = a->asIntList()) {
      for (int64_t v : *l) put(0, true, v);
    } else if (auto* fl = std::get_if<ir::FloatList>(&a->v)) {
      for (double v : *fl) put(v, false, 0);
    } else if (auto* bl = std::get_if<ir::BoolList>(&a->v)) {
      for (uint8_t v : *bl) put(0, true, v ? 1 : 0);
    } else if (auto* i = a->asInt()) {
      put(0, true, *i);
    } else if (auto* f = a->asFloat()) {
      put(*f, false, 0);
    } else if (auto* bo = a->asBool()) {
      put(0, true, *bo ? 1 : 0);
    } else {
      raise(fmt::format("{}: attribute 'values' must be a number or a list of numbers, got {}", where(n),
                        argKindName(*a)));
    }
    if (int64_t(count) != m.numel())
      raise(fmt::format("{}: attribute 'values' has {} element(s) but the output {} has {}", where(n), count,
                        ir::toString(m.shape), m.numel()));
    checkRedundantType(n);
    emitConst(n, copyOf(bytes));
  }

  /// Optional kwargs "dtype" (CONST, CAST) and "shape" (CONST) repeat the output metadata:
  /// they must agree with it, since the file is written from the metadata.
  void checkRedundantType(const ir::Node& n) const {
    const ir::TensorMeta& m = n.meta();
    if (const ir::Arg* d = n.kwarg("dtype"); d && !d->isNone()) {
      std::optional<ir::DType> t;
      if (auto* e = d->asEnum(); e && e->kind == ir::EnumKind::DType) t = ir::DType(e->value);
      else if (auto* i = d->asInt()) t = ir::dtypeFromTorchScalarType(*i);
      else if (auto* str = d->asString()) t = ir::parseDType(*str);
      if (!t) raise(fmt::format("{}: attribute 'dtype' must be a dtype, got {}", where(n), argKindName(*d)));
      if (*t != m.dtype)
        raise(fmt::format("{}: attribute 'dtype' is {} but the output metadata says {}", where(n), ir::dtypeName(*t),
                          ir::dtypeName(m.dtype)));
    }
    if (const ir::Arg* sh = n.kwarg("shape"); sh && !sh->isNone()) {
      const ir::IntList* l = sh->asIntList();
      if (!l) raise(fmt::format("{}: attribute 'shape' must be an int list, got {}", where(n), argKindName(*sh)));
      if (*l != m.shape.toVector())
        raise(fmt::format("{}: attribute 'shape' is [{}] but the output metadata says {}", where(n),
                          fmt::join(*l, ","), ir::toString(m.shape)));
    }
  }

  // ---------------------------------------------------------------- shape rules

  /// Re-infers the node's output with its op's meta function (the TOSA 1.0 shape and dtype
  /// rules, incl. the spec's ERROR_IF conditions) from the inputs' metadata, shape operands and
  /// attributes, and requires the recorded metadata the file is written from to agree. A file
  /// that breaks the rules is rejected by every TOSA consumer, so the error names the node
  /// here, where the graph can still be fixed. Kwargs that only repeat the output metadata
  /// (tosa.CONST shape/dtype, tosa.CAST dtype) are taken from it when absent.
  void checkInference(const ir::Node& n, const ops::OpSchema& schema, const arm::TosaSerialization& ser) const {
    const ir::TensorMeta& rec = n.meta();
    const ir::Node* subject = &n;
    ir::Node filled;
    for (const std::string& k : ser.metadataCopies) {
      if (n.kwarg(k)) continue;
      if (subject == &n) filled = n, subject = &filled;
      if (k == "dtype") filled.kwargs.push_back({k, ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(rec.dtype)})});
      else if (k == "shape") filled.kwargs.push_back({k, ir::Arg(ir::IntList(rec.shape.toVector()))});
      else raise(fmt::format("{}: internal error: no metadata for the copied attribute '{}'", where(n), k));
    }
    std::vector<ir::TensorMeta> out;
    ops::MetaCtx ctx(g_, *subject, schema, out);
    if (Status st = schema.meta(ctx); !st.isOk()) raise(fmt::format("{}: {}", where(n), st.message()));
    if (out.size() != 1)
      raise(fmt::format("{}: the registry's inference gives {} outputs, expected one", where(n), out.size()));
    const ir::TensorMeta& inf = out[0];
    if (inf.shape == rec.shape && inf.dtype == rec.dtype) return;
    std::string rule;
    if (inf.shape != rec.shape) {
      rule = fmt::format("output shape {} breaks the TOSA 1.0 shape rule: expected {}", ir::toString(rec.shape),
                         ir::toString(inf.shape));
      // When the rule is "the output is this shape operand", say which.
      for (const std::string& name : ser.shapeInputs) {
        const ir::ValueRef* r = n.args[size_t(schema.argIndex(name))].ref();
        auto v = r ? arm::constShapeValues(g_, *r) : std::nullopt;
        if (v && *v == inf.shape.toVector())
          rule += fmt::format(" (the {} operand [{}] differs from the output shape {})", name, fmt::join(*v, ","),
                              ir::toString(rec.shape));
      }
    } else {
      rule = fmt::format("output dtype {} breaks the TOSA 1.0 type rule: expected {}", ir::dtypeName(rec.dtype),
                         ir::dtypeName(inf.dtype));
    }
    raise(fmt::format("{}: {}; the recorded metadata {} disagrees with the op registry's inference {}", where(n), rule,
                      ir::toString(rec), ir::toString(inf)));
  }

  // ---------------------------------------------------------------- attributes

  const ir::Arg& need(const ir::Node& n, const char* k, const char* expected) const {
    const ir::Arg* a = n.kwarg(k);
    if (!a || a->isNone()) raise(fmt::format("{}: missing attribute '{}' (expected {})", where(n), k, expected));
    return *a;
  }

  /// Int list attribute as [int32] (its length is the meta function's rule).
  fb::Offset<fb::Vector<int32_t>> ints(const ir::Node& n, const char* k) {
    const ir::Arg& a = need(n, k, "an int list");
    const ir::IntList* l = a.asIntList();
    if (!l) raise(fmt::format("{}: attribute '{}' must be an int list, got {}", where(n), k, argKindName(a)));
    std::vector<int32_t> v;
    for (int64_t x : *l) {
      if (x < INT32_MIN || x > INT32_MAX)
        raise(fmt::format("{}: attribute '{}' value {} does not fit int32", where(n), k, x));
      v.push_back(int32_t(x));
    }
    return b_.CreateVector(v);
  }

  int32_t int1(const ir::Node& n, const char* k) const {
    const ir::Arg& a = need(n, k, "an int");
    const int64_t* v = a.asInt();
    if (!v) raise(fmt::format("{}: attribute '{}' must be an int, got {}", where(n), k, argKindName(a)));
    if (*v < INT32_MIN || *v > INT32_MAX)
      raise(fmt::format("{}: attribute '{}' value {} does not fit int32", where(n), k, *v));
    return int32_t(*v);
  }

  /// Bool attribute; absent -> `def` when given (the spec's default), else an error.
  bool boolean(const ir::Node& n, const char* k, std::optional<bool> def) const {
    const ir::Arg* a = n.kwarg(k);
    if ((!a || a->isNone()) && def) return *def;
    const ir::Arg& x = need(n, k, "a bool");
    if (auto* b = x.asBool()) return *b;
    if (auto* i = x.asInt(); i && (*i == 0 || *i == 1)) return *i == 1;
    raise(fmt::format("{}: attribute '{}' must be a bool, got {}", where(n), k, argKindName(x)));
  }

  /// Enum attribute given as its enumerator name; `names` lists (name, value) pairs; absent ->
  /// the schema default `def` when there is one, else an error.
  uint32_t enumAttr(const ir::Node& n, const char* k, const std::vector<std::pair<const char*, uint32_t>>& names,
                    const ir::Arg* def) const {
    std::string expected;
    for (auto& [s, e] : names) expected += (expected.empty() ? "\"" : ", \"") + std::string(s) + "\"";
    const ir::Arg* a = n.kwarg(k);
    if (!a || a->isNone()) a = def;
    const ir::Arg& v = a ? *a : need(n, k, ("one of " + expected).c_str());
    std::string got;
    if (auto* s = v.asString()) {
      got = *s;
    } else if (auto* e = v.asEnum(); e && e->kind == ir::EnumKind::DType) {
      // A torch dtype enum for acc_type: map to the TOSA name.
      switch (ir::DType(e->value)) {
        case ir::DType::Int32: got = "INT32"; break;
        case ir::DType::Float32: got = "FP32"; break;
        case ir::DType::Float16: got = "FP16"; break;
        case ir::DType::Int16: got = "INT16"; break;
        case ir::DType::Int8: got = "INT8"; break;
        default: got = ir::enumToString(*e);
      }
    } else {
      raise(fmt::format("{}: attribute '{}' must be an enumerator name (one of {}), got {}", where(n), k, expected,
                        argKindName(v)));
    }
    for (auto& [s, e] : names)
      if (got == s) return e;
    raise(fmt::format("{}: attribute '{}' is \"{}\", expected one of {}", where(n), k, got, expected));
  }

  /// CLAMP min_val/max_val: the bound's bytes in the operand's element type.
  fb::Offset<fb::Vector<uint8_t>> clampBound(const ir::Node& n, const char* k) {
    const ir::Arg& a = need(n, k, "a number");
    ir::DType t = n.meta().dtype;
    std::vector<uint8_t> bytes;
    std::string why;
    bool ok = false;
    if (auto* i = a.asInt()) ok = encodeScalar(0, true, *i, t, bytes, why);
    else if (auto* f = a.asFloat()) ok = encodeScalar(*f, false, 0, t, bytes, why);
    else if (auto* bo = a.asBool()) ok = encodeScalar(0, true, *bo ? 1 : 0, t, bytes, why);
    else raise(fmt::format("{}: attribute '{}' must be a number, got {}", where(n), k, argKindName(a)));
    if (!ok) raise(fmt::format("{}: attribute '{}': {}", where(n), k, why));
    b_.ForceVectorAlignment(bytes.size(), sizeof(uint8_t), 8);
    return b_.CreateVector(bytes);
  }

  /// The enumerators an enum-typed attribute field accepts, by field name (every table of the
  /// schema uses one enum per field name).
  const std::vector<std::pair<const char*, uint32_t>>& enumNames(const ir::Node& n, const std::string& k) const {
    using P = std::vector<std::pair<const char*, uint32_t>>;
    static const P acc = {{"INT32", uint32_t(tosa::DType::INT32)},
                          {"INT48", uint32_t(tosa::DType::INT48)},
                          {"FP16", uint32_t(tosa::DType::FP16)},
                          {"FP32", uint32_t(tosa::DType::FP32)}};
    static const P nan = {{"PROPAGATE", uint32_t(tosa::NanPropagationMode::PROPAGATE)},
                          {"IGNORE", uint32_t(tosa::NanPropagationMode::IGNORE)}};
    static const P rounding = {{"SINGLE_ROUND", uint32_t(tosa::RoundingMode::SINGLE_ROUND)},
                               {"INEXACT_ROUND", uint32_t(tosa::RoundingMode::INEXACT_ROUND)},
                               {"DOUBLE_ROUND", uint32_t(tosa::RoundingMode::DOUBLE_ROUND)}};
    static const P mode = {{"NEAREST_NEIGHBOR", uint32_t(tosa::ResizeMode::NEAREST)},
                           {"NEAREST", uint32_t(tosa::ResizeMode::NEAREST)},
                           {"BILINEAR", uint32_t(tosa::ResizeMode::BILINEAR)}};
    if (k == "acc_type") return acc;
    if (k == "nan_mode") return nan;
    if (k == "rounding_mode") return rounding;
    if (k == "mode") return mode;
    raise(fmt::format("{}: internal error: attribute '{}' has no enum in the TOSA schema", where(n), k));
  }

  /// Encodes the op's attribute table: each field from the schema kwarg of the same name (its
  /// type and default from the schema), built the way flatc's generated Create<Table>
  /// functions build it (vectors first, in field order; then fields largest first, each size
  /// in reverse field order), so the bytes are those of the generated API.
  fb::Offset<void> attribute(const ir::Node& n, const ops::OpSchema& schema, const arm::TosaSerialization& ser) {
    enum class Kind { Offset, I32, U32, Bool };
    struct Field {
      Kind kind;
      fb::uoffset_t offset = 0;
      int64_t value = 0;
    };
    std::vector<Field> fields;
    for (const std::string& k : ser.fields) {
      int ai = schema.argIndex(k);
      if (ai < 0) raise(fmt::format("{}: internal error: attribute field '{}' is not in the schema", where(n), k));
      const ops::ArgSpec& spec = schema.args[size_t(ai)];
      const ir::Arg* def = spec.defaultValue ? &*spec.defaultValue : nullptr;
      switch (spec.type) {
        case ops::ArgType::IntList: fields.push_back({Kind::Offset, ints(n, k.c_str()).o}); break;
        case ops::ArgType::Int: fields.push_back({Kind::I32, 0, int1(n, k.c_str())}); break;
        case ops::ArgType::Bool: {
          std::optional<bool> d;
          if (def && def->asBool()) d = *def->asBool();
          fields.push_back({Kind::Bool, 0, boolean(n, k.c_str(), d)});
          break;
        }
        case ops::ArgType::String:
          fields.push_back({Kind::U32, 0, enumAttr(n, k.c_str(), enumNames(n, k), def)});
          break;
        case ops::ArgType::Float: fields.push_back({Kind::Offset, clampBound(n, k.c_str()).o}); break;
        default:
          raise(fmt::format("{}: internal error: attribute '{}' of schema type {} has no TOSA encoding", where(n), k,
                            ops::argTypeName(spec.type)));
      }
    }
    fb::uoffset_t start = b_.StartTable();
    for (bool wide : {true, false}) {
      for (size_t i = fields.size(); i-- > 0;) {
        const Field& f = fields[i];
        if ((f.kind != Kind::Bool) != wide) continue;
        fb::voffset_t slot = fb::FieldIndexToOffset(fb::voffset_t(i));
        switch (f.kind) {
          case Kind::Offset: b_.AddOffset(slot, fb::Offset<void>(f.offset)); break;
          case Kind::I32: b_.AddElement<int32_t>(slot, int32_t(f.value), 0); break;
          case Kind::U32: b_.AddElement<uint32_t>(slot, uint32_t(f.value), 0); break;
          case Kind::Bool: b_.AddElement<uint8_t>(slot, uint8_t(f.value), 0); break;
        }
      }
    }
    return fb::Offset<void>(b_.EndTable(start));
  }

  const ir::Graph& g_;
  const TosaWriteOptions& opts_;
  TosaWriteReport& report_;
  fb::FlatBufferBuilder b_;
  std::vector<Pending> pending_;
  std::vector<fb::Offset<tosa::TosaTensor>> tensors_;
  std::vector<fb::Offset<tosa::TosaOperator>> operators_;
  std::vector<fb::Offset<fb::String>> inputs_, outputs_;
  std::unordered_map<uint64_t, Value> values_;
  std::unordered_set<std::string> tensorNames_;
  bool sawOutput_ = false;
};

}  // namespace

std::vector<std::string> nonTosaNodes(const ir::Graph& g) {
  std::vector<std::string> out;
  for (const ir::NodePtr& p : g.nodes())
    if (p->isCall() && !tosaSpecName(p->target)) out.push_back(fmt::format("{} ({})", p->name, p->target));
  return out;
}

namespace {
/// Writes `g` and checks its legality, then hands the finished buffer to `use` (no copy).
/// Errors of the writer come back as "<where>cannot write TOSA: ..."; `use`'s own as they are.
Status withTosaBuffer(const ir::Graph& g, const TosaWriteOptions& options, TosaWriteReport* report,
                      const std::string& where, const std::function<Status(std::string_view)>& use) {
  TosaWriteReport local;
  TosaWriteReport& r = report ? *report : local;
  r = TosaWriteReport{};
  try {
    TosaWriter w(g, options, r);
    std::string_view bytes = w.run();  // the writer's own structural errors come first
    if (options.checkLegality) {
      arm::TosaCheckOptions check;
      check.profile = options.integerOnly ? arm::TosaCheckOptions::Profile::Int : arm::TosaCheckOptions::Profile::Fp;
      check.extensions = options.extensions;
      // Nodes that are not TOSA at all are the writer's own error below (it names them).
      std::vector<arm::TosaViolation> illegal;
      for (arm::TosaViolation& v : arm::validateTosaGraph(g, check))
        if (v.message.rfind("not a TOSA operator", 0) != 0) illegal.push_back(std::move(v));
      if (!illegal.empty()) return Status::error(where + "cannot write TOSA: " + arm::formatViolations(illegal, check, 20));
    }
    return use(bytes);
  } catch (const WriteError& e) {
    return Status::error(where + "cannot write TOSA: " + e.message);
  } catch (const std::exception& e) {  // allocation failure, flatbuffers size assertions
    return Status::error(where + "cannot write TOSA: " + e.what());
  }
}
}  // namespace

Result<std::string> serializeTosa(const ir::Graph& g, const TosaWriteOptions& options, TosaWriteReport* report) {
  std::string out;
  Status st = withTosaBuffer(g, options, report, "", [&](std::string_view bytes) {
    out.assign(bytes);
    return Status::ok();
  });
  if (!st) return st;
  return out;
}

Status serializeTosaTo(const ir::Graph& g, const TosaWriteOptions& options,
                       const std::function<Status(std::string_view)>& use, TosaWriteReport* report) {
  return withTosaBuffer(g, options, report, "", use);
}

Status saveTosa(const ir::Graph& g, const std::string& path, const TosaWriteOptions& options,
                TosaWriteReport* report) {
  // The file is written straight from the builder's buffer (a large model's weights are not
  // copied once more into a string first).
  return withTosaBuffer(g, options, report, path + ": ",
                        [&](std::string_view bytes) { return writeFileAtomic(path, bytes); });
}

// ======================================================================== reader

namespace {

/// Element size in bytes of a TOSA type's constant data, 0 when not fixed-size per element
/// (INT4 packs two per byte: handled by the caller).
int tosaElementBytes(tosa::DType t) {
  switch (t) {
    case tosa::DType::BOOL:
    case tosa::DType::INT8:
    case tosa::DType::FP8E4M3:
    case tosa::DType::FP8E5M2: return 1;
    case tosa::DType::INT16:
    case tosa::DType::FP16:
    case tosa::DType::BF16: return 2;
    case tosa::DType::INT32:
    case tosa::DType::FP32: return 4;
    case tosa::DType::INT48: return 6;
    case tosa::DType::SHAPE: return 8;
    default: return 0;
  }
}

std::vector<int64_t> vec(const fb::Vector<int32_t>* v) {
  std::vector<int64_t> out;
  if (v) out.assign(v->begin(), v->end());
  return out;
}

std::vector<uint8_t> bytesOf(const fb::Vector<uint8_t>* v) {
  std::vector<uint8_t> out;
  if (v) out.assign(v->data(), v->data() + v->size());  // contiguous: one memcpy
  return out;
}

/// Field -> value of the attribute tables this reader understands (every table with fields).
void decodeAttribute(const tosa::TosaOperator& op, std::map<std::string, TosaAttrValue>& a) {
  auto putVec = [&](const char* k, const fb::Vector<int32_t>* v) {
    if (v) a[k] = vec(v);
  };
  auto putBytes = [&](const char* k, const fb::Vector<uint8_t>* v) {
    if (v) a[k] = bytesOf(v);
  };
  auto putStr = [&](const char* k, const fb::String* s) {
    if (s) a[k] = s->str();
  };
  auto nan = [](tosa::NanPropagationMode m) { return std::string(tosa::EnumNameNanPropagationMode(m)); };
  auto dt = [](tosa::DType t) { return std::string(tosa::EnumNameDType(t)); };
  using tosa::Attribute;
  switch (op.attribute_type()) {
    case Attribute::ArgMaxAttribute: {
      auto* t = op.attribute_as_ArgMaxAttribute();
      a["axis"] = int64_t(t->axis());
      a["nan_mode"] = nan(t->nan_mode());
      break;
    }
    case Attribute::AvgPool2dAttribute: {
      auto* t = op.attribute_as_AvgPool2dAttribute();
      putVec("kernel", t->kernel());
      putVec("stride", t->stride());
      putVec("pad", t->pad());
      a["acc_type"] = dt(t->acc_type());
      break;
    }
    case Attribute::Conv2dAttribute:
    case Attribute::Conv3dAttribute:
    case Attribute::DepthwiseConv2dAttribute: {
      // The three tables have the same fields in the same slots.
      const fb::Vector<int32_t>*pad, *stride, *dilation;
      bool lb;
      tosa::DType acc;
      if (auto* t = op.attribute_as_Conv2dAttribute()) {
        pad = t->pad(), stride = t->stride(), dilation = t->dilation(), lb = t->local_bound(), acc = t->acc_type();
      } else if (auto* t3 = op.attribute_as_Conv3dAttribute()) {
        pad = t3->pad(), stride = t3->stride(), dilation = t3->dilation(), lb = t3->local_bound(), acc = t3->acc_type();
      } else {
        auto* td = op.attribute_as_DepthwiseConv2dAttribute();
        pad = td->pad(), stride = td->stride(), dilation = td->dilation(), lb = td->local_bound(), acc = td->acc_type();
      }
      putVec("pad", pad);
      putVec("stride", stride);
      putVec("dilation", dilation);
      a["local_bound"] = lb;
      a["acc_type"] = dt(acc);
      break;
    }
    case Attribute::TransposeConv2dAttribute: {
      auto* t = op.attribute_as_TransposeConv2dAttribute();
      putVec("out_pad", t->out_pad());
      putVec("stride", t->stride());
      a["local_bound"] = t->local_bound();
      a["acc_type"] = dt(t->acc_type());
      break;
    }
    case Attribute::MaxPool2dAttribute: {
      auto* t = op.attribute_as_MaxPool2dAttribute();
      putVec("kernel", t->kernel());
      putVec("stride", t->stride());
      putVec("pad", t->pad());
      a["nan_mode"] = nan(t->nan_mode());
      break;
    }
    case Attribute::FFT2dAttribute: {
      auto* t = op.attribute_as_FFT2dAttribute();
      a["inverse"] = t->inverse();
      a["local_bound"] = t->local_bound();
      break;
    }
    case Attribute::RFFT2dAttribute: a["local_bound"] = op.attribute_as_RFFT2dAttribute()->local_bound(); break;
    case Attribute::ClampAttribute: {
      auto* t = op.attribute_as_ClampAttribute();
      putBytes("min_val", t->min_val());
      putBytes("max_val", t->max_val());
      a["nan_mode"] = nan(t->nan_mode());
      break;
    }
    case Attribute::ArithmeticRightShiftAttribute:
      a["round"] = op.attribute_as_ArithmeticRightShiftAttribute()->round();
      break;
    case Attribute::MaximumAttribute: a["nan_mode"] = nan(op.attribute_as_MaximumAttribute()->nan_mode()); break;
    case Attribute::MinimumAttribute: a["nan_mode"] = nan(op.attribute_as_MinimumAttribute()->nan_mode()); break;
    case Attribute::ReduceAllAttribute: a["axis"] = int64_t(op.attribute_as_ReduceAllAttribute()->axis()); break;
    case Attribute::ReduceAnyAttribute: a["axis"] = int64_t(op.attribute_as_ReduceAnyAttribute()->axis()); break;
    case Attribute::ReduceMaxAttribute: {
      auto* t = op.attribute_as_ReduceMaxAttribute();
      a["axis"] = int64_t(t->axis());
      a["nan_mode"] = nan(t->nan_mode());
      break;
    }
    case Attribute::ReduceMinAttribute: {
      auto* t = op.attribute_as_ReduceMinAttribute();
      a["axis"] = int64_t(t->axis());
      a["nan_mode"] = nan(t->nan_mode());
      break;
    }
    case Attribute::ReduceProductAttribute:
      a["axis"] = int64_t(op.attribute_as_ReduceProductAttribute()->axis());
      break;
    case Attribute::ReduceSumAttribute: a["axis"] = int64_t(op.attribute_as_ReduceSumAttribute()->axis()); break;
    case Attribute::ConcatAttribute: a["axis"] = int64_t(op.attribute_as_ConcatAttribute()->axis()); break;
    case Attribute::ReverseAttribute: a["axis"] = int64_t(op.attribute_as_ReverseAttribute()->axis()); break;
    case Attribute::TransposeAttribute: putVec("perms", op.attribute_as_TransposeAttribute()->perms()); break;
    case Attribute::ResizeAttribute:
      a["mode"] = std::string(tosa::EnumNameResizeMode(op.attribute_as_ResizeAttribute()->mode()));
      break;
    case Attribute::RescaleAttribute: {
      auto* t = op.attribute_as_RescaleAttribute();
      a["scale32"] = t->scale32();
      a["rounding_mode"] = std::string(tosa::EnumNameRoundingMode(t->rounding_mode()));
      a["per_channel"] = t->per_channel();
      a["input_unsigned"] = t->input_unsigned();
      a["output_unsigned"] = t->output_unsigned();
      break;
    }
    case Attribute::CustomAttribute: {
      auto* t = op.attribute_as_CustomAttribute();
      putStr("operator_name", t->operator_name());
      putStr("domain_name", t->domain_name());
      putBytes("implementation_attrs", t->implementation_attrs());
      break;
    }
    case Attribute::CondIfAttribute: {
      auto* t = op.attribute_as_CondIfAttribute();
      putStr("then_graph", t->then_graph());
      putStr("else_graph", t->else_graph());
      break;
    }
    case Attribute::WhileLoopAttribute: {
      auto* t = op.attribute_as_WhileLoopAttribute();
      putStr("cond_graph", t->cond_graph());
      putStr("body_graph", t->body_graph());
      break;
    }
    default: break;  // tables without fields
  }
}

std::vector<std::string> strings(const fb::Vector<fb::Offset<fb::String>>* v) {
  std::vector<std::string> out;
  if (v)
    for (const fb::String* s : *v) out.push_back(s ? s->str() : std::string());
  return out;
}


}  // namespace

std::vector<int64_t> TosaTensorInfo::ints() const {
  std::vector<int64_t> out;
  auto rd = [&](size_t i, int n) {
    uint64_t u = 0;
    for (int k = 0; k < n; ++k) u |= uint64_t(data[i + k]) << (8 * k);
    if (n < 8 && (u >> (8 * n - 1)) & 1) u |= ~uint64_t(0) << (8 * n);  // sign-extend
    return int64_t(u);
  };
  int n = dtype == "BOOL" || dtype == "INT8" ? 1 : dtype == "INT16" ? 2 : dtype == "INT32" ? 4 : dtype == "SHAPE" ? 8 : 0;
  if (!n) return out;
  for (size_t i = 0; i + n <= data.size(); i += n) out.push_back(dtype == "BOOL" ? int64_t(data[i] != 0) : rd(i, n));
  return out;
}

std::vector<float> TosaTensorInfo::floats() const {
  std::vector<float> out;
  if (dtype != "FP32") return out;
  for (size_t i = 0; i + 4 <= data.size(); i += 4) {
    uint32_t u = uint32_t(data[i]) | uint32_t(data[i + 1]) << 8 | uint32_t(data[i + 2]) << 16 |
                 uint32_t(data[i + 3]) << 24;
    float f;
    std::memcpy(&f, &u, 4);
    out.push_back(f);
  }
  return out;
}

const TosaAttrValue* TosaOperatorInfo::attr(std::string_view name) const {
  auto it = attributes.find(std::string(name));
  return it == attributes.end() ? nullptr : &it->second;
}

const TosaTensorInfo* TosaBlockInfo::tensor(std::string_view name) const {
  for (const TosaTensorInfo& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

std::vector<const TosaOperatorInfo*> TosaBlockInfo::operatorsOf(std::string_view op) const {
  std::vector<const TosaOperatorInfo*> out;
  for (const TosaOperatorInfo& o : operators)
    if (o.op == op) out.push_back(&o);
  return out;
}

const TosaBlockInfo* TosaFileInfo::mainBlock() const {
  if (regions.empty() || regions[0].blocks.empty()) return nullptr;
  return &regions[0].blocks[0];
}

namespace {

/// How many fields `table` (of the type `tt` describes) carries beyond the ones the schema this
/// build was generated from declares: a newer writer's additions, which the reader skips.
int unknownFields(const void* table, const fb::TypeTable* tt) {
  if (!table || !tt) return 0;
  const uint8_t* vt = reinterpret_cast<const fb::Table*>(table)->GetVTable();
  const size_t slots = fb::ReadScalar<fb::voffset_t>(vt) / sizeof(fb::voffset_t);  // includes the 2 size slots
  int n = 0;
  for (size_t i = 2 + tt->num_elems; i < slots; ++i)
    if (fb::ReadScalar<fb::voffset_t>(vt + i * sizeof(fb::voffset_t)) != 0) ++n;
  return n;
}

/// Counts unknown fields per table kind ("operator CONV2D", "tensor") for one warning each.
struct UnknownFieldTally {
  std::map<std::string, std::pair<int, int>> byKind;  ///< kind -> (tables, fields)
  template <class T>
  void add(const std::string& kind, const T* t) {
    addWith(kind, t, T::MiniReflectTypeTable());
  }
  void addWith(const std::string& kind, const void* t, const fb::TypeTable* tt) {
    if (int n = unknownFields(t, tt)) {
      auto& [tables, fields] = byKind[kind];
      ++tables, fields += n;
    }
  }
  void report(std::vector<std::string>& out) const {
    for (const auto& [kind, c] : byKind)
      out.push_back(fmt::format("{} {} table(s) carry {} field(s) the TOSA 1.0 schema does not have (a newer "
                                "writer?); they are ignored", c.first, kind, c.second));
  }
};

/// The type table of the attribute union's member `type`, or null (NONE or a newer member).
const fb::TypeTable* attributeTypeTable(uint8_t type) {
  const fb::TypeTable* u = tosa::AttributeTypeTable();
  if (type == 0 || type >= u->num_elems) return nullptr;
  const int16_t ref = u->type_codes[type].sequence_ref;
  return ref < 0 ? nullptr : u->type_refs[ref]();
}

}  // namespace

Result<TosaFileInfo> readTosaBytes(std::string_view bytes, const std::string& sourceName) {
  auto err = [&](const std::string& m) { return Status::error(sourceName + ": " + m); };
  auto fbytes = FlatbufferBytes::open(bytes, sourceName, kTosaIdentifier, "a TOSA flatbuffer", "a TOSA file");
  if (!fbytes) return fbytes.status();
  const uint8_t* data = fbytes->data();
  fb::Verifier verifier(data, bytes.size(), /*max_depth=*/64, /*max_tables=*/100000000);
  if (!tosa::VerifyTosaGraphBuffer(verifier))
    return err("corrupt TOSA flatbuffer (the flatbuffers verifier rejected it: truncated or damaged file)");
  const tosa::TosaGraph* root = tosa::GetTosaGraph(data);

  TosaFileInfo info;
  const tosa::Version* v = root->version();  // required field: verified present
  info.major = v->_major();
  info.minor = v->_minor();
  info.patch = v->_patch();
  info.draft = v->_draft();
  if (info.major != kTosaVersionMajor || info.minor != kTosaVersionMinor || info.draft)
    info.warnings.push_back(fmt::format("written for TOSA {}.{}.{}{}; this reader implements {}.{}: operators, types "
                                        "or fields that differ may be reported or read wrongly",
                                        info.major, info.minor, info.patch, info.draft ? " (draft)" : "",
                                        kTosaVersionMajor, kTosaVersionMinor));
  UnknownFieldTally unknown;
  unknown.add("graph", root);
  unknown.add("version", v);
  std::map<int, int> unknownOps;  // op number -> operators
  if (!root->regions() || root->regions()->size() == 0) return err("no regions: a TOSA graph needs a 'main' region");

  for (uint32_t ri = 0; ri < root->regions()->size(); ++ri) {
    const tosa::TosaRegion* reg = root->regions()->Get(ri);
    TosaRegionInfo rinfo;
    unknown.add("region", reg);
    rinfo.name = reg->name() ? reg->name()->str() : "";
    if (!reg->blocks() || reg->blocks()->size() == 0) return err(fmt::format("region '{}' has no blocks", rinfo.name));
    for (uint32_t bi = 0; bi < reg->blocks()->size(); ++bi) {
      const tosa::TosaBasicBlock* blk = reg->blocks()->Get(bi);
      TosaBlockInfo binfo;
      unknown.add("block", blk);
      binfo.name = blk->name() ? blk->name()->str() : "";
      std::string at = fmt::format("region '{}' block '{}'", rinfo.name, binfo.name);
      std::unordered_map<std::string, size_t> byName;
      if (blk->tensors()) {
        for (uint32_t ti = 0; ti < blk->tensors()->size(); ++ti) {
          const tosa::TosaTensor* t = blk->tensors()->Get(ti);
          TosaTensorInfo tinfo;
          unknown.add("tensor", t);
          if (!t->name() || t->name()->size() == 0) return err(fmt::format("{}: tensor #{} has no name", at, ti));
          tinfo.name = t->name()->str();
          tinfo.shape = vec(t->shape());
          int ti32 = int(t->type());
          if (ti32 < int(tosa::DType::MIN) || ti32 > int(tosa::DType::MAX) || t->type() == tosa::DType::UNKNOWN)
            return err(fmt::format("{}: tensor '{}' has invalid type {}", at, tinfo.name, ti32));
          tinfo.dtype = tosa::EnumNameDType(t->type());
          for (int64_t d : tinfo.shape)
            if (d < 0) return err(fmt::format("{}: tensor '{}' has negative dimension {}", at, tinfo.name, d));
          if (t->data()) {
            tinfo.hasData = true;
            tinfo.data = bytesOf(t->data());
            int64_t numel = 1;
            for (int64_t d : tinfo.shape)  // capped at 2^40: no file holds that many bytes, and no product overflows
              if (__builtin_mul_overflow(numel, std::max<int64_t>(d, 0), &numel) || numel > (int64_t(1) << 40))
                numel = int64_t(1) << 40;
            int64_t want = t->type() == tosa::DType::INT4 ? (numel + 1) / 2 : numel * tosaElementBytes(t->type());
            if (int64_t(tinfo.data.size()) != want)
              return err(fmt::format("{}: tensor '{}' ({} {}) holds {} data bytes, expected {}", at, tinfo.name,
                                     tinfo.dtype, fmt::join(tinfo.shape, "x"), tinfo.data.size(), want));
          }
          if (!byName.emplace(tinfo.name, binfo.tensors.size()).second)
            return err(fmt::format("{}: tensor name '{}' is used twice", at, tinfo.name));
          binfo.tensors.push_back(std::move(tinfo));
        }
      }
      binfo.inputs = strings(blk->inputs());
      binfo.outputs = strings(blk->outputs());
      std::unordered_set<std::string> produced;
      for (const std::string& s : binfo.inputs) {
        if (!byName.count(s)) return err(fmt::format("{}: block input '{}' is not a tensor of the block", at, s));
        if (!produced.insert(s).second) return err(fmt::format("{}: block input '{}' is listed twice", at, s));
      }
      if (blk->operators()) {
        for (uint32_t oi = 0; oi < blk->operators()->size(); ++oi) {
          const tosa::TosaOperator* op = blk->operators()->Get(oi);
          int opv = int(op->op());
          if (opv <= int(tosa::Op::MIN)) return err(fmt::format("{}: operator #{} has invalid op {}", at, oi, opv));
          TosaOperatorInfo oinfo;
          const bool knownOp = opv <= int(tosa::Op::MAX);
          oinfo.op = knownOp ? tosa::EnumNameOp(op->op()) : fmt::format("UNKNOWN_OP_{}", opv);
          std::string where = fmt::format("{}: operator #{} ({})", at, oi, oinfo.op);
          unknown.add("operator", op);
          int atv = int(op->attribute_type());
          if (!knownOp) {
            // A newer operator: kept by op number, its attribute table (a newer member too) skipped.
            ++unknownOps[opv];
            oinfo.attributeType = atv > int(tosa::Attribute::MAX) ? fmt::format("UNKNOWN_ATTRIBUTE_{}", atv)
                                                                   : tosa::EnumNameAttribute(op->attribute_type());
          } else if (atv > int(tosa::Attribute::MAX)) {
            return err(fmt::format("{} has invalid attribute type {}", where, atv));
          } else {
            oinfo.attributeType = tosa::EnumNameAttribute(op->attribute_type());
            // The union's members are in Op order: an operator's attribute is the one of its op.
            if (atv != 0 && atv != opv)
              return err(fmt::format("{} carries a {} (the attribute of {}), expected {}", where, oinfo.attributeType,
                                     tosa::EnumNameOp(tosa::Op(atv)), tosa::EnumNameAttribute(tosa::Attribute(opv))));
            if (atv != 0 && !op->attribute()) return err(fmt::format("{}: attribute type set but no table", where));
            unknown.addWith("attribute " + oinfo.attributeType, op->attribute(), attributeTypeTable(uint8_t(atv)));
            decodeAttribute(*op, oinfo.attributes);
          }
          oinfo.inputs = strings(op->inputs());
          oinfo.outputs = strings(op->outputs());
          for (size_t k = 0; k < oinfo.inputs.size(); ++k) {
            if (!byName.count(oinfo.inputs[k]))
              return err(fmt::format("{}: input {} '{}' is not a tensor of the block", where, k, oinfo.inputs[k]));
            if (!produced.count(oinfo.inputs[k]))
              return err(fmt::format("{}: input {} '{}' is read before any operator produces it", where, k,
                                     oinfo.inputs[k]));
          }
          if (oinfo.outputs.empty()) return err(fmt::format("{} has no outputs", where));
          for (size_t k = 0; k < oinfo.outputs.size(); ++k) {
            if (!byName.count(oinfo.outputs[k]))
              return err(fmt::format("{}: output {} '{}' is not a tensor of the block", where, k, oinfo.outputs[k]));
            if (!produced.insert(oinfo.outputs[k]).second)
              return err(fmt::format("{}: output {} '{}' is already produced by an earlier operator or block input",
                                     where, k, oinfo.outputs[k]));
          }
          bool isConst = op->op() == tosa::Op::CONST || op->op() == tosa::Op::CONST_SHAPE;
          if (isConst) {
            const TosaTensorInfo& t = binfo.tensors[byName[oinfo.outputs[0]]];
            if (!t.hasData) return err(fmt::format("{}: constant tensor '{}' has no data", where, t.name));
            if ((op->op() == tosa::Op::CONST_SHAPE) != (t.dtype == "SHAPE"))
              return err(fmt::format("{}: output '{}' has type {}", where, t.name, t.dtype));
          }
          binfo.operators.push_back(std::move(oinfo));
        }
      }
      for (const std::string& s : binfo.outputs) {
        if (!byName.count(s)) return err(fmt::format("{}: block output '{}' is not a tensor of the block", at, s));
        if (!produced.count(s)) return err(fmt::format("{}: block output '{}' is never produced", at, s));
      }
      rinfo.blocks.push_back(std::move(binfo));
    }
    info.regions.push_back(std::move(rinfo));
  }
  for (const auto& [opv, n] : unknownOps)
    info.warnings.push_back(fmt::format("{} operator(s) with op number {}, which this reader does not "
                                        "know (TOSA 1.0 ends at {}): kept as UNKNOWN_OP_{} without attributes",
                                        n, opv, int(tosa::Op::MAX), opv));
  unknown.report(info.warnings);
  return info;
}

Result<TosaFileInfo> readTosa(const std::string& path) {
  auto bytes = readFile(path);
  if (!bytes) return bytes.status();
  return readTosaBytes(*bytes, path);
}

}  // namespace ls::io
