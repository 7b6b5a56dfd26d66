// TOSA 1.0 dialect ops ("tosa.<SPEC_NAME>") with meta functions, and small helpers shared by
// the Arm passes and kernels. Positional args are the spec's inputs in spec order (shape_t
// inputs reference tosa.CONST_SHAPE nodes); kwargs are the spec's attributes in snake_case.
// See docs/TOSA.md.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/graph.h"
#include "core/util/status.h"

namespace ls::ops {
class OpRegistry;
}

namespace ls::arm {

/// Registers every tosa.* op in the registry (called by the Arm backend registration).
void registerTosaOps(ops::OpRegistry& r);

/// "tosa.CONV2D" for "CONV2D".
std::string tosaOp(std::string_view specName);
/// True for the TOSA operators registered here (the ops the TOSA writer can serialise).
bool isTosaOp(ir::OpId op);

/// What the TOSA 1.0 flatbuffer serialization needs to know about a tosa.* op beyond its
/// schema and meta function, kept next to the schema in the op table of tosa_ops.cpp (one
/// place to add an op). The writer derives the rest from the registry: inputs = the schema's
/// positional args in order, accepted attributes = its kwargs (types and defaults from the
/// schema), output shape/dtype rules = the meta function.
struct TosaSerialization {
  /// "CONV2D": the tosa::Op enumerator; the Attribute union member is the one at the same
  /// index (the union's members follow Op order, e.g. Conv2dAttribute).
  std::string specName;
  /// Fields of the op's attribute table in table (schema file) order; each is a kwarg of the
  /// schema and is encoded from its type: int[] -> [int32], int -> int32, bool -> bool,
  /// str -> the enum of that field, float -> [ubyte] in the output's element type.
  std::vector<std::string> fields;
  /// Positional tensor args that are shape_t operands: they must refer to tosa.CONST_SHAPE
  /// nodes (every other tensor arg must not).
  std::vector<std::string> shapeInputs;
  /// Kwargs that repeat the output metadata (tosa.CONST shape/dtype, tosa.CAST dtype): not
  /// written, optional for the writer (the metadata stands in), and must agree with it.
  std::vector<std::string> metadataCopies;
};

/// The serialization facts of a registered TOSA op; null for any other op.
const TosaSerialization* tosaSerialization(ir::OpId op);

/// The int list of a tosa.CONST_SHAPE node (its "values" kwarg), or nullopt when `r` does not
/// refer to one.
std::optional<std::vector<int64_t>> constShapeValues(const ir::Graph& g, ir::ValueRef r);

/// Dim order annotation of a TOSA value: logical dims in physical order (NHWC = {0,2,3,1}).
ir::DimOrder nhwcOrder();

/// Permutes a shape: out[i] = in[perm[i]].
ir::Shape permuteShape(const ir::Shape& s, const std::vector<int64_t>& perm);
std::vector<int64_t> inversePerm(const std::vector<int64_t>& perm);
bool isIdentityPerm(const std::vector<int64_t>& perm);
/// a then b (TRANSPOSE(TRANSPOSE(x, a), b) == TRANSPOSE(x, compose(a, b))).
std::vector<int64_t> composePerms(const std::vector<int64_t>& a, const std::vector<int64_t>& b);

}  // namespace ls::arm
