// RewritePadPass (upstream backends/arm/_passes/rewrite_pad.py): constant_pad_nd -> PAD.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/backends/arm/passes/aten_to_tosa_common.h"
#include "core/backends/arm/tosa/tosa_validate.h"
#include "core/passes/rule_pass.h"
#include "core/transforms/constant_values.h"

namespace ls::arm {

using passes::Rewriter;
using ir::DType;
using ir::Shape;
using namespace aten_to_tosa;

namespace {

Result<bool> rewritePad(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  LS_ASSIGN_OR_RETURN(x, tensorArg(rw, 0, "input"));
  const ir::TensorMeta& xm = rw.meta(x);
  auto pad = sints(n, 1);
  auto value = sarg(n, 2).number();
  if (!pad || pad->size() % 2 || int(pad->size()) > 2 * xm.rank()) return Status::error("constant_pad_nd: bad pad list");
  std::vector<int64_t> padding(size_t(2 * xm.rank()), 0);
  for (size_t i = 0; i < pad->size() / 2; ++i) {
    int d = xm.rank() - 1 - int(i);
    if ((*pad)[2 * i] < 0 || (*pad)[2 * i + 1] < 0) return Status::error("negative padding is not supported");
    padding[size_t(2 * d)] = (*pad)[2 * i];
    padding[size_t(2 * d + 1)] = (*pad)[2 * i + 1];
  }
  Builder b(rw);
  LS_ASSIGN_OR_RETURN(p, b.constShape(padding));
  LS_ASSIGN_OR_RETURN(y, b.op("tosa.PAD", {x, p, b.scalar(xm.dtype, value.value_or(0.0), 1, "pad_const")}));
  rw.replaceWith(y);
  return true;
}

}  // namespace

void registerRewritePadPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "RewritePadPass",
                      .description = "constant_pad_nd -> PAD",
                      .targets = {"aten.constant_pad_nd.default"},
                      .rewrite = rewritePad});
}

}  // namespace ls::arm
