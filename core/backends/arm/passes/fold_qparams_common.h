// Helpers shared by the INT-profile q/dq passes (FoldAndAnnotateQParamsPass, DecomposeQuantizeDequantizePass).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/passes/rule_pass.h"
#include "core/exec/materialize.h"
#include "core/transforms/constant_values.h"
#include "core/ops/registry.h"

namespace ls::arm {

using passes::Rewriter;
using ir::DType;
using ir::Shape;

/// Per-channel float scales of a dequantize_per_channel node (arg 1: a constant tensor).
inline std::optional<std::vector<double>> channelScales(const ir::Graph& g, const ir::Node& dq, int64_t n) {
  const ir::ValueRef* r = dq.args.size() > 1 ? dq.args[1].ref() : nullptr;
  std::vector<double> out;
  if (r) {
    auto t = valueOfConstant(g, *r);
    if (!t) return std::nullopt;
    for (int64_t i = 0; i < t->numel(); ++i) out.push_back(t->getDouble(i));
  } else if (auto s = sarg(dq, 1).number()) {
    out.assign(size_t(n), *s);
  } else {
    return std::nullopt;
  }
  if (int64_t(out.size()) == 1 && n > 1) out.assign(size_t(n), out[0]);
  if (int64_t(out.size()) != n) return std::nullopt;
  return out;
}

}  // namespace ls::arm
