// DecomposeStackPass (no upstream file of this name at the pinned commit): stack -> view (unsqueeze) per input
// + cat.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <numeric>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/passes/pass_manager.h"
#include "core/passes/rule_pass.h"
#include "core/transforms/batch_norm.h"
#include "core/transforms/constant_folding.h"
#include "core/transforms/constant_values.h"

namespace ls::arm {

using passes::Rewriter;
using ir::DType;
using ir::Shape;

namespace {

/// stack(tensors, dim) -> each viewed with a 1 inserted at dim, then cat along dim.
Result<bool> decomposeStack(passes::Rewriter& rw, passes::RuleStats&) {
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
  return true;
}

}  // namespace

void registerDecomposeStackPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeStackPass",
                      .description = "stack -> view (unsqueeze) per input + cat",
                      .targets = {"aten.stack.default"},
                      .rewrite = decomposeStack});
}

}  // namespace ls::arm
