// fxjson import (simdjson DOM, error-code API only) and export (manual JSON writing).
#include "core/io/fxjson.h"
#include "core/util/json_syntax.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <queue>
#include <stdexcept>
#include <type_traits>
#include <unordered_map>
#include <variant>

#include "core/exec/materialize.h"
#include "core/ops/registry.h"
#include "core/util/atomic_file.h"

namespace ls::io {
namespace {

namespace dom = simdjson::dom;
using dom::element_type;
using ir::Arg;
using ir::Node;
using ir::NodeKind;
using ir::TensorMeta;
using ir::ValueRef;

// ------------------------------------------------------------------ small helpers

/// Reads a simdjson result whose type the caller already checked; leaves `out` as is on error.
template <typename R, typename T>
void read(R&& result, T& out) {
  T v{};
  if (std::forward<R>(result).get(v) == simdjson::SUCCESS) out = v;
}

std::string_view typeName(const dom::element& e) {
  switch (e.type()) {
    case element_type::ARRAY: return "list";
    case element_type::OBJECT: return "object";
    case element_type::INT64: return "integer";
    case element_type::UINT64: return "integer beyond the int64 range";
    case element_type::DOUBLE: return "float";
    case element_type::STRING: return "string";
    case element_type::BOOL: return "bool";
    case element_type::NULL_VALUE: return "null";
  }
  return "?";
}

/// A string value for an error message: quoted, control characters escaped, long ones cut.
std::string quote(std::string_view s) {
  constexpr size_t kMax = 80;
  std::string out = "'";
  for (size_t i = 0; i < s.size() && i < kMax; ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) out += fmt::format("\\x{:02x}", c);
    else out += char(c);
  }
  if (s.size() > kMax) out += "...";
  out += "'";
  return out;
}

/// "integer" / "string 'abc'" / "float 1.5": what was found, for "expected X, got Y".
std::string describe(const dom::element& e) {
  switch (e.type()) {
    case element_type::STRING: {
      std::string_view s;
      read(e.get_string(), s);
      return "string " + quote(s);
    }
    case element_type::INT64: {
      int64_t v = 0;
      read(e.get_int64(), v);
      return fmt::format("integer {}", v);
    }
    case element_type::UINT64: {
      uint64_t v = 0;
      read(e.get_uint64(), v);
      return fmt::format("integer {} (beyond the int64 range)", v);
    }
    case element_type::DOUBLE: {
      double v = 0;
      read(e.get_double(), v);
      return "float " + ir::formatFloat(v);
    }
    case element_type::BOOL: {
      bool v = false;
      read(e.get_bool(), v);
      return v ? "true" : "false";
    }
    default: return std::string(typeName(e));
  }
}

bool getString(const dom::element& e, std::string_view& out) { return e.get_string().get(out) == simdjson::SUCCESS; }

/// Field lookup; false when absent.
bool field(const dom::object& o, std::string_view key, dom::element& out) {
  return o.at_key(key).get(out) == simdjson::SUCCESS;
}

std::string nodeLabel(std::string_view name, size_t index) { return fmt::format("node {} (#{})", quote(name), index); }

// ------------------------------------------------------------------ base64

constexpr char kB64Chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<int8_t, 256> makeB64Table() {
  std::array<int8_t, 256> t{};
  for (auto& v : t) v = -1;
  for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(kB64Chars[i])] = int8_t(i);
  return t;
}
constexpr std::array<int8_t, 256> kB64Table = makeB64Table();

// ------------------------------------------------------------------ shapes and dtypes

/// Parses a list of non-negative integers with at most kMaxRank entries and an int64 element
/// count. `what` names the field in errors ("meta.shape").
Status parseShape(const dom::element& e, ir::Shape& out, const std::string& what) {
  dom::array arr;
  if (e.get_array().get(arr) != simdjson::SUCCESS)
    return Status::error(fmt::format("{}: expected a list of integers, got {}", what, typeName(e)));
  std::array<int64_t, ir::kMaxRank> dims{};
  size_t rank = 0;
  for (dom::element d : arr) {
    if (d.type() != element_type::INT64)
      return Status::error(
          fmt::format("{}[{}]: expected a non-negative integer, got {}", what, rank, describe(d)));
    int64_t v = 0;
    read(d.get_int64(), v);
    if (v < 0) return Status::error(fmt::format("{}[{}]: expected a non-negative integer, got {}", what, rank, v));
    if (rank < dims.size()) dims[rank] = v;
    ++rank;
  }
  if (rank > size_t(ir::kMaxRank))
    return Status::error(fmt::format("{}: rank {} exceeds the maximum supported rank {}", what, rank, ir::kMaxRank));
  int64_t numel = 1;
  for (size_t i = 0; i < rank; ++i)
    if (__builtin_mul_overflow(numel, dims[i], &numel))
      return Status::error(fmt::format("{}: the element count overflows int64", what));
  out = ir::Shape(std::span<const int64_t>(dims.data(), rank));
  return Status::ok();
}

Status parseDTypeField(const dom::element& e, ir::DType& out, const std::string& what) {
  std::string_view s;
  if (!getString(e, s))
    return Status::error(fmt::format("{}: expected a dtype name such as 'float32', got {}", what, describe(e)));
  auto d = ir::parseDType(s);
  if (!d) return Status::error(fmt::format("{}: expected a dtype name such as 'float32', got {}", what, quote(s)));
  out = *d;
  return Status::ok();
}

/// dim_order: a permutation of 0..rank-1.
Status parseDimOrder(const dom::element& e, int rank, ir::DimOrder& out, const std::string& what) {
  dom::array arr;
  if (e.get_array().get(arr) != simdjson::SUCCESS)
    return Status::error(fmt::format("{}: expected a list of integers, got {}", what, typeName(e)));
  std::vector<int64_t> vals;
  for (dom::element d : arr) {
    int64_t v = 0;
    if (d.type() != element_type::INT64 || d.get_int64().get(v) != simdjson::SUCCESS)
      return Status::error(fmt::format("{}[{}]: expected an integer, got {}", what, vals.size(), describe(d)));
    vals.push_back(v);
    if (vals.size() > size_t(ir::kMaxRank) + 1) break;  // already wrong; keep the message short
  }
  ir::DimOrder o;
  bool ok = vals.size() == size_t(rank);
  if (ok) {
    o.resize(rank);
    for (int i = 0; i < rank; ++i) {
      if (vals[size_t(i)] < 0 || vals[size_t(i)] >= rank) {
        ok = false;
        break;
      }
      o.set(i, int(vals[size_t(i)]));
    }
    ok = ok && o.isValid();
  }
  if (!ok)
    return Status::error(fmt::format("{}: expected a permutation of 0..{} (rank {}), got [{}]", what, rank - 1, rank,
                                     fmt::join(vals, ", ")));
  out = o;
  return Status::ok();
}

/// Why an inferred TensorMeta could not have been imported ("" when it is fine): the importer
/// only produces non-negative dims with an int64 element count and a valid dim order.
/// A dim order left empty by the meta function is taken as contiguous.
std::string invalidMeta(TensorMeta& m) {
  if (!m.isTensor()) return "";
  if (m.dimOrder.rank() == 0) m.dimOrder = ir::DimOrder::identity(m.rank());
  int64_t numel = 1;
  for (int i = 0; i < m.rank(); ++i) {
    if (m.shape[i] < 0) return fmt::format("{}: negative dim {}", ir::toString(m), i);
    if (__builtin_mul_overflow(numel, m.shape[i], &numel))
      return fmt::format("{}: the element count overflows int64", ir::toString(m));
  }
  if (m.dimOrder.rank() != m.rank() || !m.dimOrder.isValid())
    return fmt::format("{}: dim order of rank {} is not a permutation of the {} dims", ir::toString(m),
                       m.dimOrder.rank(), m.rank());
  return "";
}

