// ExirToTosaPass (upstream backends/arm/_passes/exir_to_tosa_pass.py): Table-driven 1:1 ATen ->
// TOSA (elementwise, clamp, cat, permute, view, repeat, reductions).
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <unordered_map>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/backends/arm/passes/aten_to_tosa_common.h"
#include "core/backends/arm/tosa/tosa_validate.h"
#include "core/ir/op_ref.h"
#include "core/passes/rule_pass.h"
#include "core/transforms/constant_values.h"

namespace ls::arm {

using passes::Rewriter;
using ir::DType;
using ir::Shape;
using namespace aten_to_tosa;

namespace {

const std::map<std::string, std::string>& unaryTable() {
  static const std::map<std::string, std::string> t = {
      {"aten.sigmoid.default", "tosa.SIGMOID"},     {"aten.tanh.default", "tosa.TANH"},
      {"aten.exp.default", "tosa.EXP"},             {"aten.log.default", "tosa.LOG"},
      {"aten.reciprocal.default", "tosa.RECIPROCAL"}, {"aten.rsqrt.default", "tosa.RSQRT"},
      {"aten.erf.default", "tosa.ERF"},             {"aten.abs.default", "tosa.ABS"},
      {"aten.floor.default", "tosa.FLOOR"},         {"aten.ceil.default", "tosa.CEIL"},
      {"aten.sin.default", "tosa.SIN"},             {"aten.cos.default", "tosa.COS"},
      {"aten.logical_not.default", "tosa.LOGICAL_NOT"}, {"aten.clone.default", "tosa.IDENTITY"},
      {"aten.alias_copy.default", "tosa.IDENTITY"}, {"aten.lift_fresh_copy.default", "tosa.IDENTITY"},
      {"aten.detach_copy.default", "tosa.IDENTITY"}};
  return t;
}

const std::map<std::string, std::string>& binaryTable() {
  static const std::map<std::string, std::string> t = {
      {"aten.add.Tensor", "tosa.ADD"},          {"aten.sub.Tensor", "tosa.SUB"},
      {"aten.maximum.default", "tosa.MAXIMUM"}, {"aten.minimum.default", "tosa.MINIMUM"},
      {"aten.eq.Tensor", "tosa.EQUAL"},         {"aten.gt.Tensor", "tosa.GREATER"},
      {"aten.ge.Tensor", "tosa.GREATER_EQUAL"}, {"aten.lt.Tensor", "tosa.GREATER"},
      {"aten.le.Tensor", "tosa.GREATER_EQUAL"}, {"aten.logical_and.default", "tosa.LOGICAL_AND"},
      {"aten.logical_or.default", "tosa.LOGICAL_OR"}, {"aten.logical_xor.default", "tosa.LOGICAL_XOR"},
      {"aten.pow.Tensor_Tensor", "tosa.POW"}};
  return t;
}

/// A name-keyed table keyed by OpId (the rewrite matches by OpId; the names list the targets).
template <class V>
std::unordered_map<ir::OpId, V> byOpId(const std::map<std::string, V>& byName) {
  std::unordered_map<ir::OpId, V> t;
  for (const auto& [name, v] : byName) t.emplace(ir::internOp(name), v);
  return t;
}

Result<bool> exirToTosa(passes::Rewriter& rw, passes::RuleStats&) {
  static const std::unordered_map<ir::OpId, std::string> kUnary = byOpId(unaryTable());
  static const std::unordered_map<ir::OpId, std::string> kBinary = byOpId(binaryTable());
  const ir::Node& n = rw.node();
  const std::string& op = ir::opName(n.op);
  Builder b(rw);
  ValueRef y;
  if (auto it = kUnary.find(n.op); it != kUnary.end()) {
    LS_ASSIGN_OR_RETURN(x, tensorArg(rw, 0, "input"));
    LS_ASSIGN_OR_RETURN(v, b.op(it->second, {x}));
    y = v;
  } else if (n.op == LS_OP("aten.sqrt.default")) {
    LS_ASSIGN_OR_RETURN(x, tensorArg(rw, 0, "input"));
    LS_ASSIGN_OR_RETURN(r, b.op("tosa.RSQRT", {x}));
    LS_ASSIGN_OR_RETURN(v, b.op("tosa.RECIPROCAL", {r}));
    y = v;
  } else if (n.op == LS_OP("aten.bitwise_and.Tensor") || n.op == LS_OP("aten.bitwise_or.Tensor") || n.op == LS_OP("aten.bitwise_xor.Tensor") ||
             n.op == LS_OP("aten.bitwise_left_shift.Tensor") || n.op == LS_OP("aten.bitwise_not.default")) {
    // Bool operands: the LOGICAL_* ops; integers: BITWISE_* and LOGICAL_LEFT_SHIFT.
    const bool isBool = n.meta().dtype == DType::Bool;
    static const std::map<std::string, std::pair<const char*, const char*>> kOpsByName = {
        {"aten.bitwise_and.Tensor", {"tosa.LOGICAL_AND", "tosa.BITWISE_AND"}},
        {"aten.bitwise_or.Tensor", {"tosa.LOGICAL_OR", "tosa.BITWISE_OR"}},
        {"aten.bitwise_xor.Tensor", {"tosa.LOGICAL_XOR", "tosa.BITWISE_XOR"}},
        {"aten.bitwise_left_shift.Tensor", {nullptr, "tosa.LOGICAL_LEFT_SHIFT"}},
        {"aten.bitwise_not.default", {"tosa.LOGICAL_NOT", "tosa.BITWISE_NOT"}}};
    static const std::unordered_map<ir::OpId, std::pair<const char*, const char*>> kOps = byOpId(kOpsByName);
    const auto& [boolOp, intOp] = kOps.at(n.op);
    const char* top = isBool ? boolOp : intOp;
    if (!top) return Status::error(fmt::format("{} of bool tensors has no TOSA lowering", op));
    LS_ASSIGN_OR_RETURN(a, tensorArg(rw, 0, "input"));
    std::vector<ir::Arg> args{a};
    if (n.op != LS_OP("aten.bitwise_not.default")) {
      LS_ASSIGN_OR_RETURN(c, tensorArg(rw, 1, "other"));
      args.push_back(c);
    }
    LS_ASSIGN_OR_RETURN(v, b.op(top, std::move(args)));
    y = v;
  } else if (n.op == LS_OP("aten.neg.default")) {
    LS_ASSIGN_OR_RETURN(x, tensorArg(rw, 0, "input"));
    DType t = rw.meta(x).dtype;
    LS_ASSIGN_OR_RETURN(v, b.op("tosa.NEGATE", {x, b.zeroPoint(t), b.zeroPoint(t)}));
    y = v;
  } else if (auto bt = kBinary.find(n.op); bt != kBinary.end()) {
    LS_ASSIGN_OR_RETURN(a, tensorArg(rw, 0, "input"));
    LS_ASSIGN_OR_RETURN(c, tensorArg(rw, 1, "other"));
    const bool swap = n.op == LS_OP("aten.lt.Tensor") || n.op == LS_OP("aten.le.Tensor");
    LS_ASSIGN_OR_RETURN(v, b.op(bt->second, {swap ? c : a, swap ? a : c}));
    y = v;
  } else if (n.op == LS_OP("aten.mul.Tensor")) {
    LS_ASSIGN_OR_RETURN(a, tensorArg(rw, 0, "input"));
    LS_ASSIGN_OR_RETURN(c, tensorArg(rw, 1, "other"));
    LS_ASSIGN_OR_RETURN(v, b.mul(a, c));
    y = v;
  } else if (n.op == LS_OP("aten.where.self")) {
    LS_ASSIGN_OR_RETURN(p, tensorArg(rw, 0, "condition"));
    LS_ASSIGN_OR_RETURN(a, tensorArg(rw, 1, "self"));
    LS_ASSIGN_OR_RETURN(c, tensorArg(rw, 2, "other"));
    LS_ASSIGN_OR_RETURN(v, b.op("tosa.SELECT", {p, a, c}));
    y = v;
  } else if (n.op == LS_OP("aten.clamp.default")) {
    LS_ASSIGN_OR_RETURN(x, tensorArg(rw, 0, "input"));
    auto lo = sarg(n, 1).number(), hi = sarg(n, 2).number();
    // torch.clamp with min > max gives max everywhere (min(max(x, min), max)); TOSA CLAMP
    // requires min <= max, and CLAMP(x, max, max) is that (NaN still propagates).
    if (lo && hi && *lo > *hi) lo = hi;
    const bool fp = ir::isFloating(rw.meta(x).dtype);
    double dlo = fp ? double(std::numeric_limits<float>::lowest()) : double(INT32_MIN);
    double dhi = fp ? double(std::numeric_limits<float>::max()) : double(INT32_MAX);
    LS_ASSIGN_OR_RETURN(v, b.op("tosa.CLAMP", {x}, {{"min_val", lo.value_or(dlo)}, {"max_val", hi.value_or(dhi)}}));
    y = v;
  } else if (n.op == LS_OP("aten.cat.default")) {
    const ir::Arg& l = sarg(n, 0);
    if (!l.asRefList() || l.asRefList()->empty()) return Status::error("cat: expected a non-empty tensor list");
    const int r = rw.meta(l.asRefList()->front()).rank();
    const int64_t axis = wrap(sarg(n, 1).asInt() ? *sarg(n, 1).asInt() : 0, r);
    // Level 8K allows at most 64 tensors in a list (MAX_TENSOR_LIST_SIZE): longer lists are
    // concatenated in groups of 64, then the groups.
    constexpr size_t kMaxList = 64;
    ir::RefList parts = *l.asRefList();
    while (parts.size() > kMaxList) {
      ir::RefList grouped;
      for (size_t i = 0; i < parts.size(); i += kMaxList) {
        ir::RefList chunk(parts.begin() + std::ptrdiff_t(i), parts.begin() + std::ptrdiff_t(std::min(parts.size(), i + kMaxList)));
        if (chunk.size() == 1) {
          grouped.push_back(chunk[0]);
          continue;
        }
        LS_ASSIGN_OR_RETURN(c, b.op("tosa.CONCAT", {chunk}, {{"axis", axis}}));
        grouped.push_back(c);
      }
      parts = std::move(grouped);
    }
    LS_ASSIGN_OR_RETURN(v, b.op("tosa.CONCAT", {parts}, {{"axis", axis}}));
    y = v;
  } else if (n.op == LS_OP("aten.permute_copy.default")) {
    LS_ASSIGN_OR_RETURN(x, tensorArg(rw, 0, "input"));
    auto p = sints(n, 1);
    if (!p) return Status::error("permute_copy: expected dims");
    const int r = rw.meta(x).rank();
    for (int64_t& d : *p) d = wrap(d, r);
    LS_ASSIGN_OR_RETURN(v, b.transpose(x, *p));
    y = v;
  } else if (n.op == LS_OP("aten.view_copy.default")) {
    LS_ASSIGN_OR_RETURN(x, tensorArg(rw, 0, "input"));
    LS_ASSIGN_OR_RETURN(v, b.reshape(x, n.meta().shape));
    y = v;
  } else if (n.op == LS_OP("aten.repeat.default")) {
    LS_ASSIGN_OR_RETURN(x, tensorArg(rw, 0, "input"));
    auto m = sints(n, 1);
    if (!m || int(m->size()) != rw.meta(x).rank())
      return Status::error("repeat with more multiples than dims must be unsqueezed first (ConvertExpandCopyToRepeatPass)");
    LS_ASSIGN_OR_RETURN(s, b.constShape(*m));
    LS_ASSIGN_OR_RETURN(v, b.op("tosa.TILE", {x, s}));
    y = v;
  } else if (n.op == LS_OP("aten.sum.dim_IntList") || n.op == LS_OP("aten.amax.default") || n.op == LS_OP("aten.amin.default")) {
    LS_ASSIGN_OR_RETURN(x, tensorArg(rw, 0, "input"));
    const ir::TensorMeta& xm = rw.meta(x);
    std::vector<int64_t> dims;
    if (auto d = sints(n, 1)) dims = *d;
    if (dims.empty())
      for (int i = 0; i < xm.rank(); ++i) dims.push_back(i);
    if (n.op == LS_OP("aten.sum.dim_IntList") && !sarg(n, 3).isNone()) return Status::error("sum with a dtype argument is not supported");
    const char* top = n.op == LS_OP("aten.sum.dim_IntList") ? "tosa.REDUCE_SUM" : n.op == LS_OP("aten.amax.default") ? "tosa.REDUCE_MAX" : "tosa.REDUCE_MIN";
    ValueRef v = x;
    for (int64_t d : dims) {
      LS_ASSIGN_OR_RETURN(t, b.op(top, {v}, {{"axis", int64_t(wrap(d, xm.rank()))}}));
      v = t;
    }
    const ir::Arg& kd = sarg(n, 2);
    if (!(kd.asBool() && *kd.asBool())) {
      LS_ASSIGN_OR_RETURN(t, b.reshape(v, n.meta().shape));
      v = t;
    }
    y = v;
  } else if (n.op == LS_OP("aten._to_copy.default")) {
    LS_ASSIGN_OR_RETURN(x, tensorArg(rw, 0, "input"));
    if (rw.meta(x).dtype == n.meta().dtype) {
      y = x;  // a copy to the same type: TOSA has no same-type CAST
    } else {
      LS_ASSIGN_OR_RETURN(v, b.op("tosa.CAST", {x}, {{"dtype", ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(n.meta().dtype)})}}));
      y = v;
    }
  } else {
    return Status::error(fmt::format("no TOSA lowering for {}", op));
  }
  rw.replaceWith(y);
  return true;
}

std::vector<std::string> exirTargets() {
  std::vector<std::string> t;
  for (auto& [k, v] : unaryTable()) t.push_back(k);
  for (auto& [k, v] : binaryTable()) t.push_back(k);
  for (const char* k : {"aten.bitwise_and.Tensor", "aten.bitwise_or.Tensor", "aten.bitwise_xor.Tensor",
                        "aten.bitwise_left_shift.Tensor", "aten.bitwise_not.default"})
    t.push_back(k);
  for (const char* k : {"aten.sqrt.default", "aten.neg.default", "aten.mul.Tensor", "aten.where.self",
                        "aten.clamp.default", "aten.cat.default", "aten.permute_copy.default", "aten.view_copy.default",
                        "aten.repeat.default", "aten.sum.dim_IntList", "aten.amax.default", "aten.amin.default",
                        "aten._to_copy.default"})
    t.push_back(k);
  return t;
}

}  // namespace

void registerExirToTosaPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "ExirToTosaPass",
                      .description = "Table-driven 1:1 ATen -> TOSA (elementwise, clamp, cat, permute, view, repeat, reductions)",
                      .targets = exirTargets(),
                      .rewrite = exirToTosa});
}

}  // namespace ls::arm
