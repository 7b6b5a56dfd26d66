// InsertRescalePass (upstream backends/arm/_passes/insert_rescales_pass.py): INT profile: a
// dequantize -> quantize pair becomes one TOSA RESCALE.
#include <fmt/format.h>

#include <cmath>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/passes/rule_pass.h"

namespace ls::arm {

using passes::Rewriter;
using ir::DType;

namespace {

Result<bool> insertRescale(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& q = rw.node();
  const ir::ValueRef* in = q.args.empty() ? nullptr : q.args[0].ref();
  const ir::Node* dq = in ? rw.graph().find(in->node) : nullptr;
  static const ir::OpId dqOp = ir::internOp(kDq);
  if (!dq || dq->op != dqOp || dq->args.empty() || !dq->args[0].ref()) return false;
  auto s1 = sarg(*dq, 1).number(), s2 = sarg(q, 1).number();
  auto z1 = sarg(*dq, 2).asInt(), z2 = sarg(q, 2).asInt();
  if (!s1 || !s2 || !z1 || !z2) return Status::error("quantize/dequantize: expected float scales and int zero points");
  LS_ASSIGN_OR_RETURN(ms, quantizeScale(*s1 / *s2));
  const ir::ValueRef x = *dq->args[0].ref();
  const DType inT = rw.meta(x).dtype, outT = q.meta().dtype;
  Builder b(rw);
  ValueRef mult = b.scalar(DType::Int32, double(ms.first), 1, "multiplier");
  ValueRef shift = b.scalar(DType::Int8, double(ms.second), 1, "shift");
  LS_ASSIGN_OR_RETURN(r, b.op("tosa.RESCALE", {x, mult, shift, b.zeroPoint(inT, *z1), b.zeroPoint(outT, *z2)},
                  {{"scale32", true}, {"rounding_mode", "SINGLE_ROUND"}, {"per_channel", false}}));
  rw.replaceWith(r);
  return true;
}

}  // namespace

void registerInsertRescalePass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "InsertRescalePass",
                      .description = "dequantize -> quantize pair -> RESCALE (INT profile)",
                      .targets = {kQ},
                      .rewrite = insertRescale,
                      .gate = Gate::intOnly()});
}

}  // namespace ls::arm