// ------------------------------------------------------------------ the importer

enum ElemKind : uint32_t { kElRef = 1, kElNull = 2, kElInt = 4, kElFloat = 8, kElBool = 16 };

std::string elemKindNames(uint32_t mask) {
  static constexpr std::pair<uint32_t, std::string_view> kNames[] = {
      {kElRef, "node refs"}, {kElNull, "nulls"}, {kElInt, "integers"}, {kElFloat, "floats"}, {kElBool, "bools"}};
  std::string s;
  for (auto& [bit, name] : kNames) {
    if (!(mask & bit)) continue;
    if (!s.empty()) s += " and ";
    s += name;
  }
  return s;
}

/// Names the argument being decoded, built only when an error needs it.
struct Where {
  bool isKwarg = false;
  size_t index = 0;
  std::string_view key;
  int elem = -1;  ///< list element index, -1 for the argument itself

  std::string str() const {
    std::string s = isKwarg ? fmt::format("kwarg {}", quote(key)) : fmt::format("arg {}", index);
    if (elem >= 0) s += fmt::format("[{}]", elem);
    return s;
  }
  Where at(size_t j) const {
    Where w = *this;
    w.elem = int(j);
    return w;
  }
};

struct RawNode {
  dom::object obj;
  std::string_view name;
  NodeKind kind = NodeKind::Call;
};

class Importer {
 public:
  /// `padded`: at least SIMDJSON_PADDING readable bytes follow `json` (parsed in place).
  Importer(std::string_view json, const std::string& source, ImportReport* report, bool padded)
      : json_(json), source_(source), report_(report), padded_(padded) {}

  Result<ir::Graph> run();

 private:
  // Errors: "source: <context>: <message>".
  Status fail(std::string msg) const { return Status::error(source_ + ": " + msg); }
  Status failNode(size_t i, std::string_view msg) const {
    return Status::error(fmt::format("{}: {}: {}", source_, nodeLabel(raw_[i].name, i), msg));
  }
  void warn(std::string msg) {
    if (report_) report_->warnings.push_back(source_ + ": " + msg);
  }
  /// A finding many nodes can share: counted, reported once by reportFindings().
  void noteNode(std::string what, std::string example) {
    if (!report_) return;
    auto [it, added] = findingIndex_.try_emplace(what, findings_.size());
    if (added) findings_.push_back(NodeFinding{.what = std::move(what)});
    NodeFinding& f = findings_[it->second];
    if (f.examples.size() < NodeFinding::kMaxExamples) f.examples.push_back(std::move(example));
    ++f.nodes;
  }
  /// One warning per finding, in the order they were first seen.
  void reportFindings() {
    if (!report_) return;
    for (NodeFinding& f : findings_) {
      warn(f.text());
      report_->nodeFindings.push_back(std::move(f));
    }
    findings_.clear();
  }

  Status checkHeader(const dom::object& top);
  Status parseConstants(const dom::object& top);
  Status parseConstant(std::string_view key, const dom::element& e);
  Status scanNodes(const dom::array& nodes);
  Status decodeNode(size_t i, Node& n, bool& hasMeta);
  Status decodeArg(const dom::element& e, Arg& out, const Where& w);
  Status decodeList(const dom::array& arr, Arg& out, const Where& w);
  Status decodeObjectArg(const dom::object& o, Arg& out, const Where& w);
  Status decodeRef(const dom::object& o, ValueRef& out, const Where& w);
  Status decodeMeta(const dom::element& e, Node& n, bool& hasMeta);
  Status decodeOneMeta(const dom::element& shape, const dom::element& dtype, const dom::element* dimOrder,
                       TensorMeta& out, const std::string& suffix);
  Status sortNodes(std::vector<uint32_t>& order);
  Status buildGraph(const std::vector<uint32_t>& order);
  Status checkSignature(const dom::object& top);

  std::string_view json_;
  const std::string& source_;
  ImportReport* report_;
  bool padded_;
  dom::parser parser_;
  ir::Graph graph_;

  std::vector<RawNode> raw_;
  std::unordered_map<std::string_view, uint32_t> byName_;
  size_t outputIndex_ = SIZE_MAX;

  // Decoding state of the current node.
  size_t cur_ = 0;
  bool forward_ = false;  ///< some ref points at or after its reader: sort needed
  size_t fwdFrom_ = 0, fwdTo_ = 0;

  std::vector<Node> nodes_;       ///< decoded, refs hold file indices
  std::vector<uint8_t> hasMeta_;  ///< per file index

  std::vector<NodeFinding> findings_;  ///< grouped per-node warnings, first-seen order
  std::unordered_map<std::string, size_t> findingIndex_;
};

Status Importer::checkHeader(const dom::object& top) {
  dom::element e;
  if (field(top, "format", e)) {
    std::string_view s;
    if (!getString(e, s) || s != "fxjson")
      return fail(fmt::format("format: expected 'fxjson', got {}", describe(e)));
  }
  if (field(top, "version", e)) {
    int64_t v = 0;
    if (e.type() != element_type::INT64 || e.get_int64().get(v) != simdjson::SUCCESS || v != 1)
      return fail(fmt::format("version: expected 1 (the only fxjson version this importer reads), got {}",
                              describe(e)));
  }
  if (field(top, "model", e) && !e.is_null()) {
    std::string_view s;
    if (!getString(e, s)) return fail(fmt::format("model: expected a string, got {}", typeName(e)));
    graph_.modelName = std::string(s);
  }
  return Status::ok();
}

Status Importer::parseConstant(std::string_view key, const dom::element& e) {
  dom::object o;
  if (e.get_object().get(o) != simdjson::SUCCESS)
    return Status::error(fmt::format("expected an object with shape, dtype, fqn, kind, got {}", typeName(e)));
  if (graph_.constant(key)) return Status::error("defined twice in \"constants\"");
  ir::Constant c;
  c.name = std::string(key);
  dom::element f;
  if (!field(o, "shape", f)) return Status::error("shape: missing (expected a list of integers)");
  LS_RETURN_IF_ERROR(parseShape(f, c.shape, "shape"));
  if (!field(o, "dtype", f)) return Status::error("dtype: missing (expected a dtype name such as 'float32')");
  LS_RETURN_IF_ERROR(parseDTypeField(f, c.dtype, "dtype"));
  if (field(o, "fqn", f) && !f.is_null()) {
    std::string_view s;
    if (!getString(f, s)) return Status::error(fmt::format("fqn: expected a string, got {}", typeName(f)));
    c.fqn = std::string(s);
  }
  if (field(o, "kind", f) && !f.is_null()) {
    std::string_view s;
    if (!getString(f, s))
      return Status::error(fmt::format("kind: expected 'parameter', 'buffer' or 'constant', got {}", describe(f)));
    if (s == "parameter") c.kind = ir::ConstantKind::Parameter;
    else if (s == "buffer") c.kind = ir::ConstantKind::Buffer;
    else if (s == "constant") c.kind = ir::ConstantKind::Constant;
    else return Status::error(fmt::format("kind: expected 'parameter', 'buffer' or 'constant', got {}", quote(s)));
  }
  if (field(o, "data_b64", f) && !f.is_null()) {
    std::string_view s;
    if (!getString(f, s)) return Status::error(fmt::format("data_b64: expected a base64 string, got {}", typeName(f)));
    auto bytes = decodeBase64(s);
    if (!bytes) return Status::error("data_b64: " + bytes.message());
    int64_t expected = 0;
    if (__builtin_mul_overflow(c.shape.numel(), int64_t(ir::dtypeSize(c.dtype)), &expected) ||
        uint64_t(expected) != bytes->size())
      return Status::error(fmt::format("data_b64: decoded {} bytes, expected {} ({}{}: {} elements x {} bytes)",
                                       bytes->size(), expected, ir::dtypeShortName(c.dtype), ir::toString(c.shape),
                                       c.shape.numel(), ir::dtypeSize(c.dtype)));
    c.data = graph_.store().intern(std::move(bytes).value());
  }
  graph_.setConstant(std::move(c));
  return Status::ok();
}

