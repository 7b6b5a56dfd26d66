// Transform-for-annotation decompositions (see tfa_passes.h).
#include "core/quant/tfa_passes.h"

#include <fmt/format.h>

namespace ls::quant {

DecomposeSiluPass::DecomposeSiluPass()
    : RetracePass("DecomposeSiluPass", "silu(x) -> x * sigmoid(x) before quantisation annotation") {
  targets({"aten.silu.default"});
  checkAllowed(true);
  decomposed_ = stat("decomposed", "silu nodes decomposed");
}

Status DecomposeSiluPass::rewrite(passes::Rewriter& rw) {
  const ir::Node& n = rw.node();
  const ir::ValueRef* x = n.args.empty() ? nullptr : n.args[0].ref();
  if (!x) return Status::error("node '" + n.name + "': silu expects a tensor input");
  auto sig = rw.emit("aten.sigmoid.default", {*x}, {}, "sigmoid");
  if (!sig) return sig.status();
  auto mul = rw.emit("aten.mul.Tensor", {*x, *sig}, {}, "mul");
  if (!mul) return mul.status();
  rw.replaceWith(*mul);
  bump(decomposed_);
  return Status::ok();
}

DecomposeDivPass::DecomposeDivPass()
    : RetracePass("DecomposeDivPass", "a / b -> a * reciprocal(b) before quantisation annotation") {
  targets({"aten.div.Tensor"});
  checkAllowed(true);
  decomposed_ = stat("decomposed", "div nodes decomposed");
}

Status DecomposeDivPass::rewrite(passes::Rewriter& rw) {
  const ir::Node& n = rw.node();
  if (n.args.size() < 2) return Status::error("node '" + n.name + "': div expects two operands");
  const ir::Arg& a = n.args[0];
  const ir::Arg& b = n.args[1];
  if (!a.ref() || !ir::isFloating(rw.meta(*a.ref()).dtype)) return Status::ok();  // integer division: keep
  if (auto v = b.number()) {
    if (*v == 0.0) return Status::ok();  // keep inf/nan semantics of x / 0 as they are
    auto mul = rw.emit("aten.mul.Tensor", {a, 1.0 / *v}, {}, "mul");
    if (!mul) return mul.status();
    rw.replaceWith(*mul);
  } else if (const ir::ValueRef* br = b.ref()) {
    if (!ir::isFloating(rw.meta(*br).dtype)) return Status::ok();
    auto rec = rw.emit("aten.reciprocal.default", {*br}, {}, "reciprocal");
    if (!rec) return rec.status();
    auto mul = rw.emit("aten.mul.Tensor", {a, *rec}, {}, "mul");
    if (!mul) return mul.status();
    rw.replaceWith(*mul);
  } else {
    return Status::ok();
  }
  bump(decomposed_);
  return Status::ok();
}

DecomposeMeanDimPass::DecomposeMeanDimPass()
    : RetracePass("DecomposeMeanDimPass", "mean.dim -> sum.dim_IntList * (1 / N) before quantisation annotation") {
  targets({"aten.mean.dim"});
  checkAllowed(true);
  decomposed_ = stat("decomposed", "mean.dim nodes decomposed");
}

Status DecomposeMeanDimPass::rewrite(passes::Rewriter& rw) {
  const ir::Node& n = rw.node();
  const ir::ValueRef* x = n.args.empty() ? nullptr : n.args[0].ref();
  if (!x) return Status::error("node '" + n.name + "': mean.dim expects a tensor input");
  const ir::TensorMeta& m = rw.meta(*x);
  if (m.dtype != ir::DType::Float32) return Status::ok();
  if (n.args.size() > 3 && !n.args[3].isNone()) return Status::ok();  // explicit dtype: keep
  if (const ir::Arg* dt = n.kwarg("dtype"); dt && !dt->isNone()) return Status::ok();
  ir::IntList dims;
  if (n.args.size() > 1 && n.args[1].asIntList()) dims = *n.args[1].asIntList();
  if (dims.empty())
    for (int d = 0; d < m.rank(); ++d) dims.push_back(d);
  int64_t count = 1;
  for (int64_t d : dims) {
    const int64_t w = d < 0 ? d + m.rank() : d;
    if (w < 0 || w >= m.rank()) return Status::error(fmt::format("node '{}': dim {} out of range for {}", n.name, d, ir::toString(m)));
    count *= m.shape[int(w)];
  }
  if (count <= 0) return Status::ok();
  bool keepdim = false;
  if (n.args.size() > 2 && n.args[2].asBool()) keepdim = *n.args[2].asBool();
  if (const ir::Arg* k = n.kwarg("keepdim"); k && k->asBool()) keepdim = *k->asBool();
  auto sum = rw.emit("aten.sum.dim_IntList", {*x, dims, keepdim}, {}, "sum");
  if (!sum) return sum.status();
  auto mul = rw.emit("aten.mul.Tensor", {*sum, 1.0 / double(count)}, {}, "mul");
  if (!mul) return mul.status();
  rw.replaceWith(*mul);
  bump(decomposed_);
  return Status::ok();
}

std::vector<std::unique_ptr<passes::Pass>> builtinTfaPasses() {
  std::vector<std::unique_ptr<passes::Pass>> v;
  v.push_back(std::make_unique<DecomposeMeanDimPass>());
  v.push_back(std::make_unique<DecomposeDivPass>());
  v.push_back(std::make_unique<DecomposeSiluPass>());
  return v;
}

}  // namespace ls::quant
