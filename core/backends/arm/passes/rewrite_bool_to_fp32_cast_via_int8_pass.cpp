// RewriteBoolToFp32CastViaInt8Pass (upstream backends/arm/_passes/
// rewrite_bool_to_fp32_cast_via_int8_pass.py): TOSA 1.0 CAST has no bool -> floating type
// combination. bool -> int8 is a PRO-INT CAST and int8 -> fp32 a PRO-FP one, so `mask.float()`
// becomes two casts, each legal:
//     _to_copy(mask, dtype=float32)  ->  _to_copy(_to_copy(mask, dtype=int8), dtype=float32)
// (the original node keeps its id and its other kwargs and now reads the int8 cast).
// Upstream rewrites bool -> fp32 only and only when the target has both profiles; here every
// bool -> floating cast (fp16 and bf16 as well: int8 -> fp16/bf16 are PRO-FP/EXT-BF16 CASTs)
// is rewritten under either profile, since our generic target is checked against PRO-INT and
// PRO-FP together and a bool -> float CAST is legal in neither.
#include <fmt/format.h>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/passes/rule_pass.h"

namespace ls::arm {

namespace {

using ir::DType;

/// The dtype a _to_copy node casts to (its dtype kwarg), or nullopt without one.
std::optional<DType> castTarget(const ir::Node& n) {
  const ir::Arg* d = n.kwarg("dtype");
  if (!d) return std::nullopt;
  const ir::EnumArg* e = d->asEnum();
  if (!e || e->kind != ir::EnumKind::DType) return std::nullopt;
  return DType(e->value);
}

/// Candidates: casts to a floating type (the input dtype is read in the rewrite).
bool castToFloat(const ir::Node& n) {
  auto t = castTarget(n);
  return t && ir::isFloating(*t);
}

Result<bool> rewriteBoolToFloatCast(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  const ir::TensorMeta* xm = argMeta(rw, 0);
  if (!xm) return Status::error("_to_copy: the input (arg #0) must be a tensor");
  if (xm->dtype != DType::Bool) return false;
  Builder b(rw);
  std::vector<ir::Kwarg> kw = n.kwargs;
  for (ir::Kwarg& k : kw)
    if (k.name == "dtype") k.value = ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(DType::Int8)});
  LS_ASSIGN_OR_RETURN(i8, b.op("aten._to_copy.default", {n.args[0]}, kw, "bool_as_int8"));
  std::vector<ir::Arg> args = n.args;
  args[0] = ir::Arg(i8);
  rw.setArgs(std::move(args));
  return true;
}

}  // namespace

void registerRewriteBoolToFp32CastViaInt8Pass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "RewriteBoolToFp32CastViaInt8Pass",
                      .description = "bool -> float cast -> bool -> int8 -> float (TOSA CAST has no bool -> float)",
                      .targets = {"aten._to_copy.default"},
                      .rewrite = rewriteBoolToFloatCast,
                      .candidate = castToFloat,
                      .noCandidate = "no cast to a floating type"});
}

}  // namespace ls::arm
