// ConvertTransposeToPermutePass (no upstream file of this name at the pinned commit): t_copy/transpose_copy ->
// permute_copy.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <numeric>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/backends/arm/passes/decompose_common.h"
#include "core/ir/op_ref.h"
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

Result<bool> convertTransposeToPermute(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const int r = argMeta(rw, 0)->rank();
  std::vector<int64_t> perm(static_cast<size_t>(r));
  std::iota(perm.begin(), perm.end(), 0);
  if (n.op == LS_OP("aten.t_copy.default")) {
    if (r == 2) std::swap(perm[0], perm[1]);
  } else {
    auto a = sarg(n, 1).asInt(), c = sarg(n, 2).asInt();
    if (!a || !c) return Status::error("transpose_copy: expected int dims");
    std::swap(perm[size_t(wrap(*a, r))], perm[size_t(wrap(*c, r))]);
  }
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(y, b.op("aten.permute_copy.default", {ref(rw, 0), ir::IntList(perm)}));
  rw.replaceWith(y);
  return true;
}

}  // namespace

void registerConvertTransposeToPermutePass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "ConvertTransposeToPermutePass",
                      .description = "t_copy/transpose_copy -> permute_copy",
                      .targets = {"aten.t_copy.default", "aten.transpose_copy.int"},
                      .rewrite = convertTransposeToPermute});
}

}  // namespace ls::arm
