// What the inspector shows for a constant: where its bytes come from and, on demand, its values
// (the first elements and statistics over all of them). No ImGui: tested in
// tests/viewers/constant_values_test.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/ir/graph.h"
#include "core/util/status.h"

namespace ls::viewmodel {

/// The constant a node reads (get_attr, or a placeholder naming a graph constant), or null.
const ir::Constant* constantOf(const ir::Graph& g, const ir::Node& n);

/// One line about where a constant's values come from: "4096 bytes in the file",
/// "shape-only: values synthesised from its name (seeded)" or "derived: computed on demand".
std::string constantSource(const ir::Constant& c);
/// How a derived constant is computed (ir::ConstantRecipe::describe, e.g.
/// "fold_bn(conv1.weight, bn1.*) -> permute OHWI"); nullopt for a source constant.
std::optional<std::string> constantRecipe(const ir::Constant& c);

struct ConstantValues {
  std::vector<double> first;  ///< the first elements, row-major
  int64_t numel = 0;
  double min = 0, max = 0, mean = 0;
  int64_t nonFinite = 0;      ///< NaN and infinities (not in min/max/mean)
  bool synthesized = false;   ///< values the executor synthesises (from no bytes, or a recipe over such)
};

/// Reads (or synthesises, as the reference executor does) the values of `c`: at most
/// `maxShown` first elements, and min/max/mean over every element. Errors for dtypes without
/// numeric values (complex) name the constant.
Result<ConstantValues> constantValues(const ir::Constant& c, size_t maxShown = 64);

/// "[0.1, -0.25, ...]"-style text of the first values, at most `perLine` per line.
std::string formatValues(const ConstantValues& v, size_t perLine = 8);

}  // namespace ls::viewmodel
