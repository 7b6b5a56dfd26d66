// ReplaceScalarWithTensorPass (no upstream file of this name at the pinned commit): Python scalars and alpha
// in elementwise ops -> rank-matched constants.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_map>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/ir/op_ref.h"
#include "core/passes/pass_manager.h"
#include "core/passes/rule_pass.h"
#include "core/transforms/batch_norm.h"
#include "core/transforms/constant_folding.h"
#include "core/transforms/constant_values.h"

namespace ls::arm {

using passes::Rewriter;
using ir::DType;
using ir::Shape;

namespace {

/// Scalars in tensor slots (and .Scalar overloads, alpha) become rank-matched constants.
Result<bool> replaceScalarWithTensor(passes::Rewriter& rw, passes::RuleStats&) {
  const ir::Node& n = rw.node();
  // .Scalar overloads -> their .Tensor form (by OpId: the op the node is rewritten to, and its name).
  static const std::unordered_map<ir::OpId, std::pair<ir::OpId, std::string>> kScalarOps = [] {
    std::unordered_map<ir::OpId, std::pair<ir::OpId, std::string>> m;
    for (const auto& [from, to] : std::initializer_list<std::pair<const char*, const char*>>{
             {"aten.add.Scalar", "aten.add.Tensor"}, {"aten.sub.Scalar", "aten.sub.Tensor"},
             {"aten.mul.Scalar", "aten.mul.Tensor"}, {"aten.eq.Scalar", "aten.eq.Tensor"},
             {"aten.gt.Scalar", "aten.gt.Tensor"},   {"aten.ge.Scalar", "aten.ge.Tensor"},
             {"aten.lt.Scalar", "aten.lt.Tensor"},   {"aten.le.Scalar", "aten.le.Tensor"},
             {"aten.pow.Tensor_Scalar", "aten.pow.Tensor_Tensor"}, {"aten.bitwise_and.Scalar", "aten.bitwise_and.Tensor"},
             {"aten.bitwise_or.Scalar", "aten.bitwise_or.Tensor"},   {"aten.bitwise_xor.Scalar", "aten.bitwise_xor.Tensor"},
             {"aten.__lshift__.Scalar", "aten.bitwise_left_shift.Tensor"}})
      m.emplace(ir::internOp(from), std::pair{ir::internOp(to), std::string(to)});
    return m;
  }();
  ir::OpId opId = n.op;
  std::string op = ir::opName(n.op);
  if (auto it = kScalarOps.find(n.op); it != kScalarOps.end()) opId = it->second.first, op = it->second.second;
  const bool where = n.op == LS_OP("aten.where.self");
  const size_t first = where ? 1 : 0;
  // Reference operand (dtype and rank of the constants): the node's own result dtype.
  const ir::TensorMeta& out = n.meta();
  int rank = 0;
  for (size_t i = 0; i < n.args.size() && i < first + 2; ++i)
    if (const ir::TensorMeta* m = argMeta(rw, i)) rank = std::max(rank, m->rank());
  std::vector<ir::Arg> args(n.args.begin(), n.args.end());
  Builder b(rw);
  bool changed = opId != n.op;
  DType cdt = out.dtype == DType::Bool && !where ? DType::Undefined : out.dtype;
  if (cdt == DType::Undefined)  // comparisons: the tensor operand's dtype
    for (size_t i = 0; i < 2 && i < n.args.size(); ++i)
      if (const ir::TensorMeta* m = argMeta(rw, i)) cdt = m->dtype;
  for (size_t i = first; i < first + 2 && i < args.size(); ++i) {
    if (auto v = args[i].number()) {
      args[i] = b.scalar(cdt, *v, rank, "scalar");
      changed = true;
    }
  }
  // alpha of add/sub: other * alpha.
  std::vector<ir::Kwarg> kwargs;
  for (const ir::Kwarg& k : n.kwargs) {
    if (k.name == "alpha") {
      auto a = k.value.number();
      if (a && *a != 1.0) {
        LS_ASSIGN_OR_RETURN(m, b.op("aten.mul.Tensor", {args[1], b.scalar(cdt, *a, rank, "alpha")}));
        args[1] = m;
      }
      changed = changed || (a && *a != 1.0);
      continue;
    }
    kwargs.push_back(k);
  }
  if (args.size() > 2 && !where && (opId == LS_OP("aten.add.Tensor") || opId == LS_OP("aten.sub.Tensor"))) {
    auto a = args[2].number();
    if (a && *a != 1.0) {
      LS_ASSIGN_OR_RETURN(m, b.op("aten.mul.Tensor", {args[1], b.scalar(cdt, *a, rank, "alpha")}));
      args[1] = m;
    }
    args.resize(2);
    changed = true;
  }
  if (!changed) return false;
  rw.rewriteInPlace(op, std::move(args), std::move(kwargs));
  return true;
}

}  // namespace

void registerReplaceScalarWithTensorPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "ReplaceScalarWithTensorPass",
                      .description = "Python scalars and alpha in elementwise ops -> rank-matched constants",
                      .targets = {"aten.add.Tensor", "aten.sub.Tensor", "aten.mul.Tensor", "aten.add.Scalar", "aten.sub.Scalar",
           "aten.mul.Scalar", "aten.maximum.default", "aten.minimum.default", "aten.eq.Scalar", "aten.gt.Scalar",
           "aten.ge.Scalar", "aten.lt.Scalar", "aten.le.Scalar", "aten.where.self", "aten.pow.Tensor_Scalar",
           "aten.bitwise_and.Scalar", "aten.bitwise_or.Scalar", "aten.bitwise_xor.Scalar", "aten.__lshift__.Scalar"},
                      .rewrite = replaceScalarWithTensor});
}

}  // namespace ls::arm
