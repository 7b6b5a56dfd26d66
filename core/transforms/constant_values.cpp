// Values of graph constants for the shared transforms (see constant_values.h).
#include "core/transforms/constant_values.h"

#include "core/exec/synth.h"

namespace ls::transforms {

exec::Tensor constantValues(const ir::Constant& c) {
  if (c.hasData() && c.data->bytes.size() == size_t(c.numel()) * size_t(ir::dtypeSize(c.dtype)))
    return exec::Tensor::fromBytes(c.dtype, c.shape, c.data->bytes);
  return exec::synthesizeConstant(c);
}

const ir::Constant* constantBehind(const ir::Graph& g, ir::ValueRef r) {
  const ir::Node* n = g.find(r.node);
  if (!n || n->kind != ir::NodeKind::GetAttr) return nullptr;
  return g.constant(n->target);
}

std::optional<exec::Tensor> valueOfConstant(const ir::Graph& g, ir::ValueRef r) {
  const ir::Constant* c = constantBehind(g, r);
  if (!c) return std::nullopt;
  return constantValues(*c);
}

ir::Constant makeConstant(ir::ConstantStore& store, const exec::Tensor& t, ir::ConstantKind kind, std::string fqn) {
  ir::Constant c;
  c.kind = kind;
  c.fqn = std::move(fqn);
  c.dtype = t.dtype();
  c.shape = t.shape();
  c.data = store.intern(std::vector<uint8_t>(t.bytes(), t.bytes() + t.nbytes()));
  return c;
}

}  // namespace ls::transforms
