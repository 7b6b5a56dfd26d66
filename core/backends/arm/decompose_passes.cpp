// ATen-level transforms of the Arm TOSA pipeline (blocks 1, 3, 4 and 5 of upstream's
// list): clamp conversion, gelu decomposition, linear-algebra rewrites to bmm,
// split/select/squeeze/expand rewrites, scalar-to-tensor and rank/dtype matching, and the
// registration of batch-norm folding and constant folding with the Arm options (the shared
// decompositions, batch norm and constant folding live in core/transforms). Every rewrite
// keeps PyTorch semantics and emits ATen ops with registered metas and kernels, so each step
// is checked by the verifier and can be compared with the reference executor.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <numeric>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/passes/pass_manager.h"
#include "core/transforms/batch_norm.h"
#include "core/transforms/constant_folding.h"
#include "core/transforms/constant_values.h"

namespace ls::arm {

using passes::Rewriter;
using ir::DType;
using ir::Shape;

namespace {

Status needTensor(const Rewriter& rw, size_t i, const char* what) {
  if (!argMeta(rw, i)) return Status::error(fmt::format("{} (arg #{}) must be a tensor", what, i));
  return Status::ok();
}

ValueRef ref(const Rewriter& rw, size_t i) { return *rw.node().args[i].ref(); }

int wrap(int64_t d, int rank) { return int(d < 0 ? d + rank : d); }

std::unique_ptr<passes::Pass> mk(std::string name, std::string desc, std::vector<std::string> targets,
                                 ArmRewritePass::Fn fn, Gate gate = Gate::any()) {
  return std::make_unique<ArmRewritePass>(std::move(name), std::move(desc), std::move(targets), std::move(fn), gate);
}

// ---------------------------------------------------------------- activations

Status convertToClamp(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  Builder b(rw);
  const std::string& op = ir::opName(n.op);
  ir::Arg lo, hi;
  if (op == "aten.relu.default") {
    lo = 0.0;
  } else {  // hardtanh(x, min_val, max_val)
    auto l = sarg(n, 1).number(), h = sarg(n, 2).number();
    if (!l || !h) return Status::error("hardtanh min_val/max_val must be numbers");
    lo = *l, hi = *h;
  }
  LS_ASSIGN_OR_RETURN(v, b.op("aten.clamp.default", {ref(rw, 0), lo, hi}, {}, "clamp"));
  rw.replaceWith(v);
  self.rewritten();
  return Status::ok();
}

Status decomposeGelu(ArmRewritePass& self, Rewriter& rw) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::Node& n = rw.node();
  const ir::Arg& ap = sarg(n, 1);
  std::string approx = ap.asString() ? *ap.asString() : "none";
  Builder b(rw);
  ValueRef x = ref(rw, 0);
  ValueRef inner;
  if (approx == "none") {
    // 0.5 * x * (1 + erf(x / sqrt(2)))
    LS_ASSIGN_OR_RETURN(t, b.op("aten.mul.Tensor", {x, M_SQRT1_2}));
    LS_ASSIGN_OR_RETURN(e, b.op("aten.erf.default", {t}));
    inner = e;
  } else if (approx == "tanh") {
    // 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))
    LS_ASSIGN_OR_RETURN(x2, b.op("aten.mul.Tensor", {x, x}));
    LS_ASSIGN_OR_RETURN(x3, b.op("aten.mul.Tensor", {x2, x}));
    LS_ASSIGN_OR_RETURN(k, b.op("aten.mul.Tensor", {x3, 0.044715}));
    LS_ASSIGN_OR_RETURN(s, b.op("aten.add.Tensor", {x, k}));
    LS_ASSIGN_OR_RETURN(t, b.op("aten.mul.Tensor", {s, std::sqrt(2.0 / M_PI)}));
    LS_ASSIGN_OR_RETURN(th, b.op("aten.tanh.default", {t}));
    inner = th;
  } else {
    return Status::error(fmt::format("gelu approximate='{}': expected 'none' or 'tanh'", approx));
  }
  LS_ASSIGN_OR_RETURN(one, b.op("aten.add.Tensor", {inner, 1.0}));
  LS_ASSIGN_OR_RETURN(hx, b.op("aten.mul.Tensor", {x, 0.5}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.mul.Tensor", {hx, one}));
  rw.replaceWith(y);
  self.rewritten();
  return Status::ok();
}

/// leaky_relu(x, slope) = clamp(x, 0, None) + slope * clamp(x, None, 0) (upstream's
/// DecomposeLeakyReLUPass; under INT a quantised leaky_relu is a TABLE before this runs).
Status decomposeLeakyRelu(ArmRewritePass& self, Rewriter& rw) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const double slope = sarg(rw.node(), 1).number().value_or(0.01);
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(pos, b.op("aten.clamp.default", {ref(rw, 0), 0.0, ir::Arg()}));
  LS_ASSIGN_OR_RETURN(neg, b.op("aten.clamp.default", {ref(rw, 0), ir::Arg(), 0.0}));
  LS_ASSIGN_OR_RETURN(scaled, b.op("aten.mul.Tensor", {neg, slope}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.add.Tensor", {pos, scaled}));
  rw.replaceWith(y);
  self.rewritten();
  return Status::ok();
}

// ---------------------------------------------------------------- unary functions
// Float forms of unary functions TOSA has no operator for (upstream's Decompose*Pass of each);
// under INT a quantised one is a TABLE before these run (InsertTableOpsPass).

/// Replaces the node with `y` (the shared tail of the unary decompositions).
Status done(ArmRewritePass& self, Rewriter& rw, ValueRef y) {
  rw.replaceWith(y);
  self.rewritten();
  return Status::ok();
}

/// elu(x, alpha, scale, input_scale) -> scale * (clamp(x, 0) + alpha * (exp(input_scale *
/// clamp(x, max=0)) - 1)): the exp sees only the non-positive part, so it is 0 where x > 0
/// (DecomposeEluPass; under INT a quantised elu is a TABLE before this runs).
Status decomposeElu(ArmRewritePass& self, Rewriter& rw) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::Node& n = rw.node();
  const double alpha = sarg(n, 1).number().value_or(1.0), scale = sarg(n, 2).number().value_or(1.0),
               inScale = sarg(n, 3).number().value_or(1.0);
  Builder b(rw);
  ValueRef x = ref(rw, 0);
  LS_ASSIGN_OR_RETURN(pos, b.op("aten.clamp.default", {x, 0.0, ir::Arg()}));
  LS_ASSIGN_OR_RETURN(neg, b.op("aten.clamp.default", {x, ir::Arg(), 0.0}));
  ValueRef e = neg;
  if (inScale != 1.0) {
    LS_ASSIGN_OR_RETURN(m, b.op("aten.mul.Tensor", {neg, inScale}));
    e = m;
  }
  LS_ASSIGN_OR_RETURN(ex, b.op("aten.exp.default", {e}));
  LS_ASSIGN_OR_RETURN(em1, b.op("aten.sub.Tensor", {ex, 1.0}));
  LS_ASSIGN_OR_RETURN(na, b.op("aten.mul.Tensor", {em1, alpha}));
  LS_ASSIGN_OR_RETURN(sum, b.op("aten.add.Tensor", {pos, na}));
  if (scale == 1.0) return done(self, rw, sum);
  LS_ASSIGN_OR_RETURN(y, b.op("aten.mul.Tensor", {sum, scale}));
  return done(self, rw, y);
}


/// p(t) = c[0] + c[1] t + ... + c[n] t^n by Horner's rule (aten mul/add with number operands).
Result<ValueRef> horner(Builder& b, ValueRef t, const std::vector<double>& c) {
  LS_ASSIGN_OR_RETURN(p0, b.op("aten.mul.Tensor", {t, c.back()}));
  LS_ASSIGN_OR_RETURN(p1, b.op("aten.add.Tensor", {p0, c[c.size() - 2]}));
  ValueRef p = p1;
  for (size_t i = c.size() - 2; i-- > 0;) {
    LS_ASSIGN_OR_RETURN(m, b.op("aten.mul.Tensor", {p, t}));
    LS_ASSIGN_OR_RETURN(a, b.op("aten.add.Tensor", {m, c[i]}));
    p = a;
  }
  return p;
}

/// where(x < 0, -y, y): y carries the magnitude, x the sign (odd functions).
Result<ValueRef> withSignOf(Builder& b, ValueRef x, ValueRef y) {
  LS_ASSIGN_OR_RETURN(neg, b.op("aten.lt.Scalar", {x, 0.0}));
  LS_ASSIGN_OR_RETURN(my, b.op("aten.neg.default", {y}));
  return b.op("aten.where.self", {neg, my, y});
}

/// expm1(x) = exp(x) - 1 (DecomposeExpm1Pass).
Status decomposeExpm1(ArmRewritePass& self, Rewriter& rw) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(e, b.op("aten.exp.default", {ref(rw, 0)}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.sub.Tensor", {e, 1.0}));
  return done(self, rw, y);
}

/// log1p(x) = log(x + 1) (DecomposeLog1pPass).
Status decomposeLog1p(ArmRewritePass& self, Rewriter& rw) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(a, b.op("aten.add.Tensor", {ref(rw, 0), 1.0}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.log.default", {a}));
  return done(self, rw, y);
}

/// sign(x) = where(x > 0, 1, where(x < 0, -1, x)): 0 stays 0 (and NaN NaN), as torch.sign
/// (DecomposeSignPass). Integer tensors keep their dtype.
Status decomposeSign(ArmRewritePass& self, Rewriter& rw) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::TensorMeta& m = *argMeta(rw, 0);
  if (m.dtype == DType::Bool) return done(self, rw, ref(rw, 0));
  Builder b(rw);
  ValueRef x = ref(rw, 0);
  LS_ASSIGN_OR_RETURN(pos, b.op("aten.gt.Scalar", {x, 0.0}));
  LS_ASSIGN_OR_RETURN(neg, b.op("aten.lt.Scalar", {x, 0.0}));
  ValueRef one = b.scalar(m.dtype, 1.0, m.rank(), "one"), minusOne = b.scalar(m.dtype, -1.0, m.rank(), "minus_one");
  LS_ASSIGN_OR_RETURN(inner, b.op("aten.where.self", {neg, minusOne, x}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.where.self", {pos, one, inner}));
  return done(self, rw, y);
}

/// sinh(x) = (exp(x) - exp(-x)) / 2, cosh(x) = (exp(x) + exp(-x)) / 2 (DecomposeSinhPass,
/// DecomposeCoshPass).
Status decomposeSinhCosh(ArmRewritePass& self, Rewriter& rw, bool cosh) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  Builder b(rw);
  ValueRef x = ref(rw, 0);
  LS_ASSIGN_OR_RETURN(ep, b.op("aten.exp.default", {x}));
  LS_ASSIGN_OR_RETURN(nx, b.op("aten.neg.default", {x}));
  LS_ASSIGN_OR_RETURN(en, b.op("aten.exp.default", {nx}));
  LS_ASSIGN_OR_RETURN(s, b.op(cosh ? "aten.add.Tensor" : "aten.sub.Tensor", {ep, en}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.mul.Tensor", {s, 0.5}));
  return done(self, rw, y);
}
Status decomposeSinh(ArmRewritePass& self, Rewriter& rw) { return decomposeSinhCosh(self, rw, false); }
Status decomposeCosh(ArmRewritePass& self, Rewriter& rw) { return decomposeSinhCosh(self, rw, true); }

/// tan(x) = sin(x) * reciprocal(cos(x)) (DecomposeTanPass).
Status decomposeTan(ArmRewritePass& self, Rewriter& rw) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(sn, b.op("aten.sin.default", {ref(rw, 0)}));
  LS_ASSIGN_OR_RETURN(cs, b.op("aten.cos.default", {ref(rw, 0)}));
  LS_ASSIGN_OR_RETURN(rc, b.op("aten.reciprocal.default", {cs}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.mul.Tensor", {sn, rc}));
  return done(self, rw, y);
}

/// asinh(x) = sign(x) * log(|x| + sqrt(x^2 + 1)) (the odd form keeps large negative x exact;
/// DecomposeAsinhPass).
Status decomposeAsinh(ArmRewritePass& self, Rewriter& rw) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  Builder b(rw);
  ValueRef x = ref(rw, 0);
  LS_ASSIGN_OR_RETURN(a, b.op("aten.abs.default", {x}));
  LS_ASSIGN_OR_RETURN(a2, b.op("aten.mul.Tensor", {a, a}));
  LS_ASSIGN_OR_RETURN(a21, b.op("aten.add.Tensor", {a2, 1.0}));
  LS_ASSIGN_OR_RETURN(r, b.op("aten.sqrt.default", {a21}));
  LS_ASSIGN_OR_RETURN(s, b.op("aten.add.Tensor", {a, r}));
  LS_ASSIGN_OR_RETURN(l, b.op("aten.log.default", {s}));
  LS_ASSIGN_OR_RETURN(y, withSignOf(b, x, l));
  return done(self, rw, y);
}

/// acosh(x) = log(x + sqrt(x^2 - 1)), NaN below 1 as torch (DecomposeAcoshPass).
Status decomposeAcosh(ArmRewritePass& self, Rewriter& rw) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  Builder b(rw);
  ValueRef x = ref(rw, 0);
  LS_ASSIGN_OR_RETURN(x2, b.op("aten.mul.Tensor", {x, x}));
  LS_ASSIGN_OR_RETURN(x21, b.op("aten.sub.Tensor", {x2, 1.0}));
  LS_ASSIGN_OR_RETURN(r, b.op("aten.sqrt.default", {x21}));
  LS_ASSIGN_OR_RETURN(s, b.op("aten.add.Tensor", {x, r}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.log.default", {s}));
  return done(self, rw, y);
}

/// atanh(x) = (log(1 + x) - log(1 - x)) / 2 (DecomposeAtanhPass).
Status decomposeAtanh(ArmRewritePass& self, Rewriter& rw) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  Builder b(rw);
  ValueRef x = ref(rw, 0);
  LS_ASSIGN_OR_RETURN(p, b.op("aten.add.Tensor", {x, 1.0}));
  LS_ASSIGN_OR_RETURN(nx, b.op("aten.neg.default", {x}));
  LS_ASSIGN_OR_RETURN(m, b.op("aten.add.Tensor", {nx, 1.0}));
  LS_ASSIGN_OR_RETURN(lp, b.op("aten.log.default", {p}));
  LS_ASSIGN_OR_RETURN(lm, b.op("aten.log.default", {m}));
  LS_ASSIGN_OR_RETURN(d, b.op("aten.sub.Tensor", {lp, lm}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.mul.Tensor", {d, 0.5}));
  return done(self, rw, y);
}

/// atan(x): with a = |x| and t = min(a, 1/a) in [0, 1], atan(t) = t * q(t^2) (Abramowitz &
/// Stegun 4.4.49, |error| <= 2e-8), pi/2 - atan(t) when a > 1, and x's sign (DecomposeAtanPass).
Status decomposeAtan(ArmRewritePass& self, Rewriter& rw) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  static const std::vector<double> q = {1.0,           -0.3333314528, 0.1999355085,  -0.1420889944, 0.1065626393,
                                        -0.0752896400, 0.0429096138,  -0.0161657367, 0.0028662257};
  Builder b(rw);
  ValueRef x = ref(rw, 0);
  LS_ASSIGN_OR_RETURN(a, b.op("aten.abs.default", {x}));
  LS_ASSIGN_OR_RETURN(inv, b.op("aten.reciprocal.default", {a}));
  LS_ASSIGN_OR_RETURN(big, b.op("aten.gt.Scalar", {a, 1.0}));
  LS_ASSIGN_OR_RETURN(t, b.op("aten.where.self", {big, inv, a}));
  LS_ASSIGN_OR_RETURN(t2, b.op("aten.mul.Tensor", {t, t}));
  LS_ASSIGN_OR_RETURN(poly, horner(b, t2, q));
  LS_ASSIGN_OR_RETURN(at, b.op("aten.mul.Tensor", {t, poly}));
  LS_ASSIGN_OR_RETURN(nat, b.op("aten.neg.default", {at}));
  LS_ASSIGN_OR_RETURN(comp, b.op("aten.add.Tensor", {nat, M_PI_2}));
  LS_ASSIGN_OR_RETURN(r, b.op("aten.where.self", {big, comp, at}));
  LS_ASSIGN_OR_RETURN(y, withSignOf(b, x, r));
  return done(self, rw, y);
}

/// asin and acos: with a = |x| and s = sqrt(1 - a) * p(a) (Abramowitz & Stegun 4.4.46,
/// acos(a) for a in [0, 1], |error| <= 2e-8): asin(x) = sign(x) * (pi/2 - s), acos(x) = s for
/// x >= 0 and pi - s below; NaN outside [-1, 1] as torch (DecomposeAsinAndAcosPass).
Status decomposeAsinAcos(ArmRewritePass& self, Rewriter& rw) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  static const std::vector<double> p = {1.5707963050,  -0.2145988016, 0.0889789874,  -0.0501743046,
                                        0.0308918810,  -0.0170881256, 0.0066700901,  -0.0012624911};
  const bool acos = rw.node().op == ir::internOp("aten.acos.default");
  Builder b(rw);
  ValueRef x = ref(rw, 0);
  LS_ASSIGN_OR_RETURN(a, b.op("aten.abs.default", {x}));
  LS_ASSIGN_OR_RETURN(na, b.op("aten.neg.default", {a}));
  LS_ASSIGN_OR_RETURN(om, b.op("aten.add.Tensor", {na, 1.0}));
  LS_ASSIGN_OR_RETURN(r, b.op("aten.sqrt.default", {om}));
  LS_ASSIGN_OR_RETURN(poly, horner(b, a, p));
  LS_ASSIGN_OR_RETURN(s, b.op("aten.mul.Tensor", {r, poly}));
  LS_ASSIGN_OR_RETURN(neg, b.op("aten.lt.Scalar", {x, 0.0}));
  LS_ASSIGN_OR_RETURN(ns, b.op("aten.neg.default", {s}));
  if (acos) {
    LS_ASSIGN_OR_RETURN(pis, b.op("aten.add.Tensor", {ns, M_PI}));
    LS_ASSIGN_OR_RETURN(y, b.op("aten.where.self", {neg, pis, s}));
    return done(self, rw, y);
  }
  LS_ASSIGN_OR_RETURN(as, b.op("aten.add.Tensor", {ns, M_PI_2}));
  LS_ASSIGN_OR_RETURN(nas, b.op("aten.neg.default", {as}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.where.self", {neg, nas, as}));
  return done(self, rw, y);
}

/// sum(x) over every dim = sum.dim_IntList(x, [0 .. rank-1]) (a 0-d x is its own sum); a
/// dtype argument casts first, as torch accumulates in it (DecomposeSumPass).
Status decomposeSumAll(ArmRewritePass& self, Rewriter& rw) {
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
  if (m.rank() == 0) return done(self, rw, x);
  std::vector<int64_t> dims(size_t(m.rank()));
  for (int d = 0; d < m.rank(); ++d) dims[size_t(d)] = d;
  LS_ASSIGN_OR_RETURN(y, b.op("aten.sum.dim_IntList", {x, ir::IntList(dims), false}));
  return done(self, rw, y);
}

/// rsub(x, other, alpha) = other - alpha * x = x * (-alpha) + other (DecomposeRsubPass).
Status decomposeRsub(ArmRewritePass& self, Rewriter& rw) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::Node& n = rw.node();
  auto other = sarg(n, 1).number();
  if (!other) return Status::error("rsub: 'other' must be a number");
  const double alpha = sarg(n, 2).number().value_or(1.0);
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(m, b.op("aten.mul.Tensor", {ref(rw, 0), -alpha}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.add.Tensor", {m, *other}));
  return done(self, rw, y);
}

// ---------------------------------------------------------------- more coverage

int64_t intOr(const ir::Arg& a, int64_t dflt) { return a.asInt() ? *a.asInt() : dflt; }
bool boolOr(const ir::Arg& a, bool dflt) { return a.asBool() ? *a.asBool() : dflt; }

Result<ValueRef> viewAs(Builder& b, ValueRef x, const std::vector<int64_t>& shape) {
  return b.op("aten.view_copy.default", {x, ir::IntList(shape)});
}

/// pixel_shuffle / pixel_unshuffle as view (..., C, r, r, H, W) + permute + view, leading dims
/// folded into one (DecomposePixelShufflePass).
Status decomposePixelShuffle(ArmRewritePass& self, Rewriter& rw) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::Node& n = rw.node();
  const bool shuffle = n.op == ir::internOp("aten.pixel_shuffle.default");
  auto r = sarg(n, 1).asInt();
  if (!r || *r <= 0) return Status::error("pixel_shuffle: the factor must be a positive int");
  const ir::TensorMeta& in = *argMeta(rw, 0);
  const ir::TensorMeta& out = n.meta();
  const ir::TensorMeta& big = shuffle ? in : out;  // the (C*r*r, H, W) side
  const int k = big.rank();
  const int64_t Cs = big.shape[k - 3] / (*r * *r), H = big.shape[k - 2], W = big.shape[k - 1];
  const int64_t B = big.shape.numel() / std::max<int64_t>(1, Cs * *r * *r * H * W);
  Builder b(rw);
  ValueRef y;
  if (shuffle) {
    LS_ASSIGN_OR_RETURN(v, viewAs(b, ref(rw, 0), {B, Cs, *r, *r, H, W}));
    LS_ASSIGN_OR_RETURN(p, b.op("aten.permute_copy.default", {v, ir::IntList{0, 1, 4, 2, 5, 3}}));
    LS_ASSIGN_OR_RETURN(o, viewAs(b, p, out.shape.toVector()));
    y = o;
  } else {
    LS_ASSIGN_OR_RETURN(v, viewAs(b, ref(rw, 0), {B, Cs, H, *r, W, *r}));
    LS_ASSIGN_OR_RETURN(p, b.op("aten.permute_copy.default", {v, ir::IntList{0, 1, 3, 5, 2, 4}}));
    LS_ASSIGN_OR_RETURN(o, viewAs(b, p, out.shape.toVector()));
    y = o;
  }
  return done(self, rw, y);
}

/// prelu(x, w) = where(x > 0, x, w * x), w viewed [1, C, 1, ...] (DecomposePreluPass).
Status decomposePrelu(ArmRewritePass& self, Rewriter& rw) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  LS_RETURN_IF_ERROR(needTensor(rw, 1, "weight"));
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  const ir::TensorMeta& wm = *argMeta(rw, 1);
  Builder b(rw);
  ValueRef w = ref(rw, 1);
  if (xm.rank() >= 2 && wm.shape.numel() > 1) {
    std::vector<int64_t> s(size_t(xm.rank()), 1);
    s[1] = xm.shape[1];
    LS_ASSIGN_OR_RETURN(v, viewAs(b, w, s));
    w = v;
  }
  LS_ASSIGN_OR_RETURN(pos, b.op("aten.gt.Scalar", {ref(rw, 0), 0.0}));
  LS_ASSIGN_OR_RETURN(scaled, b.op("aten.mul.Tensor", {ref(rw, 0), w}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.where.self", {pos, ref(rw, 0), scaled}));
  return done(self, rw, y);
}

/// glu(x, dim) = a * sigmoid(b), a and b the halves of x along dim (DecomposeGluPass).
Status decomposeGlu(ArmRewritePass& self, Rewriter& rw) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  const int dim = wrap(intOr(sarg(rw.node(), 1), -1), xm.rank());
  const int64_t h = xm.shape[dim] / 2;
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(a, b.op("aten.slice_copy.Tensor", {ref(rw, 0), int64_t(dim), int64_t(0), h, int64_t(1)}));
  LS_ASSIGN_OR_RETURN(g, b.op("aten.slice_copy.Tensor", {ref(rw, 0), int64_t(dim), h, 2 * h, int64_t(1)}));
  LS_ASSIGN_OR_RETURN(sg, b.op("aten.sigmoid.default", {g}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.mul.Tensor", {a, sg}));
  return done(self, rw, y);
}

/// logit(x, eps) = log(z * reciprocal(1 - z)), z = clamp(x, eps, 1 - eps) when eps is given
/// (DecomposeLogitPass).
Status decomposeLogit(ArmRewritePass& self, Rewriter& rw) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  Builder b(rw);
  ValueRef z = ref(rw, 0);
  if (auto eps = sarg(rw.node(), 1).number()) {
    LS_ASSIGN_OR_RETURN(c, b.op("aten.clamp.default", {z, *eps, 1.0 - *eps}));
    z = c;
  }
  LS_ASSIGN_OR_RETURN(nz, b.op("aten.neg.default", {z}));
  LS_ASSIGN_OR_RETURN(om, b.op("aten.add.Tensor", {nz, 1.0}));
  LS_ASSIGN_OR_RETURN(rc, b.op("aten.reciprocal.default", {om}));
  LS_ASSIGN_OR_RETURN(q, b.op("aten.mul.Tensor", {z, rc}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.log.default", {q}));
  return done(self, rw, y);
}

/// Float floor_divide(a, b) and remainder(a, b) = a - floor_divide(a, b) * b
/// (DecomposeFloorDividePass, DecomposeRemainderPass). TOSA has no float division, so
/// q = floor(a * reciprocal(b)) can be one off at exact multiples; with r = a - q * b it is
/// corrected as torch's div_floor computes: q + 1 when r is a whole b or more past zero
/// (r >= b for b > 0, r <= b for b < 0), q - 1 when r has the other sign than b. Integer
/// operands are left for the support check to name.
Status decomposeFloorDivRem(ArmRewritePass& self, Rewriter& rw) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::Node& n = rw.node();
  if (!ir::isFloating(n.meta().dtype)) return Status::ok();
  const std::string& op = ir::opName(n.op);
  const bool rem = op.rfind("aten.remainder.", 0) == 0;
  Builder b(rw);
  const ir::Arg other = n.args.size() > 1 ? n.args[1] : ir::Arg();
  const ValueRef a = ref(rw, 0);
  LS_ASSIGN_OR_RETURN(q0, b.op("aten.div.Tensor", {a, other}));
  LS_ASSIGN_OR_RETURN(f, b.op("aten.floor.default", {q0}));
  LS_ASSIGN_OR_RETURN(fb, b.op("aten.mul.Tensor", {f, other}));
  LS_ASSIGN_OR_RETURN(r, b.op("aten.sub.Tensor", {a, fb}));
  ValueRef up, down;
  if (auto v = other.number()) {  // the divisor's sign is known
    LS_ASSIGN_OR_RETURN(u, b.op(*v > 0 ? "aten.ge.Scalar" : "aten.le.Scalar", {r, *v}));
    LS_ASSIGN_OR_RETURN(d, b.op(*v > 0 ? "aten.lt.Scalar" : "aten.gt.Scalar", {r, 0.0}));
    up = u, down = d;
  } else {
    LS_ASSIGN_OR_RETURN(pos, b.op("aten.gt.Scalar", {other, 0.0}));
    LS_ASSIGN_OR_RETURN(geb, b.op("aten.ge.Tensor", {r, other}));
    LS_ASSIGN_OR_RETURN(leb, b.op("aten.le.Tensor", {r, other}));
    LS_ASSIGN_OR_RETURN(u, b.op("aten.where.self", {pos, geb, leb}));
    LS_ASSIGN_OR_RETURN(lt0, b.op("aten.lt.Scalar", {r, 0.0}));
    LS_ASSIGN_OR_RETURN(gt0, b.op("aten.gt.Scalar", {r, 0.0}));
    LS_ASSIGN_OR_RETURN(d, b.op("aten.where.self", {pos, lt0, gt0}));
    up = u, down = d;
  }
  LS_ASSIGN_OR_RETURN(f1, b.op("aten.add.Tensor", {f, 1.0}));
  LS_ASSIGN_OR_RETURN(q1, b.op("aten.where.self", {up, f1, f}));
  LS_ASSIGN_OR_RETURN(fm1, b.op("aten.sub.Tensor", {q1, 1.0}));
  LS_ASSIGN_OR_RETURN(q, b.op("aten.where.self", {down, fm1, q1}));
  if (!rem) return done(self, rw, q);
  LS_ASSIGN_OR_RETURN(qb, b.op("aten.mul.Tensor", {q, other}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.sub.Tensor", {a, qb}));
  return done(self, rw, y);
}

/// var / std over dims (all when none) with `correction` (default 1): mean, squared deviations,
/// sum * 1 / (N - correction), sqrt for std (DecomposeVarPass).
Status decomposeVar(ArmRewritePass& self, Rewriter& rw) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::Node& n = rw.node();
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  if (!ir::isFloating(xm.dtype)) return Status::ok();  // left for the support check to name
  std::vector<int64_t> dims;
  if (auto l = sarg(n, 1).asIntList()) dims.assign(l->begin(), l->end());
  else if (auto i = sarg(n, 1).asInt()) dims.push_back(*i);
  if (dims.empty())
    for (int d = 0; d < xm.rank(); ++d) dims.push_back(d);
  int64_t count = 1;
  for (int64_t& d : dims) d = wrap(d, xm.rank()), count *= xm.shape[int(d)];
  const bool varDim = n.op == ir::internOp("aten.var.dim");  // (x, dim, unbiased, keepdim)
  const double correction = varDim ? (boolOr(sarg(n, 2), true) ? 1.0 : 0.0) : sarg(n, 2).number().value_or(1.0);
  const bool keepdim = boolOr(sarg(n, 3), false);
  const bool isStd = n.op == ir::internOp("aten.std.correction");
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(mean, b.op("aten.mean.dim", {ref(rw, 0), ir::IntList(dims), true}));
  LS_ASSIGN_OR_RETURN(d, b.op("aten.sub.Tensor", {ref(rw, 0), mean}));
  LS_ASSIGN_OR_RETURN(d2, b.op("aten.mul.Tensor", {d, d}));
  LS_ASSIGN_OR_RETURN(sum, b.op("aten.sum.dim_IntList", {d2, ir::IntList(dims), keepdim}));
  const double denom = std::max(double(count) - correction, 0.0);
  LS_ASSIGN_OR_RETURN(var, b.op("aten.mul.Tensor", {sum, denom > 0 ? 1.0 / denom : INFINITY}));
  if (!isStd) return done(self, rw, var);
  LS_ASSIGN_OR_RETURN(y, b.op("aten.sqrt.default", {var}));
  return done(self, rw, y);
}

/// _weight_norm_interface(v, g, dim) -> w = v * g * rsqrt(sum(v * v) over every dim but `dim`)
/// and the norms sqrt(sum(v * v)) shaped like g. With constant v and g (weight-normalised
/// convolutions) w is computed here, a constant the convolution lowering can take.
Status decomposeWeightNorm(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "v"));
  LS_RETURN_IF_ERROR(needTensor(rw, 1, "g"));
  const ir::TensorMeta& vm = *argMeta(rw, 0);
  const ir::TensorMeta& gm = *argMeta(rw, 1);
  const int64_t dim = sarg(n, 2).asInt() ? *sarg(n, 2).asInt() : 0;
  std::vector<int64_t> dims;
  const int keep = dim == -1 ? -1 : wrap(dim, vm.rank());
  for (int d = 0; d < vm.rank(); ++d)
    if (d != keep) dims.push_back(d);
  Builder b(rw);
  ValueRef v = ref(rw, 0);
  std::optional<ValueRef> constW;  // constant v and g: w computed here (the weight of a convolution)
  if (transforms::constantBehind(rw.graph(), v) && transforms::constantBehind(rw.graph(), ref(rw, 1))) {
    LS_ASSIGN_OR_RETURN(wc, transforms::foldedConstant(rw.graph(), n));
    constW = b.constant(std::move(wc), "weight_normed");
  }
  LS_ASSIGN_OR_RETURN(sq, b.op("aten.mul.Tensor", {v, v}));
  ValueRef s = sq;
  if (!dims.empty()) {
    LS_ASSIGN_OR_RETURN(sum, b.op("aten.sum.dim_IntList", {sq, ir::IntList(dims), true}));
    s = sum;
  }
  const Shape sShape = b.meta(s).shape;
  if (gm.numel() != sShape.numel())
    return Status::error(fmt::format("weight norm: g {} does not match the norms {}", ir::toString(gm), ir::toString(sShape)));
  ValueRef w;
  if (constW) {
    w = *constW;
  } else {  // run-time v or g: w = v * g * rsqrt(s)
    LS_ASSIGN_OR_RETURN(gv, b.op("aten.view_copy.default", {ref(rw, 1), ir::IntList(sShape.toVector())}));
    LS_ASSIGN_OR_RETURN(inv, b.op("aten.rsqrt.default", {s}));
    LS_ASSIGN_OR_RETURN(scale, b.op("aten.mul.Tensor", {gv, inv}));
    LS_ASSIGN_OR_RETURN(wv, b.op("aten.mul.Tensor", {v, scale}));
    w = wv;
  }
  // The norms output (rarely read; dead code elimination drops it otherwise).
  LS_ASSIGN_OR_RETURN(norm, b.op("aten.sqrt.default", {s}));
  LS_ASSIGN_OR_RETURN(norms, b.op("aten.view_copy.default", {norm, ir::IntList(gm.shape.toVector())}));
  rw.replaceWith(std::vector<ValueRef>{w, norms});
  self.rewritten();
  return Status::ok();
}

/// linalg_vector_norm(x, ord, dim, keepdim): ord 2 sqrt(sum(x * x)), 1 sum(|x|), inf / -inf
/// amax / amin(|x|), other p pow(sum(pow(|x|, p)), 1 / p) (DecomposeLinalgVectorNormPass).
Status decomposeVectorNorm(ArmRewritePass& self, Rewriter& rw) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::Node& n = rw.node();
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  const double ord = sarg(n, 1).number().value_or(2.0);
  if (ord == 0.0) return Status::ok();  // a count of non-zeros: left for the support check to name
  std::vector<int64_t> dims;
  if (auto l = sarg(n, 2).asIntList()) dims.assign(l->begin(), l->end());
  if (dims.empty())
    for (int d = 0; d < xm.rank(); ++d) dims.push_back(d);
  const bool keepdim = boolOr(sarg(n, 3), false);
  Builder b(rw);
  ValueRef x = ref(rw, 0);
  ValueRef y;
  if (ord == 2.0) {
    LS_ASSIGN_OR_RETURN(x2, b.op("aten.mul.Tensor", {x, x}));
    LS_ASSIGN_OR_RETURN(s, b.op("aten.sum.dim_IntList", {x2, ir::IntList(dims), keepdim}));
    LS_ASSIGN_OR_RETURN(r, b.op("aten.sqrt.default", {s}));
    y = r;
  } else {
    LS_ASSIGN_OR_RETURN(a, b.op("aten.abs.default", {x}));
    if (std::isinf(ord)) {
      LS_ASSIGN_OR_RETURN(r, b.op(ord > 0 ? "aten.amax.default" : "aten.amin.default", {a, ir::IntList(dims), keepdim}));
      y = r;
    } else if (ord == 1.0) {
      LS_ASSIGN_OR_RETURN(r, b.op("aten.sum.dim_IntList", {a, ir::IntList(dims), keepdim}));
      y = r;
    } else {
      LS_ASSIGN_OR_RETURN(p, b.op("aten.pow.Tensor_Scalar", {a, ord}));
      LS_ASSIGN_OR_RETURN(s, b.op("aten.sum.dim_IntList", {p, ir::IntList(dims), keepdim}));
      LS_ASSIGN_OR_RETURN(r, b.op("aten.pow.Tensor_Scalar", {s, 1.0 / ord}));
      y = r;
    }
  }
  return done(self, rw, y);
}

/// clamp_min(x, v) = clamp(x, v, None).
Status convertClampMin(ArmRewritePass& self, Rewriter& rw) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(y, b.op("aten.clamp.default", {ref(rw, 0), sarg(rw.node(), 1), ir::Arg()}));
  return done(self, rw, y);
}

/// cumsum(x, dim) of floats: x with dim moved last, viewed [1, M, L], times the constant
/// upper-triangular ones [1, L, L] (bmm), viewed and moved back (DecomposeCumsumPass).
Status decomposeCumsum(ArmRewritePass& self, Rewriter& rw) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::Node& n = rw.node();
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  if (!ir::isFloating(xm.dtype) || n.meta().dtype != xm.dtype)
    return Status::ok();  // integer cumsum: left for the support check to name
  if (xm.rank() == 0) return done(self, rw, ref(rw, 0));
  const int dim = wrap(intOr(sarg(n, 1), 0), xm.rank());
  const int64_t L = xm.shape[dim], M = xm.shape.numel() / std::max<int64_t>(1, L);
  std::vector<int64_t> perm, back(size_t(xm.rank()));
  std::vector<int64_t> moved;
  for (int d = 0; d < xm.rank(); ++d)
    if (d != dim) perm.push_back(d), moved.push_back(xm.shape[d]);
  perm.push_back(dim);
  moved.push_back(L);
  for (size_t i = 0; i < perm.size(); ++i) back[size_t(perm[i])] = int64_t(i);
  exec::Tensor tri(xm.dtype, Shape{1, L, L});
  for (int64_t i = 0; i < L; ++i)
    for (int64_t j = i; j < L; ++j) tri.setDouble(i * L + j, 1.0);
  Builder b(rw);
  ValueRef x = ref(rw, 0);
  if (dim != xm.rank() - 1) {
    LS_ASSIGN_OR_RETURN(p, b.op("aten.permute_copy.default", {x, ir::IntList(perm)}));
    x = p;
  }
  LS_ASSIGN_OR_RETURN(v, viewAs(b, x, {1, M, L}));
  LS_ASSIGN_OR_RETURN(mm, b.op("aten.bmm.default", {v, b.tensor(tri, "cumsum_ones")}));
  LS_ASSIGN_OR_RETURN(vb, viewAs(b, mm, moved));
  ValueRef y = vb;
  if (dim != xm.rank() - 1) {
    LS_ASSIGN_OR_RETURN(p, b.op("aten.permute_copy.default", {y, ir::IntList(back)}));
    y = p;
  }
  return done(self, rw, y);
}

/// tril(x, k) = where(mask, x, 0) with the constant [R, C] mask col - row <= k (DecomposeTrilPass).
Status decomposeTril(ArmRewritePass& self, Rewriter& rw) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  const int64_t k = intOr(sarg(rw.node(), 1), 0);
  const int64_t R = xm.shape[xm.rank() - 2], C = xm.shape[xm.rank() - 1];
  std::vector<int64_t> ms(size_t(xm.rank()), 1);
  ms[ms.size() - 2] = R, ms[ms.size() - 1] = C;
  exec::Tensor mask(DType::Bool, Shape(ms));
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < C; ++c) mask.setInt(r * C + c, c - r <= k ? 1 : 0);
  Builder b(rw);
  ValueRef zero = b.scalar(xm.dtype, 0.0, xm.rank(), "zero");
  LS_ASSIGN_OR_RETURN(y, b.op("aten.where.self", {b.tensor(mask, "tril_mask"), ref(rw, 0), zero}));
  return done(self, rw, y);
}

/// flip(x, dims) -> one TOSA REVERSE per (distinct) dim (DecomposeFlipPass). After the INT
/// fold, so a quantised flip is reversed on its int8 values.
Status decomposeFlip(ArmRewritePass& self, Rewriter& rw) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  const ir::IntList* dims = sarg(rw.node(), 1).asIntList();
  if (!dims) return Status::error("flip: dims must be an int list");
  Builder b(rw);
  ValueRef y = ref(rw, 0);
  uint32_t seen = 0;
  for (int64_t d : *dims) {
    const int w = wrap(d, xm.rank());
    if (xm.rank() == 0 || (seen & (1u << w))) continue;
    seen |= 1u << w;
    LS_ASSIGN_OR_RETURN(r, b.op("tosa.REVERSE", {y}, {{"axis", int64_t(w)}}));
    y = r;
  }
  return done(self, rw, y);
}

/// eye(n[, m]) -> its constant (DecomposeEyePass).
Status decomposeEye(ArmRewritePass& self, Rewriter& rw) {
  const ir::TensorMeta& m = rw.node().meta();
  if (m.rank() != 2) return Status::error("eye: expected a 2-D result");
  exec::Tensor t(m.dtype, m.shape);
  for (int64_t i = 0; i < std::min(m.shape[0], m.shape[1]); ++i) t.setDouble(i * m.shape[1] + i, 1.0);
  Builder b(rw);
  return done(self, rw, b.tensor(t, "eye"));
}

/// embedding(w, idx) = index.Tensor(w, [idx]); index_select(x, dim, idx) = index.Tensor(x,
/// [None] * dim + [idx]): one GATHER each (DecomposeEmbeddingPass, DecomposeIndexSelectToGatherPass).
Status convertToIndexTensor(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  const bool emb = n.op == ir::internOp("aten.embedding.default");
  LS_RETURN_IF_ERROR(needTensor(rw, 0, emb ? "weight" : "input"));
  const size_t ia = emb ? 1 : 2;
  LS_RETURN_IF_ERROR(needTensor(rw, ia, "indices"));
  int dim = 0;
  if (!emb) {
    auto d = sarg(n, 1).asInt();
    if (!d) return Status::error("index_select: dim must be an int");
    dim = wrap(*d, argMeta(rw, 0)->rank());
  }
  ir::RefList idx(size_t(dim), ir::ValueRef{});
  idx.push_back(ref(rw, ia));
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(y, b.op("aten.index.Tensor", {ref(rw, 0), ir::Arg(idx)}));
  return done(self, rw, y);
}

/// round(x), half to even as torch.round: with fl = floor(x) and frac = x - fl (both exact in
/// float), the result is fl + 1 when frac > 0.5 or when frac == 0.5 and fl is odd, else fl.
/// (Upstream's DecomposeRoundPass uses floor(x + 0.5) / ceil(x - 0.5), which rounds ties away
/// from zero and loses odd integers from 2^23 on, where x + 0.5 is not representable.)
Status decomposeRound(ArmRewritePass& self, Rewriter& rw) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  if (!ir::isFloating(argMeta(rw, 0)->dtype)) {  // round of an integer tensor is the tensor
    rw.replaceWith(ref(rw, 0));
    self.rewritten();
    return Status::ok();
  }
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(fl, b.op("aten.floor.default", {ref(rw, 0)}));
  LS_ASSIGN_OR_RETURN(frac, b.op("aten.sub.Tensor", {ref(rw, 0), fl}));
  LS_ASSIGN_OR_RETURN(half, b.op("aten.mul.Tensor", {fl, 0.5}));
  LS_ASSIGN_OR_RETURN(halfFloor, b.op("aten.floor.default", {half}));
  LS_ASSIGN_OR_RETURN(even, b.op("aten.mul.Tensor", {halfFloor, 2.0}));
  LS_ASSIGN_OR_RETURN(parity, b.op("aten.sub.Tensor", {fl, even}));
  LS_ASSIGN_OR_RETURN(above, b.op("aten.gt.Scalar", {frac, 0.5}));
  LS_ASSIGN_OR_RETURN(tie, b.op("aten.eq.Scalar", {frac, 0.5}));
  LS_ASSIGN_OR_RETURN(odd, b.op("aten.eq.Scalar", {parity, 1.0}));
  LS_ASSIGN_OR_RETURN(tieOdd, b.op("aten.logical_and.default", {tie, odd}));
  LS_ASSIGN_OR_RETURN(up, b.op("aten.logical_or.default", {above, tieOdd}));
  LS_ASSIGN_OR_RETURN(next, b.op("aten.add.Tensor", {fl, 1.0}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.where.self", {up, next, fl}));
  rw.replaceWith(y);
  self.rewritten();
  return Status::ok();
}

// ---------------------------------------------------------------- reductions / norms

// ---------------------------------------------------------------- linear algebra

Status decomposeLinear(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  LS_RETURN_IF_ERROR(needTensor(rw, 1, "weight"));
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  const ir::TensorMeta& wm = *argMeta(rw, 1);
  if (wm.rank() != 2) return Status::error("linear weight must be rank 2");
  Builder b(rw);
  int64_t K = xm.shape[xm.rank() - 1], M = xm.numel() / std::max<int64_t>(K, 1);
  LS_ASSIGN_OR_RETURN(x2, b.op("aten.view_copy.default", {ref(rw, 0), ir::IntList{M, K}}));
  LS_ASSIGN_OR_RETURN(wt, b.op("aten.permute_copy.default", {ref(rw, 1), ir::IntList{1, 0}}));
  LS_ASSIGN_OR_RETURN(mm, b.op("aten.mm.default", {x2, wt}));
  ValueRef out = mm;
  if (const ir::ValueRef* bias = sarg(n, 2).ref()) {
    LS_ASSIGN_OR_RETURN(t, b.op("aten.add.Tensor", {out, *bias}));
    out = t;
  }
  Shape os = xm.shape;
  os[os.rank() - 1] = wm.shape[0];
  LS_ASSIGN_OR_RETURN(y, b.op("aten.view_copy.default", {out, ir::IntList(os.toVector())}));
  rw.replaceWith(y);
  self.rewritten();
  return Status::ok();
}

Status decomposeAddmm(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  for (size_t i = 0; i < 3; ++i) LS_RETURN_IF_ERROR(needTensor(rw, i, "operand"));
  auto beta = sarg(n, 3).number(), alpha = sarg(n, 4).number();
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(mm, b.op("aten.mm.default", {ref(rw, 1), ref(rw, 2)}));
  ValueRef prod = mm;
  if (alpha && *alpha != 1.0) {
    LS_ASSIGN_OR_RETURN(t, b.op("aten.mul.Tensor", {prod, *alpha}));
    prod = t;
  }
  ValueRef bias = ref(rw, 0);
  if (beta && *beta != 1.0) {
    LS_ASSIGN_OR_RETURN(t, b.op("aten.mul.Tensor", {bias, *beta}));
    bias = t;
  }
  LS_ASSIGN_OR_RETURN(y, b.op("aten.add.Tensor", {prod, bias}));
  rw.replaceWith(y);
  self.rewritten();
  return Status::ok();
}

Status convertMmToBmm(ArmRewritePass& self, Rewriter& rw) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "mat1"));
  LS_RETURN_IF_ERROR(needTensor(rw, 1, "mat2"));
  const ir::TensorMeta& a = *argMeta(rw, 0);
  const ir::TensorMeta& m2 = *argMeta(rw, 1);
  if (a.rank() != 2 || m2.rank() != 2) return Status::error("mm operands must be rank 2");
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(a3, b.op("aten.view_copy.default", {ref(rw, 0), ir::IntList{1, a.shape[0], a.shape[1]}}));
  LS_ASSIGN_OR_RETURN(b3, b.op("aten.view_copy.default", {ref(rw, 1), ir::IntList{1, m2.shape[0], m2.shape[1]}}));
  LS_ASSIGN_OR_RETURN(p, b.op("aten.bmm.default", {a3, b3}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.view_copy.default", {p, ir::IntList{a.shape[0], m2.shape[1]}}));
  rw.replaceWith(y);
  self.rewritten();
  return Status::ok();
}

// ---------------------------------------------------------------- convolutions

Status conv1dUnsqueeze(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  LS_RETURN_IF_ERROR(needTensor(rw, 1, "weight"));
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  const ir::TensorMeta& wm = *argMeta(rw, 1);
  if (wm.rank() != 3) return Status::ok();  // not a 1-D convolution
  auto stride = sints(n, 3, 1), pad = sints(n, 4, 1), dil = sints(n, 5, 1), opad = sints(n, 7, 1);
  if (!stride || !pad || !dil || !opad) return Status::error("convolution: expected int lists for stride/padding/dilation");
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(x4, b.op("aten.view_copy.default", {ref(rw, 0), ir::IntList{xm.shape[0], xm.shape[1], 1, xm.shape[2]}}));
  LS_ASSIGN_OR_RETURN(w4, b.op("aten.view_copy.default", {ref(rw, 1), ir::IntList{wm.shape[0], wm.shape[1], 1, wm.shape[2]}}));
  std::vector<ir::Arg> args = {x4, w4, sarg(n, 2), ir::IntList{1, (*stride)[0]}, ir::IntList{0, (*pad)[0]},
                               ir::IntList{1, (*dil)[0]}, sarg(n, 6), ir::IntList{0, (*opad)[0]}, sarg(n, 8)};
  LS_ASSIGN_OR_RETURN(c, b.op("aten.convolution.default", std::move(args)));
  const ir::TensorMeta& cm = b.meta(c);
  LS_ASSIGN_OR_RETURN(y, b.op("aten.view_copy.default", {c, ir::IntList{cm.shape[0], cm.shape[1], cm.shape[3]}}));
  rw.replaceWith(y);
  self.rewritten();
  return Status::ok();
}

/// A transposed convolution TOSA has no operator for (3-D, grouped or dilated) as a regular
/// one: the input gets stride - 1 zeros between elements (unsqueeze, PAD, view), dilation *
/// (k - 1) - padding rows around (PAD, or SLICE where that is negative, plus output_padding at
/// the end), and is convolved at stride 1 with the weight flipped in space and with its two
/// channel dims swapped per group ([Cin, Cout/g, k...] -> [Cout, Cin/g, k...]).
/// A convolution with transposed=True.
bool isTransposedConv(const ir::Node& n) {
  const ir::Arg& tr = sarg(n, 6);
  return tr.asBool() && *tr.asBool();
}

/// A convolution with groups > 1 that is not transposed (depthwise ones included: the rewrite
/// tells them apart by their shapes).
bool isGroupedConv(const ir::Node& n) {
  const ir::Arg& g = sarg(n, 8);
  return g.asInt() && *g.asInt() > 1 && !isTransposedConv(n);
}

Status decomposeTransposedConv(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  if (!isTransposedConv(n)) return Status::ok();
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  LS_RETURN_IF_ERROR(needTensor(rw, 1, "weight"));
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  const ir::TensorMeta& wm = *argMeta(rw, 1);
  const int S = xm.rank() - 2;
  if (S < 1 || S > 3 || wm.rank() != xm.rank())
    return Status::error(fmt::format("transposed convolution: expected a rank-3/4/5 input and weight, got {} and {}",
                                     ir::toString(xm), ir::toString(wm)));
  auto stride = sints(n, 3, size_t(S)), pad = sints(n, 4, size_t(S)), dil = sints(n, 5, size_t(S)),
       opad = sints(n, 7, size_t(S));
  auto groups = sarg(n, 8).asInt();
  if (!stride || !pad || !dil || !opad || !groups || stride->size() != size_t(S) || pad->size() != size_t(S) ||
      dil->size() != size_t(S) || opad->size() != size_t(S) || *groups < 1)
    return Status::error("transposed convolution: malformed stride/padding/dilation/output_padding/groups");
  bool undilated = true;
  for (int64_t d : *dil) undilated = undilated && d == 1;
  if (S <= 2 && *groups == 1 && undilated) return Status::ok();  // TRANSPOSE_CONV2D takes it
  auto wv = valueOfConstant(rw.graph(), ref(rw, 1));
  if (!wv) return Status::error("transposed convolution weight must be a constant for TOSA");
  const int64_t G = *groups, Cin = wm.shape[0], CoutG = wm.shape[1];
  if (Cin % G != 0 || xm.shape[1] != Cin)
    return Status::error(fmt::format("transposed convolution: {} input channels, weight {}, groups {}", xm.shape[1],
                                     ir::toString(wm), G));
  const int64_t CinG = Cin / G, Cout = CoutG * G;
  int64_t vol = 1;
  for (int i = 0; i < S; ++i) vol *= wm.shape[2 + i];
  Shape w2Shape = wm.shape;
  w2Shape[0] = Cout, w2Shape[1] = CinG;
  exec::Tensor w2(wv->dtype(), w2Shape);
  for (int64_t gi = 0; gi < G; ++gi)
    for (int64_t icg = 0; icg < CinG; ++icg)
      for (int64_t ocg = 0; ocg < CoutG; ++ocg) {
        const int64_t src = ((gi * CinG + icg) * CoutG + ocg) * vol, dst = ((gi * CoutG + ocg) * CinG + icg) * vol;
        for (int64_t k = 0; k < vol; ++k) w2.setDouble(dst + (vol - 1 - k), wv->getDouble(src + k));  // flip every spatial dim
      }
  Builder b(rw);
  ValueRef v = ref(rw, 0);
  // constant_pad_nd's pad list runs from the last dim backwards.
  auto padDim = [&](ValueRef x, int64_t dim, int64_t before, int64_t after) -> Result<ValueRef> {
    const int rank = b.meta(x).rank();
    ir::IntList p(size_t(2 * (rank - dim)), 0);
    p[size_t(2 * (rank - 1 - dim))] = before;
    p[size_t(2 * (rank - 1 - dim) + 1)] = after;
    return b.op("aten.constant_pad_nd.default", {x, p, 0.0});
  };
  for (int i = 0; i < S; ++i) {
    const int64_t dim = 2 + i, s = (*stride)[size_t(i)], k = wm.shape[2 + i];
    if (s < 1) return Status::error(fmt::format("transposed convolution: stride {} must be positive", s));
    if (s > 1) {
      const Shape cur = b.meta(v).shape;
      const int64_t len = cur[dim];
      std::vector<int64_t> up = cur.toVector();
      up.insert(up.begin() + dim + 1, 1);
      LS_ASSIGN_OR_RETURN(u, b.op("aten.view_copy.default", {v, ir::IntList(up)}));
      LS_ASSIGN_OR_RETURN(pz, padDim(u, dim + 1, 0, s - 1));
      std::vector<int64_t> flat = cur.toVector();
      flat[size_t(dim)] = len * s;
      LS_ASSIGN_OR_RETURN(f, b.op("aten.view_copy.default", {pz, ir::IntList(flat)}));
      LS_ASSIGN_OR_RETURN(sl, b.op("aten.slice_copy.Tensor", {f, dim, int64_t(0), (len - 1) * s + 1, int64_t(1)}));
      v = sl;
    }
    int64_t before = (*dil)[size_t(i)] * (k - 1) - (*pad)[size_t(i)];
    int64_t after = before + (*opad)[size_t(i)];
    const int64_t len = b.meta(v).shape[dim];
    if (before < 0 || after < 0) {
      const int64_t from = std::max<int64_t>(0, -before), to = len - std::max<int64_t>(0, -after);
      if (to <= from) return Status::error("transposed convolution: padding removes the whole input");
      LS_ASSIGN_OR_RETURN(sl, b.op("aten.slice_copy.Tensor", {v, dim, from, to, int64_t(1)}));
      v = sl;
      before = std::max<int64_t>(0, before), after = std::max<int64_t>(0, after);
    }
    if (before > 0 || after > 0) {
      LS_ASSIGN_OR_RETURN(p, padDim(v, dim, before, after));
      v = p;
    }
  }
  const ir::IntList ones(size_t(S), 1), zeros(size_t(S), 0);
  LS_ASSIGN_OR_RETURN(c, b.op("aten.convolution.default",
                              {v, b.tensor(w2, "weight_flipped"), sarg(n, 2), ones, zeros, ir::IntList(*dil), false, zeros, G}));
  if (b.meta(c).shape != n.meta().shape)
    return Status::error(fmt::format("transposed convolution: the decomposition gives {}, expected {}",
                                     ir::toString(b.meta(c)), ir::toString(n.meta())));
  rw.replaceWith(c);
  self.rewritten();
  return Status::ok();
}

Status decomposeGroupedConv(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  if (!isGroupedConv(n)) return Status::ok();
  const ir::Arg& g = sarg(n, 8);
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  LS_RETURN_IF_ERROR(needTensor(rw, 1, "weight"));
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  const ir::TensorMeta& wm = *argMeta(rw, 1);
  const int64_t groups = *g.asInt(), cin = xm.shape[1], cout = wm.shape[0];
  if (wm.shape[1] == 1 && cin == groups && xm.rank() <= 4) return Status::ok();  // depthwise 1-D/2-D: DEPTHWISE_CONV2D
  const int64_t ci = cin / groups, co = cout / groups;
  Builder b(rw);
  std::vector<ValueRef> parts;
  for (int64_t k = 0; k < groups; ++k) {
    LS_ASSIGN_OR_RETURN(xs, b.op("aten.slice_copy.Tensor", {ref(rw, 0), 1, k * ci, (k + 1) * ci, 1}));
    LS_ASSIGN_OR_RETURN(ws, b.op("aten.slice_copy.Tensor", {ref(rw, 1), 0, k * co, (k + 1) * co, 1}));
    ir::Arg bias;
    if (const ir::ValueRef* br = sarg(n, 2).ref()) {
      LS_ASSIGN_OR_RETURN(bs, b.op("aten.slice_copy.Tensor", {*br, 0, k * co, (k + 1) * co, 1}));
      bias = bs;
    }
    LS_ASSIGN_OR_RETURN(c, b.op("aten.convolution.default",
                    {xs, ws, bias, sarg(n, 3), sarg(n, 4), sarg(n, 5), false, sarg(n, 7), int64_t(1)}));
    parts.push_back(c);
  }
  LS_ASSIGN_OR_RETURN(y, b.op("aten.cat.default", {ir::RefList(parts.begin(), parts.end()), 1}));
  rw.replaceWith(y);
  self.rewritten();
  return Status::ok();
}

Status decomposeAdaptiveAvgPool(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  auto os = sints(n, 1, 2);
  if (!os || xm.rank() != 4) return Status::error("adaptive_avg_pool2d: expected a rank-4 input and output_size");
  int64_t k[2];
  bool divisible = true;
  for (int i = 0; i < 2; ++i) {
    int64_t in = xm.shape[2 + i], out = (*os)[size_t(i)];
    if (out <= 0 || in <= 0)
      return Status::error(fmt::format("adaptive_avg_pool2d: output size {} for input size {}", out, in));
    divisible = divisible && in % out == 0;
    k[i] = in / out;
  }
  Builder b(rw);
  if (divisible) {
    LS_ASSIGN_OR_RETURN(y, b.op("aten.avg_pool2d.default", {ref(rw, 0), ir::IntList{k[0], k[1]}, ir::IntList{k[0], k[1]},
                                                ir::IntList{0, 0}, false, true, ir::Arg()}));
    rw.replaceWith(y);
    self.rewritten();
    return Status::ok();
  }
  // Bins of unequal size (PyTorch: rows floor(o * in / out) to ceil((o + 1) * in / out), which
  // overlap or repeat when out does not divide in): per dim, one slice + mean per output row,
  // concatenated.
  ValueRef v = ref(rw, 0);
  for (int i = 0; i < 2; ++i) {
    const int64_t in = xm.shape[2 + i], out = (*os)[size_t(i)], dim = 2 + i;
    if (in == out) continue;
    ir::RefList parts;
    for (int64_t o = 0; o < out; ++o) {
      const int64_t s = (o * in) / out, e = ((o + 1) * in + out - 1) / out;
      LS_ASSIGN_OR_RETURN(sl, b.op("aten.slice_copy.Tensor", {v, dim, s, e, int64_t(1)}));
      ValueRef m = sl;
      if (e - s > 1) {
        LS_ASSIGN_OR_RETURN(mean, b.op("aten.mean.dim", {sl, ir::IntList{dim}, true}));
        m = mean;
      }
      parts.push_back(m);
    }
    LS_ASSIGN_OR_RETURN(c, b.op("aten.cat.default", {parts, dim}));
    v = c;
  }
  rw.replaceWith(v);
  self.rewritten();
  return Status::ok();
}

/// avg_pool2d counting padded zeros (count_include_pad) = explicit zero PAD + unpadded pool.
Status decomposeAvgPool(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  auto pad = sints(n, 3, 2);
  const ir::Arg& cip = sarg(n, 5);
  const ir::Arg& ceil = sarg(n, 4);
  if (!sarg(n, 6).isNone()) return Status::error("avg_pool2d divisor_override is not supported");
  if (!pad || ((*pad)[0] == 0 && (*pad)[1] == 0) || !(cip.asBool() && *cip.asBool())) return Status::ok();
  if (ceil.asBool() && *ceil.asBool()) return Status::error("avg_pool2d with ceil_mode and count_include_pad is not supported");
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(p, b.op("aten.constant_pad_nd.default",
                  {ref(rw, 0), ir::IntList{(*pad)[1], (*pad)[1], (*pad)[0], (*pad)[0]}, 0.0}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.avg_pool2d.default", {p, sarg(n, 1), sarg(n, 2), ir::IntList{0, 0}, false, true, ir::Arg()}));
  rw.replaceWith(y);
  self.rewritten();
  return Status::ok();
}

// ---------------------------------------------------------------- shape ops

Status convertSplitToSlice(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  const ir::Arg& dimArg = sarg(n, 2);
  int dim = wrap(dimArg.asInt() ? *dimArg.asInt() : 0, xm.rank());
  Builder b(rw);
  std::vector<ValueRef> outs;
  int64_t start = 0;
  for (const ir::TensorMeta& om : n.outputs) {
    int64_t len = om.shape[dim];
    LS_ASSIGN_OR_RETURN(s, b.op("aten.slice_copy.Tensor", {ref(rw, 0), int64_t(dim), start, start + len, 1}));
    outs.push_back(s);
    start += len;
  }
  rw.replaceWith(outs);
  self.rewritten();
  return Status::ok();
}

/// any(x[, dim(s)][, keepdim]) -> x != 0 (unless bool), then REDUCE_ANY per reduced dim (TOSA
/// keeps the dim) and a view that drops them unless keepdim.
Status decomposeAny(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  const bool all = n.op == ir::internOp("aten.any.default");
  std::vector<int64_t> dims;
  if (!all) {
    if (auto l = sarg(n, 1).asIntList()) dims.assign(l->begin(), l->end());
    else if (auto i = sarg(n, 1).asInt()) dims.push_back(*i);
  }
  if (dims.empty())
    for (int d = 0; d < xm.rank(); ++d) dims.push_back(d);
  for (int64_t& d : dims) d = wrap(d, std::max(xm.rank(), 1));
  std::sort(dims.begin(), dims.end());
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  Builder b(rw);
  ValueRef v = ref(rw, 0);
  if (xm.dtype != DType::Bool) {
    ir::Arg zero = ir::isFloating(xm.dtype) ? ir::Arg(0.0) : ir::Arg(int64_t(0));
    LS_ASSIGN_OR_RETURN(nz, b.op("aten.ne.Scalar", {v, zero}));
    v = nz;
  }
  if (xm.rank() > 0)
    for (int64_t d : dims) {
      LS_ASSIGN_OR_RETURN(r, b.op("tosa.REDUCE_ANY", {v}, {{"axis", d}}));
      v = r;
    }
  const ir::TensorMeta& om = n.meta();
  if (b.meta(v).shape != om.shape) {
    LS_ASSIGN_OR_RETURN(r, b.op("aten.view_copy.default", {v, ir::IntList(om.shape.toVector())}));
    v = r;
  }
  if (om.dtype != DType::Bool) {
    LS_ASSIGN_OR_RETURN(c, b.op("aten._to_copy.default", {v}, {{"dtype", ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(om.dtype)})}}));
    v = c;
  }
  rw.replaceWith(v);
  self.rewritten();
  return Status::ok();
}

/// 3-D pools, which TOSA has no operator for: the 2-D pool over (H, W) of x viewed as
/// [N, C * D, H, W], then per output depth a window of kd slices (padded with -inf for max,
/// zeros for avg) reduced by amax, or summed and scaled by PyTorch's divisor for that depth
/// (the 2-D pool already divided by the height/width part, which is the same at every depth).
Status decomposePool3d(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  const std::string& op = ir::opName(n.op);
  const bool isMax = op != "aten.avg_pool3d.default";
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  if (xm.rank() != 4 && xm.rank() != 5) return Status::error(fmt::format("{}: expected a rank-4 or rank-5 input, got {}", op, ir::toString(xm)));
  auto k = sints(n, 1, 3), st = sints(n, 2, 3), pd = sints(n, 3, 3);
  if (!k || !pd || k->size() != 3 || pd->size() != 3) return Status::error(fmt::format("{}: malformed kernel_size/padding", op));
  if (!st || st->empty()) st = k;
  if (st->size() != 3) return Status::error(fmt::format("{}: malformed stride", op));
  bool ceil = false, countIncludePad = true;
  if (isMax) {
    auto dl = sints(n, 4, 3);
    if (dl && (dl->size() != 3 || (*dl)[0] != 1 || (*dl)[1] != 1 || (*dl)[2] != 1))
      return Status::error(fmt::format("{}: dilation is not supported (TOSA pools have none)", op));
    ceil = boolOr(sarg(n, 5), false);
    // Only the pooled values may be read: the indices have no lowering.
    for (ir::NodeId u : rw.graph().users(n.id)) {
      const ir::Node& un = rw.graph().node(u);
      const ir::Arg& i = un.args.size() > 1 ? un.args[1] : ir::Arg();
      if (un.op != ir::internOp("operator.getitem") || !i.asInt())
        return Status::error(fmt::format("{}: read directly by '{}'", op, un.name));
      if (*i.asInt() == 1 && !rw.graph().users(u).empty())
        return Status::error(fmt::format("{}: its indices (read by '{}') have no TOSA lowering", op, un.name));
    }
  } else {
    ceil = boolOr(sarg(n, 4), false);
    countIncludePad = boolOr(sarg(n, 5), true);
    if (!sarg(n, 6).isNone()) return Status::error("avg_pool3d: divisor_override is not supported");
  }
  const int r = xm.rank(), dAxis = r - 3;
  const int64_t D = xm.shape[dAxis], H = xm.shape[r - 2], W = xm.shape[r - 1];
  const int64_t lead = xm.numel() / std::max<int64_t>(D * H * W, 1);
  const ir::TensorMeta& om = n.outputs[0];
  const int64_t OD = om.shape[dAxis], OH = om.shape[r - 2], OW = om.shape[r - 1];
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(x4, b.op("aten.view_copy.default", {ref(rw, 0), ir::IntList{1, lead * D, H, W}}));
  ValueRef p2;
  if (isMax) {
    LS_ASSIGN_OR_RETURN(v, b.op("aten.max_pool2d.default", {x4, ir::IntList{(*k)[1], (*k)[2]}, ir::IntList{(*st)[1], (*st)[2]},
                                                            ir::IntList{(*pd)[1], (*pd)[2]}, ir::IntList{1, 1}, ceil}));
    p2 = v;
  } else {
    LS_ASSIGN_OR_RETURN(v, b.op("aten.avg_pool2d.default", {x4, ir::IntList{(*k)[1], (*k)[2]}, ir::IntList{(*st)[1], (*st)[2]},
                                                            ir::IntList{(*pd)[1], (*pd)[2]}, ceil, countIncludePad, ir::Arg()}));
    p2 = v;
  }
  if (b.meta(p2).shape != Shape{1, lead * D, OH, OW})
    return Status::error(fmt::format("{}: the 2-D pool gives {}, expected [1, {}, {}, {}]", op, ir::toString(b.meta(p2)), lead * D, OH, OW));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.view_copy.default", {p2, ir::IntList{lead, D, OH * OW}}));
  // Depth windows over the padded depth axis (dim 1 of [lead, D, OH * OW]).
  const int64_t kd = (*k)[0], sd = (*st)[0], pdd = (*pd)[0];
  const int64_t need = (OD - 1) * sd + kd;  // padded length the windows read
  const int64_t padEnd = std::max<int64_t>(0, need - D - pdd);
  ValueRef yp = y;
  if (pdd > 0 || padEnd > 0) {
    const double fill = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
    LS_ASSIGN_OR_RETURN(pv, b.op("aten.constant_pad_nd.default", {y, ir::IntList{0, 0, pdd, padEnd}, fill}));
    yp = pv;
  }
  ir::RefList parts;
  for (int64_t o = 0; o < OD; ++o) {
    const int64_t from = o * sd;
    LS_ASSIGN_OR_RETURN(win, b.op("aten.slice_copy.Tensor", {yp, int64_t(1), from, from + kd, int64_t(1)}));
    if (isMax) {
      LS_ASSIGN_OR_RETURN(m, b.op("aten.amax.default", {win, ir::IntList{1}, true}));
      parts.push_back(m);
      continue;
    }
    // PyTorch's divisor, depth part: the window clipped to input + padding (count_include_pad)
    // or to the input.
    const int64_t d0 = o * sd - pdd, d1 = std::min(d0 + kd, D + pdd);
    const int64_t div = countIncludePad ? d1 - d0 : std::min(d1, D) - std::max<int64_t>(d0, 0);
    LS_ASSIGN_OR_RETURN(sum, b.op("aten.sum.dim_IntList", {win, ir::IntList{1}, true}));
    LS_ASSIGN_OR_RETURN(m, b.op("aten.mul.Tensor", {sum, div > 0 ? 1.0 / double(div) : 0.0}));
    parts.push_back(m);
  }
  ValueRef z = parts[0];
  if (parts.size() > 1) {
    LS_ASSIGN_OR_RETURN(cat, b.op("aten.cat.default", {parts, int64_t(1)}));
    z = cat;
  }
  LS_ASSIGN_OR_RETURN(out, b.op("aten.view_copy.default", {z, ir::IntList(om.shape.toVector())}));
  if (n.outputs.size() > 1) {
    rw.replaceWith(std::vector<ValueRef>{out, b.tensor(exec::Tensor(n.outputs[1].dtype, n.outputs[1].shape), "unused_indices")});
  } else {
    rw.replaceWith(out);
  }
  self.rewritten();
  return Status::ok();
}

/// scaled_dot_product_attention(q, k, v, mask, dropout_p, is_causal, scale) ->
/// softmax(q @ k^T * scale + mask) @ v with the batch dims flattened for BMM: a bool mask (True
/// keeps) and is_causal become masked_fill with -inf, a float mask is added. Eval only
/// (dropout_p 0); q, k and v share their batch dims.
Status decomposeSdpa(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  for (size_t i = 0; i < 3; ++i) LS_RETURN_IF_ERROR(needTensor(rw, i, i == 0 ? "query" : i == 1 ? "key" : "value"));
  const ir::TensorMeta &qm = *argMeta(rw, 0), &km = *argMeta(rw, 1), &vm = *argMeta(rw, 2);
  const int r = qm.rank();
  if (r < 2 || km.rank() != r || vm.rank() != r)
    return Status::error(fmt::format("scaled_dot_product_attention: q, k, v must have the same rank >= 2, got {}, {}, {}",
                                     ir::toString(qm), ir::toString(km), ir::toString(vm)));
  int64_t batch = 1;
  for (int d = 0; d < r - 2; ++d) {
    if (km.shape[d] != qm.shape[d] || vm.shape[d] != qm.shape[d])
      return Status::error(fmt::format("scaled_dot_product_attention: batch dims of q {}, k {}, v {} differ",
                                       ir::toString(qm), ir::toString(km), ir::toString(vm)));
    batch *= qm.shape[d];
  }
  const double dropout = sarg(n, 4).number().value_or(0.0);
  if (dropout != 0.0) return Status::error(fmt::format("scaled_dot_product_attention: dropout_p {} (training) has no lowering", dropout));
  const bool causal = boolOr(sarg(n, 5), false);
  const int64_t L = qm.shape[r - 2], E = qm.shape[r - 1], S = km.shape[r - 2], Ev = vm.shape[r - 1];
  const double scale = sarg(n, 6).number().value_or(1.0 / std::sqrt(double(E)));
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(q3, b.op("aten.view_copy.default", {ref(rw, 0), ir::IntList{batch, L, E}}));
  LS_ASSIGN_OR_RETURN(k3, b.op("aten.view_copy.default", {ref(rw, 1), ir::IntList{batch, S, E}}));
  LS_ASSIGN_OR_RETURN(kt, b.op("aten.permute_copy.default", {k3, ir::IntList{0, 2, 1}}));
  LS_ASSIGN_OR_RETURN(qk, b.op("aten.bmm.default", {q3, kt}));
  LS_ASSIGN_OR_RETURN(scaled, b.op("aten.mul.Tensor", {qk, scale}));
  std::vector<int64_t> scoreShape = qm.shape.toVector();
  scoreShape[size_t(r - 1)] = S;
  LS_ASSIGN_OR_RETURN(sc, b.op("aten.view_copy.default", {scaled, ir::IntList(scoreShape)}));
  ValueRef scores = sc;
  if (causal) {
    exec::Tensor keep(DType::Bool, Shape{L, S});
    for (int64_t i = 0; i < L; ++i)
      for (int64_t j = 0; j < S; ++j) keep.setInt(i * S + j, j <= i);
    LS_ASSIGN_OR_RETURN(drop, b.op("aten.logical_not.default", {b.tensor(keep, "causal_keep")}));
    LS_ASSIGN_OR_RETURN(m, b.op("aten.masked_fill.Scalar", {scores, drop, -std::numeric_limits<double>::infinity()}));
    scores = m;
  }
  if (const ir::ValueRef* mask = sarg(n, 3).ref()) {
    if (rw.meta(*mask).dtype == DType::Bool) {
      LS_ASSIGN_OR_RETURN(drop, b.op("aten.logical_not.default", {*mask}));
      LS_ASSIGN_OR_RETURN(m, b.op("aten.masked_fill.Scalar", {scores, drop, -std::numeric_limits<double>::infinity()}));
      scores = m;
    } else {
      LS_ASSIGN_OR_RETURN(m, b.op("aten.add.Tensor", {scores, *mask}));
      scores = m;
    }
  }
  LS_ASSIGN_OR_RETURN(attn, b.op("aten._softmax.default", {scores, int64_t(-1), false}));
  LS_ASSIGN_OR_RETURN(a3, b.op("aten.view_copy.default", {attn, ir::IntList{batch, L, S}}));
  LS_ASSIGN_OR_RETURN(v3, b.op("aten.view_copy.default", {ref(rw, 2), ir::IntList{batch, S, Ev}}));
  LS_ASSIGN_OR_RETURN(o3, b.op("aten.bmm.default", {a3, v3}));
  LS_ASSIGN_OR_RETURN(out, b.op("aten.view_copy.default", {o3, ir::IntList(n.meta().shape.toVector())}));
  rw.replaceWith(out);
  self.rewritten();
  return Status::ok();
}

/// unbind(x, dim) -> one slice + view (dim dropped) per index.
Status decomposeUnbind(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  if (xm.rank() == 0) return Status::error("unbind: expected at least a 1-dimensional input");
  const ir::Arg& dimArg = sarg(n, 1);
  const int dim = wrap(dimArg.asInt() ? *dimArg.asInt() : 0, xm.rank());
  if (int64_t(n.outputs.size()) != xm.shape[dim])
    return Status::error(fmt::format("unbind: {} outputs for a dim of size {}", n.outputs.size(), xm.shape[dim]));
  Builder b(rw);
  std::vector<ValueRef> outs;
  for (int64_t i = 0; i < xm.shape[dim]; ++i) {
    LS_ASSIGN_OR_RETURN(s, b.op("aten.slice_copy.Tensor", {ref(rw, 0), int64_t(dim), i, i + 1, int64_t(1)}));
    LS_ASSIGN_OR_RETURN(v, b.op("aten.view_copy.default", {s, ir::IntList(n.outputs[size_t(i)].shape.toVector())}));
    outs.push_back(v);
  }
  rw.replaceWith(outs);
  self.rewritten();
  return Status::ok();
}

/// stack(tensors, dim) -> each viewed with a 1 inserted at dim, then cat along dim.
Status decomposeStack(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  const ir::RefList* list = sarg(n, 0).asRefList();
  if (!list || list->empty()) return Status::error("stack: expected a non-empty list of tensors");
  const ir::TensorMeta& om = n.meta();
  const ir::Arg& dimArg = sarg(n, 1);
  const int dim = wrap(dimArg.asInt() ? *dimArg.asInt() : 0, om.rank());
  std::vector<int64_t> shape = om.shape.toVector();
  shape[size_t(dim)] = 1;
  Builder b(rw);
  ir::RefList parts;
  for (ValueRef r : *list) {
    LS_ASSIGN_OR_RETURN(v, b.op("aten.view_copy.default", {r, ir::IntList(shape)}));
    parts.push_back(v);
  }
  ValueRef y = parts[0];
  if (parts.size() > 1) {
    LS_ASSIGN_OR_RETURN(c, b.op("aten.cat.default", {parts, int64_t(dim)}));
    y = c;
  }
  rw.replaceWith(y);
  self.rewritten();
  return Status::ok();
}

Status decomposeSelect(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  auto d = sarg(n, 1).asInt();
  auto i = sarg(n, 2).asInt();
  if (!d || !i) return Status::error("select_copy: expected int dim and index");
  int dim = wrap(*d, xm.rank());
  int64_t idx = *i < 0 ? *i + xm.shape[dim] : *i;
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(s, b.op("aten.slice_copy.Tensor", {ref(rw, 0), int64_t(dim), idx, idx + 1, 1}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.view_copy.default", {s, ir::IntList(n.meta().shape.toVector())}));
  rw.replaceWith(y);
  self.rewritten();
  return Status::ok();
}

Status convertSqueezesToView(ArmRewritePass& self, Rewriter& rw) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(y, b.op("aten.view_copy.default", {ref(rw, 0), ir::IntList(rw.node().meta().shape.toVector())}));
  rw.replaceWith(y);
  self.rewritten();
  return Status::ok();
}

Status convertTransposeToPermute(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const int r = argMeta(rw, 0)->rank();
  std::vector<int64_t> perm(static_cast<size_t>(r));
  std::iota(perm.begin(), perm.end(), 0);
  if (ir::opName(n.op) == "aten.t_copy.default") {
    if (r == 2) std::swap(perm[0], perm[1]);
  } else {
    auto a = sarg(n, 1).asInt(), c = sarg(n, 2).asInt();
    if (!a || !c) return Status::error("transpose_copy: expected int dims");
    std::swap(perm[size_t(wrap(*a, r))], perm[size_t(wrap(*c, r))]);
  }
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(y, b.op("aten.permute_copy.default", {ref(rw, 0), ir::IntList(perm)}));
  rw.replaceWith(y);
  self.rewritten();
  return Status::ok();
}

Status convertExpandToRepeat(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  const Shape& os = n.meta().shape;
  Builder b(rw);
  ValueRef x = ref(rw, 0);
  Shape xs = xm.shape;
  if (xs.rank() < os.rank()) {  // UnsqueezeBeforeRepeat: leading ones first
    Shape u = Shape::ofRank(os.rank() - xs.rank(), 1);
    for (int64_t d : xm.shape.dims()) u.push(d);
    LS_ASSIGN_OR_RETURN(v, b.op("aten.view_copy.default", {x, ir::IntList(u.toVector())}));
    x = v, xs = u;
  }
  std::vector<int64_t> mult(size_t(os.rank()), 1);
  for (int i = 0; i < os.rank(); ++i) mult[size_t(i)] = xs[i] == os[i] ? 1 : os[i];
  LS_ASSIGN_OR_RETURN(y, b.op("aten.repeat.default", {x, ir::IntList(mult)}));
  rw.replaceWith(y);
  self.rewritten();
  return Status::ok();
}

// ---------------------------------------------------------------- other FXJSON ops

/// as_strided_copy that re-applies contiguous strides (offset 0) is a view.
Status decomposeAsStrided(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  auto size = sints(n, 1), stride = sints(n, 2);
  auto off = sarg(n, 3).asInt();
  if (!size || !stride || size->size() != stride->size())
    return Status::error("as_strided_copy: expected size and stride lists of equal length");
  int64_t expect = 1;
  for (size_t i = size->size(); i-- > 0;) {
    if ((*size)[i] != 1 && (*stride)[i] != expect)
      return Status::error("as_strided_copy with non-contiguous strides is not supported by the TOSA lowering");
    expect *= (*size)[i];
  }
  if ((off && *off != 0) || expect != argMeta(rw, 0)->numel())
    return Status::error("as_strided_copy with a storage offset or a different element count is not supported");
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(y, b.op("aten.view_copy.default", {ref(rw, 0), ir::IntList(*size)}));
  rw.replaceWith(y);
  self.rewritten();
  return Status::ok();
}

/// masked_fill(x, mask, v) = where(mask, v, x); ne = logical_not(eq).
Status decomposeMaskedFillNe(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  const std::string& op = ir::opName(n.op);
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  Builder b(rw);
  if (op == "aten.masked_fill.Scalar") {
    LS_RETURN_IF_ERROR(needTensor(rw, 1, "mask"));
    auto v = sarg(n, 2).number();
    if (!v) return Status::error("masked_fill value must be a number");
    LS_ASSIGN_OR_RETURN(y, b.op("aten.where.self", {ref(rw, 1), *v, ref(rw, 0)}));
    rw.replaceWith(y);
  } else {
    const std::string eq = op == "aten.ne.Scalar" ? "aten.eq.Scalar" : "aten.eq.Tensor";
    LS_ASSIGN_OR_RETURN(e, b.op(eq, {ref(rw, 0), sarg(n, 1)}));
    LS_ASSIGN_OR_RETURN(y, b.op("aten.logical_not.default", {e}));
    rw.replaceWith(y);
  }
  self.rewritten();
  return Status::ok();
}

/// roll along given dims = cat of the two slices per dim.
Status decomposeRoll(ArmRewritePass& self, Rewriter& rw) {
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
  self.rewritten();
  return Status::ok();
}

/// slice_scatter(x, src, dim, start, end, 1) = cat(x[:start], src, x[end:]).
Status decomposeSliceScatter(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  LS_RETURN_IF_ERROR(needTensor(rw, 1, "src"));
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  int d = wrap(sarg(n, 2).asInt() ? *sarg(n, 2).asInt() : 0, xm.rank());
  const int64_t len = xm.shape[d];
  if (sarg(n, 5).asInt() && *sarg(n, 5).asInt() != 1) return Status::error("slice_scatter with step != 1 is not supported");
  int64_t start = sarg(n, 3).asInt() ? *sarg(n, 3).asInt() : 0;
  if (start < 0) start += len;
  start = std::clamp<int64_t>(start, 0, len);
  const int64_t end = start + argMeta(rw, 1)->shape[d];
  Builder b(rw);
  ir::RefList parts;
  if (start > 0) {
    LS_ASSIGN_OR_RETURN(h, b.op("aten.slice_copy.Tensor", {ref(rw, 0), int64_t(d), int64_t(0), start, 1}));
    parts.push_back(h);
  }
  parts.push_back(ref(rw, 1));
  if (end < len) {
    LS_ASSIGN_OR_RETURN(t, b.op("aten.slice_copy.Tensor", {ref(rw, 0), int64_t(d), end, len, 1}));
    parts.push_back(t);
  }
  LS_ASSIGN_OR_RETURN(y, b.op("aten.cat.default", {parts, int64_t(d)}));
  rw.replaceWith(y);
  self.rewritten();
  return Status::ok();
}

/// new_zeros -> a zero constant; fill.Tensor(x, v) -> v viewed to x's rank and repeated.
Status decomposeFactories(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  const ir::TensorMeta& om = n.meta();
  Builder b(rw);
  const std::string& op = ir::opName(n.op);
  bool readsTensor = false;
  n.forEachInput([&](ValueRef) { readsTensor = true; });
  if (!readsTensor) {
    // zeros / ones / full / empty / scalar_tensor / arange / linspace: no tensor inputs, so
    // the reference executor's values are the constant (empty's unspecified values: zeros).
    LS_ASSIGN_OR_RETURN(c, transforms::foldedConstant(rw.graph(), n));
    rw.replaceWith(b.constant(std::move(c), "factory"));
  } else if (op == "aten.new_zeros.default" || op == "aten.zeros_like.default" || op == "aten.new_empty.default" ||
             op == "aten.zero.default") {
    rw.replaceWith(b.tensor(exec::Tensor(om.dtype, om.shape), "zeros"));
  } else if (op == "aten.ones_like.default" || op == "aten.fill.Scalar" || op == "aten.full_like.default" ||
             op == "aten.new_ones.default" || op == "aten.new_full.default") {
    // A constant of the output's shape: the input's values are not read.
    double v = 1.0;
    if (op != "aten.ones_like.default" && op != "aten.new_ones.default") {
      auto num = sarg(n, op == "aten.new_full.default" ? 2 : 1).number();
      if (!num) return Status::error(fmt::format("{}: the fill value must be a number", op));
      v = *num;
    }
    exec::Tensor t(om.dtype, om.shape);
    for (int64_t i = 0; i < t.numel(); ++i) t.setDouble(i, v);
    rw.replaceWith(b.tensor(t, "filled"));
  } else {
    LS_RETURN_IF_ERROR(needTensor(rw, 1, "value"));
    if (argMeta(rw, 1)->numel() != 1) return Status::error("fill.Tensor value must have one element");
    ValueRef v = ref(rw, 1);
    if (argMeta(rw, 1)->dtype != om.dtype) {
      LS_ASSIGN_OR_RETURN(c, b.op("aten._to_copy.default", {v}, {{"dtype", ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(om.dtype)})}}));
      v = c;
    }
    LS_ASSIGN_OR_RETURN(u, b.op("aten.view_copy.default", {v, ir::IntList(std::vector<int64_t>(size_t(std::max(om.rank(), 1)), 1))}));
    LS_ASSIGN_OR_RETURN(y, b.op("aten.repeat.default", {u, ir::IntList(om.rank() ? om.shape.toVector() : std::vector<int64_t>{1})}));
    ValueRef out = y;
    if (om.rank() == 0) {
      LS_ASSIGN_OR_RETURN(z, b.op("aten.view_copy.default", {y, ir::IntList{}}));
      out = z;
    }
    rw.replaceWith(out);
  }
  self.rewritten();
  return Status::ok();
}

// ---------------------------------------------------------------- scalars, ranks, dtypes

/// Elementwise binary ops whose operands MatchArgRanksPass / MatchArgDtypePass align.
const std::vector<std::string>& binaryElementwiseOps() {
  static const std::vector<std::string> ops = {
      "aten.add.Tensor",          "aten.sub.Tensor",           "aten.mul.Tensor",
      "aten.maximum.default",     "aten.minimum.default",      "aten.eq.Tensor",
      "aten.gt.Tensor",           "aten.ge.Tensor",            "aten.lt.Tensor",
      "aten.le.Tensor",           "aten.where.self",           "aten.logical_and.default",
      "aten.logical_or.default",  "aten.logical_xor.default",  "aten.pow.Tensor_Tensor",
      "aten.bitwise_and.Tensor",  "aten.bitwise_or.Tensor",    "aten.bitwise_xor.Tensor",
      "aten.bitwise_left_shift.Tensor"};
  return ops;
}

bool isBinaryArith(const std::string& op) {
  const auto& ops = binaryElementwiseOps();
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

/// Scalars in tensor slots (and .Scalar overloads, alpha) become rank-matched constants.
Status replaceScalarWithTensor(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  std::string op = ir::opName(n.op);
  static const std::map<std::string, std::string> kScalarOps = {
      {"aten.add.Scalar", "aten.add.Tensor"}, {"aten.sub.Scalar", "aten.sub.Tensor"},
      {"aten.mul.Scalar", "aten.mul.Tensor"}, {"aten.eq.Scalar", "aten.eq.Tensor"},
      {"aten.gt.Scalar", "aten.gt.Tensor"},   {"aten.ge.Scalar", "aten.ge.Tensor"},
      {"aten.lt.Scalar", "aten.lt.Tensor"},   {"aten.le.Scalar", "aten.le.Tensor"},
      {"aten.pow.Tensor_Scalar", "aten.pow.Tensor_Tensor"}, {"aten.bitwise_and.Scalar", "aten.bitwise_and.Tensor"},
      {"aten.bitwise_or.Scalar", "aten.bitwise_or.Tensor"},   {"aten.bitwise_xor.Scalar", "aten.bitwise_xor.Tensor"},
      {"aten.__lshift__.Scalar", "aten.bitwise_left_shift.Tensor"}};
  if (auto it = kScalarOps.find(op); it != kScalarOps.end()) op = it->second;
  const bool where = op == "aten.where.self";
  const size_t first = where ? 1 : 0;
  // Reference operand (dtype and rank of the constants): the node's own result dtype.
  const ir::TensorMeta& out = n.meta();
  int rank = 0;
  for (size_t i = 0; i < n.args.size() && i < first + 2; ++i)
    if (const ir::TensorMeta* m = argMeta(rw, i)) rank = std::max(rank, m->rank());
  std::vector<ir::Arg> args(n.args.begin(), n.args.end());
  Builder b(rw);
  bool changed = op != ir::opName(n.op);
  DType cdt = out.dtype == DType::Bool && !where ? DType::Undefined : out.dtype;
  if (cdt == DType::Undefined)  // comparisons: the tensor operand's dtype
    for (size_t i = 0; i < 2 && i < n.args.size(); ++i)
      if (const ir::TensorMeta* m = argMeta(rw, i)) cdt = m->dtype;
  for (size_t i = first; i < first + 2 && i < args.size(); ++i) {
    if (auto v = args[i].number()) {
      args[i] = b.scalar(cdt, *v, rank, "scalar");
      changed = true;
    }
  }
  // alpha of add/sub: other * alpha.
  std::vector<ir::Kwarg> kwargs;
  for (const ir::Kwarg& k : n.kwargs) {
    if (k.name == "alpha") {
      auto a = k.value.number();
      if (a && *a != 1.0) {
        LS_ASSIGN_OR_RETURN(m, b.op("aten.mul.Tensor", {args[1], b.scalar(cdt, *a, rank, "alpha")}));
        args[1] = m;
      }
      changed = changed || (a && *a != 1.0);
      continue;
    }
    kwargs.push_back(k);
  }
  if (args.size() > 2 && !where && (op == "aten.add.Tensor" || op == "aten.sub.Tensor")) {
    auto a = args[2].number();
    if (a && *a != 1.0) {
      LS_ASSIGN_OR_RETURN(m, b.op("aten.mul.Tensor", {args[1], b.scalar(cdt, *a, rank, "alpha")}));
      args[1] = m;
    }
    args.resize(2);
    changed = true;
  }
  if (!changed) return Status::ok();
  rw.rewriteInPlace(op, std::move(args), std::move(kwargs));
  self.rewritten();
  return Status::ok();
}

Status matchArgRanks(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  if (!isBinaryArith(ir::opName(n.op))) return Status::ok();
  int rank = 0;
  for (size_t i = 0; i < n.args.size(); ++i)
    if (const ir::TensorMeta* m = argMeta(rw, i)) rank = std::max(rank, m->rank());
  std::vector<ir::Arg> args(n.args.begin(), n.args.end());
  Builder b(rw);
  bool changed = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const ir::TensorMeta* m = argMeta(rw, i);
    if (!m || m->rank() == rank) continue;
    Shape s = Shape::ofRank(rank - m->rank(), 1);
    for (int64_t d : m->shape.dims()) s.push(d);
    LS_ASSIGN_OR_RETURN(v, b.op("aten.view_copy.default", {args[i], ir::IntList(s.toVector())}));
    args[i] = v;
    changed = true;
  }
  if (!changed) return Status::ok();
  rw.setArgs(std::move(args));
  self.rewritten();
  return Status::ok();
}

Status matchArgDtype(ArmRewritePass& self, Rewriter& rw) {
  const ir::Node& n = rw.node();
  const std::string& op = ir::opName(n.op);
  if (!isBinaryArith(op)) return Status::ok();
  const size_t first = op == "aten.where.self" ? 1 : 0;
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
    if (m->dtype == DType::Bool && ir::isFloating(target)) {  // upstream: bool -> int8 -> float (no bool -> float CAST)
      LS_ASSIGN_OR_RETURN(i8, b.op("aten._to_copy.default", {args[i]}, {{"dtype", ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(DType::Int8)})}}));
      args[i] = i8;
    }
    LS_ASSIGN_OR_RETURN(v, b.op("aten._to_copy.default", {args[i]}, {{"dtype", ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(target)})}}));
    args[i] = v;
    changed = true;
  }
  if (!changed) return Status::ok();
  rw.setArgs(std::move(args));
  self.rewritten();
  return Status::ok();
}

