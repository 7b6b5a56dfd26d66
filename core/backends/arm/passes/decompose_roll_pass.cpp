// DecomposeRollPass (no upstream file of this name at the pinned commit): roll -> slices + cat.
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

/// roll along given dims = cat of the two slices per dim.
Result<bool> decomposeRoll(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  auto shifts = sints(n, 1), dims = sints(n, 2);
  if (!shifts || !dims || dims->empty() || dims->size() != shifts->size())
    return Status::error("roll: explicit dims (one per shift) are required");
  Builder b(rw);
  ValueRef v = ref(rw, 0);
  for (size_t i = 0; i < dims->size(); ++i) {
    int d = wrap((*dims)[i], xm.rank());
    int64_t len = xm.shape[d];
    int64_t s = len ? (((*shifts)[i] % len) + len) % len : 0;
    if (s == 0) continue;
    LS_ASSIGN_OR_RETURN(tail, b.op("aten.slice_copy.Tensor", {v, int64_t(d), len - s, len, 1}));
    LS_ASSIGN_OR_RETURN(head, b.op("aten.slice_copy.Tensor", {v, int64_t(d), int64_t(0), len - s, 1}));
    LS_ASSIGN_OR_RETURN(c, b.op("aten.cat.default", {ir::RefList{tail, head}, int64_t(d)}));
    v = c;
  }
  if (v == ref(rw, 0)) {
    LS_ASSIGN_OR_RETURN(c, b.op("aten.clone.default", {v}));
    v = c;
  }
  rw.replaceWith(v);
  return true;
}

}  // namespace

void registerDecomposeRollPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeRollPass",
                      .description = "roll -> slices + cat",
                      .targets = {"aten.roll.default"},
                      .rewrite = decomposeRoll});
}

}  // namespace ls::arm