Status Importer::parseConstants(const dom::object& top) {
  dom::element e;
  if (!field(top, "constants", e) || e.is_null()) return Status::ok();
  dom::object cs;
  if (e.get_object().get(cs) != simdjson::SUCCESS)
    return fail(fmt::format("constants: expected an object (name -> constant), got {}", typeName(e)));
  for (dom::key_value_pair kv : cs) {
    Status st = parseConstant(kv.key, kv.value);
    if (!st.isOk()) return fail(fmt::format("constant {}: {}", quote(kv.key), st.message()));
  }
  return Status::ok();
}

// First pass: names, kinds, the output node's position.
Status Importer::scanNodes(const dom::array& nodes) {
  size_t i = 0;
  for (dom::element e : nodes) {
    RawNode r;
    if (e.get_object().get(r.obj) != simdjson::SUCCESS)
      return fail(fmt::format("node #{}: expected an object, got {}", i, typeName(e)));
    dom::element f;
    if (!field(r.obj, "name", f) || !getString(f, r.name) || r.name.empty())
      return fail(fmt::format("node #{}: name: expected a non-empty string, got {}", i,
                              field(r.obj, "name", f) ? describe(f) : std::string("nothing")));
    std::string_view op;
    if (!field(r.obj, "op", f) || !getString(f, op))
      return fail(fmt::format("{}: op: expected 'placeholder', 'get_attr', 'call_function' or 'output', got {}",
                              nodeLabel(r.name, i), field(r.obj, "op", f) ? describe(f) : std::string("nothing")));
    if (op == "placeholder") r.kind = NodeKind::Placeholder;
    else if (op == "get_attr") r.kind = NodeKind::GetAttr;
    else if (op == "call_function") r.kind = NodeKind::Call;
    else if (op == "output") r.kind = NodeKind::Output;
    else
      return fail(fmt::format("{}: op: expected 'placeholder', 'get_attr', 'call_function' or 'output', got {}",
                              nodeLabel(r.name, i), quote(op)));
    auto [it, inserted] = byName_.emplace(r.name, uint32_t(i));
    if (!inserted)
      return fail(fmt::format("{}: duplicate node name (first defined at #{})", nodeLabel(r.name, i), it->second));
    if (r.kind == NodeKind::Output) {
      if (outputIndex_ != SIZE_MAX)
        return fail(fmt::format("{}: second output node (the first is {}); expected exactly one",
                                nodeLabel(r.name, i), nodeLabel(raw_[outputIndex_].name, outputIndex_)));
      outputIndex_ = i;
    }
    raw_.push_back(r);
    ++i;
  }
  if (outputIndex_ == SIZE_MAX)
    return fail("no output node (expected exactly one node with op 'output', last in \"nodes\")");
  if (outputIndex_ + 1 != raw_.size())
    return fail(fmt::format("{}: the output node is not last (expected it at #{}, the end of \"nodes\")",
                            nodeLabel(raw_[outputIndex_].name, outputIndex_), raw_.size() - 1));
  return Status::ok();
}

Status Importer::decodeRef(const dom::object& o, ValueRef& out, const Where& w) {
  dom::element e;
  (void)field(o, "node", e);
  std::string_view name;
  if (!getString(e, name))
    return Status::error(fmt::format("{}: \"node\": expected a node name, got {}", w.str(), typeName(e)));
  uint32_t output = 0;
  for (dom::key_value_pair kv : o) {
    if (kv.key == "node") continue;
    if (kv.key != "output")
      return Status::error(fmt::format("{}: node reference has unexpected key {} (expected only \"node\" and "
                                       "optionally \"output\")",
                                       w.str(), quote(kv.key)));
    int64_t v = -1;
    if (kv.value.type() != element_type::INT64 || kv.value.get_int64().get(v) != simdjson::SUCCESS || v < 0 ||
        v > INT32_MAX)
      return Status::error(
          fmt::format("{}: \"output\": expected a non-negative output index, got {}", w.str(), describe(kv.value)));
    output = uint32_t(v);
  }
  auto it = byName_.find(name);
  if (it == byName_.end()) return Status::error(fmt::format("{} refers to unknown node {}", w.str(), quote(name)));
  uint32_t target = it->second;
  if (raw_[target].kind == NodeKind::Output)
    return Status::error(fmt::format("{} refers to the output node {}", w.str(), quote(name)));
  if (target >= cur_ && !forward_) {
    forward_ = true;
    fwdFrom_ = cur_;
    fwdTo_ = target;
  }
  out = ValueRef{target, output};
  return Status::ok();
}

Status Importer::decodeObjectArg(const dom::object& o, Arg& out, const Where& w) {
  dom::element e;
  if (field(o, "node", e)) {
    ValueRef r;
    LS_RETURN_IF_ERROR(decodeRef(o, r, w));
    out = Arg(r);
    return Status::ok();
  }
  auto onlyKeys = [&](std::initializer_list<std::string_view> keys) -> Status {
    for (dom::key_value_pair kv : o)
      if (std::find(keys.begin(), keys.end(), kv.key) == keys.end())
        return Status::error(fmt::format("{}: unexpected key {}", w.str(), quote(kv.key)));
    return Status::ok();
  };
  if (field(o, "float", e)) {
    LS_RETURN_IF_ERROR(onlyKeys({"float"}));
    std::string_view s;
    (void)getString(e, s);
    if (s == "inf") out = Arg(std::numeric_limits<double>::infinity());
    else if (s == "-inf") out = Arg(-std::numeric_limits<double>::infinity());
    else if (s == "nan") out = Arg(std::numeric_limits<double>::quiet_NaN());
    else
      return Status::error(fmt::format("{}: \"float\": expected 'inf', '-inf' or 'nan', got {}", w.str(), describe(e)));
    return Status::ok();
  }
  if (field(o, "enum", e)) {
    LS_RETURN_IF_ERROR(onlyKeys({"enum", "kind"}));
    std::string_view value, kindName;
    if (!getString(e, value))
      return Status::error(fmt::format("{}: \"enum\": expected a string such as 'torch.float32', got {}", w.str(),
                                       describe(e)));
    dom::element k;
    if (!field(o, "kind", k) || !getString(k, kindName))
      return Status::error(fmt::format("{}: enum {}: \"kind\": expected 'dtype', 'layout', 'memory_format' or "
                                       "'device', got {}",
                                       w.str(), quote(value), field(o, "kind", k) ? describe(k) : "nothing"));
    auto kind = ir::parseEnumKind(kindName);
    if (!kind)
      return Status::error(fmt::format("{}: enum {}: unknown kind {} (expected 'dtype', 'layout', 'memory_format' "
                                       "or 'device')",
                                       w.str(), quote(value), quote(kindName)));
    auto ev = ir::parseEnum(*kind, value);
    if (!ev) {
      static constexpr std::string_view kExamples[] = {"torch.float32", "torch.strided", "torch.contiguous_format",
                                                       "cpu"};
      return Status::error(fmt::format("{}: unknown {} enum value {} (expected e.g. '{}')", w.str(), kindName,
                                       quote(value), kExamples[size_t(*kind)]));
    }
    out = Arg(*ev);
    return Status::ok();
  }
  if (field(o, "slice", e)) {
    LS_RETURN_IF_ERROR(onlyKeys({"slice"}));
    dom::array arr;
    ir::SliceArg sl;
    std::optional<int64_t>* parts[3] = {&sl.start, &sl.stop, &sl.step};
    size_t n = 0;
    bool ok = e.get_array().get(arr) == simdjson::SUCCESS;
    if (ok) {
      for (dom::element x : arr) {
        if (n >= 3 || !(x.is_null() || x.type() == element_type::INT64)) {
          ok = false;
          break;
        }
        int64_t v = 0;
        if (!x.is_null()) {
          read(x.get_int64(), v);
          *parts[n] = v;
        }
        ++n;
      }
    }
    if (!ok || n != 3)
      return Status::error(fmt::format("{}: \"slice\": expected [start, stop, step] (integers or null), got {}",
                                       w.str(), ok ? fmt::format("a list of {}", n) : describe(e)));
    out = Arg(sl);
    return Status::ok();
  }
  std::string keys;
  for (dom::key_value_pair kv : o) {
    if (!keys.empty()) keys += ", ";
    keys += quote(kv.key);
    if (keys.size() > 100) {
      keys += ", ...";
      break;
    }
  }
  return Status::error(fmt::format(
      "{}: expected {{\"node\": ...}}, {{\"float\": ...}}, {{\"enum\": ..., \"kind\": ...}} or {{\"slice\": [...]}}, "
      "got an object with keys [{}]",
      w.str(), keys));
}

