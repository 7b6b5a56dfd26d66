// Passes on the graph's constants, inputs and outputs: FuseEqualPlaceholdersPass and
// EnsureUniqueOutputNodesPass (the seed-004 pair), ExtractIOQuantizationPass (INT: int8 graph
// I/O) and ConvertInt64ConstOpsToInt32Pass.
#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"

namespace ls::arm {

using ir::NodeId;

namespace {
/// (dtype, shape) key of a constant, the cheap pre-check: raw bytes, dtype then each dim.
std::string metaKey(const ir::Constant& c) {
  std::string k(1, char(c.dtype));
  for (int64_t d : c.shape.dims()) k.append(reinterpret_cast<const char*>(&d), sizeof d);
  return k;
}

/// A get_attr node and its constant (looked up once).
struct ConstantNode {
  NodeId id;
  const ir::Constant* c;
};
std::vector<ConstantNode> constantNodes(const ir::Graph& g) {
  std::vector<ConstantNode> v;
  for (const ir::NodePtr& p : g.nodes())
    if (p->kind == ir::NodeKind::GetAttr)
      if (const ir::Constant* c = g.constant(p->target)) v.push_back({p->id, c});
  return v;
}
}  // namespace

// ---------------------------------------------------------------- FuseEqualPlaceholders

FuseEqualPlaceholdersPass::FuseEqualPlaceholdersPass()
    : InPlacePass("FuseEqualPlaceholdersPass", "Merges constants with equal dtype, shape and contents") {
  merged_ = stat("merged", "duplicate constants replaced by a shared one");
  groups_ = stat("groups", "groups of equal constants");
}

passes::ShouldRun FuseEqualPlaceholdersPass::shouldRunImpl(const ir::Graph& g, const passes::PassContext&) const {
  std::map<std::string, int> seen;
  for (const ConstantNode& cn : constantNodes(g))
    if (++seen[metaKey(*cn.c)] == 2) return passes::ShouldRun::yes();
  return passes::ShouldRun::no(passes::SkipReason::Precondition, "no two constants share dtype and shape");
}

Status FuseEqualPlaceholdersPass::transform(passes::GraphEditor& ed) {
  ir::Graph& g = ed.graph();
  std::map<std::string, std::vector<ConstantNode>> byMeta;
  for (const ConstantNode& cn : constantNodes(g)) byMeta[metaKey(*cn.c)].push_back(cn);
  // duplicate -> keeper (the first in graph order, so it dominates every use)
  std::unordered_map<NodeId, NodeId> into;
  for (auto& [key, ids] : byMeta) {
    if (ids.size() < 2) continue;
    // Content: the constant's content hash (bytes for data; the recipe's for derived
    // constants; name-derived for shape-only constants, whose synthesised values differ by
    // name), confirmed byte by byte for data and operation by operation for recipes.
    std::map<uint64_t, std::vector<ConstantNode>> byHash;
    for (const ConstantNode& cn : ids) byHash[cn.c->contentHash].push_back(cn);
    for (auto& [h, same] : byHash) {
      if (same.size() < 2) continue;
      std::vector<ConstantNode> keepers;
      bool grouped = false;
      for (const ConstantNode& cn : same) {  // `ids` are in graph order
        NodeId to = ir::kInvalidNode;
        for (const ConstantNode& k : keepers) {
          if (ir::sameContent(*cn.c, *k.c)) {
            to = k.id;
            break;
          }
        }
        if (to == ir::kInvalidNode) {
          keepers.push_back(cn);
          continue;
        }
        into[cn.id] = to;
        bump(merged_);
        if (!grouped) bump(groups_);
        grouped = true;
      }
    }
  }
  if (into.empty()) return Status::ok();
  // One sweep rewires every reader; the duplicates are then dead and removed.
  std::unordered_map<NodeId, ir::ValueRef> to;
  for (auto& [dup, keeper] : into) to.emplace(dup, ir::ValueRef{keeper, 0});
  ed.replaceAllUses(to);
  ed.eliminateDeadCode();
  return Status::ok();
}

// ---------------------------------------------------------------- ExtractIOQuantization

ExtractIOQuantizationPass::ExtractIOQuantizationPass()
    : InPlacePass("ExtractIOQuantizationPass",
                  "INT: int8 graph inputs and outputs; the boundary quantize/dequantize move out of the graph "
                  "(qparams recorded on the inputs and outputs)") {
  targets({kQ, kDq});
  appliesTo(passes::Applicability::intOnly());
  inputs_ = stat("inputs", "graph inputs now taken as int8 (their quantize moved out of the graph)");
  outputs_ = stat("outputs", "graph outputs now returned as int8 (their dequantize moved out of the graph)");
}

Status ExtractIOQuantizationPass::transform(passes::GraphEditor& ed) {
  ir::Graph& g = ed.graph();
  static const ir::OpId qOp = ir::internOp(kQ), dqOp = ir::internOp(kDq);
  std::vector<NodeId> inputs;
  for (const ir::NodePtr& p : g.nodes())
    if (p->kind == ir::NodeKind::Placeholder && p->outputs.size() == 1 && p->outputs[0].dtype == ir::DType::Float32)
      inputs.push_back(p->id);
  for (NodeId in : inputs) {
    const std::vector<NodeId> users(g.users(in).begin(), g.users(in).end());
    if (users.empty()) continue;
    std::optional<QP> common;
    ir::DType storage = ir::DType::Int8;
    bool ok = true;
    for (NodeId u : users) {
      const ir::Node& q = g.node(u);
      const ir::ValueRef* x = q.args.empty() ? nullptr : q.args[0].ref();
      std::optional<QP> qp = q.op == qOp ? perTensorQP(q) : std::nullopt;
      int refs = 0;
      q.forEachInput([&](const ir::ValueRef& r) { refs += r.node == in; });
      if (!qp || !x || x->node != in || refs != 1 || q.outputs.size() != 1 || (common && !(*common == *qp)) ||
          q.outputs[0].dtype != ir::DType::Int8 || q.hasFlag(ir::kFlagDisallowTransform)) {
        ok = false;
        break;
      }
      common = qp;
      storage = q.outputs[0].dtype;
    }
    if (!ok || !common) continue;
    {
      ir::TensorMeta& m = g.mutableNode(in).outputs[0];
      m.dtype = storage;
      m.quant = toQuant(*common, storage);
    }
    for (NodeId u : users) {
      ed.replaceAllUses(ir::ValueRef{u, 0}, ir::ValueRef{in, 0});
      LS_RETURN_IF_ERROR(ed.erase(u));
    }
    bump(inputs_);
  }
  const ir::Node* out = g.outputNode();
  if (!out || out->args.empty() || !out->args[0].asRefList()) return Status::ok();
  const ir::RefList slots = *out->args[0].asRefList();
  std::set<NodeId> dequantizes;
  for (size_t i = 0; i < slots.size(); ++i) {
    const ir::ValueRef r = slots[i];
    if (r.isNone()) continue;
    const ir::Node& dq = g.node(r.node);
    const ir::ValueRef* x = dq.args.empty() ? nullptr : dq.args[0].ref();
    std::optional<QP> qp = dq.op == dqOp ? perTensorQP(dq) : std::nullopt;
    if (!qp || !x || dq.hasFlag(ir::kFlagDisallowTransform)) continue;
    const ir::ValueRef src = *x;
    const ir::TensorMeta& sm = g.meta(src);
    if (sm.dtype != ir::DType::Int8) continue;
    if (!sm.quant) g.mutableNode(src.node).outputs[src.output].quant = toQuant(*qp, sm.dtype);
    ed.replaceOutputSlot(i, src);
    dequantizes.insert(dq.id);
    bump(outputs_);
  }
  for (NodeId d : dequantizes)
    if (g.users(d).empty()) LS_RETURN_IF_ERROR(ed.erase(d));
  return Status::ok();
}

// ---------------------------------------------------------------- InsertInt32CastsAfterInt64Placeholders

InsertInt32CastsAfterInt64PlaceholdersPass::InsertInt32CastsAfterInt64PlaceholdersPass()
    : InPlacePass("InsertInt32CastsAfterInt64PlaceholdersPass",
                  "int64 graph inputs become int32 inputs (the int64 -> int32 cast moves out of the graph)") {
  inputs_ = stat("inputs", "int64 graph inputs now taken as int32");
}

passes::ShouldRun InsertInt32CastsAfterInt64PlaceholdersPass::shouldRunImpl(const ir::Graph& g,
                                                                            const passes::PassContext&) const {
  for (const ir::NodePtr& p : g.nodes())
    if (p->kind == ir::NodeKind::Placeholder && p->outputs.size() == 1 && p->outputs[0].dtype == ir::DType::Int64)
      return passes::ShouldRun::yes();
  return passes::ShouldRun::no(passes::SkipReason::Precondition, "no graph input is int64");
}

Status InsertInt32CastsAfterInt64PlaceholdersPass::transform(passes::GraphEditor& ed) {
  ir::Graph& g = ed.graph();
  std::vector<NodeId> inputs;
  for (const ir::NodePtr& p : g.nodes())
    if (p->kind == ir::NodeKind::Placeholder && p->outputs.size() == 1 && p->outputs[0].dtype == ir::DType::Int64)
      inputs.push_back(p->id);
  const ir::Arg int32(ir::EnumArg{ir::EnumKind::DType, int32_t(ir::DType::Int32)});
  for (NodeId in : inputs) {
    const ir::ValueRef x{in, 0};
    LS_ASSIGN_OR_RETURN(c, ed.insertAfter(in, "aten._to_copy.default", {x}, {{"dtype", int32}},
                                          g.node(in).name + "_int32"));
    ed.replaceAllUses(x, c);
    g.mutableNode(in).outputs[0].dtype = ir::DType::Int32;  // the cast is now int32 -> int32
    bump(inputs_);
  }
  return Status::ok();
}

// ---------------------------------------------------------------- EnsureUniqueOutputNodes

EnsureUniqueOutputNodesPass::EnsureUniqueOutputNodesPass()
    : InPlacePass("EnsureUniqueOutputNodesPass", "One distinct node per output slot: IDENTITY for repeated values") {
  inserted_ = stat("identities", "IDENTITY nodes inserted for repeated output slots");
}

passes::ShouldRun EnsureUniqueOutputNodesPass::shouldRunImpl(const ir::Graph& g, const passes::PassContext&) const {
  const ir::Node* out = g.outputNode();
  if (out && !out->args.empty())
    if (auto* l = out->args[0].asRefList()) {
      std::set<std::pair<NodeId, uint32_t>> seen;
      for (const ir::ValueRef& r : *l)
        if (!r.isNone() && !seen.insert({r.node, r.output}).second) return passes::ShouldRun::yes();
    }
  return passes::ShouldRun::no(passes::SkipReason::Precondition, "every output slot already holds a distinct value");
}

Status EnsureUniqueOutputNodesPass::transform(passes::GraphEditor& ed) {
  ir::Graph& g = ed.graph();
  const ir::Node* out = g.outputNode();
  if (!out || out->args.empty() || !out->args[0].asRefList()) return Status::ok();
  const ir::RefList slots = *out->args[0].asRefList();
  const NodeId outId = out->id;
  std::set<std::pair<NodeId, uint32_t>> seen;
  for (size_t i = 0; i < slots.size(); ++i) {
    const ir::ValueRef r = slots[i];
    if (r.isNone() || seen.insert({r.node, r.output}).second) continue;
    Builder build(ed, outId);
    build.setDerivedFrom({r.node});
    auto id = build.op("tosa.IDENTITY", {r}, {}, "output_identity");
    if (!id) return id.status();
    ed.replaceOutputSlot(i, *id);
    bump(inserted_);
  }
  return Status::ok();
}

// ---------------------------------------------------------------- ConvertInt64ConstOpsToInt32

namespace {

/// TOSA 1.0 has no int64: an int64 constant (an index buffer such as Swin's
/// relative_position_index, an arange) read through a CAST becomes a constant of the CAST's
/// type (int32 when all its values fit, float, bool); a value out of int32 range leaves the
/// CAST, and the TOSA writer then names it.
Status foldInt64ConstCast(ArmRewritePass& self, passes::Rewriter& rw) {
  const ir::Node& n = rw.node();
  using ir::DType;
  const DType to = n.meta().dtype;
  if (to == DType::Int64 || n.args.empty() || !n.args[0].ref()) return Status::ok();
  const ir::ValueRef src = *n.args[0].ref();
  if (rw.meta(src).dtype != DType::Int64) return Status::ok();
  auto v = valueOfConstant(rw.graph(), src);
  if (!v) return Status::ok();
  exec::Tensor t(to, v->shape());
  for (int64_t i = 0; i < v->numel(); ++i) {
    const int64_t x = v->getInt(i);
    if (ir::isFloating(to)) {
      t.setDouble(i, double(x));
    } else if (to == DType::Bool) {
      t.setInt(i, x != 0);
    } else {
      if (to != DType::Int32 || x < INT32_MIN || x > INT32_MAX) return Status::ok();
      t.setInt(i, x);
    }
  }
  Builder b(rw);
  rw.replaceWith(b.tensor(t, to == DType::Int32 ? "int32_const" : "cast_const"));
  self.rewritten();
  return Status::ok();
}

}  // namespace

void registerArmCleanupPasses(passes::PassRegistry& r) {
  r.add("FuseEqualPlaceholdersPass", [] { return std::make_unique<FuseEqualPlaceholdersPass>(); });
  r.add("EnsureUniqueOutputNodesPass", [] { return std::make_unique<EnsureUniqueOutputNodesPass>(); });
  r.add("ExtractIOQuantizationPass", [] { return std::make_unique<ExtractIOQuantizationPass>(); });
  r.add("InsertInt32CastsAfterInt64PlaceholdersPass",
        [] { return std::make_unique<InsertInt32CastsAfterInt64PlaceholdersPass>(); });
  r.add("ConvertInt64ConstOpsToInt32Pass", [] {
    return std::make_unique<ArmRewritePass>("ConvertInt64ConstOpsToInt32Pass",
                                            "CAST of an int64 constant to int32 folded into an int32 constant (TOSA "
                                            "1.0 has no int64)",
                                            std::vector<std::string>{"tosa.CAST"}, foldInt64ConstCast);
  });
}

}  // namespace ls::arm
