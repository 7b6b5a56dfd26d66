// RewriteMatmulPass (upstream backends/arm/_passes/rewrite_matmul.py): bmm -> MATMUL.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/backends/arm/passes/aten_to_tosa_common.h"
#include "core/backends/arm/tosa/tosa_validate.h"
#include "core/passes/rule_pass.h"
#include "core/transforms/constant_values.h"

namespace ls::arm {

using passes::Rewriter;
using ir::DType;
using ir::Shape;
using namespace aten_to_tosa;

namespace {

Result<bool> rewriteMatmul(passes::Rewriter& rw, passes::RuleStats&) {
  LS_ASSIGN_OR_RETURN(a, tensorArg(rw, 0, "input"));
  LS_ASSIGN_OR_RETURN(m2, tensorArg(rw, 1, "mat2"));
  Builder b(rw);
  const ir::TensorMeta& am = rw.meta(a);
  const ir::TensorMeta& bm = rw.meta(m2);
  LS_ASSIGN_OR_RETURN(y, b.op("tosa.MATMUL", {a, m2, b.zeroPoint(am.dtype), b.zeroPoint(bm.dtype)}));
  rw.replaceWith(y);
  return true;
}

}  // namespace

void registerRewriteMatmulPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "RewriteMatmulPass",
                      .description = "bmm -> MATMUL",
                      .targets = {"aten.bmm.default"},
                      .rewrite = rewriteMatmul});
}

}  // namespace ls::arm
