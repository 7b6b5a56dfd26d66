// Helpers shared by the XNNPACK passes.
#include "core/backends/xnnpack/xnnpack_util.h"

#include "core/transforms/constant_values.h"
#include "core/ir/op_ref.h"

namespace ls::xnnpack {

const ir::Node* producer(const ir::Graph& g, const ir::Node& n, size_t i) {
  if (i >= n.args.size()) return nullptr;
  const ir::ValueRef* r = n.args[i].ref();
  return r ? g.find(r->node) : nullptr;
}

const ir::Constant* constantOf(const ir::Graph& g, ir::ValueRef r) { return transforms::constantBehind(g, r); }

exec::Tensor constantValues(const ir::Constant& c) { return transforms::constantValues(c); }

ir::Constant makeConstant(ir::Graph& g, exec::Tensor t, ir::ConstantKind kind, std::string fqn) {
  return transforms::makeConstant(g.store(), std::move(t), kind, std::move(fqn));
}

const ir::Arg* argOr(const ir::Node& n, size_t i, std::string_view name) {
  if (i < n.args.size()) return &n.args[i];
  return n.kwarg(name);
}

std::optional<double> numberArg(const ir::Node& n, size_t i, std::string_view name, double def) {
  const ir::Arg* a = argOr(n, i, name);
  if (!a || a->isNone()) return def;
  return a->number();
}

size_t userCount(const ir::Graph& g, ir::NodeId id) { return g.users(id).size(); }

std::optional<std::vector<int>> permutationOf(const ir::Node& n, int rank) {
  std::vector<int> perm(size_t(rank > 0 ? rank : 0));
  for (int i = 0; i < rank; ++i) perm[size_t(i)] = i;
  auto wrap = [&](int64_t d) { return int(d < 0 ? d + rank : d); };
  if (n.op == LS_OP("aten.t_copy.default")) {
    if (rank == 2) std::swap(perm[0], perm[1]);
    return perm;
  }
  if (n.op == LS_OP("aten.transpose_copy.int")) {
    if (n.args.size() < 3 || !n.args[1].asInt() || !n.args[2].asInt()) return std::nullopt;
    int a = wrap(*n.args[1].asInt()), b = wrap(*n.args[2].asInt());
    if (a < 0 || b < 0 || a >= rank || b >= rank) return std::nullopt;
    std::swap(perm[size_t(a)], perm[size_t(b)]);
    return perm;
  }
  if (n.op == LS_OP("aten.permute_copy.default")) {
    const ir::IntList* dims = n.args.size() > 1 ? n.args[1].asIntList() : nullptr;
    if (!dims || int(dims->size()) != rank) return std::nullopt;
    for (int i = 0; i < rank; ++i) perm[size_t(i)] = wrap((*dims)[size_t(i)]);
    return perm;
  }
  return std::nullopt;
}

}  // namespace ls::xnnpack
