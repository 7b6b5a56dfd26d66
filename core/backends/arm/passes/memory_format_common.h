// Helpers shared by the memory-format passes of the Arm pipelines: ToTosaMemoryFormatPass (NHWC
// regions with boundary TRANSPOSEs), FuseTosaTransposesPass (identity / inverse / composition /
// propagation) and PropagateTransposesPass (the tosa-permute strategy's sinking).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>
#include <set>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/transforms/constant_values.h"
#include "core/passes/rule_pass.h"

/// Helpers of the memory_format pass files only (nested namespace: no clash with other ls::arm names).
namespace ls::arm::memory_format {

using passes::Rewriter;
using ir::NodeId;
using ir::DType;
using ir::Shape;

enum class Agn { None, Unary, Binary, Nary, Concat, Reduce, ShapeArgs };

/// How a layout-agnostic op reads its layout-carrying operands.
struct AgnosticInfo {
  Agn kind = Agn::None;
  std::vector<int> operands;  ///< arg indices of layout-carrying tensors (Concat: arg 0 list)
  std::vector<int> shapeArgs; ///< CONST_SHAPE arg indices to permute
  bool pairs = false;         ///< PAD padding: two entries per dim
};

inline AgnosticInfo agnostic(ir::OpId op) {
  // Keyed by interned op id (built once from the names below).
  static const std::unordered_map<ir::OpId, AgnosticInfo> table = [] {
    std::map<std::string, AgnosticInfo> t;
    for (const char* u : {"CLAMP", "SIGMOID", "TANH", "ERF", "EXP", "LOG", "RECIPROCAL", "RSQRT", "ABS", "CEIL", "FLOOR",
                          "SIN", "COS", "LOGICAL_NOT", "NEGATE", "RESCALE", "TABLE", "CAST", "IDENTITY"})
      t[tosaOp(u)] = {Agn::Unary, {0}, {}, false};
    for (const char* b : {"ADD", "SUB", "MUL", "MAXIMUM", "MINIMUM", "POW", "EQUAL", "GREATER", "GREATER_EQUAL",
                          "LOGICAL_AND", "LOGICAL_OR", "LOGICAL_XOR", "INTDIV"})
      t[tosaOp(b)] = {Agn::Binary, {0, 1}, {}, false};
    t["tosa.SELECT"] = {Agn::Nary, {0, 1, 2}, {}, false};
    t["tosa.CONCAT"] = {Agn::Concat, {0}, {}, false};
    for (const char* r : {"REDUCE_SUM", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PRODUCT", "REDUCE_ANY", "REDUCE_ALL"})
      t[tosaOp(r)] = {Agn::Reduce, {0}, {}, false};
    t["tosa.SLICE"] = {Agn::ShapeArgs, {0}, {1, 2}, false};
    t["tosa.TILE"] = {Agn::ShapeArgs, {0}, {1}, false};
    t["tosa.PAD"] = {Agn::ShapeArgs, {0}, {1}, true};
    std::unordered_map<ir::OpId, AgnosticInfo> byId;
    for (const auto& [name, info] : t) byId.emplace(ir::internOp(name), info);
    return byId;
  }();
  auto it = table.find(op);
  return it == table.end() ? AgnosticInfo{} : it->second;
}

inline bool isTranspose(const ir::Node& n) {
  static const ir::OpId t = ir::internOp("tosa.TRANSPOSE");
  return n.isCall() && n.op == t;
}

inline std::vector<int64_t> permsOf(const ir::Node& n) {
  const ir::Arg* p = n.kwarg("perms");
  return p && p->asIntList() ? *p->asIntList() : std::vector<int64_t>{};
}

/// True when permuting `s` by `perm` only moves unit dims (a relayout that is a reshape).
inline bool onlyUnitDimsMove(const Shape& s, const std::vector<int64_t>& perm) {
  std::vector<int64_t> a, b;
  for (int i = 0; i < s.rank(); ++i)
    if (s[i] != 1) a.push_back(i);
  for (size_t i = 0; i < perm.size(); ++i)
    if (s[int(perm[i])] != 1) b.push_back(perm[i]);
  return a == b;
}

/// Every value ref an op reads through its layout-carrying operands (flattening CONCAT's list).
inline std::vector<ir::ValueRef> layoutInputs(const ir::Node& n, const AgnosticInfo& info) {
  std::vector<ir::ValueRef> v;
  for (int i : info.operands) {
    if (size_t(i) >= n.args.size()) continue;
    if (auto* r = n.args[size_t(i)].ref()) v.push_back(*r);
    else if (auto* l = n.args[size_t(i)].asRefList())
      for (auto& x : *l) v.push_back(x);
  }
  return v;
}

/// Rewrites the op's attributes for operating on tensors permuted by `perm` relative to the
/// current ones (new dim i = old dim perm[i]): axis and CONST_SHAPE lists.
inline Result<std::pair<std::vector<ir::Arg>, std::vector<ir::Kwarg>>> permutedAttrs(Builder& b, const ir::Node& n,
                                                                              const AgnosticInfo& info,
                                                                              const std::vector<int64_t>& perm) {
  std::vector<ir::Arg> args(n.args.begin(), n.args.end());
  std::vector<ir::Kwarg> kwargs = n.kwargs;
  std::vector<int64_t> inv = inversePerm(perm);
  if (info.kind == Agn::Concat || info.kind == Agn::Reduce)
    for (ir::Kwarg& k : kwargs)
      if (k.name == "axis" && k.value.asInt()) k.value = inv[size_t(*k.value.asInt())];
  for (int si : info.shapeArgs) {
    auto vals = constShapeValues(b.graph(), *args[size_t(si)].ref());
    if (!vals) return Status::error(fmt::format("node '{}': arg #{} is not a CONST_SHAPE", n.name, si));
    std::vector<int64_t> nv(vals->size());
    for (size_t i = 0; i < perm.size(); ++i) {
      if (info.pairs) {
        nv[2 * i] = (*vals)[size_t(2 * perm[i])];
        nv[2 * i + 1] = (*vals)[size_t(2 * perm[i] + 1)];
      } else {
        nv[i] = (*vals)[size_t(perm[i])];
      }
    }
    auto cs = b.constShape(nv);
    if (!cs) return cs.status();
    args[size_t(si)] = *cs;
  }
  return std::make_pair(std::move(args), std::move(kwargs));
}

/// The value `v` (in the current layout) expressed in the layout permuted by `perm`, for a
/// constant or a one-element operand; nullopt when it is neither.
inline std::optional<ir::ValueRef> permuteConstantOperand(Builder& b, ir::ValueRef v, const std::vector<int64_t>& perm,
                                                   size_t* constCounter) {
  const ir::TensorMeta& m = b.meta(v);
  if (m.rank() != int(perm.size())) return std::nullopt;
  if (permuteShape(m.shape, perm) == m.shape && onlyUnitDimsMove(m.shape, perm)) return v;  // e.g. [1,1,1,1]
  const ir::Constant* c = transforms::constantBehind(b.graph(), v);
  if (!c) return std::nullopt;
  if (constCounter) ++*constCounter;
  return b.permuted(*c, perm, {}, "permuted_const");
}

}  // namespace ls::arm::memory_format