Status Importer::decodeList(const dom::array& arr, Arg& out, const Where& w) {
  uint32_t mask = 0;
  size_t n = 0;
  for (dom::element x : arr) {
    switch (x.type()) {
      case element_type::OBJECT: {
        dom::object o;
        read(x.get_object(), o);
        dom::element tmp;
        if (field(o, "node", tmp)) mask |= kElRef;
        else if (field(o, "float", tmp)) mask |= kElFloat;
        else
          return Status::error(fmt::format("{}: expected a node ref, number, bool or null in a list, got an object "
                                           "(only {{\"node\": ...}} and {{\"float\": ...}} can be list elements)",
                                           w.at(n).str()));
        break;
      }
      case element_type::NULL_VALUE: mask |= kElNull; break;
      case element_type::INT64: mask |= kElInt; break;
      case element_type::DOUBLE: mask |= kElFloat; break;
      case element_type::BOOL: mask |= kElBool; break;
      default:
        return Status::error(fmt::format("{}: expected a node ref, number, bool or null in a list, got {}",
                                         w.at(n).str(), typeName(x)));
    }
    ++n;
  }
  if (mask == 0) {
    out = Arg(ir::IntList{});
    return Status::ok();
  }
  if ((mask & ~uint32_t(kElRef | kElNull)) == 0) {
    ir::RefList l;
    l.reserve(n);
    size_t j = 0;
    for (dom::element x : arr) {
      ValueRef r;
      if (!x.is_null()) {
        dom::object o;
        read(x.get_object(), o);
        LS_RETURN_IF_ERROR(decodeRef(o, r, w.at(j)));
      }
      l.push_back(r);
      ++j;
    }
    out = Arg(std::move(l));
    return Status::ok();
  }
  if (mask == kElInt) {
    ir::IntList l;
    l.reserve(n);
    for (dom::element x : arr) {
      int64_t v = 0;
      read(x.get_int64(), v);
      l.push_back(v);
    }
    out = Arg(std::move(l));
    return Status::ok();
  }
  if ((mask & ~uint32_t(kElInt | kElFloat)) == 0) {
    ir::FloatList l;
    l.reserve(n);
    size_t j = 0;
    for (dom::element x : arr) {
      if (x.type() == element_type::OBJECT) {
        dom::object o;
        read(x.get_object(), o);
        Arg a;
        LS_RETURN_IF_ERROR(decodeObjectArg(o, a, w.at(j)));
        l.push_back(*a.asFloat());
      } else {
        double v = 0;
        read(x.get_double(), v);
        l.push_back(v);
      }
      ++j;
    }
    out = Arg(std::move(l));
    return Status::ok();
  }
  if (mask == kElBool) {
    ir::BoolList l;
    l.reserve(n);
    for (dom::element x : arr) {
      bool v = false;
      read(x.get_bool(), v);
      l.push_back(uint8_t(v));
    }
    out = Arg(std::move(l));
    return Status::ok();
  }
  return Status::error(fmt::format("{}: expected a list of node refs (null allowed), integers, floats or bools, got "
                                   "a list mixing {}",
                                   w.str(), elemKindNames(mask)));
}

Status Importer::decodeArg(const dom::element& e, Arg& out, const Where& w) {
  switch (e.type()) {
    case element_type::NULL_VALUE: out = Arg(); return Status::ok();
    case element_type::BOOL: {
      bool v = false;
      read(e.get_bool(), v);
      out = Arg(v);
      return Status::ok();
    }
    case element_type::INT64: {
      int64_t v = 0;
      read(e.get_int64(), v);
      out = Arg(v);
      return Status::ok();
    }
    case element_type::UINT64:
      return Status::error(fmt::format("{}: expected an integer in the int64 range, got {}", w.str(), describe(e)));
    case element_type::DOUBLE: {
      double v = 0;
      read(e.get_double(), v);
      out = Arg(v);
      return Status::ok();
    }
    case element_type::STRING: {
      std::string_view s;
      read(e.get_string(), s);
      out = Arg(std::string(s));
      return Status::ok();
    }
    case element_type::ARRAY: {
      dom::array arr;
      read(e.get_array(), arr);
      return decodeList(arr, out, w);
    }
    case element_type::OBJECT: {
      dom::object o;
      read(e.get_object(), o);
      return decodeObjectArg(o, out, w);
    }
  }
  return Status::error(fmt::format("{}: unsupported JSON value", w.str()));
}

Status Importer::decodeOneMeta(const dom::element& shape, const dom::element& dtype, const dom::element* dimOrder,
                               TensorMeta& out, const std::string& suffix) {
  if (shape.is_null() || dtype.is_null()) {
    if (!shape.is_null() || !dtype.is_null())
      return Status::error(fmt::format("meta.shape{0} and meta.dtype{0}: expected both null (a non-tensor value) or "
                                       "both set, got {1} and {2}",
                                       suffix, typeName(shape), typeName(dtype)));
    if (dimOrder && !dimOrder->is_null())
      return Status::error(fmt::format("meta.dim_order{}: expected null for a non-tensor value, got {}", suffix,
                                       typeName(*dimOrder)));
    out = TensorMeta();
    return Status::ok();
  }
  ir::Shape s;
  LS_RETURN_IF_ERROR(parseShape(shape, s, "meta.shape" + suffix));
  ir::DType t = ir::DType::Undefined;
  LS_RETURN_IF_ERROR(parseDTypeField(dtype, t, "meta.dtype" + suffix));
  out = TensorMeta(t, s);
  if (dimOrder && !dimOrder->is_null())
    LS_RETURN_IF_ERROR(parseDimOrder(*dimOrder, s.rank(), out.dimOrder, "meta.dim_order" + suffix));
  return Status::ok();
}

