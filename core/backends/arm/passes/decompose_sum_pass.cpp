// DecomposeSumPass (upstream backends/arm/_passes/decompose_sum_pass.py): sum over every dim ->
// sum.dim_IntList.
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

/// sum(x) over every dim = sum.dim_IntList(x, [0 .. rank-1]) (a 0-d x is its own sum); a
/// dtype argument casts first, as torch accumulates in it (DecomposeSumPass).
Result<bool> decomposeSumAll(passes::Rewriter& rw, passes::RuleStats&) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::Node& n = rw.node();
  const ir::TensorMeta& m = *argMeta(rw, 0);
  Builder b(rw);
  ValueRef x = ref(rw, 0);
  if (n.meta().dtype != m.dtype) {
    LS_ASSIGN_OR_RETURN(c, b.op("aten._to_copy.default", {x},
                                {{"dtype", ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(n.meta().dtype)})}}));
    x = c;
  }
  if (m.rank() == 0) return done(rw, x);
  std::vector<int64_t> dims(size_t(m.rank()));
  for (int d = 0; d < m.rank(); ++d) dims[size_t(d)] = d;
  LS_ASSIGN_OR_RETURN(y, b.op("aten.sum.dim_IntList", {x, ir::IntList(dims), false}));
  return done(rw, y);
}

}  // namespace

void registerDecomposeSumPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeSumPass",
                      .description = "sum over every dim -> sum.dim_IntList",
                      .targets = {"aten.sum.default"},
                      .rewrite = decomposeSumAll});
}

}  // namespace ls::arm
