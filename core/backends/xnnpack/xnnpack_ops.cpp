// Registration and meta functions of the ops the XNNPACK pipeline introduces.
#include "core/backends/xnnpack/xnnpack_ops.h"

#include <fmt/format.h>

#include <array>
#include <cmath>

#include "core/ops/registry.h"

namespace ls::xnnpack {
namespace {

using ir::TensorMeta;


struct FusedPair {
  std::string_view base, fused;
};
constexpr std::array<FusedPair, 5> kFused = {{
    {"aten.convolution.default", "xnnpack.convolution_clamp.default"},
    {"aten.linear.default", "xnnpack.linear_clamp.default"},
    {"aten.add.Tensor", "xnnpack.add_clamp.Tensor"},
    {"aten.sub.Tensor", "xnnpack.sub_clamp.Tensor"},
    {"aten.mul.Tensor", "xnnpack.mul_clamp.Tensor"},
}};

Status fusedClampMeta(ops::MetaCtx& c) {
  std::string base = baseOfFusedClamp(c.schema().name);
  const ops::OpSchema* bs = ops::OpRegistry::instance().find(base);
  if (!bs || !bs->meta) return c.error("base op '{}' of the fused op is not registered", base);
  LS_ASSIGN_OR_RETURN(lo, c.getFloat(c.schema().argIndex("output_min")));
  LS_ASSIGN_OR_RETURN(hi, c.getFloat(c.schema().argIndex("output_max")));
  if (std::isnan(lo) || std::isnan(hi) || lo > hi)
    return c.error("output clamp [{}, {}] is empty or NaN", lo, hi);
  LS_RETURN_IF_ERROR(bs->meta(c));
  for (const TensorMeta& m : c.out)
    if (m.isTensor() && !ir::isFloating(m.dtype))
      return c.error("an output clamp needs a floating result, got {}", ir::dtypeName(m.dtype));
  return Status::ok();
}

void registerAll(ops::OpRegistry& r) {
  for (const FusedPair& p : kFused) {
    if (r.find(p.fused)) continue;
    const ops::OpSchema* base = r.find(p.base);
    if (!base) continue;
    ops::OpSchema s = *base;
    s.name = std::string(p.fused);
    s.id = ir::internOp(p.fused);
    s.meta = fusedClampMeta;
    s.args.push_back({"output_min", ops::ArgType::Float, false, true, std::nullopt});
    s.args.push_back({"output_max", ops::ArgType::Float, false, true, std::nullopt});
    s.doc = base->doc + " with keyword-only float output_min, float output_max (XNNPACK output clamp)";
    r.add(std::move(s));
  }
}

}  // namespace

std::string fusedClampOf(std::string_view baseOp) {
  for (const FusedPair& p : kFused)
    if (p.base == baseOp) return std::string(p.fused);
  return {};
}

std::string baseOfFusedClamp(std::string_view op) {
  for (const FusedPair& p : kFused)
    if (p.fused == op) return std::string(p.base);
  return {};
}

void registerXnnpackOps(ops::OpRegistry& r) { registerAll(r); }

}  // namespace ls::xnnpack
