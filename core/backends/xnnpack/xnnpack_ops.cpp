// Registration and meta functions of the ops the XNNPACK pipeline introduces.
#include "core/backends/xnnpack/xnnpack_ops.h"

#include <fmt/format.h>

#include <array>
#include <cmath>

#include "core/exec/kernel.h"
#include "core/ops/builtin_ops.h"
#include "core/ops/registry.h"

namespace ls::xnnpack {
namespace {

using ir::TensorMeta;

#define XNN_TRY(var, expr)                   \
  auto var##_res = (expr);                   \
  if (!var##_res) return var##_res.status(); \
  auto& var = var##_res.value()

struct FusedPair {
  std::string_view base, fused;
};
constexpr std::array<FusedPair, 5> kFused = {{
    {"aten.convolution.default", "xnnpack.convolution_clamp.default"},
    {"aten.linear.default", "xnnpack.linear_clamp.default"},
    {"aten.add.Tensor", "xnnpack.add_clamp.Tensor"},
    {"aten.sub.Tensor", "xnnpack.sub_clamp.Tensor"},
    {"aten.mul.Tensor", "xnnpack.mul_clamp.Tensor"},
}};

Status sdpaMeta(ops::MetaCtx& c) {
  XNN_TRY(q, c.tensor(0));
  XNN_TRY(k, c.tensor(1));
  XNN_TRY(v, c.tensor(2));
  const int r = q->rank();
  if (r < 2 || k->rank() != r || v->rank() != r)
    return c.error("query, key and value must have the same rank >= 2, got {}, {}, {}", ir::toString(q->shape),
                   ir::toString(k->shape), ir::toString(v->shape));
  for (int i = 0; i + 2 < r; ++i)
    if (q->shape[i] != k->shape[i] || q->shape[i] != v->shape[i])
      return c.error("batch dims of query {}, key {} and value {} differ", ir::toString(q->shape),
                     ir::toString(k->shape), ir::toString(v->shape));
  if (q->shape[r - 1] != k->shape[r - 1])
    return c.error("query {} and key {} must have the same embedding size (last dim)", ir::toString(q->shape),
                   ir::toString(k->shape));
  if (k->shape[r - 2] != v->shape[r - 2])
    return c.error("key {} and value {} must have the same sequence length (dim -2)", ir::toString(k->shape),
                   ir::toString(v->shape));
  if (!ir::isFloating(q->dtype) || k->dtype != q->dtype || v->dtype != q->dtype)
    return c.error("query, key and value must share one floating dtype, got {}, {}, {}", ir::dtypeName(q->dtype),
                   ir::dtypeName(k->dtype), ir::dtypeName(v->dtype));
  if (c.has(3)) {
    XNN_TRY(m, c.tensor(3));
    ir::Shape scores = q->shape;
    scores[r - 1] = k->shape[r - 2];
    for (int i = m->rank() - 1, o = r - 1; i >= 0; --i, --o)
      if (o < 0 || (m->shape[i] != 1 && m->shape[i] != scores[o]))
        return c.error("attn_mask {} does not broadcast to the scores {}", ir::toString(m->shape),
                       ir::toString(scores));
  }
  ir::Shape out = q->shape;
  out[r - 1] = v->shape[r - 1];
  c.out.push_back(TensorMeta(q->dtype, out));
  return Status::ok();
}

/// The delegate call's outputs are its nested graph's outputs; the inputs must match the
/// nested graph's placeholders.
Status callDelegateMeta(ops::MetaCtx& c) {
  const std::string* name = c.arg(0).asString();
  if (!name) return c.error("{}: expected the subgraph name (a string)", c.argDesc(0));
  auto it = c.graph().subgraphs().find(*name);
  if (it == c.graph().subgraphs().end() || !it->second)
    return c.error("the graph has no subgraph named '{}'", *name);
  const ir::Graph& sub = *it->second;
  XNN_TRY(ins, c.tensorList(1));
  size_t idx = 0;
  for (const ir::NodePtr& p : sub.nodes()) {
    if (p->kind != ir::NodeKind::Placeholder) continue;
    if (idx >= ins.size())
      return c.error("subgraph '{}' has more inputs than the {} passed", *name, ins.size());
    const TensorMeta* m = ins[idx];
    if (!m || m->dtype != p->meta(0).dtype || m->shape != p->meta(0).shape)
      return c.error("input #{} is {} but subgraph '{}' expects {}", idx, m ? ir::toString(*m) : "none", *name,
                     ir::toString(p->meta(0)));
    ++idx;
  }
  if (idx != ins.size()) return c.error("subgraph '{}' has {} inputs, {} passed", *name, idx, ins.size());
  const ir::Node* out = sub.outputNode();
  if (!out) return c.error("subgraph '{}' has no output node", *name);
  out->forEachInput([&](const ir::ValueRef& r) { c.out.push_back(sub.meta(r)); });
  return Status::ok();
}

Status fusedClampMeta(ops::MetaCtx& c) {
  std::string base = baseOfFusedClamp(c.schema().name);
  const ops::OpSchema* bs = ops::OpRegistry::instance().find(base);
  if (!bs || !bs->meta) return c.error("base op '{}' of the fused op is not registered", base);
  XNN_TRY(lo, c.getFloat(c.schema().argIndex("output_min")));
  XNN_TRY(hi, c.getFloat(c.schema().argIndex("output_max")));
  if (std::isnan(lo) || std::isnan(hi) || lo > hi)
    return c.error("output clamp [{}, {}] is empty or NaN", lo, hi);
  LS_RETURN_IF_ERROR(bs->meta(c));
  for (const TensorMeta& m : c.out)
    if (m.isTensor() && !ir::isFloating(m.dtype))
      return c.error("an output clamp needs a floating result, got {}", ir::dtypeName(m.dtype));
  return Status::ok();
}

void registerAll(ops::OpRegistry& r) {
  auto add = [&](std::string_view text, ops::MetaFn fn) {
    Status st = r.add(text, fn);
    if (!st) fmt::print(stderr, "lowerscope: bad xnnpack schema: {}\n", st.message());
  };
  if (!r.find(kSdpaOp))
    add("aten::scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, "
        "float dropout_p=0.0, bool is_causal=False, *, float? scale=None) -> Tensor",
        sdpaMeta);
  if (!r.find(exec::kCallDelegateOp))
    add("lowerscope::call_delegate(str name, Tensor[] inputs) -> Tensor[]", callDelegateMeta);
  for (const FusedPair& p : kFused) {
    if (r.find(p.fused)) continue;
    const ops::OpSchema* base = r.find(p.base);
    if (!base) continue;
    ops::OpSchema s = *base;
    s.name = std::string(p.fused);
    s.id = ir::internOp(p.fused);
    s.meta = fusedClampMeta;
    s.args.push_back({"output_min", ops::ArgType::Float, false, true, std::nullopt});
    s.args.push_back({"output_max", ops::ArgType::Float, false, true, std::nullopt});
    s.doc = base->doc + " with keyword-only float output_min, float output_max (XNNPACK output clamp)";
    r.add(std::move(s));
  }
}

[[maybe_unused]] const bool kHooked = ops::addRegistrationHook(&registerAll);

}  // namespace

std::string fusedClampOf(std::string_view baseOp) {
  for (const FusedPair& p : kFused)
    if (p.base == baseOp) return std::string(p.fused);
  return {};
}

std::string baseOfFusedClamp(std::string_view op) {
  for (const FusedPair& p : kFused)
    if (p.fused == op) return std::string(p.base);
  return {};
}

void registerXnnpackOps(ops::OpRegistry& r) { registerAll(r); }

}  // namespace ls::xnnpack
