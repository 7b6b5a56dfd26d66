// Printer: one stable text line per node, used by tests, diffs and `lowerscope-cli print`.
#pragma once

#include <string>

#include "core/ir/graph.h"

namespace ls::ir {

/// `%name = aten.add.Tensor(%a, %b) : f32[1,16,8,8]`; placeholders as
/// `%x = placeholder[x] : f32[...]`, constants `%w = get_attr[key] : f32[...]`, the output
/// `return (%a, %b)`. Multi-output values print as `(f32[..], f32[0])`; a ref to output i>0
/// as `%name#i`. Kwargs follow positional args as `key=value`.
std::string printNode(const Graph& g, const Node& n);
/// The arguments only, as printed inside the parentheses.
std::string printArgs(const Graph& g, const Node& n);
/// One line per node in order, then nested subgraphs (`subgraph NAME {` ... `}`) sorted by name.
std::string printGraph(const Graph& g);
std::string printArg(const Graph& g, const Arg& a);
/// `name: f32[64,3,7,7] parameter fqn=conv1.weight, <source>`, the source being
/// `37632 bytes`, `shape-only (synthesised)` or `recipe: fold_bn(conv1.weight, bn1.*) -> permute OHWI`.
std::string printConstant(const Constant& c);

}  // namespace ls::ir
