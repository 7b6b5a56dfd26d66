// DecomposeSdpaPass (upstream backends/arm/_passes/decompose_sdpa_pass.py):
// scaled_dot_product_attention -> bmm, scale, mask, softmax, bmm.
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

/// scaled_dot_product_attention(q, k, v, mask, dropout_p, is_causal, scale) ->
/// softmax(q @ k^T * scale + mask) @ v with the batch dims flattened for BMM: a bool mask (True
/// keeps) and is_causal become masked_fill with -inf, a float mask is added. Eval only
/// (dropout_p 0); q, k and v share their batch dims.
Result<bool> decomposeSdpa(passes::Rewriter& rw, passes::RuleStats&) {
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
  return true;
}

}  // namespace

void registerDecomposeSdpaPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeSdpaPass",
                      .description = "scaled_dot_product_attention -> bmm, scale, mask, softmax, bmm",
                      .targets = {"aten.scaled_dot_product_attention.default"},
                      .rewrite = decomposeSdpa});
}

}  // namespace ls::arm
