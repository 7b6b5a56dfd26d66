// MatchArgRanksPass (upstream backends/arm/_passes/match_arg_ranks_pass.py).
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

Result<bool> matchArgRanks(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  if (!isBinaryArith(n.op)) return false;
  int rank = 0;
  for (size_t i = 0; i < n.args.size(); ++i)
    if (const ir::TensorMeta* m = argMeta(rw, i)) rank = std::max(rank, m->rank());
  std::vector<ir::Arg> args(n.args.begin(), n.args.end());
  Builder b(rw);
  bool changed = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const ir::TensorMeta* m = argMeta(rw, i);
    if (!m || m->rank() == rank) continue;
    Shape s = Shape::ofRank(rank - m->rank(), 1);
    for (int64_t d : m->shape.dims()) s.push(d);
    LS_ASSIGN_OR_RETURN(v, b.op("aten.view_copy.default", {args[i], ir::IntList(s.toVector())}));
    args[i] = v;
    changed = true;
  }
  if (!changed) return false;
  rw.setArgs(std::move(args));
  return true;
}

}  // namespace

void registerMatchArgRanksPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "MatchArgRanksPass",
                      .description = "lower-rank operands of elementwise ops get leading unit dims "
          "(view_copy)",
                      .targets = binaryElementwiseOps(),
                      .rewrite = matchArgRanks});
}

}  // namespace ls::arm
