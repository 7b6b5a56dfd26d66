// DecomposePixelShufflePass (no upstream file of this name at the pinned commit): pixel_shuffle /
// pixel_unshuffle -> view + permute + view.
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

/// pixel_shuffle / pixel_unshuffle as view (..., C, r, r, H, W) + permute + view, leading dims
/// folded into one (DecomposePixelShufflePass).
Result<bool> decomposePixelShuffle(passes::Rewriter& rw, passes::RuleStats&) {
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::Node& n = rw.node();
  const bool shuffle = n.op == ir::internOp("aten.pixel_shuffle.default");
  auto r = sarg(n, 1).asInt();
  if (!r || *r <= 0) return Status::error("pixel_shuffle: the factor must be a positive int");
  const ir::TensorMeta& in = *argMeta(rw, 0);
  const ir::TensorMeta& out = n.meta();
  const ir::TensorMeta& big = shuffle ? in : out;  // the (C*r*r, H, W) side
  const int k = big.rank();
  const int64_t Cs = big.shape[k - 3] / (*r * *r), H = big.shape[k - 2], W = big.shape[k - 1];
  const int64_t B = big.shape.numel() / std::max<int64_t>(1, Cs * *r * *r * H * W);
  Builder b(rw);
  ValueRef y;
  if (shuffle) {
    LS_ASSIGN_OR_RETURN(v, viewAs(b, ref(rw, 0), {B, Cs, *r, *r, H, W}));
    LS_ASSIGN_OR_RETURN(p, b.op("aten.permute_copy.default", {v, ir::IntList{0, 1, 4, 2, 5, 3}}));
    LS_ASSIGN_OR_RETURN(o, viewAs(b, p, out.shape.toVector()));
    y = o;
  } else {
    LS_ASSIGN_OR_RETURN(v, viewAs(b, ref(rw, 0), {B, Cs, H, *r, W, *r}));
    LS_ASSIGN_OR_RETURN(p, b.op("aten.permute_copy.default", {v, ir::IntList{0, 1, 3, 5, 2, 4}}));
    LS_ASSIGN_OR_RETURN(o, viewAs(b, p, out.shape.toVector()));
    y = o;
  }
  return done(rw, y);
}

}  // namespace

void registerDecomposePixelShufflePass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposePixelShufflePass",
                      .description = "pixel_shuffle / pixel_unshuffle -> view + permute + view",
                      .targets = {"aten.pixel_shuffle.default", "aten.pixel_unshuffle.default"},
                      .rewrite = decomposePixelShuffle});
}

}  // namespace ls::arm
