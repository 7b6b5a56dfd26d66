// Meta functions of aten.scaled_dot_product_attention and of lowerscope.call_delegate (the
// generic nested-graph call a partitioner creates: its outputs are the nested graph's).
#include <fmt/format.h>

#include "core/ops/builtin_ops.h"
#include "core/ops/registry.h"

namespace ls::ops {
namespace {

using ir::TensorMeta;

Status sdpaMeta(MetaCtx& c) {
  LS_ASSIGN_OR_RETURN(q, c.tensor(0));
  LS_ASSIGN_OR_RETURN(k, c.tensor(1));
  LS_ASSIGN_OR_RETURN(v, c.tensor(2));
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
    LS_ASSIGN_OR_RETURN(m, c.tensor(3));
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
Status callDelegateMeta(MetaCtx& c) {
  const std::string* name = c.arg(0).asString();
  if (!name) return c.error("{}: expected the subgraph name (a string)", c.argDesc(0));
  auto it = c.graph().subgraphs().find(*name);
  if (it == c.graph().subgraphs().end() || !it->second)
    return c.error("the graph has no subgraph named '{}'", *name);
  const ir::Graph& sub = *it->second;
  LS_ASSIGN_OR_RETURN(ins, c.tensorList(1));
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

}  // namespace

void registerAttentionAndDelegateOps(OpRegistry& r) {
  for (auto [schema, fn] : {std::pair<std::string_view, MetaFn>{
                                "aten::scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, "
                                "Tensor? attn_mask=None, float dropout_p=0.0, bool is_causal=False, *, "
                                "float? scale=None) -> Tensor",
                                sdpaMeta},
                            {"lowerscope::call_delegate(str name, Tensor[] inputs) -> Tensor[]", callDelegateMeta}}) {
    Status st = r.add(schema, fn);
    if (!st.isOk()) fmt::print(stderr, "lowerscope: bad built-in schema: {}\n", st.message());
  }
}

}  // namespace ls::ops
