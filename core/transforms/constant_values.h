// Values of graph constants for the shared transforms: a constant's data, or the values the
// reference executor synthesises for a shape-only one (so folded weights are exactly what the
// source graph runs with), and new constants from tensors.
#pragma once

#include <optional>
#include <string>

#include "core/exec/materialize.h"
#include "core/exec/tensor.h"
#include "core/ir/graph.h"

namespace ls::transforms {

/// Values of a constant: exec::materialize (a read-only view of its data, no copy; or its
/// synthesised or recipe values, made once and cached: what the executor uses). Take
/// writable() to modify them. Throws std::runtime_error when a recipe cannot be evaluated (a
/// pass that throws fails with the message). `retain`: Transient for a reader that needs the
/// values once (nothing it makes stays in the cache, e.g. the quantizer's weight reads).
exec::Tensor constantValues(const ir::Constant& c, exec::Retain retain = exec::Retain::Cache);
/// The constant behind a get_attr value, or null.
const ir::Constant* constantBehind(const ir::Graph& g, ir::ValueRef r);
/// Values of a value produced by a get_attr constant; nullopt otherwise.
std::optional<exec::Tensor> valueOfConstant(const ir::Graph& g, ir::ValueRef r);
/// A constant holding `t`'s bytes, interned in `store` (its name is given when it is added).
/// The bytes move into the store when `t` alone owns them (pass a temporary or std::move).
ir::Constant makeConstant(ir::ConstantStore& store, exec::Tensor t,
                          ir::ConstantKind kind = ir::ConstantKind::Constant, std::string fqn = {});

}  // namespace ls::transforms
