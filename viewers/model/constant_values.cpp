// Constant values for the inspector.
#include "viewers/model/constant_values.h"

#include <cmath>

#include <fmt/format.h>

#include "core/exec/tensor.h"
#include "core/transforms/constant_values.h"

namespace ls::viewmodel {

const ir::Constant* constantOf(const ir::Graph& g, const ir::Node& n) {
  if (n.kind != ir::NodeKind::GetAttr && n.kind != ir::NodeKind::Placeholder) return nullptr;
  return g.constant(n.target);
}

std::string constantSource(const ir::Constant& c) {
  if (c.hasData()) return fmt::format("{} bytes{}", c.data->bytes.size(), c.recipe ? ", derived" : " in the file");
  if (c.recipe)
    return c.valuesKnown() ? "derived: computed on demand from the file's values"
                           : "derived: computed on demand from synthesised values";
  return "shape-only: values synthesised from its name (seeded), as the reference executor does";
}

std::optional<std::string> constantRecipe(const ir::Constant& c) {
  if (!c.recipe) return std::nullopt;
  return c.recipe->describe();
}

Result<ConstantValues> constantValues(const ir::Constant& c, size_t maxShown) {
  if (c.dtype == ir::DType::Complex64 || c.dtype == ir::DType::Complex128 || c.dtype == ir::DType::Undefined)
    return Status::error(fmt::format("constant '{}': {} values cannot be shown", c.name, ir::dtypeName(c.dtype)));
  if (c.hasData()) {
    // The transforms' reader would synthesise over bytes of the wrong size; the inspector says so.
    size_t want = size_t(c.numel()) * ir::dtypeSize(c.dtype);
    if (c.data->bytes.size() != want)
      return Status::error(fmt::format("constant '{}': {} bytes, expected {} for {} {}", c.name, c.data->bytes.size(), want,
                                       ir::dtypeName(c.dtype), ir::toString(c.shape)));
  }
  exec::Tensor t;
  try {
    t = transforms::constantValues(c);  // the file's bytes, or what the executor synthesises or derives
  } catch (const std::exception& e) {
    return Status::error(e.what());
  }
  ConstantValues v;
  v.synthesized = !c.valuesKnown();
  v.numel = t.numel();
  double sum = 0;
  int64_t finite = 0;
  v.min = std::numeric_limits<double>::infinity();
  v.max = -std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < v.numel; ++i) {
    double x = t.getDouble(i);
    if (size_t(i) < maxShown) v.first.push_back(x);
    if (!std::isfinite(x)) {
      ++v.nonFinite;
      continue;
    }
    v.min = std::min(v.min, x), v.max = std::max(v.max, x);
    sum += x;
    ++finite;
  }
  if (finite) v.mean = sum / double(finite);
  else v.min = v.max = 0;
  return v;
}

std::string formatValues(const ConstantValues& v, size_t perLine) {
  std::string s;
  for (size_t i = 0; i < v.first.size(); ++i) {
    if (i) s += (perLine && i % perLine == 0) ? ",\n" : ", ";
    s += fmt::format("{:.6g}", v.first[i]);
  }
  if (int64_t(v.first.size()) < v.numel) s += fmt::format(", ... ({} total)", v.numel);
  return "[" + s + "]";
}

}  // namespace ls::viewmodel
