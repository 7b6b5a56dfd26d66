// DecomposeAsStridedCopyPass (upstream backends/arm/_passes/decompose_as_strided_copy_pass.py):
// contiguous as_strided_copy -> view_copy.
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

/// as_strided_copy that re-applies contiguous strides (offset 0) is a view.
Result<bool> decomposeAsStrided(passes::Rewriter& rw, passes::RuleStats&) {
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
  return true;
}

}  // namespace

void registerDecomposeAsStridedCopyPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeAsStridedCopyPass",
                      .description = "contiguous as_strided_copy -> view_copy",
                      .targets = {"aten.as_strided_copy.default"},
                      .rewrite = decomposeAsStrided});
}

}  // namespace ls::arm
