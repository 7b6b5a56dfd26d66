// ConvertExpandCopyToRepeatPass (upstream backends/arm/_passes/convert_expand_copy_to_repeat.py):
// expand_copy -> (unsqueeze view) + repeat.
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

Result<bool> convertExpandToRepeat(passes::Rewriter& rw, passes::RuleStats&) {
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
  return true;
}

}  // namespace

void registerConvertExpandCopyToRepeatPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "ConvertExpandCopyToRepeatPass",
                      .description = "expand_copy -> (unsqueeze view) + repeat",
                      .targets = {"aten.expand_copy.default"},
                      .rewrite = convertExpandToRepeat});
}

}  // namespace ls::arm
