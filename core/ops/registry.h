// Op registry: schemas (names, types, defaults) and meta functions for shape/dtype inference,
// plus the inference cache. The engine's equivalent of FakeTensor dispatch.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/ir/graph.h"
#include "core/util/status.h"

namespace ls::ops {

/// Argument types of a schema, as in PyTorch's native_functions.yaml.
enum class ArgType : uint8_t {
  Tensor,
  TensorList,    ///< Tensor[]
  OptTensorList, ///< Tensor?[]
  Int,
  IntList,       ///< int[] / SymInt[] (a single int default expands to the list length)
  Float,
  FloatList,
  Scalar,        ///< Python number
  Bool,
  BoolList,
  ScalarType,    ///< dtype enum (or its int code)
  Layout,
  Device,
  MemoryFormat,
  String,
  Any,
  COUNT
};
std::string_view argTypeName(ArgType t);

struct ArgSpec {
  std::string name;
  ArgType type = ArgType::Any;
  bool optional = false;   ///< "Tensor?", "int?"...
  bool kwargOnly = false;  ///< after "*"
  std::optional<ir::Arg> defaultValue;  ///< absent = required
};

class MetaCtx;
/// Computes the outputs of one node. Fills ctx.out; returns an error naming what was
/// expected (the caller prefixes node name and op).
using MetaFn = Status (*)(MetaCtx& ctx);

struct OpSchema {
  std::string name;      ///< "aten.add.Tensor"
  ir::OpId id = ir::kNoOp;
  std::vector<ArgSpec> args;
  int numOutputs = 1;    ///< -1 when the op returns Tensor[] (count decided by the meta fn)
  MetaFn meta = nullptr;
  std::string doc;       ///< the source schema string

  int argIndex(std::string_view argName) const;  ///< -1 if absent
  int positionalCount() const;                   ///< args before "*"
};

/// Parses a PyTorch schema string, e.g.
/// "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor".
/// The op name becomes "aten.add.Tensor" ("default" overload when none is given).
Result<OpSchema> parseSchema(std::string_view text, MetaFn meta);

/// Inputs to a meta function: the node's args resolved against its schema (positional,
/// keyword or default), and the metadata of referenced values from `graph`.
class MetaCtx {
 public:
  MetaCtx(const ir::Graph& graph, const ir::Node& node, const OpSchema& schema, std::vector<ir::TensorMeta>& out);

  const ir::Node& node() const { return node_; }
  const ir::Graph& graph() const { return graph_; }
  const OpSchema& schema() const { return schema_; }

  /// Arg i of the schema: positional if given, else keyword by name, else the default, else None.
  const ir::Arg& arg(int i) const;
  /// True when arg i is present and not None.
  bool has(int i) const { return !arg(i).isNone(); }
  /// True when arg i refers to a tensor value.
  bool isTensor(int i) const { return arg(i).isRef(); }

  /// Meta of tensor arg i; error if arg i is not a tensor ref or refers to a non-tensor.
  Result<const ir::TensorMeta*> tensor(int i) const;
  /// Metas of a Tensor[] / Tensor?[] arg (null entries for None).
  Result<std::vector<const ir::TensorMeta*>> tensorList(int i) const;
  Result<int64_t> getInt(int i) const;
  Result<double> getFloat(int i) const;  ///< also accepts int/bool
  Result<bool> getBool(int i) const;
  /// int[] arg; a single int expands to `expandTo` copies when expandTo > 0.
  Result<std::vector<int64_t>> getIntList(int i, int expandTo = 0) const;
  std::optional<ir::DType> getDType(int i) const;  ///< ScalarType arg (enum or int code)

  /// Error helper: "arg 'dim' (#1): expected ..., got ...".
  template <typename... A>
  Status error(fmt::format_string<A...> f, A&&... a) const {
    return Status::error(fmt::format(f, std::forward<A>(a)...));
  }
  std::string argDesc(int i) const;  ///< "arg 'dim' (#1)"

  std::vector<ir::TensorMeta>& out;

 private:
  const ir::Graph& graph_;
  const ir::Node& node_;
  const OpSchema& schema_;
};

/// Memoises meta results keyed by (op, input metas, scalar args). Not thread-safe: one
/// cache per pipeline run / thread.
class InferenceCache {
 public:
  bool lookup(uint64_t hash, std::string_view key, std::vector<ir::TensorMeta>& out);
  void insert(uint64_t hash, std::string key, const std::vector<ir::TensorMeta>& out);
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }
  size_t size() const { return entries_.size(); }
  void resetCounters() { hits_ = misses_ = 0; }
  void clear() { entries_.clear(); resetCounters(); }
  void countMiss() { ++misses_; }

 private:
  struct Entry {
    std::string key;
    std::vector<ir::TensorMeta> out;
  };
  std::unordered_multimap<uint64_t, Entry> entries_;
  uint64_t hits_ = 0, misses_ = 0;
};

class OpRegistry {
 public:
  /// The process-wide registry with every built-in op (aten, quantized_decomposed,
  /// operator.getitem, backend dialects). Thread-safe after first use.
  static OpRegistry& instance();

  /// Registers (or replaces) an op. Returns the error of a bad schema string.
  Status add(std::string_view schemaText, MetaFn meta);
  void add(OpSchema schema);
  const OpSchema* find(ir::OpId id) const { return id < byId_.size() ? byId_[id] : nullptr; }
  const OpSchema* find(std::string_view name) const;
  std::vector<const OpSchema*> all() const;

  /// For an op the registry does not know: the registered op with the same values that a
  /// functional graph uses in its place, or nullptr. A view op `aten.X.ovl` maps to its copy
  /// twin `aten.X_copy.ovl` (what functionalization writes; in a graph without mutation both
  /// give the same values), and `aten.unsafe_X.ovl` (split/chunk without the aliasing checks)
  /// to `aten.X_copy.ovl` or `aten.X.ovl`. Importers use it so that graphs from producers that
  /// keep view ops load without opaque nodes.
  const OpSchema* functionalTwin(std::string_view name) const;

 private:
  std::vector<std::unique_ptr<OpSchema>> owned_;
  std::vector<const OpSchema*> byId_;
};

/// Checks a call node's args against its schema: too many positional args, unknown or
/// duplicate keyword, missing required arg, wrong kind (e.g. list where a tensor is needed).
Status checkArgs(const OpSchema& schema, const ir::Node& node, const ir::Graph& graph);

/// Arg i of a call node resolved against its op's schema as MetaCtx does: positional unless
/// keyword-only, else the keyword of that name, else the schema default, else None. Ops without
/// a schema: positional args only.
const ir::Arg& schemaArg(const ir::Node& n, int i);

/// Ops whose output values are input 0's values moved, selected or repeated (views, permutes,
/// slices, TOSA TRANSPOSE/RESHAPE/SLICE/TILE/IDENTITY): a per-tensor quantisation of the
/// input holds for the output too.
bool movesValuesOnly(ir::OpId op);

/// Infers the outputs of call node `node` (its refs resolved in `graph`; the node itself need
/// not be in `graph`). Uses `cache` when given. Errors name the node and the op.
/// Opaque (unknown) ops return their recorded metadata unchanged.
Status inferNode(const ir::Graph& graph, const ir::Node& node, std::vector<ir::TensorMeta>& out,
                 InferenceCache* cache = nullptr);

}  // namespace ls::ops
