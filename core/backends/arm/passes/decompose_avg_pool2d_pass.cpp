// DecomposeAvgPool2dPass (upstream backends/arm/_passes/decompose_avg_pool2d_pass.py): avg_pool2d
// counting padding -> zero pad + unpadded pool.
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

/// avg_pool2d counting padded zeros (count_include_pad) = explicit zero PAD + unpadded pool.
Result<bool> decomposeAvgPool(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  auto pad = sints(n, 3, 2);
  const ir::Arg& cip = sarg(n, 5);
  const ir::Arg& ceil = sarg(n, 4);
  if (!sarg(n, 6).isNone()) return Status::error("avg_pool2d divisor_override is not supported");
  if (!pad || ((*pad)[0] == 0 && (*pad)[1] == 0) || !(cip.asBool() && *cip.asBool())) return false;
  if (ceil.asBool() && *ceil.asBool()) return Status::error("avg_pool2d with ceil_mode and count_include_pad is not supported");
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(p, b.op("aten.constant_pad_nd.default",
                  {ref(rw, 0), ir::IntList{(*pad)[1], (*pad)[1], (*pad)[0], (*pad)[0]}, 0.0}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.avg_pool2d.default", {p, sarg(n, 1), sarg(n, 2), ir::IntList{0, 0}, false, true, ir::Arg()}));
  rw.replaceWith(y);
  return true;
}

}  // namespace

void registerDecomposeAvgPool2dPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeAvgPool2dPass",
                      .description = "avg_pool2d counting padding -> zero pad + unpadded pool",
                      .targets = {"aten.avg_pool2d.default"},
                      .rewrite = decomposeAvgPool});
}

}  // namespace ls::arm
