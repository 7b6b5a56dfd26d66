// Values of graph constants for the shared transforms (see constant_values.h).
#include "core/transforms/constant_values.h"

#include <stdexcept>

#include "core/exec/materialize.h"

namespace ls::transforms {

exec::Tensor constantValues(const ir::Constant& c, exec::Retain retain) {
  auto t = exec::materialize(c, retain);
  if (!t) throw std::runtime_error(t.message());
  return std::move(*t);
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

ir::Constant makeConstant(ir::ConstantStore& store, exec::Tensor t, ir::ConstantKind kind, std::string fqn) {
  ir::Constant c;
  c.kind = kind;
  c.fqn = std::move(fqn);
  c.dtype = t.dtype();
  c.shape = t.shape();
  c.data = store.intern(std::move(t).releaseBytes());
  return c;
}

}  // namespace ls::transforms
