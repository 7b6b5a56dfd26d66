// DecomposeDivTensorModePass (upstream backends/arm/_passes/decompose_div_tensor_mode.py):
// div.Tensor_mode, torch.div(a, b, rounding_mode=None | "trunc" | "floor"), in ops TOSA has.
//  - rounding_mode None: a * reciprocal(b) in the result's float type (integers cast first),
//    as DecomposeDivPass makes a true division.
//  - integer operands with a rounding mode: int32 (casts where needed), tosa.INTDIV (which
//    truncates toward zero: exactly "trunc"); for "floor" upstream's correction: q - 1 where
//    the remainder a - q * b is not zero and a and b have different signs. The result is cast
//    to the node's integer type when that is not int32.
//  - floating operands with a rounding mode: upstream writes floor(div(a, b)) and
//    where(div < 0, ceil(div), floor(div)). TOSA has no float division, so div is
//    a * reciprocal(b), which can land just below an exact integer quotient (49 / 49 ->
//    0.99999994) and floor one too low. Here the floor is corrected with the remainder as
//    DecomposeFloorDividePass does it (q + 1 where r = a - q * b is a whole b or more,
//    q - 1 where r has the other sign than b), and "trunc" is the corrected floor + 1 where
//    the division is inexact and the quotient negative. Values are then torch's exactly
//    wherever a / b is representable.
// In the quantizer's transform for annotation integer divisions are left for the pipeline, as
// upstream leaves them, and float ones take upstream's plain form (quantised op by op, where
// the remainder correction's exactness is below one int8 step and would cost a dozen ops).
// The pass runs where upstream runs it, after ReplaceScalarWithTensorPass and
// MatchArgRanksPass, so it emits what those would have made: constants and views give every
// operand the result's rank and type. Upstream takes the float path for integer "floor"
// divisions on an FP-only target; our target is checked against PRO-INT and PRO-FP together
// and every op of the integer path is in one of them, so integers always take it.
#include <fmt/format.h>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/ops/registry.h"
#include "core/passes/rule_pass.h"