Status Importer::decodeMeta(const dom::element& e, Node& n, bool& hasMeta) {
  hasMeta = false;
  if (e.is_null()) return Status::ok();
  dom::object o;
  if (e.get_object().get(o) != simdjson::SUCCESS)
    return Status::error(fmt::format("meta: expected an object, got {}", typeName(e)));
  dom::element shape, shapes, dtype, f;
  bool hasShape = field(o, "shape", shape), hasShapes = field(o, "shapes", shapes);
  if (hasShape && hasShapes) return Status::error("meta: has both \"shape\" and \"shapes\"; expected one of them");
  if (hasShape) {
    if (!field(o, "dtype", dtype)) return Status::error("meta.dtype: missing (expected it next to meta.shape)");
    dom::element dimOrder;
    bool hasOrder = field(o, "dim_order", dimOrder);
    n.outputs.resize(1);
    LS_RETURN_IF_ERROR(decodeOneMeta(shape, dtype, hasOrder ? &dimOrder : nullptr, n.outputs[0], ""));
    hasMeta = true;
  } else if (hasShapes) {
    dom::array shapeArr, dtypeArr, orderArr;
    if (shapes.get_array().get(shapeArr) != simdjson::SUCCESS)
      return Status::error(fmt::format("meta.shapes: expected a list of shapes, got {}", typeName(shapes)));
    if (!field(o, "dtypes", dtype))
      return Status::error("meta.dtypes: missing (expected it next to meta.shapes)");
    if (dtype.get_array().get(dtypeArr) != simdjson::SUCCESS)
      return Status::error(fmt::format("meta.dtypes: expected a list of dtype names, got {}", typeName(dtype)));
    bool hasOrders = field(o, "dim_orders", f) && !f.is_null();
    if (hasOrders && f.get_array().get(orderArr) != simdjson::SUCCESS)
      return Status::error(fmt::format("meta.dim_orders: expected a list, got {}", typeName(f)));
    std::vector<dom::element> ds(dtypeArr.begin(), dtypeArr.end());
    std::vector<dom::element> os;
    if (hasOrders) os.assign(orderArr.begin(), orderArr.end());
    size_t j = 0;
    for (dom::element s : shapeArr) {
      if (j >= ds.size()) break;
      TensorMeta m;
      LS_RETURN_IF_ERROR(decodeOneMeta(s, ds[j], j < os.size() ? &os[j] : nullptr, m, fmt::format("s[{}]", j)));
      n.outputs.push_back(std::move(m));
      ++j;
    }
    size_t numShapes = 0;
    for ([[maybe_unused]] dom::element s : shapeArr) ++numShapes;
    if (numShapes != ds.size())
      return Status::error(fmt::format("meta.shapes has {} entries but meta.dtypes has {}; expected the same number",
                                       numShapes, ds.size()));
    if (hasOrders && os.size() != ds.size())
      return Status::error(fmt::format("meta.dim_orders has {} entries but meta.shapes has {}; expected the same "
                                       "number",
                                       os.size(), numShapes));
    n.flags |= ir::kFlagOutputsAsList;
    hasMeta = true;
  }
  if (field(o, "module", f) && !f.is_null()) {
    std::string_view s;
    if (!getString(f, s)) return Status::error(fmt::format("meta.module: expected a string, got {}", typeName(f)));
    n.module = std::string(s);
  }
  return Status::ok();
}

Status Importer::decodeNode(size_t i, Node& n, bool& hasMeta) {
  const RawNode& r = raw_[i];
  cur_ = i;
  n.kind = r.kind;
  n.name = std::string(r.name);
  dom::element f;
  if (field(r.obj, "target", f) && !f.is_null()) {
    std::string_view s;
    if (!getString(f, s) || s.empty())
      return Status::error(fmt::format("target: expected a non-empty string, got {}", describe(f)));
    n.target = std::string(s);
  } else if (r.kind != NodeKind::Output) {
    return Status::error(fmt::format("target: missing (expected {})",
                                     r.kind == NodeKind::Placeholder ? "the input name"
                                     : r.kind == NodeKind::GetAttr   ? "a key of \"constants\""
                                                                     : "an op name such as 'aten.add.Tensor'"));
  } else {
    n.target = "output";
  }
  if (r.kind == NodeKind::GetAttr && !graph_.constant(n.target))
    return Status::error(fmt::format("get_attr target {}: no such entry in \"constants\"", quote(n.target)));

  if (field(r.obj, "args", f) && !f.is_null()) {
    dom::array args;
    if (f.get_array().get(args) != simdjson::SUCCESS)
      return Status::error(fmt::format("args: expected a list, got {}", typeName(f)));
    size_t j = 0;
    for (dom::element a : args) {
      n.args.emplace_back();
      LS_RETURN_IF_ERROR(decodeArg(a, n.args.back(), Where{false, j, {}, -1}));
      ++j;
    }
  }
  if (field(r.obj, "kwargs", f) && !f.is_null()) {
    dom::object kw;
    if (f.get_object().get(kw) != simdjson::SUCCESS)
      return Status::error(fmt::format("kwargs: expected an object, got {}", typeName(f)));
    for (dom::key_value_pair kv : kw) {
      ir::Kwarg k;
      k.name = std::string(kv.key);
      LS_RETURN_IF_ERROR(decodeArg(kv.value, k.value, Where{true, 0, kv.key, -1}));
      n.kwargs.push_back(std::move(k));
    }
    if (n.kwargs.size() > 1) {
      std::vector<std::string_view> names;
      names.reserve(n.kwargs.size());
      for (const ir::Kwarg& k : n.kwargs) names.push_back(k.name);
      std::sort(names.begin(), names.end());
      auto dup = std::adjacent_find(names.begin(), names.end());
      if (dup != names.end()) return Status::error(fmt::format("kwargs: {} given twice", quote(*dup)));
    }
  }
  if (field(r.obj, "meta", f)) LS_RETURN_IF_ERROR(decodeMeta(f, n, hasMeta));

  switch (r.kind) {
    case NodeKind::Placeholder:
    case NodeKind::GetAttr:
      if (!n.args.empty() || !n.kwargs.empty())
        return Status::error(fmt::format("expected no args or kwargs for a {} node, got {} args and {} kwargs",
                                         ir::nodeKindName(r.kind), n.args.size(), n.kwargs.size()));
      break;
    case NodeKind::Output: {
      if (n.args.size() != 1 || !n.kwargs.empty())
        return Status::error(fmt::format("expected exactly one arg (the list of returned values) and no kwargs, got "
                                         "{} args and {} kwargs",
                                         n.args.size(), n.kwargs.size()));
      Arg& a = n.args[0];
      if (auto* il = a.asIntList(); il && il->empty()) a = Arg(ir::RefList{});
      const ir::RefList* l = a.asRefList();
      if (!l) return Status::error("arg 0: expected the list of returned node refs, got " + std::string(
                                       a.isRef() ? "a single node ref" : "a value that is not a list of node refs"));
      // A null entry is a returned None (an optional result such as lengths): it stays an empty
      // slot, lowered and written as nothing (docs/FXJSON.md).
      break;
    }
    case NodeKind::Call:
    default: break;
  }
  return Status::ok();
}

