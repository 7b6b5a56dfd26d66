// DecomposeIntPowPass (upstream backends/arm/_passes/decompose_int_pow_pass.py): pow by a
// scalar integral exponent becomes multiplications, so no TOSA POW is emitted for it. TOSA 1.0
// POW REQUIREs a non-negative base (and a positive exponent for a zero base): x.pow(2) on
// negative values is UNPREDICTABLE as POW, exact as x * x.
//
// Upstream's behaviour, node by node (pow.Tensor_Scalar only; pow.Tensor_Tensor is left alone,
// which is why the pass runs before ReplaceScalarWithTensorPass turns the scalar into a tensor):
//  - exponent n an int, a float that is exactly a positive integer (pow(x, 2.0)), or 0.0; any
//    other float (0.5, -2.0, 2.5) keeps the pow;
//  - n > 1: x * x * ... * x, n - 1 MULs rolled out left to right ((x * x) * x ...);
//  - n < 0: the same chain on reciprocal(x);
//  - n == 1: x * 1;
//  - n == 0: ones of x's shape and dtype (full_like(x, 1)). Upstream writes (x - x) + 1, which
//    is NaN where x is inf or NaN; torch.pow(x, 0) is 1 everywhere, and so is this.
// Limits of this implementation, each keeping the pow as it is: an exponent beyond
// kMaxExponent (a chain that long is no "small integral exponent"; upstream has no bound and
// rolls out any length), and a pow whose result dtype is not its input's (an integer tensor
// raised to 2.0 computes in float; the MULs would stay integer). An integer tensor raised to a
// negative integer is refused, as torch refuses it.
// Quantised pows never get here: under INT they are a TABLE already (InsertTableOpsPass runs
// in the first block), which is what upstream's "quantized: leave for the TABLE" check keeps.
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <optional>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/passes/rule_pass.h"

namespace ls::arm {

namespace {

/// Longest exponent rolled out (|n| - 1 MULs).
constexpr int64_t kMaxExponent = 64;

/// The exponent of a pow.Tensor_Scalar node when upstream would decompose it: an int, or a
/// float that is exactly a positive integer.
std::optional<int64_t> integralExponent(const ir::Node& n) {
  if (n.args.size() < 2) return std::nullopt;
  const ir::Arg& e = n.args[1];
  if (const int64_t* i = e.asInt()) return *i;
  if (const bool* b = e.asBool()) return int64_t(*b);  // a Python bool is an int
  if (const double* f = e.asFloat()) {
    if (*f == 0) return 0;  // upstream tests exp == 0 first: pow(x, 0.0) is ones too
    if (*f > 0 && *f <= double(kMaxExponent) && std::floor(*f) == *f) return int64_t(*f);
  }
  return std::nullopt;
}

/// The pass's candidates: the exponent is integral and short enough to roll out.
bool decomposablePow(const ir::Node& n) {
  auto e = integralExponent(n);
  return e && std::llabs(*e) <= kMaxExponent;
}

Result<bool> decomposeIntPow(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  const ir::TensorMeta* xm = argMeta(rw, 0);
  if (!xm) return Status::error("pow: the base (arg #0) must be a tensor");
  const int64_t e = *integralExponent(n);  // .candidate = decomposablePow hands over candidates only
  if (xm->dtype != n.meta().dtype) return false;  // the result is promoted: keep the pow
  if (e < 0 && !ir::isFloating(xm->dtype))
    return Status::error(fmt::format("pow: an {} tensor raised to the negative integer {} (torch: integers to "
                                     "negative integer powers are not allowed)",
                                     ir::dtypeName(xm->dtype), e));
  Builder b(rw);
  ValueRef x = *n.args[0].ref();
  // One of x's dtype (an int for an integer tensor: a float scalar would promote it).
  const ir::Arg one = ir::isFloating(xm->dtype) ? ir::Arg(1.0) : ir::Arg(int64_t(1));
  ValueRef y;
  if (e == 0) {
    LS_ASSIGN_OR_RETURN(ones, b.op("aten.full_like.default", {x, one}, {}, "ones"));
    y = ones;
  } else if (e == 1) {
    LS_ASSIGN_OR_RETURN(v, b.op("aten.mul.Tensor", {x, one}));
    y = v;
  } else {
    if (e < 0) {
      LS_ASSIGN_OR_RETURN(r, b.op("aten.reciprocal.default", {x}));
      x = r;
    }
    y = x;
    for (int64_t i = 1; i < std::llabs(e); ++i) {
      LS_ASSIGN_OR_RETURN(v, b.op("aten.mul.Tensor", {y, x}));
      y = v;
    }
  }
  rw.replaceWith(y);
  return true;
}

}  // namespace

void registerDecomposeIntPowPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeIntPowPass",
                      .description = fmt::format("pow(x, n) with an integral scalar n (|n| <= {}) -> x * x * ...; n < 0 "
                                                 "on reciprocal(x); n = 0 -> ones (no TOSA POW, which needs x >= 0)",
                                                 kMaxExponent),
                      .targets = {"aten.pow.Tensor_Scalar"},
                      .rewrite = decomposeIntPow,
                      .candidate = decomposablePow,
                      .noCandidate = "no pow by an integral scalar exponent"});
}

}  // namespace ls::arm
