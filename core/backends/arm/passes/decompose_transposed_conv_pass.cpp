// DecomposeTransposedConvPass (no upstream file of this name at the pinned commit): transposed convolution
// TOSA has no operator for (3-D, grouped, dilated) -> zero-inserted input + convolution.
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

Result<bool> decomposeTransposedConv(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  if (!isTransposedConv(n)) return false;
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
  if (S <= 2 && *groups == 1 && undilated) return false;  // TRANSPOSE_CONV2D takes it
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
  return true;
}

}  // namespace

void registerDecomposeTransposedConvPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeTransposedConvPass",
                      .description = "transposed convolution TOSA has no operator for (3-D, grouped, dilated) -> zero-inserted input + convolution",
                      .targets = {"aten.convolution.default"},
                      .rewrite = decomposeTransposedConv,
                      .candidate = isTransposedConv,
                      .noCandidate = "no transposed convolution"});
}

}  // namespace ls::arm