// ---------------------------------------------------------------- in-place passes

}  // namespace

void registerArmDecompositionPasses(passes::PassRegistry& r) {
  // One registration per pass: its name, description, target ops and rewrite,
  // given once.
  auto rewrite = [&](const std::string& name, std::string desc, std::vector<std::string> targets, ArmRewritePass::Fn fn,
                     Gate gate = Gate::any()) { r.add(name, [=] { return mk(name, desc, targets, fn, gate); }); };
  rewrite("ConvertToClampPass", "relu/hardtanh -> clamp", {"aten.relu.default", "aten.hardtanh.default"},
          convertToClamp);
  rewrite("DecomposeGeluPass", "gelu -> erf (exact) or tanh (approximate) form", {"aten.gelu.default"}, decomposeGelu);
  rewrite("DecomposeLeakyReLUPass", "leaky_relu -> clamp(x, 0) + slope * clamp(x, max=0)",
          {"aten.leaky_relu.default"}, decomposeLeakyRelu);
  rewrite("DecomposeEluPass", "elu -> scale * (clamp(x, 0) + alpha * (exp(input_scale * clamp(x, max=0)) - 1))",
          {"aten.elu.default"}, decomposeElu);
  rewrite("DecomposeRoundPass", "round (half to even) -> floor, parity and where", {"aten.round.default"},
          decomposeRound);
  rewrite("DecomposeAnyPass", "any -> x != 0, REDUCE_ANY per dim, view",
          {"aten.any.default", "aten.any.dim", "aten.any.dims"}, decomposeAny);
  rewrite("DecomposeSumPass", "sum over every dim -> sum.dim_IntList", {"aten.sum.default"}, decomposeSumAll);
  rewrite("DecomposeRsubPass", "rsub(x, other, alpha) -> x * -alpha + other", {"aten.rsub.Scalar"}, decomposeRsub);
  rewrite("DecomposePixelShufflePass", "pixel_shuffle / pixel_unshuffle -> view + permute + view",
          {"aten.pixel_shuffle.default", "aten.pixel_unshuffle.default"}, decomposePixelShuffle);
  rewrite("DecomposePreluPass", "prelu -> where(x > 0, x, w * x)", {"aten.prelu.default"}, decomposePrelu);
  rewrite("DecomposeGluPass", "glu -> first half * sigmoid(second half)", {"aten.glu.default"}, decomposeGlu);
  rewrite("DecomposeLogitPass", "logit -> log(z / (1 - z)), z clamped to [eps, 1 - eps]", {"aten.logit.default"},
          decomposeLogit);
  rewrite("DecomposeFloorDividePass", "float floor_divide -> floor(a / b)",
          {"aten.floor_divide.default", "aten.floor_divide.Scalar"}, decomposeFloorDivRem);
  rewrite("DecomposeRemainderPass", "float remainder -> a - floor(a / b) * b",
          {"aten.remainder.Tensor", "aten.remainder.Scalar"}, decomposeFloorDivRem);
  rewrite("DecomposeVarPass", "var / std -> mean, squared deviations, sum / (N - correction) [, sqrt]",
          {"aten.var.correction", "aten.var.dim", "aten.std.correction"}, decomposeVar);
  rewrite("DecomposeLinalgVectorNormPass", "linalg_vector_norm / norm -> abs / pow, sum or amax, root",
          {"aten.linalg_vector_norm.default", "aten.norm.ScalarOpt_dim", "aten.norm.Scalar"}, decomposeVectorNorm);
  rewrite("ConvertClampMinPass", "clamp_min -> clamp(x, min, None)", {"aten.clamp_min.default"}, convertClampMin);
  rewrite("DecomposeCumsumPass", "cumsum -> bmm with constant upper-triangular ones", {"aten.cumsum.default"},
          decomposeCumsum);
  rewrite("DecomposeTrilPass", "tril -> where(constant mask, x, 0)", {"aten.tril.default"}, decomposeTril);
  rewrite("DecomposeFlipPass", "flip -> one REVERSE per dim", {"aten.flip.default"}, decomposeFlip);
  rewrite("DecomposeEyePass", "eye -> constant", {"aten.eye.default", "aten.eye.m"}, decomposeEye);
  rewrite("DecomposeEmbeddingPass", "embedding -> index.Tensor (one GATHER)", {"aten.embedding.default"},
          convertToIndexTensor);
  rewrite("DecomposeIndexSelectToGatherPass", "index_select -> index.Tensor (one GATHER)",
          {"aten.index_select.default"}, convertToIndexTensor);
  rewrite("DecomposeExpm1Pass", "expm1 -> exp(x) - 1", {"aten.expm1.default"}, decomposeExpm1);
  rewrite("DecomposeLog1pPass", "log1p -> log(x + 1)", {"aten.log1p.default"}, decomposeLog1p);
  rewrite("DecomposeSignPass", "sign -> where(x > 0, 1, where(x < 0, -1, x))", {"aten.sign.default"}, decomposeSign);
  rewrite("DecomposeSinhPass", "sinh -> (exp(x) - exp(-x)) / 2", {"aten.sinh.default"}, decomposeSinh);
  rewrite("DecomposeCoshPass", "cosh -> (exp(x) + exp(-x)) / 2", {"aten.cosh.default"}, decomposeCosh);
  rewrite("DecomposeTanPass", "tan -> sin(x) * reciprocal(cos(x))", {"aten.tan.default"}, decomposeTan);
  rewrite("DecomposeAsinhPass", "asinh -> sign(x) * log(|x| + sqrt(x^2 + 1))", {"aten.asinh.default"},
          decomposeAsinh);
  rewrite("DecomposeAcoshPass", "acosh -> log(x + sqrt(x^2 - 1))", {"aten.acosh.default"}, decomposeAcosh);
  rewrite("DecomposeAtanhPass", "atanh -> (log(1 + x) - log(1 - x)) / 2", {"aten.atanh.default"}, decomposeAtanh);
  rewrite("DecomposeAtanPass", "atan -> range-reduced polynomial (A&S 4.4.49)", {"aten.atan.default"},
          decomposeAtan);
  rewrite("DecomposeAsinAndAcosPass", "asin/acos -> sqrt(1 - |x|) * polynomial (A&S 4.4.46)",
          {"aten.asin.default", "aten.acos.default"}, decomposeAsinAcos);
  rewrite("DecomposeLinearPass", "linear -> view + mm(x, w^T) + bias", {"aten.linear.default"}, decomposeLinear);
  rewrite("DecomposeAddmmPass", "addmm -> mm + add", {"aten.addmm.default"}, decomposeAddmm);
  rewrite("ConvertMmToBmmPass", "mm -> rank-3 bmm with views", {"aten.mm.default"}, convertMmToBmm);
  rewrite("Conv1dUnsqueezePass", "1-D convolution -> 2-D convolution of height 1", {"aten.convolution.default"},
          conv1dUnsqueeze);
  rewrite("DecomposeWeightNormPass", "_weight_norm_interface -> v * g * rsqrt(sum(v * v)), norms sqrt(sum(v * v))",
          {"aten._weight_norm_interface.default"}, decomposeWeightNorm);
  // Candidates read from the node's arguments: a graph of plain convolutions skips both.
  auto rewriteOnly = [&](const std::string& name, std::string desc, std::vector<std::string> targets,
                         ArmRewritePass::Fn fn, bool (*candidate)(const ir::Node&), std::string none) {
    r.add(name, [=] {
      auto p = std::make_unique<ArmRewritePass>(name, desc, targets, fn);
      p->onlyFor(candidate, none);
      return p;
    });
  };
  rewriteOnly("DecomposeTransposedConvPass",
              "transposed convolution TOSA has no operator for (3-D, grouped, dilated) -> zero-inserted input + convolution",
              {"aten.convolution.default"}, decomposeTransposedConv, isTransposedConv, "no transposed convolution");
  rewriteOnly("DecomposeGroupedConvPass", "grouped (non-depthwise) convolution -> per-group convs + cat",
              {"aten.convolution.default"}, decomposeGroupedConv, isGroupedConv, "no grouped convolution");
  rewrite("DecomposeAdaptiveAvgPool2dPass", "adaptive_avg_pool2d with divisible sizes -> avg_pool2d",
          {"aten.adaptive_avg_pool2d.default", "aten._adaptive_avg_pool2d.default"}, decomposeAdaptiveAvgPool);
  rewrite("DecomposeAvgPool2dPass", "avg_pool2d counting padding -> zero pad + unpadded pool",
          {"aten.avg_pool2d.default"}, decomposeAvgPool);
  rewrite("ConvertSplitToSlicePass", "split -> one slice per output (getitems folded)",
          {"aten.split_copy.Tensor", "aten.split_with_sizes_copy.default", "aten.split.Tensor"}, convertSplitToSlice);
  rewrite("DecomposePool3dPass", "max_pool3d / avg_pool3d -> 2-D pool over (H, W) + amax / scaled sum over depth windows",
          {"aten.max_pool3d_with_indices.default", "aten.max_pool3d.default", "aten.avg_pool3d.default"}, decomposePool3d);
  rewrite("DecomposeSdpaPass", "scaled_dot_product_attention -> bmm, scale, mask, softmax, bmm",
          {"aten.scaled_dot_product_attention.default"}, decomposeSdpa);
  rewrite("DecomposeUnbindPass", "unbind -> slice + view per index", {"aten.unbind_copy.int"}, decomposeUnbind);
  rewrite("DecomposeStackPass", "stack -> view (unsqueeze) per input + cat", {"aten.stack.default"}, decomposeStack);
  rewrite("DecomposeSelectPass", "select -> slice + view", {"aten.select_copy.int"}, decomposeSelect);
  rewrite("ConvertSqueezesToViewPass", "squeeze/unsqueeze -> view_copy",
          {"aten.unsqueeze_copy.default", "aten.squeeze_copy.dim", "aten.squeeze_copy.dims",
           "aten.squeeze_copy.default", "aten._unsafe_view.default", "aten.reshape.default", "aten.view.default"},
          convertSqueezesToView);
  rewrite("ConvertTransposeToPermutePass", "t_copy/transpose_copy -> permute_copy",
          {"aten.t_copy.default", "aten.transpose_copy.int"}, convertTransposeToPermute);
  rewrite("ConvertExpandCopyToRepeatPass", "expand_copy -> (unsqueeze view) + repeat", {"aten.expand_copy.default"},
          convertExpandToRepeat);
  rewrite("ReplaceScalarWithTensorPass", "Python scalars and alpha in elementwise ops -> rank-matched constants",
          {"aten.add.Tensor", "aten.sub.Tensor", "aten.mul.Tensor", "aten.add.Scalar", "aten.sub.Scalar",
           "aten.mul.Scalar", "aten.maximum.default", "aten.minimum.default", "aten.eq.Scalar", "aten.gt.Scalar",
           "aten.ge.Scalar", "aten.lt.Scalar", "aten.le.Scalar", "aten.where.self", "aten.pow.Tensor_Scalar",
           "aten.bitwise_and.Scalar", "aten.bitwise_or.Scalar", "aten.bitwise_xor.Scalar", "aten.__lshift__.Scalar"},
          replaceScalarWithTensor);
  const std::vector<std::string>& kBinary = binaryElementwiseOps();
  rewrite("MatchArgRanksPass",
          "lower-rank operands of elementwise ops get leading unit dims "
          "(view_copy)",
          kBinary, matchArgRanks);
  rewrite("MatchArgDtypePass", "operands of elementwise ops cast to one dtype",
          kBinary, matchArgDtype);
  // Batch norm (core/transforms/batch_norm.h) with the Arm options: training mode is an error.
  r.add("FuseBatchNorm2dPass", [] {
    return std::make_unique<transforms::FuseBatchNormPass>("FuseBatchNorm2dPass", transforms::BatchNormOptions{});
  });
  r.add("DecomposeBatchNormNoStatsPass", [] {
    return std::make_unique<transforms::DecomposeBatchNormPass>("DecomposeBatchNormNoStatsPass",
                                                                transforms::BatchNormOptions{});
  });
  rewrite("DecomposeAsStridedCopyPass",
          "contiguous as_strided_copy -> view_copy",
          {"aten.as_strided_copy.default"}, decomposeAsStrided);
  rewrite("DecomposeMaskedFillPass",
          "masked_fill -> where; ne -> logical_not(eq)",
          {"aten.masked_fill.Scalar", "aten.ne.Scalar", "aten.ne.Tensor"},
          decomposeMaskedFillNe);
  rewrite("DecomposeRollPass", "roll -> slices + cat", {"aten.roll.default"},
          decomposeRoll);
  rewrite("DecomposeSliceScatterPass", "slice_scatter -> slices + cat",
          {"aten.slice_scatter.default"}, decomposeSliceScatter);
  rewrite("DecomposeFactoriesPass",
          "factories (zeros, ones, full, empty, scalar_tensor, arange, new_*, *_like, fill.Scalar) -> constant; "
          "fill.Tensor -> view + repeat",
          {"aten.new_zeros.default", "aten.new_ones.default", "aten.new_full.default", "aten.new_empty.default",
           "aten.fill.Tensor", "aten.fill.Scalar", "aten.zeros_like.default", "aten.ones_like.default",
           "aten.full_like.default", "aten.zeros.default", "aten.ones.default", "aten.full.default",
           "aten.empty.memory_format", "aten.scalar_tensor.default", "aten.arange.start_step",
           "aten.arange.default", "aten.arange.start", "aten.zero.default", "aten.linspace.default"},
          decomposeFactories);
  // Constant folding (core/transforms/constant_folding.h), upstream's FuseConstantArgsPass:
  // every op whose inputs are all constants (TOSA shape operands evaluated along) becomes a
  // constant, so weights get their target layout at compile time and computed constants (a
  // mask from arange, a weight computed from parameters) reach TOSA as data.
  r.add("FuseConstantArgsPass", [] {
    return std::make_unique<transforms::FoldConstantsRetracePass>(
        "FuseConstantArgsPass", "Evaluates ops whose inputs are all constants into new constants",
        std::vector<std::string>{},
        transforms::ConstantFoldingOptions{.argLessProducers = true, .nameAfterInput = true, .anyOp = true});
  });
}

} // namespace ls::arm
