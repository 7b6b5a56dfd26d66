// ConvertSplitToSlicePass (upstream backends/arm/_passes/convert_split_to_slice.py): split -> one
// slice per output (getitems folded).
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

Result<bool> convertSplitToSlice(passes::Rewriter& rw, passes::RuleStats&) {
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
  return true;
}

}  // namespace

void registerConvertSplitToSlicePass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "ConvertSplitToSlicePass",
                      .description = "split -> one slice per output (getitems folded)",
                      .targets = {"aten.split_copy.Tensor", "aten.split_with_sizes_copy.default", "aten.split.Tensor"},
                      .rewrite = convertSplitToSlice});
}

}  // namespace ls::arm