// Stable Kahn sort over file indices (the smallest ready index goes first).
Status Importer::sortNodes(std::vector<uint32_t>& order) {
  const size_t n = nodes_.size();
  std::vector<uint32_t> indeg(n, 0), start(n + 1, 0);
  for (size_t i = 0; i < n; ++i)
    nodes_[i].forEachInput([&](const ValueRef& r) {
      ++indeg[i];
      ++start[r.node + 1];
    });
  for (size_t i = 0; i < n; ++i) start[i + 1] += start[i];
  std::vector<uint32_t> users(start[n]), fill(start.begin(), start.end() - 1);
  for (size_t i = 0; i < n; ++i)
    nodes_[i].forEachInput([&](const ValueRef& r) { users[fill[r.node]++] = uint32_t(i); });

  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> ready;
  for (size_t i = 0; i < n; ++i)
    if (indeg[i] == 0) ready.push(uint32_t(i));
  order.clear();
  order.reserve(n);
  while (!ready.empty()) {
    uint32_t v = ready.top();
    ready.pop();
    order.push_back(v);
    for (uint32_t k = start[v]; k < start[v + 1]; ++k)
      if (--indeg[users[k]] == 0) ready.push(users[k]);
  }
  if (order.size() == n) return Status::ok();

  // A cycle: walk from the first unsorted node to an unsorted input until a node repeats.
  size_t s = 0;
  while (indeg[s] == 0) ++s;
  std::vector<int32_t> posInWalk(n, -1);
  std::vector<uint32_t> walk;
  uint32_t v = uint32_t(s);
  while (posInWalk[v] < 0) {
    posInWalk[v] = int32_t(walk.size());
    walk.push_back(v);
    uint32_t next = v;
    bool found = false;
    nodes_[v].forEachInput([&](const ValueRef& r) {
      if (!found && indeg[r.node] > 0) {
        next = r.node;
        found = true;
      }
    });
    if (!found) break;  // cannot happen: an unsorted node has an unsorted input
    v = next;
  }
  size_t from = size_t(std::max(posInWalk[v], 0));
  std::string path = quote(raw_[walk[from]].name);
  size_t shown = 0;
  for (size_t k = from + 1; k <= walk.size(); ++k) {
    uint32_t u = k < walk.size() ? walk[k] : walk[from];
    if (++shown > 8 && k < walk.size()) {
      path += fmt::format(", ... ({} nodes in the cycle)", walk.size() - from);
      break;
    }
    path += (shown == 1 ? " reads " : ", which reads ") + quote(raw_[u].name);
  }
  return failNode(walk[from], fmt::format("cycle through node {} ({})", quote(raw_[walk[from]].name), path));
}

Status Importer::buildGraph(const std::vector<uint32_t>& order) {
  const size_t n = nodes_.size();
  std::vector<ir::NodeId> newId(n);
  for (size_t p = 0; p < n; ++p) newId[order[p]] = ir::NodeId(p);
  const ops::OpRegistry& reg = ops::OpRegistry::instance();
  ops::InferenceCache cache;
  std::vector<TensorMeta> inferred;

  for (size_t p = 0; p < n; ++p) {
    const uint32_t fi = order[p];
    Node& node = nodes_[fi];
    node.id = ir::NodeId(p);
    Status st;
    node.forEachInputMutable([&](ValueRef& r) {
      const uint32_t src = r.node;
      r.node = newId[src];
      if (st.isOk() && r.output > 0 && r.output >= graph_.at(r.node).outputs.size())
        st = failNode(fi, fmt::format("reads output {} of node {}, which has {} outputs", r.output,
                                      quote(raw_[src].name), graph_.at(r.node).outputs.size()));
    });
    LS_RETURN_IF_ERROR(st);
    const bool hasMeta = hasMeta_[fi] != 0;
    switch (node.kind) {
      case NodeKind::Placeholder:
        if (!hasMeta) node.outputs.assign(1, TensorMeta());
        break;
      case NodeKind::GetAttr: {
        const ir::Constant* c = graph_.constant(node.target);
        TensorMeta expect(c->dtype, c->shape);
        if (!hasMeta) {
          node.outputs.assign(1, expect);
        } else if (node.outputs.size() != 1 || node.hasFlag(ir::kFlagOutputsAsList) ||
                   node.outputs[0].dtype != c->dtype || node.outputs[0].shape != c->shape) {
          std::string got = node.outputs.size() == 1 && !node.hasFlag(ir::kFlagOutputsAsList)
                                ? ir::toString(node.outputs[0])
                                : fmt::format("{} outputs", node.outputs.size());
          return failNode(fi, fmt::format("meta: expected {} like constant {}, got {}", ir::toString(expect),
                                          quote(node.target), got));
        }
        break;
      }
      case NodeKind::Call: {
        node.op = ir::internOp(node.target);
        const ops::OpSchema* schema = reg.find(node.op);
        if (!schema) {
          if ((schema = reg.functionalTwin(node.target))) {
            noteNode(fmt::format("{} imported as its functional twin {}", quote(node.target), quote(schema->name)),
                     quote(node.name));
            node.target = schema->name;
            node.op = ir::internOp(node.target);
          }
        }
        if (!schema) {
          node.flags |= ir::kFlagOpaque;
          if (report_) ++report_->opaqueNodes;
          const std::string kind = unknownOpKind(node.target);
          noteNode(fmt::format("unknown op {} imported as opaque", quote(kind)),
                   kind == node.target ? quote(node.name) : fmt::format("{} ({})", quote(node.name), node.target));
          break;
        }
        st = ops::checkArgs(*schema, node, graph_);
        if (!st.isOk()) return failNode(fi, st.message());
        if (!hasMeta) {
          inferred.clear();
          st = ops::inferNode(graph_, node, inferred, &cache);
          if (!st.isOk()) return failNode(fi, "no meta recorded and inference failed: " + st.message());
          for (size_t k = 0; k < inferred.size(); ++k)
            if (std::string why = invalidMeta(inferred[k]); !why.empty())
              return failNode(fi, fmt::format("no meta recorded and inference of {} gave an invalid output {}: {} "
                                              "(a bug in the op's meta function)",
                                              quote(node.target), k, why));
          node.outputs = inferred;
        }
        break;
      }
      case NodeKind::Output:
      default: break;
    }
    graph_.append(std::move(node));
  }
  return Status::ok();
}

Status Importer::checkSignature(const dom::object& top) {
  dom::element e;
  auto nameList = [&](std::string_view key, const std::vector<std::string_view>& expected, std::string_view one,
                      std::string_view many) -> Status {
    if (!field(top, key, e) || e.is_null()) return Status::ok();
    dom::array arr;
    if (e.get_array().get(arr) != simdjson::SUCCESS)
      return fail(fmt::format("{}: expected a list of names, got {}", key, typeName(e)));
    size_t j = 0;
    for (dom::element x : arr) {
      std::string_view s;
      if (!getString(x, s)) return fail(fmt::format("{}[{}]: expected a name, got {}", key, j, describe(x)));
      if (j >= expected.size())
        return fail(fmt::format("{}[{}]: {} is listed, but the graph has no more {} (it has {})", key, j, quote(s),
                                many, expected.size()));
      if (s != expected[j])
        return fail(fmt::format("{}[{}]: expected {} ({} #{} of the graph), got {}", key, j, quote(expected[j]), one,
                                j, quote(s)));
      ++j;
    }
    if (j != expected.size())
      return fail(fmt::format("{}: lists {} names, but the graph has {} {} (first missing: {})", key, j,
                              expected.size(), many, quote(expected[j])));
    return Status::ok();
  };
  std::vector<std::string_view> inputs, outputs;
  for (const ir::NodePtr& p : graph_.nodes())
    if (p->kind == NodeKind::Placeholder) inputs.push_back(p->target);
  if (const Node* out = graph_.outputNode())
    if (const ir::RefList* l = out->args.empty() ? nullptr : out->args[0].asRefList())
      for (const ValueRef& r : *l)
        if (!r.isNone()) outputs.push_back(graph_.at(r.node).name);
  LS_RETURN_IF_ERROR(nameList("inputs", inputs, "placeholder", "placeholders"));
  LS_RETURN_IF_ERROR(nameList("outputs", outputs, "returned value", "returned values"));
  return Status::ok();
}

