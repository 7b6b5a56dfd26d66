// MatchArgDtypePass (upstream backends/arm/_passes/match_arg_dtype_pass.py): operands of
// elementwise ops cast to one dtype.
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

Result<bool> matchArgDtype(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  if (!isBinaryArith(n.op)) return false;
  const size_t first = n.op == LS_OP("aten.where.self") ? 1 : 0;
  DType target = n.meta().dtype;
  if (target == DType::Bool) {  // comparisons: the promoted operand type
    target = DType::Undefined;
    for (size_t i = first; i < n.args.size(); ++i)
      if (const ir::TensorMeta* m = argMeta(rw, i))
        if (target == DType::Undefined || (ir::isFloating(m->dtype) && !ir::isFloating(target))) target = m->dtype;
  }
  std::vector<ir::Arg> args(n.args.begin(), n.args.end());
  Builder b(rw);
  bool changed = false;
  for (size_t i = first; i < args.size(); ++i) {
    const ir::TensorMeta* m = argMeta(rw, i);
    if (!m || m->dtype == target || target == DType::Undefined) continue;
    LS_ASSIGN_OR_RETURN(v, b.cast(*args[i].ref(), target));  // bool -> float through int8
    args[i] = v;
    changed = true;
  }
  if (!changed) return false;
  rw.setArgs(std::move(args));
  return true;
}

}  // namespace

void registerMatchArgDtypePass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "MatchArgDtypePass",
                      .description = "operands of elementwise ops cast to one dtype",
                      .targets = binaryElementwiseOps(),
                      .rewrite = matchArgDtype});
}

}  // namespace ls::arm
