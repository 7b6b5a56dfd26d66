// DecomposeCumsumPass (upstream backends/arm/_passes/decompose_cumsum_pass.py): cumsum -> bmm with
// constant upper-triangular ones.
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

/// cumsum(x, dim) of floats: x with dim moved last, viewed [1, M, L], times the constant
/// upper-triangular ones [1, L, L] (bmm), viewed and moved back (DecomposeCumsumPass).
Result<bool> decomposeCumsum(passes::Rewriter& rw, passes::RuleStats&) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::Node& n = rw.node();
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  if (!ir::isFloating(xm.dtype) || n.meta().dtype != xm.dtype)
    return false;  // integer cumsum: left for the support check to name
  if (xm.rank() == 0) return done(rw, ref(rw, 0));
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
  return done(rw, y);
}

}  // namespace

void registerDecomposeCumsumPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeCumsumPass",
                      .description = "cumsum -> bmm with constant upper-triangular ones",
                      .targets = {"aten.cumsum.default"},
                      .rewrite = decomposeCumsum});
}

}  // namespace ls::arm