Result<ir::Graph> Importer::run() {
  dom::element doc;
  auto err = parser_.parse(json_.data(), json_.size(), /*realloc_if_needed=*/!padded_).get(doc);
  if (err) return fail(describeJsonError(json_, simdjson::error_message(err)));
  dom::object top;
  if (doc.get_object().get(top) != simdjson::SUCCESS)
    return fail(fmt::format("expected a JSON object at the top level, got {}", typeName(doc)));
  LS_RETURN_IF_ERROR(checkHeader(top));
  LS_RETURN_IF_ERROR(parseConstants(top));

  dom::element e;
  dom::array nodes;
  if (!field(top, "nodes", e)) return fail("nodes: missing (expected the list of graph nodes)");
  if (e.get_array().get(nodes) != simdjson::SUCCESS)
    return fail(fmt::format("nodes: expected a list of node objects, got {}", typeName(e)));
  byName_.reserve(nodes.size() < 0xFFFFFF ? nodes.size() : 0);
  raw_.reserve(nodes.size() < 0xFFFFFF ? nodes.size() : 0);
  LS_RETURN_IF_ERROR(scanNodes(nodes));

  nodes_.resize(raw_.size());
  hasMeta_.assign(raw_.size(), 0);
  for (size_t i = 0; i < raw_.size(); ++i) {
    bool hasMeta = false;
    Status st = decodeNode(i, nodes_[i], hasMeta);
    if (!st.isOk()) return failNode(i, st.message());
    hasMeta_[i] = hasMeta;
  }

  std::vector<uint32_t> order;
  if (forward_) {
    LS_RETURN_IF_ERROR(sortNodes(order));
    warn(fmt::format("nodes are not in topological order ({} reads {}, defined later or itself); sorted them",
                     nodeLabel(raw_[fwdFrom_].name, fwdFrom_), nodeLabel(raw_[fwdTo_].name, fwdTo_)));
  } else {
    order.resize(raw_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = uint32_t(i);
  }
  LS_RETURN_IF_ERROR(buildGraph(order));
  LS_RETURN_IF_ERROR(checkSignature(top));
  reportFindings();
  return std::move(graph_);
}

// ------------------------------------------------------------------ writer

class Writer {
 public:
  explicit Writer(const ir::Graph& g) : g_(g) {}
  std::string take() { return std::move(s_); }

  void raw(std::string_view t) { s_ += t; }
  void str(std::string_view t) {
    s_ += '"';
    for (char ch : t) {
      auto c = static_cast<unsigned char>(ch);
      switch (c) {
        case '"': s_ += "\\\""; break;
        case '\\': s_ += "\\\\"; break;
        case '\n': s_ += "\\n"; break;
        case '\r': s_ += "\\r"; break;
        case '\t': s_ += "\\t"; break;
        case '\b': s_ += "\\b"; break;
        case '\f': s_ += "\\f"; break;
        default:
          if (c < 0x20) s_ += fmt::format("\\u{:04x}", c);
          else s_ += ch;
      }
    }
    s_ += '"';
  }
  void i64(int64_t v) { fmt::format_to(std::back_inserter(s_), "{}", v); }
  void f64(double v) {
    if (std::isfinite(v)) {
      s_ += ir::formatFloat(v);
    } else {
      s_ += "{\"float\": \"";
      s_ += ir::formatFloat(v);  // "inf", "-inf", "nan"
      s_ += "\"}";
    }
  }
  template <typename T, typename F>
  void list(const T& items, F&& fn) {
    s_ += '[';
    bool first = true;
    for (const auto& x : items) {
      if (!first) s_ += ", ";
      first = false;
      fn(x);
    }
    s_ += ']';
  }
  void ref(const ValueRef& r) {
    if (r.isNone()) {
      s_ += "null";
      return;
    }
    const Node* n = g_.find(r.node);
    s_ += "{\"node\": ";
    str(n ? std::string_view(n->name) : std::string_view("<dangling>"));
    if (r.output > 0) {
      s_ += ", \"output\": ";
      i64(r.output);
    }
    s_ += '}';
  }
  void arg(const Arg& a) {
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::monostate>) s_ += "null";
          else if constexpr (std::is_same_v<T, bool>) s_ += v ? "true" : "false";
          else if constexpr (std::is_same_v<T, int64_t>) i64(v);
          else if constexpr (std::is_same_v<T, double>) f64(v);
          else if constexpr (std::is_same_v<T, std::string>) str(v);
          else if constexpr (std::is_same_v<T, ir::EnumArg>) {
            s_ += "{\"enum\": ";
            str(ir::enumToString(v));
            s_ += ", \"kind\": ";
            str(ir::enumKindName(v.kind));
            s_ += '}';
          } else if constexpr (std::is_same_v<T, ValueRef>) ref(v);
          else if constexpr (std::is_same_v<T, ir::IntList>) list(v, [&](int64_t x) { i64(x); });
          else if constexpr (std::is_same_v<T, ir::FloatList>) list(v, [&](double x) { f64(x); });
          else if constexpr (std::is_same_v<T, ir::BoolList>) list(v, [&](uint8_t x) { s_ += x ? "true" : "false"; });
          else if constexpr (std::is_same_v<T, ir::RefList>) list(v, [&](const ValueRef& x) { ref(x); });
          else if constexpr (std::is_same_v<T, ir::SliceArg>) {
            s_ += "{\"slice\": [";
            const std::optional<int64_t>* parts[3] = {&v.start, &v.stop, &v.step};
            for (int k = 0; k < 3; ++k) {
              if (k) s_ += ", ";
              if (*parts[k]) i64(**parts[k]);
              else s_ += "null";
            }
            s_ += "]}";
          }
        },
        a.v);
  }
  void shape(const ir::Shape& sh) { list(sh.dims(), [&](int64_t d) { i64(d); }); }
  void dimOrder(const ir::DimOrder& o) {
    s_ += '[';
    for (int i = 0; i < o.rank(); ++i) {
      if (i) s_ += ", ";
      i64(o[i]);
    }
    s_ += ']';
  }
  static bool customOrder(const TensorMeta& m) {
    return m.isTensor() && m.dimOrder.rank() == m.shape.rank() && !m.dimOrder.isIdentity();
  }
  void meta(const Node& n) {
    s_ += '{';
    bool any = false;
    auto key = [&](std::string_view k) {
      if (any) s_ += ", ";
      any = true;
      str(k);
      s_ += ": ";
    };
    const bool asList = n.hasFlag(ir::kFlagOutputsAsList) || n.outputs.size() > 1 ||
                        (n.outputs.empty() && n.kind != NodeKind::Output);
    if (!asList && n.outputs.size() == 1) {
      const TensorMeta& m = n.outputs[0];
      key("shape");
      if (m.isTensor()) shape(m.shape);
      else s_ += "null";
      key("dtype");
      if (m.isTensor()) str(ir::dtypeName(m.dtype));
      else s_ += "null";
      if (customOrder(m)) {
        key("dim_order");
        dimOrder(m.dimOrder);
      }
    } else if (asList) {
      key("shapes");
      list(n.outputs, [&](const TensorMeta& m) {
        if (m.isTensor()) shape(m.shape);
        else s_ += "null";
      });
      key("dtypes");
      list(n.outputs, [&](const TensorMeta& m) {
        if (m.isTensor()) str(ir::dtypeName(m.dtype));
        else s_ += "null";
      });
      if (std::any_of(n.outputs.begin(), n.outputs.end(), customOrder)) {
        key("dim_orders");
        list(n.outputs, [&](const TensorMeta& m) {
          if (!m.isTensor()) s_ += "null";
          else if (customOrder(m)) dimOrder(m.dimOrder);
          else dimOrder(ir::DimOrder::identity(m.rank()));
        });
      }
    }
    if (!n.module.empty()) {
      key("module");
      str(n.module);
    }
    s_ += '}';
  }
  void node(const Node& n) {
    s_ += "  {\"name\": ";
    str(n.name);
    s_ += ", \"op\": ";
    str(ir::nodeKindName(n.kind));
    s_ += ", \"target\": ";
    if (n.kind == NodeKind::Output) str(n.target.empty() ? std::string_view("output") : std::string_view(n.target));
    else if (n.kind == NodeKind::Call && n.op != ir::kNoOp) str(ir::opName(n.op));
    else str(n.target);
    s_ += ", \"args\": [";
    for (size_t i = 0; i < n.args.size(); ++i) {
      if (i) s_ += ", ";
      if (n.kind == NodeKind::Output && i == 0 && n.args[0].isRef()) {
        s_ += '[';
        arg(n.args[0]);
        s_ += ']';
      } else {
        arg(n.args[i]);
      }
    }
    s_ += "], \"kwargs\": {";
    for (size_t i = 0; i < n.kwargs.size(); ++i) {
      if (i) s_ += ", ";
      str(n.kwargs[i].name);
      s_ += ": ";
      arg(n.kwargs[i].value);
    }
    s_ += "}, \"meta\": ";
    meta(n);
    s_ += '}';
  }
  void constant(const ir::Constant& c) {
    s_ += "  ";
    str(c.name);
    s_ += ": {\"shape\": ";
    shape(c.shape);
    s_ += ", \"dtype\": ";
    str(ir::dtypeName(c.dtype));
    s_ += ", \"fqn\": ";
    str(c.fqn);
    s_ += ", \"kind\": ";
    str(ir::constantKindName(c.kind));
    if (c.data) {
      s_ += ", \"data_b64\": \"";
      s_ += encodeBase64(c.data->bytes.data(), c.data->bytes.size());
      s_ += '"';
    } else if (c.recipe) {  // a derived constant: its materialised values (a name would reseed them)
      auto t = exec::materialize(c, exec::Retain::Transient);
      if (!t) throw std::runtime_error(t.message());
      s_ += ", \"data_b64\": \"";
      s_ += encodeBase64(t->bytes(), t->nbytes());
      s_ += '"';
    }
    s_ += '}';
  }

 private:
  const ir::Graph& g_;
  std::string s_;
};

}  // namespace

