// GraphEditor: in-place edits with provenance and a downstream metadata refresh.
#include "core/passes/editor.h"

#include "core/util/flat_view_map.h"

#include <fmt/format.h>

#include <unordered_map>

namespace ls::passes {

Result<ir::ValueRef> GraphEditor::insertAt(size_t pos, std::string_view op, std::vector<ir::Arg> args,
                                           std::vector<ir::Kwarg> kwargs, std::string_view nameHint,
                                           std::vector<ir::NodeId> derivedFrom) {
  ir::Node n;
  n.kind = ir::NodeKind::Call;
  n.op = ir::internOp(op);
  n.target = std::string(op);
  std::string hint(nameHint);
  if (hint.empty()) {
    auto a = op.find('.');
    hint = std::string(op.substr(a + 1, op.find('.', a + 1) - a - 1));
    for (char& c : hint) c = char(std::tolower(static_cast<unsigned char>(c)));
  }
  n.name = g_.uniqueName(hint);
  n.args = std::move(args);
  n.kwargs = std::move(kwargs);
  n.provenance.createdBy = pass_.name();
  n.provenance.derivedFrom = std::move(derivedFrom);
  if (!n.provenance.derivedFrom.empty())
    if (const ir::Node* src = g_.find(n.provenance.derivedFrom[0])) n.module = src->module;
  Status st = ops::inferNode(g_, n, n.outputs, ctx_.inferenceCache());
  if (!st.isOk()) return st;
  ir::NodeId id = g_.insertAt(pos, std::move(n));
  touch(id);
  return ir::ValueRef{id, 0};
}

Result<ir::ValueRef> GraphEditor::insertBefore(ir::NodeId anchor, std::string_view op, std::vector<ir::Arg> args,
                                               std::vector<ir::Kwarg> kwargs, std::string_view nameHint,
                                               std::vector<ir::NodeId> derivedFrom) {
  return insertAt(g_.position(anchor), op, std::move(args), std::move(kwargs), nameHint, std::move(derivedFrom));
}

Result<ir::ValueRef> GraphEditor::insertAfter(ir::NodeId anchor, std::string_view op, std::vector<ir::Arg> args,
                                              std::vector<ir::Kwarg> kwargs, std::string_view nameHint,
                                              std::vector<ir::NodeId> derivedFrom) {
  return insertAt(g_.position(anchor) + 1, op, std::move(args), std::move(kwargs), nameHint, std::move(derivedFrom));
}

ir::ValueRef GraphEditor::addConstant(ir::NodeId anchor, ir::Constant c, std::string_view nameHint,
                                      std::vector<ir::NodeId> derivedFrom) {
  std::string name = g_.uniqueName(nameHint.empty() ? "const" : nameHint);
  while (g_.constant(name)) name = g_.uniqueName(name + "_c");
  c.name = name;
  c.contentHash = 0;
  ir::Node n;
  n.kind = ir::NodeKind::GetAttr;
  n.name = name;
  n.target = name;
  n.outputs.push_back(ir::TensorMeta(c.dtype, c.shape));
  n.provenance.createdBy = pass_.name();
  n.provenance.derivedFrom = std::move(derivedFrom);
  // As every node a pass builds: the module of what it derives from.
  if (!n.provenance.derivedFrom.empty())
    if (const ir::Node* src = g_.find(n.provenance.derivedFrom[0])) n.module = src->module;
  g_.setConstant(std::move(c));
  ir::NodeId id = g_.insertAt(g_.position(anchor), std::move(n));
  changed_ = true;
  return {id, 0};
}

size_t GraphEditor::replaceUse(ir::NodeId user, ir::ValueRef from, ir::ValueRef to) {
  size_t count = 0;
  ir::Node& u = g_.mutableNode(user);
  u.forEachInputMutable([&](ir::ValueRef& r) {
    if (r == from) {
      r = to;
      ++count;
    }
  });
  if (count) touch(user);
  return count;
}

void inheritQuant(ir::Graph& g, const ir::TensorMeta& from, ir::ValueRef to) {
  if (!from.quant || to.isNone()) return;
  const ir::TensorMeta& tm = g.meta(to);
  // Per-tensor qparams hold for any layout of the value (a replacement may be its transpose).
  if (tm.quant || tm.dtype != from.dtype) return;
  if (from.quant->scheme != ir::QScheme::PerTensor && tm.shape != from.shape) return;
  g.mutableNode(to.node).outputs[to.output].quant = from.quant;
}

void keepQuantAnnotations(const std::vector<ir::TensorMeta>& before, std::vector<ir::TensorMeta>& after) {
  for (size_t o = 0; o < after.size() && o < before.size(); ++o)
    if (!after[o].quant && before[o].quant && after[o].dtype == before[o].dtype) after[o].quant = before[o].quant;
}

size_t GraphEditor::replaceAllUses(ir::ValueRef from, ir::ValueRef to) {
  inheritQuant(g_, g_.meta(from), to);
  std::vector<ir::NodeId> users(g_.users(from.node).begin(), g_.users(from.node).end());
  size_t count = 0;
  for (ir::NodeId u : users) {
    if (u == to.node) continue;
    count += replaceUse(u, from, to);
  }
  return count;
}

size_t GraphEditor::replaceAllUses(const std::unordered_map<ir::NodeId, ir::ValueRef>& into) {
  if (into.empty()) return 0;
  for (const auto& [from, to] : into) inheritQuant(g_, g_.meta({from, 0}), to);
  std::vector<std::pair<ir::NodeId, std::pair<ir::ValueRef, ir::ValueRef>>> edits;
  for (const ir::NodePtr& p : g_.nodes())
    p->forEachInput([&](const ir::ValueRef& r) {
      if (r.output != 0) return;
      if (auto it = into.find(r.node); it != into.end() && it->second.node != p->id) edits.push_back({p->id, {r, it->second}});
    });
  size_t count = 0;
  for (auto& [user, ft] : edits) count += replaceUse(user, ft.first, ft.second);
  return count;
}

bool GraphEditor::replaceOutputSlot(size_t slot, ir::ValueRef to) {
  const ir::Node* out = g_.outputNode();
  if (!out || out->args.empty() || !out->args[0].asRefList()) return false;
  ir::Node& o = g_.mutableNode(out->id);
  auto& list = std::get<ir::RefList>(o.args[0].v);
  if (slot >= list.size()) return false;
  list[slot] = to;
  touch(o.id);
  return true;
}

void GraphEditor::setCall(ir::NodeId id, std::string_view op, std::vector<ir::Arg> args,
                          std::vector<ir::Kwarg> kwargs) {
  ir::OpId opId = ir::internOp(op);
  if (g_.node(id).op != opId) g_.setOp(id, opId, std::string(op));
  ir::Node& n = g_.mutableNode(id);
  n.args = std::move(args);
  n.kwargs = std::move(kwargs);
  touch(id);
}

void GraphEditor::setArgs(ir::NodeId id, std::vector<ir::Arg> args) {
  g_.mutableNode(id).args = std::move(args);
  touch(id);
}

Status GraphEditor::erase(ir::NodeId id) {
  if (!g_.users(id).empty())
    return Status::error(fmt::format("cannot erase '{}': it still has {} users", g_.node(id).name, g_.users(id).size()));
  touched_.erase(id);
  g_.erase(id);
  changed_ = true;
  return Status::ok();
}

size_t GraphEditor::eliminateDeadCode() {
  // To the fixpoint in one sweep: count every node's readers, start from the calls and
  // get_attrs nothing reads, and a node whose last reader dies joins them (any node order).
  // Rounds of "erase what nothing reads" rescanned the graph once per level of a dead chain
  // (batch norm -> getitem -> its get_attrs is three).
  const size_t ids = g_.nextId();
  auto removable = [](const ir::Node& n) { return n.kind == ir::NodeKind::Call || n.kind == ir::NodeKind::GetAttr; };
  std::vector<uint32_t> readers(ids, 0);
  for (const ir::NodePtr& p : g_.nodes())
    p->forEachInput([&](const ir::ValueRef& r) {
      if (r.node < ids) ++readers[r.node];
    });
  std::vector<uint8_t> dead(ids, 0);
  std::vector<const ir::Node*> work;
  for (const ir::NodePtr& p : g_.nodes())
    if (removable(*p) && readers[p->id] == 0) {
      dead[p->id] = 1;
      work.push_back(p.get());
    }
  if (work.empty()) return 0;
  std::vector<ir::NodeId> deadIds;
  while (!work.empty()) {
    const ir::Node* n = work.back();
    work.pop_back();
    deadIds.push_back(n->id);
    n->forEachInput([&](const ir::ValueRef& r) {
      if (r.node >= ids || --readers[r.node] != 0 || dead[r.node]) return;
      if (const ir::Node* src = g_.find(r.node); src && removable(*src)) {
        dead[r.node] = 1;
        work.push_back(src);
      }
    });
  }
  // A dead get_attr's constant goes with it when no live get_attr reads it.
  FlatViewMap<uint8_t> deadTargets;
  for (ir::NodeId id : deadIds)
    if (const ir::Node& n = g_.node(id); n.kind == ir::NodeKind::GetAttr) deadTargets.insert(n.target, 1);
  std::vector<std::string> deadConstants;
  if (!deadTargets.empty()) {
    for (const ir::NodePtr& p : g_.nodes())
      if (p->kind == ir::NodeKind::GetAttr && !dead[p->id])
        if (uint8_t* only = deadTargets.find(p->target)) *only = 0;
    for (ir::NodeId id : deadIds)
      if (const ir::Node& n = g_.node(id); n.kind == ir::NodeKind::GetAttr)
        if (uint8_t* only = deadTargets.find(n.target); only && *only) {
          deadConstants.push_back(n.target);
          *only = 0;  // once per constant
        }
  }
  if (!touched_.empty())
    for (ir::NodeId id : deadIds) touched_.erase(id);
  const size_t removed = g_.eraseNodes(std::span<const ir::NodeId>(deadIds));
  g_.eraseConstants(deadConstants);
  if (removed) changed_ = true;
  return removed;
}

Status GraphEditor::finish() {
  if (touched_.empty()) return Status::ok();
  size_t start = g_.size();
  for (ir::NodeId id : touched_)
    if (g_.contains(id)) start = std::min(start, g_.position(id));
  std::unordered_set<ir::NodeId> changedMeta;
  std::vector<ir::TensorMeta> metas;
  for (size_t i = start; i < g_.size(); ++i) {
    const ir::Node& n = g_.at(i);
    bool need = touched_.count(n.id) > 0;
    if (!need)
      n.forEachInput([&](const ir::ValueRef& r) {
        if (changedMeta.count(r.node)) need = true;
      });
    if (!need) continue;
    if (n.kind == ir::NodeKind::Output) {
      std::vector<ir::TensorMeta> outs;
      if (!n.args.empty())
        if (auto* l = n.args[0].asRefList())
          for (const ir::ValueRef& r : *l) outs.push_back(g_.meta(r));
      if (outs != n.outputs) g_.mutableNode(n.id).outputs = std::move(outs);
      continue;
    }
    if (n.kind != ir::NodeKind::Call) continue;
    Status st = ops::inferNode(g_, n, metas, ctx_.inferenceCache());
    if (!st.isOk()) return st;
    ++ctx_.counters.reinferred;
    keepQuantAnnotations(n.outputs, metas);
    if (metas != n.outputs) {
      changedMeta.insert(n.id);
      g_.mutableNode(n.id).outputs = metas;
    }
  }
  touched_.clear();
  return Status::ok();
}

PassResult InPlacePass::runImpl(ir::Graph& g, PassContext& ctx) {
  ir::Graph work = g;  // copy-on-write: a failure leaves `g` as it was
  GraphEditor ed(work, *this, ctx);
  Status st = transform(ed);
  if (st.isOk()) st = ed.finish();
  if (!st.isOk()) return PassResult::failed(st.message());
  if (!ed.changed()) return PassResult::unchanged();
  g = std::move(work);
  return PassResult::changed();
}

}  // namespace ls::passes
