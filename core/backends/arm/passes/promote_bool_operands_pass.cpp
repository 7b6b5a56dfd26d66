// PromoteBoolOperandsPass (upstream backends/arm/_passes/promote_bool_operands_pass.py): TOSA
// MUL has no bool form, so a bool operand of mul is cast to the type of the other operand
// (x * mask -> x * mask.to(x.dtype)); when both are bool the product is computed in int32 and
// cast back to bool (a & b, as torch's bool mul). Upstream targets mul only (bool bitwise ops
// become logical ops elsewhere) and so does this pass.
// The bool -> floating cast goes through int8 (bool -> int8 -> float), as
// RewriteBoolToFp32CastViaInt8Pass makes it: a direct bool -> float CAST is not TOSA 1.0.
// Where upstream reads the other operand's tensor dtype, a number as the other operand
// (mask * 0.5) promotes to the node's result type, which is what torch computes it in.
#include <fmt/format.h>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/passes/rule_pass.h"

namespace ls::arm {

namespace {

using ir::DType;

Result<bool> promoteBoolOperands(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  if (n.args.size() < 2) return Status::error("mul: expected two operands");
  DType promoted = DType::Undefined;
  bool anyBool = false;
  for (size_t i = 0; i < 2; ++i) {
    const ir::TensorMeta* m = argMeta(rw, i);
    if (!m) {
      if (!n.args[i].number()) return Status::error(fmt::format("mul: operand #{} must be a tensor or a number", i));
      if (promoted == DType::Undefined) promoted = n.meta().dtype;  // mask * 0.5: torch's result type
    } else if (m->dtype == DType::Bool) {
      anyBool = true;
    } else if (promoted == DType::Undefined) {
      promoted = m->dtype;
    }
  }
  if (!anyBool) return false;
  const bool allBool = promoted == DType::Undefined || promoted == DType::Bool;
  if (allBool) promoted = DType::Int32;
  Builder b(rw);
  std::vector<ir::Arg> args = n.args;
  for (size_t i = 0; i < 2; ++i) {
    const ir::TensorMeta* m = argMeta(rw, i);
    if (!m || m->dtype != DType::Bool) continue;
    LS_ASSIGN_OR_RETURN(c, b.cast(*n.args[i].ref(), promoted, "promoted"));
    args[i] = ir::Arg(c);
  }
  if (!allBool) {
    rw.setArgs(std::move(args));
    return true;
  }
  LS_ASSIGN_OR_RETURN(prod, b.op("aten.mul.Tensor", std::move(args), {}, "mul_int32"));
  LS_ASSIGN_OR_RETURN(back, b.cast(prod, DType::Bool, "as_bool"));
  rw.replaceWith(back);
  return true;
}

}  // namespace

void registerPromoteBoolOperandsPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "PromoteBoolOperandsPass",
                      .description = "bool operands of mul -> the other operand's type (via int8 for a float); "
                                     "bool * bool in int32, cast back to bool",
                      .targets = {"aten.mul.Tensor"},
                      .rewrite = promoteBoolOperands});
}

}  // namespace ls::arm
