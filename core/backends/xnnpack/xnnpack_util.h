// Helpers shared by the XNNPACK passes (internal to core/backends/xnnpack).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "core/exec/tensor.h"
#include "core/ir/graph.h"
#include "core/util/status.h"

namespace ls::xnnpack {

/// The producer node of arg `i` of `n` when it is a value reference, else null.
const ir::Node* producer(const ir::Graph& g, const ir::Node& n, size_t i);
/// The constant behind a get_attr value, or null.
const ir::Constant* constantOf(const ir::Graph& g, ir::ValueRef r);
/// Values of a constant: its data, or the values the reference executor synthesises for a
/// shape-only constant (seeded by its name), so weight transforms see what execution sees.
exec::Tensor constantValues(const ir::Constant& c);
/// A constant holding `t`'s values (name assigned by GraphEditor::addConstant).
ir::Constant makeConstant(ir::Graph& g, exec::Tensor t, ir::ConstantKind kind, std::string fqn);
/// Positional arg i, else keyword `name`, else null.
const ir::Arg* argOr(const ir::Node& n, size_t i, std::string_view name);
/// Numeric value of argOr(n, i, name) or `def` when absent/None.
std::optional<double> numberArg(const ir::Node& n, size_t i, std::string_view name, double def);
/// The number of users of output(s) of `id`, counting the output node.
size_t userCount(const ir::Graph& g, ir::NodeId id);
/// Dimension permutation of a transpose-like node (t_copy, transpose_copy.int,
/// permute_copy) for an input of rank `rank`, or nullopt.
std::optional<std::vector<int>> permutationOf(const ir::Node& n, int rank);

}  // namespace ls::xnnpack
