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
/// True for ops of the tosa namespace.
bool isTosaOp(ir::OpId op);

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
