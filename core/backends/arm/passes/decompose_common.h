// Helpers shared by the ATen-level Arm decompositions in this directory (blocks 1, 3, 4 and 5 of
// upstream's list: one file per pass, each a passes::PassSpec). Every rewrite keeps PyTorch
// semantics and emits ATen ops with registered metas and kernels, so each step is checked by the
// verifier and can be compared with the reference executor. A rewrite that two passes share
// (floor_divide/remainder, embedding/index_select, sinh/cosh) lives here too.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <numeric>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/ir/op_ref.h"
#include "core/passes/pass_manager.h"
#include "core/passes/rule_pass.h"
#include "core/transforms/batch_norm.h"
#include "core/transforms/constant_folding.h"
#include "core/transforms/constant_values.h"

/// Helpers of the decompose pass files only (nested namespace: no clash with other ls::arm names).
namespace ls::arm::decompose {

using passes::Rewriter;
using ir::DType;
using ir::Shape;

inline Status needTensor(const Rewriter& rw, size_t i, const char* what) {
  if (!argMeta(rw, i)) return Status::error(fmt::format("{} (arg #{}) must be a tensor", what, i));
  return Status::ok();
}

inline ValueRef ref(const Rewriter& rw, size_t i) { return *rw.node().args[i].ref(); }

// Float forms of unary functions TOSA has no operator for (upstream's Decompose*Pass of each);
// under INT a quantised one is a TABLE before these run (InsertTableOpsPass).

/// Replaces the node with `y` (the shared tail of the unary decompositions).
inline Result<bool> done(passes::Rewriter& rw, ValueRef y) {
  rw.replaceWith(y);
  return true;
}

/// p(t) = c[0] + c[1] t + ... + c[n] t^n by Horner's rule (aten mul/add with number operands).
inline Result<ValueRef> horner(Builder& b, ValueRef t, const std::vector<double>& c) {
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
inline Result<ValueRef> withSignOf(Builder& b, ValueRef x, ValueRef y) {
  LS_ASSIGN_OR_RETURN(neg, b.op("aten.lt.Scalar", {x, 0.0}));
  LS_ASSIGN_OR_RETURN(my, b.op("aten.neg.default", {y}));
  return b.op("aten.where.self", {neg, my, y});
}

/// sinh(x) = (exp(x) - exp(-x)) / 2, cosh(x) = (exp(x) + exp(-x)) / 2 (DecomposeSinhPass,
/// DecomposeCoshPass).
inline Result<bool> decomposeSinhCosh(passes::Rewriter& rw, passes::RuleStats&, bool cosh) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  Builder b(rw);
  ValueRef x = ref(rw, 0);
  LS_ASSIGN_OR_RETURN(ep, b.op("aten.exp.default", {x}));
  LS_ASSIGN_OR_RETURN(nx, b.op("aten.neg.default", {x}));
  LS_ASSIGN_OR_RETURN(en, b.op("aten.exp.default", {nx}));
  LS_ASSIGN_OR_RETURN(s, b.op(cosh ? "aten.add.Tensor" : "aten.sub.Tensor", {ep, en}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.mul.Tensor", {s, 0.5}));
  return done(rw, y);
}

inline int64_t intOr(const ir::Arg& a, int64_t dflt) { return a.asInt() ? *a.asInt() : dflt; }

inline bool boolOr(const ir::Arg& a, bool dflt) { return a.asBool() ? *a.asBool() : dflt; }

inline Result<ValueRef> viewAs(Builder& b, ValueRef x, const std::vector<int64_t>& shape) {
  return b.op("aten.view_copy.default", {x, ir::IntList(shape)});
}

/// Float floor_divide(a, b) and remainder(a, b) = a - floor_divide(a, b) * b
/// (DecomposeFloorDividePass, DecomposeRemainderPass). TOSA has no float division, so
/// q = floor(a * reciprocal(b)) can be one off at exact multiples; with r = a - q * b it is
/// corrected as torch's div_floor computes: q + 1 when r is a whole b or more past zero
/// (r >= b for b > 0, r <= b for b < 0), q - 1 when r has the other sign than b. Integer
/// operands are left for the support check to name.
inline Result<bool> decomposeFloorDivRem(passes::Rewriter& rw, passes::RuleStats&) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::Node& n = rw.node();
  if (!ir::isFloating(n.meta().dtype)) return false;
  const bool rem = n.op == LS_OP("aten.remainder.Tensor") || n.op == LS_OP("aten.remainder.Scalar");
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
  if (!rem) return done(rw, q);
  LS_ASSIGN_OR_RETURN(qb, b.op("aten.mul.Tensor", {q, other}));
  LS_ASSIGN_OR_RETURN(y, b.op("aten.sub.Tensor", {a, qb}));
  return done(rw, y);
}

/// embedding(w, idx) = index.Tensor(w, [idx]); index_select(x, dim, idx) = index.Tensor(x,
/// [None] * dim + [idx]): one GATHER each (DecomposeEmbeddingPass, DecomposeIndexSelectToGatherPass).
inline Result<bool> convertToIndexTensor(passes::Rewriter& rw, passes::RuleStats&) {
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
  return done(rw, y);
}

/// A transposed convolution TOSA has no operator for (3-D, grouped or dilated) as a regular
/// one: the input gets stride - 1 zeros between elements (unsqueeze, PAD, view), dilation *
/// (k - 1) - padding rows around (PAD, or SLICE where that is negative, plus output_padding at
/// the end), and is convolved at stride 1 with the weight flipped in space and with its two
/// channel dims swapped per group ([Cin, Cout/g, k...] -> [Cout, Cin/g, k...]).
/// A convolution with transposed=True.
inline bool isTransposedConv(const ir::Node& n) {
  const ir::Arg& tr = sarg(n, 6);
  return tr.asBool() && *tr.asBool();
}

/// Elementwise binary ops whose operands MatchArgRanksPass / MatchArgDtypePass align.
inline const std::vector<std::string>& binaryElementwiseOps() {
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

inline bool isBinaryArith(ir::OpId op) {
  static const std::vector<ir::OpId> ids = [] {
    std::vector<ir::OpId> v;
    for (const std::string& name : binaryElementwiseOps()) v.push_back(ir::internOp(name));
    return v;
  }();
  return std::find(ids.begin(), ids.end(), op) != ids.end();
}

}  // namespace ls::arm::decompose
