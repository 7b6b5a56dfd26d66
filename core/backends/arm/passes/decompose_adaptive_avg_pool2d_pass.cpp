// DecomposeAdaptiveAvgPool2dPass (upstream
// backends/arm/_passes/decompose_adaptive_avg_pool2d_pass.py): adaptive_avg_pool2d with divisible
// sizes -> avg_pool2d.
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

Result<bool> decomposeAdaptiveAvgPool(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  LS_RETURN_IF_ERROR(needTensor(rw, 0, "input"));
  const ir::TensorMeta& xm = *argMeta(rw, 0);
  auto os = sints(n, 1, 2);
  if (!os || xm.rank() != 4) return Status::error("adaptive_avg_pool2d: expected a rank-4 input and output_size");
  int64_t k[2];
  bool divisible = true;
  for (int i = 0; i < 2; ++i) {
    int64_t in = xm.shape[2 + i], out = (*os)[size_t(i)];
    if (out <= 0 || in <= 0)
      return Status::error(fmt::format("adaptive_avg_pool2d: output size {} for input size {}", out, in));
    divisible = divisible && in % out == 0;
    k[i] = in / out;
  }
  Builder b(rw);
  if (divisible) {
    LS_ASSIGN_OR_RETURN(y, b.op("aten.avg_pool2d.default", {ref(rw, 0), ir::IntList{k[0], k[1]}, ir::IntList{k[0], k[1]},
                                                ir::IntList{0, 0}, false, true, ir::Arg()}));
    rw.replaceWith(y);
    return true;
  }
  // Bins of unequal size (PyTorch: rows floor(o * in / out) to ceil((o + 1) * in / out), which
  // overlap or repeat when out does not divide in): per dim, one slice + mean per output row,
  // concatenated.
  ValueRef v = ref(rw, 0);
  for (int i = 0; i < 2; ++i) {
    const int64_t in = xm.shape[2 + i], out = (*os)[size_t(i)], dim = 2 + i;
    if (in == out) continue;
    ir::RefList parts;
    for (int64_t o = 0; o < out; ++o) {
      const int64_t s = (o * in) / out, e = ((o + 1) * in + out - 1) / out;
      LS_ASSIGN_OR_RETURN(sl, b.op("aten.slice_copy.Tensor", {v, dim, s, e, int64_t(1)}));
      ValueRef m = sl;
      if (e - s > 1) {
        LS_ASSIGN_OR_RETURN(mean, b.op("aten.mean.dim", {sl, ir::IntList{dim}, true}));
        m = mean;
      }
      parts.push_back(m);
    }
    LS_ASSIGN_OR_RETURN(c, b.op("aten.cat.default", {parts, dim}));
    v = c;
  }
  rw.replaceWith(v);
  return true;
}

}  // namespace

void registerDecomposeAdaptiveAvgPool2dPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeAdaptiveAvgPool2dPass",
                      .description = "adaptive_avg_pool2d with divisible sizes -> avg_pool2d",
                      .targets = {"aten.adaptive_avg_pool2d.default", "aten._adaptive_avg_pool2d.default"},
                      .rewrite = decomposeAdaptiveAvgPool});
}

}  // namespace ls::arm
