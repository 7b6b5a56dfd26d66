// DecomposeUnbindPass (no upstream file of this name at the pinned commit): unbind -> slice + view per index.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <numeric>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/backends/arm/passes/decompose_common.h"
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

/// unbind(x, dim) -> one slice + view (dim dropped) per index.
Result<bool> decomposeUnbind(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  if (xm.rank() == 0) return Status::error("unbind: expected at least a 1-dimensional input");
  const ir::Arg& dimArg = sarg(n, 1);
  const int dim = wrap(dimArg.asInt() ? *dimArg.asInt() : 0, xm.rank());
  if (int64_t(n.outputs.size()) != xm.shape[dim])
    return Status::error(fmt::format("unbind: {} outputs for a dim of size {}", n.outputs.size(), xm.shape[dim]));
  Builder b(rw);
  std::vector<ValueRef> outs;
  for (int64_t i = 0; i < xm.shape[dim]; ++i) {
    LS_ASSIGN_OR_RETURN(s, b.op("aten.slice_copy.Tensor", {ref(rw, 0), int64_t(dim), i, i + 1, int64_t(1)}));
    LS_ASSIGN_OR_RETURN(v, b.op("aten.view_copy.default", {s, ir::IntList(n.outputs[size_t(i)].shape.toVector())}));
    outs.push_back(v);
  }
  rw.replaceWith(outs);
  return true;
}

}  // namespace

void registerDecomposeUnbindPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeUnbindPass",
                      .description = "unbind -> slice + view per index",
                      .targets = {"aten.unbind_copy.int"},
                      .rewrite = decomposeUnbind});
}

}  // namespace ls::arm
