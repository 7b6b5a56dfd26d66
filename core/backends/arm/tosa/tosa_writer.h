// TOSA 1.0 flatbuffer output (.tosa): serialises a lowered graph whose call nodes are all
// tosa.* ops (docs/TOSA.md, /work/notes/tosa_contract.md), and a reader/validator that
// decodes such files back (used by tests and tools).
//
// Mapping (one region "main" with one basic block "main", as the serialization library
// writes):
//   - placeholder            -> block input tensor (no data)
//   - get_attr constant      -> CONST operator + tensor with the constant's bytes
//   - tosa.CONST             -> CONST operator + tensor with kwarg "values" (a number or a
//                               row-major list, stored in the node's output dtype)
//   - tosa.CONST_SHAPE       -> CONST_SHAPE operator + SHAPE tensor [n] of int64 (kwarg "values")
//   - tosa.<OP>              -> operator <OP>; inputs = the node's positional args in spec order
//                               (CONCAT: one list arg); attribute table from the kwargs
//   - output node            -> block outputs
// Tensor names are node names; a tensor's shape and type come from the node's TensorMeta.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/ir/graph.h"
#include "core/util/status.h"

namespace ls::io {

/// TOSA specification version written into every file (Version table).
inline constexpr int32_t kTosaVersionMajor = 1;
inline constexpr int32_t kTosaVersionMinor = 0;
inline constexpr int32_t kTosaVersionPatch = 0;
inline constexpr bool kTosaVersionDraft = false;
/// The flatbuffers file identifier of TOSA files.
inline constexpr char kTosaIdentifier[] = "TOSA";

struct TosaWriteOptions {
  /// Constants without data in the graph (shape-only weights of real models): false -> an
  /// error naming them; true -> write the values the reference executor synthesises for them
  /// (exec::synthesizeConstant, seeded by name) and list them in the report.
  bool synthesizeMissingData = false;
  /// Legality check before any byte is written (tosa_validate.h): PRO-INT only for an
  /// integer-only target; `checkLegality` false skips it (tests of the writer's own errors).
  bool checkLegality = true;
  bool integerOnly = false;
  /// Extensions the file may use beyond the profile ("EXT-BF16"; --tosa-extension).
  std::vector<std::string> extensions;
};

struct TosaWriteReport {
  size_t operators = 0;
  size_t tensors = 0;
  size_t constantBytes = 0;                ///< bytes of tensor data written
  std::vector<std::string> synthesized;   ///< constants whose values were synthesised
};

/// Call nodes that keep `g` from being pure TOSA, as "name (op)", in graph order. Every
/// op named "tosa.<NAME>" (optionally with a ".default" overload suffix) counts as TOSA.
std::vector<std::string> nonTosaNodes(const ir::Graph& g);

/// Serialises `g` to TOSA 1.0 flatbuffer bytes. Fails (naming the node and what was
/// expected) on a non-TOSA op (all of them listed), an op this writer does not support, a
/// wrong input count or kind, a missing or malformed attribute, a dtype TOSA 1.0 has no
/// type for, a constant without data (unless options allow synthesis), or an output shape
/// that breaks the operator's TOSA 1.0 shape rule (conv/pool sizes with exact division,
/// MATMUL, RESHAPE/SLICE/TILE/PAD/TRANSPOSE/CONCAT/REDUCE against their operands,
/// same-rank broadcasting of elementwise operands, one-element zero points, per-channel
/// RESCALE multiplier/shift lengths).
Result<std::string> serializeTosa(const ir::Graph& g, const TosaWriteOptions& options = {},
                                  TosaWriteReport* report = nullptr);

/// Serialises as serializeTosa does and hands the finished bytes to `use` without copying
/// them (they live in the writer's buffer and are valid only during the call); `use`'s
/// status is returned.
Status serializeTosaTo(const ir::Graph& g, const TosaWriteOptions& options,
                       const std::function<Status(std::string_view)>& use, TosaWriteReport* report = nullptr);

/// Serialises and writes atomically: `path` is replaced completely or left untouched.
Status saveTosa(const ir::Graph& g, const std::string& path, const TosaWriteOptions& options = {},
                TosaWriteReport* report = nullptr);

// ------------------------------------------------------------------ reading / validation

/// A decoded attribute field. Enums decode to their enumerator name ("INT32", "PROPAGATE").
using TosaAttrValue = std::variant<bool, int64_t, std::string, std::vector<int64_t>, std::vector<uint8_t>>;

struct TosaTensorInfo {
  std::string name;
  std::vector<int64_t> shape;
  std::string dtype;           ///< DType enumerator name ("FP32", "SHAPE", ...)
  bool hasData = false;
  std::vector<uint8_t> data;   ///< raw little-endian bytes

  /// Data decoded as integers (BOOL, INT8/16/32, SHAPE) or floats (FP32); empty otherwise.
  std::vector<int64_t> ints() const;
  std::vector<float> floats() const;
};

struct TosaOperatorInfo {
  std::string op;              ///< Op enumerator name ("CONV2D")
  std::string attributeType;   ///< Attribute union member ("Conv2dAttribute"), "NONE" if absent
  std::map<std::string, TosaAttrValue> attributes;  ///< the table's fields that are present
  std::vector<std::string> inputs, outputs;

  const TosaAttrValue* attr(std::string_view name) const;
};

struct TosaBlockInfo {
  std::string name;
  std::vector<TosaOperatorInfo> operators;
  std::vector<TosaTensorInfo> tensors;
  std::vector<std::string> inputs, outputs;

  const TosaTensorInfo* tensor(std::string_view name) const;
  /// Operators with this op name, in order.
  std::vector<const TosaOperatorInfo*> operatorsOf(std::string_view op) const;
};

struct TosaRegionInfo {
  std::string name;
  std::vector<TosaBlockInfo> blocks;
};

struct TosaFileInfo {
  int32_t major = 0, minor = 0, patch = 0;
  bool draft = false;
  std::vector<TosaRegionInfo> regions;
  /// What a file of another TOSA version may hold that this reader skips: a version other than
  /// the 1.0 it implements, fields the 1.0 schema does not have (counted per table), operators
  /// whose op number it does not know (read as "UNKNOWN_OP_<n>" with no attributes).
  std::vector<std::string> warnings;

  /// The first block of the first region (the graph's entry), or null.
  const TosaBlockInfo* mainBlock() const;
};

/// Decodes and validates TOSA bytes: file identifier, flatbuffers Verifier, then structure:
/// a version, every operator's op known and its attribute type the one of its op, every
/// operator input/output and block input/output naming a tensor of the block, tensor names
/// unique, every tensor produced once (operator output or block input), constant data size
/// equal to shape x element size. A newer version, unknown fields and unknown ops are warnings
/// (TosaFileInfo::warnings), not errors. Errors start with `sourceName` and name the block,
/// operator (index and op) or tensor. Never crashes, whatever the bytes.
Result<TosaFileInfo> readTosaBytes(std::string_view bytes, const std::string& sourceName);

/// Reads and decodes a .tosa file; errors name `path`.
Result<TosaFileInfo> readTosa(const std::string& path);

}  // namespace ls::io
