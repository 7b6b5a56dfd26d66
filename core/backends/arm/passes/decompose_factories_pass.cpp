// DecomposeFactoriesPass (no upstream file of this name at the pinned commit).
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <numeric>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/backends/arm/passes/decompose_common.h"
#include "core/ir/op_ref.h"
#include "core/passes/pass_manager.h"
#include "core/passes/rule_pass.h"
#include "core/transforms/batch_norm.h"
#include "core/transforms/constant_folding.h"
#include "core/transforms/constant_values.h"

namespace ls::arm {

using passes::Rewriter;
using ir::DType;
using ir::Shape;
using namespace decompose;

namespace {

/// new_zeros -> a zero constant; fill.Tensor(x, v) -> v viewed to x's rank and repeated.
Result<bool> decomposeFactories(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  const ir::TensorMeta& om = n.meta();
  Builder b(rw);
  const std::string& op = ir::opName(n.op);
  bool readsTensor = false;
  n.forEachInput([&](ValueRef) { readsTensor = true; });
  if (!readsTensor) {
    // zeros / ones / full / empty / scalar_tensor / arange / linspace: no tensor inputs, so
    // the reference executor's values are the constant (empty's unspecified values: zeros).
    LS_ASSIGN_OR_RETURN(c, transforms::foldedConstant(rw.graph(), n));
    rw.replaceWith(b.constant(std::move(c), "factory"));
  } else if (n.op == LS_OP("aten.new_zeros.default") || n.op == LS_OP("aten.zeros_like.default") || n.op == LS_OP("aten.new_empty.default") ||
             n.op == LS_OP("aten.zero.default")) {
    rw.replaceWith(b.tensor(exec::Tensor(om.dtype, om.shape), "zeros"));
  } else if (n.op == LS_OP("aten.ones_like.default") || n.op == LS_OP("aten.fill.Scalar") || n.op == LS_OP("aten.full_like.default") ||
             n.op == LS_OP("aten.new_ones.default") || n.op == LS_OP("aten.new_full.default")) {
    // A constant of the output's shape: the input's values are not read.
    double v = 1.0;
    if (n.op != LS_OP("aten.ones_like.default") && n.op != LS_OP("aten.new_ones.default")) {
      auto num = sarg(n, n.op == LS_OP("aten.new_full.default") ? 2 : 1).number();
      if (!num) return Status::error(fmt::format("{}: the fill value must be a number", op));
      v = *num;
    }
    exec::Tensor t(om.dtype, om.shape);
    for (int64_t i = 0; i < t.numel(); ++i) t.setDouble(i, v);
    rw.replaceWith(b.tensor(t, "filled"));
  } else {
    LS_RETURN_IF_ERROR(needTensor(rw, 1, "value"));
    if (argMeta(rw, 1)->numel() != 1) return Status::error("fill.Tensor value must have one element");
    ValueRef v = ref(rw, 1);
    if (argMeta(rw, 1)->dtype != om.dtype) {
      LS_ASSIGN_OR_RETURN(c, b.op("aten._to_copy.default", {v}, {{"dtype", ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(om.dtype)})}}));
      v = c;
    }
    LS_ASSIGN_OR_RETURN(u, b.op("aten.view_copy.default", {v, ir::IntList(std::vector<int64_t>(size_t(std::max(om.rank(), 1)), 1))}));
    LS_ASSIGN_OR_RETURN(y, b.op("aten.repeat.default", {u, ir::IntList(om.rank() ? om.shape.toVector() : std::vector<int64_t>{1})}));
    ValueRef out = y;
    if (om.rank() == 0) {
      LS_ASSIGN_OR_RETURN(z, b.op("aten.view_copy.default", {y, ir::IntList{}}));
      out = z;
    }
    rw.replaceWith(out);
  }
  return true;
}

}  // namespace

void registerDecomposeFactoriesPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeFactoriesPass",
                      .description = "factories (zeros, ones, full, empty, scalar_tensor, arange, new_*, *_like, fill.Scalar) -> constant; "
          "fill.Tensor -> view + repeat",
                      .targets = {"aten.new_zeros.default", "aten.new_ones.default", "aten.new_full.default", "aten.new_empty.default",
           "aten.fill.Tensor", "aten.fill.Scalar", "aten.zeros_like.default", "aten.ones_like.default",
           "aten.full_like.default", "aten.zeros.default", "aten.ones.default", "aten.full.default",
           "aten.empty.memory_format", "aten.scalar_tensor.default", "aten.arange.start_step",
           "aten.arange.default", "aten.arange.start", "aten.zero.default", "aten.linspace.default"},
                      .rewrite = decomposeFactories});
}

}  // namespace ls::arm