// ------------------------------------------------------------------ public API

std::string NodeFinding::text() const {
  std::string list;
  for (const std::string& e : examples) list += (list.empty() ? "" : ", ") + e;
  if (nodes == 1) return fmt::format("{}: 1 node ({})", what, list);
  if (nodes <= examples.size()) return fmt::format("{}: {} nodes ({})", what, nodes, list);
  return fmt::format("{}: {} nodes, e.g. {}", what, nodes, list);
}

std::string unknownOpKind(std::string_view target) {
  constexpr std::string_view kModule = "call_module.";
  if (target.substr(0, kModule.size()) == kModule) return "call_module.*";
  return std::string(target);
}

std::string encodeBase64(const void* data, size_t len) {
  const auto* p = static_cast<const uint8_t*>(data);
  std::string out;
  out.reserve((len + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= len; i += 3) {
    uint32_t v = uint32_t(p[i]) << 16 | uint32_t(p[i + 1]) << 8 | p[i + 2];
    out += kB64Chars[v >> 18];
    out += kB64Chars[(v >> 12) & 63];
    out += kB64Chars[(v >> 6) & 63];
    out += kB64Chars[v & 63];
  }
  if (len - i == 1) {
    uint32_t v = uint32_t(p[i]) << 16;
    out += kB64Chars[v >> 18];
    out += kB64Chars[(v >> 12) & 63];
    out += "==";
  } else if (len - i == 2) {
    uint32_t v = uint32_t(p[i]) << 16 | uint32_t(p[i + 1]) << 8;
    out += kB64Chars[v >> 18];
    out += kB64Chars[(v >> 12) & 63];
    out += kB64Chars[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

Result<std::vector<uint8_t>> decodeBase64(std::string_view text) {
  if (text.size() % 4 != 0)
    return Status::error(fmt::format("invalid base64: length {} is not a multiple of 4", text.size()));
  size_t pad = 0;
  if (!text.empty() && text.back() == '=') pad = text.size() >= 2 && text[text.size() - 2] == '=' ? 2 : 1;
  const size_t body = text.size() - pad;
  std::vector<uint8_t> out(text.size() / 4 * 3);
  // Four characters to three bytes per step, with no branch per character: invalid characters
  // (table entry -1) only set the sign of `bad`, checked once at the end. Padding characters
  // count as 0.
  const auto* in = reinterpret_cast<const unsigned char*>(text.data());
  uint8_t* o = out.data();
  int bad = 0;
  for (size_t i = 0; i < text.size(); i += 4, o += 3) {
    const int a = kB64Table[in[i]], b = kB64Table[in[i + 1]];
    const int c = i + 2 < body ? kB64Table[in[i + 2]] : 0, d = i + 3 < body ? kB64Table[in[i + 3]] : 0;
    bad |= a | b | c | d;
    const uint32_t v = uint32_t(a) << 18 | uint32_t(b) << 12 | uint32_t(c) << 6 | uint32_t(d);
    o[0] = uint8_t(v >> 16);
    o[1] = uint8_t(v >> 8);
    o[2] = uint8_t(v);
  }
  if (bad < 0)
    for (size_t i = 0; i < body; ++i) {
      const auto c = static_cast<unsigned char>(text[i]);
      if (kB64Table[c] >= 0) continue;
      return Status::error(c == '='
                               ? fmt::format("invalid base64: padding '=' at offset {} before the end", i)
                               : (c >= 0x20 && c < 0x7f
                                      ? fmt::format("invalid base64: invalid character '{}' at offset {}", char(c), i)
                                      : fmt::format("invalid base64: invalid byte 0x{:02x} at offset {}", c, i)));
    }
  out.resize(out.size() - pad);
  return out;
}

Result<ir::Graph> importFxJson(std::string_view json, const std::string& sourceName, ImportReport* report) {
  Importer imp(json, sourceName, report, /*padded=*/false);
  return imp.run();
}

Result<ir::Graph> importPaddedFxJson(std::string_view json, const std::string& sourceName, ImportReport* report) {
  static_assert(kReadFilePadding >= simdjson::SIMDJSON_PADDING);
  Importer imp(json, sourceName, report, /*padded=*/true);
  return imp.run();
}

Result<ir::Graph> importFxJsonFile(const std::string& path, ImportReport* report) {
  Result<std::string> text = readFile(path);
  if (!text) return text.status();
  std::string source = std::filesystem::path(path).filename().string();
  if (source.empty()) source = path;
  return importPaddedFxJson(*text, source, report);
}

std::string exportFxJson(const ir::Graph& g) {
  Writer w(g);
  w.raw("{\"format\": \"fxjson\", \"version\": 1, \"model\": ");
  w.str(g.modelName);
  w.raw(",\n \"nodes\": [\n");
  bool first = true;
  for (const ir::NodePtr& p : g.nodes()) {
    if (!first) w.raw(",\n");
    first = false;
    w.node(*p);
  }
  w.raw("\n ],\n \"constants\": {\n");
  first = true;
  for (const auto& [name, c] : g.constants()) {
    if (!first) w.raw(",\n");
    first = false;
    w.constant(c);
  }
  w.raw("\n },\n \"inputs\": [");
  first = true;
  for (const ir::NodePtr& p : g.nodes()) {
    if (p->kind != NodeKind::Placeholder) continue;
    if (!first) w.raw(", ");
    first = false;
    w.str(p->target);
  }
  w.raw("],\n \"outputs\": [");
  if (const Node* out = g.outputNode(); out && !out->args.empty()) {
    first = true;
    auto put = [&](const ValueRef& r) {
      if (!first) w.raw(", ");
      first = false;
      const Node* n = g.find(r.node);
      w.str(n ? std::string_view(n->name) : std::string_view("<dangling>"));
    };
    if (const ir::RefList* l = out->args[0].asRefList()) {
      for (const ValueRef& r : *l)
        if (!r.isNone()) put(r);
    } else if (const ValueRef* r = out->args[0].ref()) {
      put(*r);
    }
  }
  w.raw("]}\n");
  return w.take();
}

}  // namespace ls::io
