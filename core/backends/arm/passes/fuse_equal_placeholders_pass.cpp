// FuseEqualPlaceholdersPass (upstream backends/arm/_passes/fuse_equal_placeholders_pass.py).
// Merges constants with equal dtype, shape and bytes (upstream FuseEqualPlaceholdersPass):
// should_run pre-checks (dtype, shape) collisions cheaply, the run hashes contents
// (synthesised values of shape-only constants count as their data).
#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/passes/rule_pass.h"

namespace ls::arm {

using passes::Rewriter;
using ir::NodeId;
using ir::DType;
using ir::Shape;

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

void registerFuseEqualPlaceholdersPass(passes::PassRegistry& r) {
  r.add("FuseEqualPlaceholdersPass", [] { return std::make_unique<FuseEqualPlaceholdersPass>(); });
}

}  // namespace ls::arm
