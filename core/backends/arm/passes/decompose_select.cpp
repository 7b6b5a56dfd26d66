// DecomposeSelectPass (upstream backends/arm/_passes/decompose_select.py): select -> slice + view.
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

Result<bool> decomposeSelect(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  auto d = sarg(n, 1).asInt();
  auto i = sarg(n, 2).asInt();
  if (!d || !i) return Status::error("select_copy: expected int dim and index");
  int dim = wrap(*d, xm.rank());
  int64_t idx = *i < 0 ? *i + xm.shape[dim] : *i;
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(s, b.op("aten.slice_copy.Tensor", {ref(rw, 0), int64_t(dim), idx, idx + 1, 1}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.view_copy.default", {s, ir::IntList(n.meta().shape.toVector())}));
  rw.replaceWith(y);
  return true;
}

}  // namespace

void registerDecomposeSelectPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeSelectPass",
                      .description = "select -> slice + view",
                      .targets = {"aten.select_copy.int"},
                      .rewrite = decomposeSelect});
}

}  // namespace ls::arm
