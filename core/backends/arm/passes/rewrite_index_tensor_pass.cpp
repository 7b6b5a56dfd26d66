// RewriteIndexTensorPass (no upstream file of this name at the pinned commit): index.Tensor with one index
// tensor -> GATHER.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/backends/arm/passes/aten_to_tosa_common.h"
#include "core/backends/arm/tosa/tosa_validate.h"
#include "core/passes/rule_pass.h"
#include "core/transforms/constant_values.h"

namespace ls::arm {

using passes::Rewriter;
using ir::DType;
using ir::Shape;
using namespace aten_to_tosa;

namespace {

/// x[..., idx, ...] with one index tensor on dim d -> GATHER over x viewed as [1, K, C]
/// (d moved to the front), indices cast to int32; negative indices wrapped with SELECT.
Result<bool> rewriteIndex(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  LS_ASSIGN_OR_RETURN(x, tensorArg(rw, 0, "input"));
  const ir::TensorMeta& xm = rw.meta(x);
  const ir::Arg& l = sarg(n, 1);
  const ir::RefList* idx = l.asRefList();
  if (!idx) return Status::error("index.Tensor: expected a list of index tensors");
  int d = -1;
  for (size_t i = 0; i < idx->size(); ++i)
    if (!(*idx)[i].isNone()) {
      if (d >= 0) return Status::error("index.Tensor with more than one index tensor is not supported");
      d = int(i);
    }
  if (d < 0) return Status::error("index.Tensor without an index tensor");
  const ir::ValueRef ix = (*idx)[size_t(d)];
  const ir::TensorMeta& im = rw.meta(ix);
  if (!ir::isIntegral(im.dtype, false)) return Status::error("index.Tensor: only integer (not bool) indices are supported");
  const int r = xm.rank();
  const int64_t K = xm.shape[d];
  int64_t C = 1;
  std::vector<int64_t> perm{d}, rest;
  for (int i = 0; i < r; ++i)
    if (i != d) perm.push_back(i), rest.push_back(xm.shape[i]), C *= xm.shape[i];
  Builder b(rw);
  ValueRef v = x;
  if (d != 0) {
    LS_ASSIGN_OR_RETURN(t, b.transpose(x, perm));
    v = t;
  }
  LS_ASSIGN_OR_RETURN(v3, b.reshape(v, Shape{1, K, C}));
  ValueRef iv = ix;
  if (im.dtype != DType::Int32) {
    LS_ASSIGN_OR_RETURN(c, b.op("tosa.CAST", {ix}, {{"dtype", ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(DType::Int32)})}}));
    iv = c;
  }
  const int64_t W = im.numel();
  LS_ASSIGN_OR_RETURN(i2, b.reshape(iv, Shape{1, W}));
  // Python-style negative indices: idx < 0 ? idx + K : idx.
  ValueRef zero = b.scalar(DType::Int32, 0, 2, "zero"), kk = b.scalar(DType::Int32, double(K), 2, "dim_size");
  LS_ASSIGN_OR_RETURN(neg, b.op("tosa.GREATER", {zero, i2}));
  LS_ASSIGN_OR_RETURN(wrapped, b.op("tosa.ADD", {i2, kk}));
  LS_ASSIGN_OR_RETURN(fixed, b.op("tosa.SELECT", {neg, wrapped, i2}));
  LS_ASSIGN_OR_RETURN(gt, b.op("tosa.GATHER", {v3, fixed}));
  // [1, W, C] -> index dims + remaining dims, then the index dims move back to position d.
  Shape s = im.shape;
  for (int64_t e : rest) s.push(e);
  LS_ASSIGN_OR_RETURN(y, b.reshape(gt, s));
  ValueRef out = y;
  if (d != 0) {
    const int ir = im.rank();
    std::vector<int64_t> p;
    for (int i = 0; i < d; ++i) p.push_back(ir + i);
    for (int i = 0; i < ir; ++i) p.push_back(i);
    for (int i = d; i < r - 1; ++i) p.push_back(ir + i);
    LS_ASSIGN_OR_RETURN(t, b.transpose(y, p));
    out = t;
  }
  rw.replaceWith(out);
  return true;
}

}  // namespace

void registerRewriteIndexTensorPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "RewriteIndexTensorPass",
                      .description = "index.Tensor with one index tensor -> GATHER",
                      .targets = {"aten.index.Tensor"},
                      .rewrite = rewriteIndex});
}

}  // namespace ls::arm