namespace ls::arm {

namespace {

using ir::DType;


/// The division's rounding mode: "" for None, else "trunc" or "floor" (anything else refused).
Result<std::string> roundingMode(const ir::Node& n) {
  const ir::Arg& m = ops::schemaArg(n, 2);
  if (m.isNone()) return std::string();
  const std::string* s = m.asString();
  if (!s || (*s != "trunc" && *s != "floor"))
    return Status::error(fmt::format("div: rounding_mode must be None, 'trunc' or 'floor', got {}",
                                     s ? "'" + *s + "'" : std::string("a value that is not a string")));
  return *s;
}

/// Operand `a` as a tensor of dtype `t` and rank `rank`: a number becomes a constant, a tensor
/// is cast (bool through int8 when `t` is floating) and viewed with leading 1s.
Result<ValueRef> operand(Builder& b, const ir::Arg& a, DType t, int rank, const char* what) {
  if (auto v = a.number()) return b.scalar(t, ir::isFloating(t) ? *v : std::trunc(*v), rank, what);
  const ir::ValueRef* r = a.ref();
  if (!r) return Status::error(fmt::format("div: the {} must be a tensor or a number", what));
  ValueRef v = *r;
  const ir::TensorMeta m = b.meta(v);
  LS_ASSIGN_OR_RETURN(c, b.cast(v, t));
  v = c;
  if (m.rank() < rank) {
    std::vector<int64_t> s(size_t(rank - m.rank()), 1);
    for (int d = 0; d < m.rank(); ++d) s.push_back(m.shape[d]);
    LS_ASSIGN_OR_RETURN(w, b.op("aten.view_copy.default", {v, ir::IntList(s)}));
    v = w;
  }
  return v;
}

bool integerOperand(const passes::Rewriter& rw, size_t i) {
  const ir::Node& n = rw.node();
  if (const ir::TensorMeta* m = argMeta(rw, i)) return ir::isIntegral(m->dtype, true);
  return n.args.size() > i && (n.args[i].asInt() || n.args[i].asBool());
}

/// Integer path: int32 INTDIV (trunc), corrected to floor when asked.
Result<ValueRef> integerDivision(Builder& b, ValueRef a, ValueRef d, bool floor, int rank) {
  LS_ASSIGN_OR_RETURN(q, b.op("tosa.INTDIV", {a, d}, {}, "intdiv"));
  if (!floor) return q;
  const ValueRef zero = b.scalar(DType::Int32, 0, rank, "zero");
  LS_ASSIGN_OR_RETURN(qd, b.op("aten.mul.Tensor", {q, d}));
  LS_ASSIGN_OR_RETURN(rem, b.op("aten.sub.Tensor", {a, qd}));
  LS_ASSIGN_OR_RETURN(exact, b.op("aten.eq.Tensor", {rem, zero}));
  LS_ASSIGN_OR_RETURN(inexact, b.op("aten.logical_not.default", {exact}));
  LS_ASSIGN_OR_RETURN(aNeg, b.op("aten.gt.Tensor", {zero, a}));
  LS_ASSIGN_OR_RETURN(dNeg, b.op("aten.gt.Tensor", {zero, d}));
  LS_ASSIGN_OR_RETURN(differ, b.op("aten.logical_xor.default", {aNeg, dNeg}));
  LS_ASSIGN_OR_RETURN(fix, b.op("aten.logical_and.default", {inexact, differ}));
  LS_ASSIGN_OR_RETURN(one, b.cast(fix, DType::Int32));  // bool -> 0/1
  return b.op("aten.sub.Tensor", {q, one});
}

/// Before annotation, upstream's form: floor(a / b), where(a / b < 0, ceil, floor) (each op
/// gets its qparams; the remainder correction would add a dozen quantised ops for an exactness
/// the int8 result cannot show). DecomposeDivPass, after this pass there, splits the div.
Result<ValueRef> plainFloatDivision(Builder& b, ValueRef a, ValueRef d, const std::string& mode, DType t, int rank) {
  LS_ASSIGN_OR_RETURN(q, b.op("aten.div.Tensor", {a, d}));
  if (mode.empty()) return q;
  LS_ASSIGN_OR_RETURN(f, b.op("aten.floor.default", {q}));
  if (mode == "floor") return f;
  LS_ASSIGN_OR_RETURN(c, b.op("aten.ceil.default", {q}));
  LS_ASSIGN_OR_RETURN(neg, b.op("aten.gt.Tensor", {b.scalar(t, 0.0, rank, "zero"), q}));
  return b.op("aten.where.self", {neg, c, f}, {}, "trunc_div");
}

/// Float path: a * reciprocal(d), floor corrected with the remainder; trunc from the floor.
Result<ValueRef> floatDivision(Builder& b, ValueRef a, ValueRef d, const std::string& mode, DType t, int rank) {
  LS_ASSIGN_OR_RETURN(rd, b.op("aten.reciprocal.default", {d}));
  LS_ASSIGN_OR_RETURN(q0, b.op("aten.mul.Tensor", {a, rd}));
  if (mode.empty()) return q0;
  const ValueRef zero = b.scalar(t, 0.0, rank, "zero");
  const ValueRef one = b.scalar(t, 1.0, rank, "one");
  LS_ASSIGN_OR_RETURN(f, b.op("aten.floor.default", {q0}));
  LS_ASSIGN_OR_RETURN(fd, b.op("aten.mul.Tensor", {f, d}));
  LS_ASSIGN_OR_RETURN(r, b.op("aten.sub.Tensor", {a, fd}));
  LS_ASSIGN_OR_RETURN(dPos, b.op("aten.gt.Tensor", {d, zero}));
  LS_ASSIGN_OR_RETURN(geD, b.op("aten.ge.Tensor", {r, d}));
  LS_ASSIGN_OR_RETURN(leD, b.op("aten.le.Tensor", {r, d}));
  LS_ASSIGN_OR_RETURN(up, b.op("aten.where.self", {dPos, geD, leD}));
  LS_ASSIGN_OR_RETURN(lt0, b.op("aten.lt.Tensor", {r, zero}));
  LS_ASSIGN_OR_RETURN(gt0, b.op("aten.gt.Tensor", {r, zero}));
  LS_ASSIGN_OR_RETURN(down, b.op("aten.where.self", {dPos, lt0, gt0}));
  LS_ASSIGN_OR_RETURN(fUp, b.op("aten.add.Tensor", {f, one}));
  LS_ASSIGN_OR_RETURN(f1, b.op("aten.where.self", {up, fUp, f}));
  LS_ASSIGN_OR_RETURN(fDown, b.op("aten.sub.Tensor", {f1, one}));
  LS_ASSIGN_OR_RETURN(fl, b.op("aten.where.self", {down, fDown, f1}, {}, "floor_div"));
  if (mode == "floor") return fl;
  // trunc: the floor, + 1 where the quotient is negative and not a whole number.
  LS_ASSIGN_OR_RETURN(fld, b.op("aten.mul.Tensor", {fl, d}));
  LS_ASSIGN_OR_RETURN(r2, b.op("aten.sub.Tensor", {a, fld}));
  LS_ASSIGN_OR_RETURN(exact, b.op("aten.eq.Tensor", {r2, zero}));
  LS_ASSIGN_OR_RETURN(inexact, b.op("aten.logical_not.default", {exact}));
  LS_ASSIGN_OR_RETURN(aNeg, b.op("aten.lt.Tensor", {a, zero}));
  LS_ASSIGN_OR_RETURN(dNeg, b.op("aten.lt.Tensor", {d, zero}));
  LS_ASSIGN_OR_RETURN(neg, b.op("aten.logical_xor.default", {aNeg, dNeg}));
  LS_ASSIGN_OR_RETURN(fix, b.op("aten.logical_and.default", {inexact, neg}));
  LS_ASSIGN_OR_RETURN(flUp, b.op("aten.add.Tensor", {fl, one}));
  return b.op("aten.where.self", {fix, flUp, fl}, {}, "trunc_div");
}

Result<bool> decomposeDivTensorMode(passes::Rewriter& rw, passes::RuleStats& rule) {
  const ir::Node& n = rw.node();
  if (n.args.size() < 2) return Status::error("div: expected two operands");
  if (!argMeta(rw, 0) && !argMeta(rw, 1)) return Status::error("div: one operand must be a tensor");
  LS_ASSIGN_OR_RETURN(mode, roundingMode(n));
  const ir::TensorMeta& out = n.meta();
  const int rank = out.rank();
  Builder b(rw);
  const bool integer = !mode.empty() && integerOperand(rw, 0) && integerOperand(rw, 1);
  // Before annotation an integer division stays (nothing to quantise; calibration then runs
  // torch's kernel, which does not trap on a zero divisor as INTDIV does), as upstream's tfa.
  if (integer && rule.forAnnotation()) return false;
  ValueRef y;
  if (integer) {
    if (!ir::isIntegral(out.dtype, false))
      return Status::error(fmt::format("div of integers with rounding_mode '{}' must give an integer, the node "
                                       "gives {}", mode, ir::dtypeName(out.dtype)));
    LS_ASSIGN_OR_RETURN(a, operand(b, n.args[0], DType::Int32, rank, "dividend"));
    LS_ASSIGN_OR_RETURN(d, operand(b, n.args[1], DType::Int32, rank, "divisor"));
    LS_ASSIGN_OR_RETURN(q, integerDivision(b, a, d, mode == "floor", rank));
    y = q;
  } else {
    const DType t = ir::isFloating(out.dtype) ? out.dtype : DType::Float32;
    LS_ASSIGN_OR_RETURN(a, operand(b, n.args[0], t, rank, "dividend"));
    LS_ASSIGN_OR_RETURN(d, operand(b, n.args[1], t, rank, "divisor"));
    LS_ASSIGN_OR_RETURN(q, rule.forAnnotation() ? plainFloatDivision(b, a, d, mode, t, rank)
                                                : floatDivision(b, a, d, mode, t, rank));
    y = q;
  }
  if (b.meta(y).dtype != out.dtype) {
    LS_ASSIGN_OR_RETURN(c, b.cast(y, out.dtype));
    y = c;
  }
  rw.replaceWith(y);
  return true;
}

}  // namespace

void registerDecomposeDivTensorModePass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeDivTensorModePass",
                      .description = "div(rounding_mode=None/trunc/floor): integers -> int32 INTDIV (+ floor "
                                     "correction); floats -> a * reciprocal(b), floor/trunc corrected by the remainder",
                      .targets = {"aten.div.Tensor_mode"},
                      .rewrite = decomposeDivTensorMode});
}

}  // namespace ls::arm
