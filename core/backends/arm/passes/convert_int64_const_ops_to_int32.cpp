// ConvertInt64ConstOpsToInt32Pass (upstream
// backends/arm/_passes/convert_int64_const_ops_to_int32.py): CAST of an int64 constant to int32
// folded into an int32 constant (TOSA 1.0 has no int64).
#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/passes/rule_pass.h"

namespace ls::arm {

using passes::Rewriter;
using ir::NodeId;
using ir::DType;
using ir::Shape;

namespace {

/// TOSA 1.0 has no int64: an int64 constant (an index buffer such as Swin's
/// relative_position_index, an arange) read through a CAST becomes a constant of the CAST's
/// type (int32 when all its values fit, float, bool); a value out of int32 range leaves the
/// CAST, and the TOSA writer then names it.
Result<bool> foldInt64ConstCast(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  using ir::DType;
  const DType to = n.meta().dtype;
  if (to == DType::Int64 || n.args.empty() || !n.args[0].ref()) return false;
  const ir::ValueRef src = *n.args[0].ref();
  if (rw.meta(src).dtype != DType::Int64) return false;
  auto v = valueOfConstant(rw.graph(), src);
  if (!v) return false;
  exec::Tensor t(to, v->shape());
  for (int64_t i = 0; i < v->numel(); ++i) {
    const int64_t x = v->getInt(i);
    if (ir::isFloating(to)) {
      t.setDouble(i, double(x));
    } else if (to == DType::Bool) {
      t.setInt(i, x != 0);
    } else {
      if (to != DType::Int32 || x < INT32_MIN || x > INT32_MAX) return false;
      t.setInt(i, x);
    }
  }
  Builder b(rw);
  rw.replaceWith(b.tensor(t, to == DType::Int32 ? "int32_const" : "cast_const"));
  return true;
}

}  // namespace

void registerConvertInt64ConstOpsToInt32Pass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "ConvertInt64ConstOpsToInt32Pass",
                      .description = "CAST of an int64 constant to int32 folded into an int32 constant (TOSA 1.0 has no int64)",
                      .targets = {"tosa.CAST"},
                      .rewrite = foldInt64ConstCast});
}

}  // namespace ls::arm
