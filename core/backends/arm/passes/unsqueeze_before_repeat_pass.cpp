// UnsqueezeBeforeRepeatPass (upstream backends/arm/_passes/unsqueeze_before_repeat_pass.py):
// TOSA TILE keeps the rank, while torch's repeat may add leading dims (x.repeat(2, 1, 1) on a
// 2-D x gives 3-D). The input is first viewed with the missing leading 1s, then repeated:
//     repeat(x[H, W], [b, 1, 1]) -> repeat(view(x, [1, H, W]), [b, 1, 1])
// A repeat with as many multiples as dims is left alone (fewer is an error torch raises too,
// and the op's own shape check reports it).
#include <fmt/format.h>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/passes/rule_pass.h"

namespace ls::arm {

namespace {

Result<bool> unsqueezeBeforeRepeat(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  const ir::TensorMeta* xm = argMeta(rw, 0);
  if (!xm) return Status::error("repeat: the input (arg #0) must be a tensor");
  const ir::IntList* reps = n.args.size() > 1 ? n.args[1].asIntList() : nullptr;
  if (!reps) return Status::error("repeat: the multiples (arg #1) must be a list of ints");
  const int extra = int(reps->size()) - xm->rank();
  if (extra <= 0) return false;
  std::vector<int64_t> shape(size_t(extra), 1);
  for (int d = 0; d < xm->rank(); ++d) shape.push_back(xm->shape[d]);
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(v, b.op("aten.view_copy.default", {n.args[0], ir::IntList(shape)}, {}, "unsqueezed"));
  std::vector<ir::Arg> args = n.args;
  args[0] = ir::Arg(v);
  rw.setArgs(std::move(args));
  return true;
}

}  // namespace

void registerUnsqueezeBeforeRepeatPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "UnsqueezeBeforeRepeatPass",
                      .description = "repeat with more multiples than dims -> view adding leading 1s + repeat "
                                     "(TOSA TILE keeps the rank)",
                      .targets = {"aten.repeat.default"},
                      .rewrite = unsqueezeBeforeRepeat});
}

}  // namespace ls::arm
