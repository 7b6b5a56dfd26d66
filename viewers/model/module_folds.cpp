// Module folding (see module_folds.h).
#include "viewers/model/module_folds.h"

#include <algorithm>
#include <queue>
#include <unordered_map>

#include <fmt/format.h>

#include "core/graph_layout/graph_layout.h"

namespace ls::viewmodel {

namespace {
constexpr std::string_view kCountKey = "nodes";

/// The outermost prefix of `module` not in `expanded` ("" when every prefix is expanded).
std::string_view foldKey(std::string_view module, const std::set<std::string, std::less<>>& expanded) {
  size_t end = 0;
  while (end != std::string_view::npos && !module.empty()) {
    end = module.find('.', end == 0 ? 0 : end + 1);
    std::string_view prefix = module.substr(0, end);
    if (!expanded.count(prefix)) return prefix;
  }
  return {};
}

bool isConstant(const ir::Graph& g, const ir::Node& n) { return graph_layout::isConstantNode(g, n); }

/// Items on a cycle, among those Kahn's sort left (indeg > 0): the members of strongly connected
/// components with more than one item (Kosaraju, iterative).
std::vector<int> itemsOnCycles(const std::vector<std::vector<int>>& succ, const std::vector<int>& indeg) {
  const size_t n = succ.size();
  std::vector<uint8_t> left(n);
  for (size_t i = 0; i < n; ++i) left[i] = indeg[i] > 0;
  std::vector<std::vector<int>> pred(n);
  for (size_t u = 0; u < n; ++u)
    if (left[u])
      for (int v : succ[u])
        if (left[size_t(v)]) pred[size_t(v)].push_back(int(u));
  // First pass: finish order on the forward edges.
  std::vector<int> finish;
  std::vector<uint8_t> seen(n, 0);
  for (size_t r = 0; r < n; ++r) {
    if (!left[r] || seen[r]) continue;
    std::vector<std::pair<int, size_t>> stack{{int(r), 0}};
    seen[r] = 1;
    while (!stack.empty()) {
      auto& [u, k] = stack.back();
      if (k < succ[size_t(u)].size()) {
        const int v = succ[size_t(u)][k++];
        if (left[size_t(v)] && !seen[size_t(v)]) seen[size_t(v)] = 1, stack.push_back({v, 0});
      } else {
        finish.push_back(u);
        stack.pop_back();
      }
    }
  }
  // Second pass: components on the reversed edges, in reverse finish order.
  std::vector<int> comp(n, -1), out;
  int c = 0;
  for (auto it = finish.rbegin(); it != finish.rend(); ++it, ++c) {
    if (comp[size_t(*it)] >= 0) continue;
    std::vector<int> members{*it}, stack{*it};
    comp[size_t(*it)] = c;
    while (!stack.empty()) {
      const int u = stack.back();
      stack.pop_back();
      for (int v : pred[size_t(u)])
        if (comp[size_t(v)] < 0) comp[size_t(v)] = c, members.push_back(v), stack.push_back(v);
    }
    if (members.size() > 1) out.insert(out.end(), members.begin(), members.end());
  }
  return out;
}

/// Fold key per graph position ("" = drawn itself) under `expanded`, with constants joining the
/// fold of all their users; keys of folds with fewer than two members are cleared.
std::vector<std::string_view> foldKeys(const ir::Graph& g, const std::set<std::string, std::less<>>& expanded,
                                       const std::set<std::string, std::less<>>& broken) {
  std::vector<std::string_view> key(g.size());
  for (size_t i = 0; i < g.size(); ++i) {
    const ir::Node& n = g.at(i);
    if (!n.isCall() || n.module.empty()) continue;
    std::string_view k = foldKey(n.module, expanded);
    if (!k.empty() && !broken.count(k)) key[i] = k;
  }
  for (size_t i = 0; i < g.size(); ++i) {
    const ir::Node& n = g.at(i);
    if (!isConstant(g, n)) continue;
    std::string_view common;
    bool same = true;
    for (ir::NodeId u : g.users(n.id)) {
      std::string_view k = key[g.position(u)];
      if (k.empty() || (!common.empty() && k != common)) {
        same = false;
        break;
      }
      common = k;
    }
    if (same) key[i] = common;
  }
  std::unordered_map<std::string_view, int> members;
  for (std::string_view k : key)
    if (!k.empty()) ++members[k];
  for (std::string_view& k : key)
    if (!k.empty() && members[k] < 2) k = {};
  return key;
}
}  // namespace

std::string foldLabel(const ir::Node& fold) {
  const ir::Arg* count = fold.kwarg(kCountKey);
  const int64_t* c = count ? count->asInt() : nullptr;
  return fmt::format("{}  {} nodes", fold.module, c ? *c : 0);
}

std::string foldOpSummary(const ir::Node& fold, size_t top) {
  std::string s;
  size_t shown = 0, rest = 0;
  for (const ir::Kwarg& k : fold.kwargs) {
    if (k.name == kCountKey) continue;
    const int64_t* c = k.value.asInt();
    if (!c) continue;
    if (shown == top) {
      rest += size_t(*c);
      continue;
    }
    if (!s.empty()) s += ", ";
    s += fmt::format("{} {}", *c, k.name);
    ++shown;
  }
  if (rest) s += fmt::format(", {} other", rest);
  return s;
}

std::vector<std::string> modulePrefixes(std::string_view path) {
  std::vector<std::string> out;
  if (path.empty()) return out;
  for (size_t dot = path.find('.'); dot != std::string_view::npos; dot = path.find('.', dot + 1))
    out.emplace_back(path.substr(0, dot));
  out.emplace_back(path);
  return out;
}

void FoldIds::reserve(ir::NodeId nextId) {
  if (nextId < base_) return;
  base_ = nextId + 4096;  // room for later passes' nodes before the ids have to move
  ids_.clear();
}

ir::NodeId FoldIds::idOf(const std::string& path) {
  auto it = ids_.find(path);
  if (it != ids_.end()) return it->second;
  const ir::NodeId id = base_ + ir::NodeId(ids_.size());
  ids_.emplace(path, id);
  return id;
}

const Fold* FoldedGraph::fold(ir::NodeId foldId) const {
  for (const Fold& f : folds)
    if (f.id == foldId) return &f;
  return nullptr;
}

const Fold* FoldedGraph::foldByPath(std::string_view path) const {
  for (const Fold& f : folds)
    if (f.path == path) return &f;
  return nullptr;
}

FoldedGraph foldModules(const ir::Graph& g, const std::set<std::string, std::less<>>& expanded, FoldIds& ids) {
  g.buildIndices();
  std::set<std::string, std::less<>> broken;  // folds left expanded because they would make a cycle
  for (;;) {
    const std::vector<std::string_view> key = foldKeys(g, expanded, broken);
    // Items: one per fold (by first member) or per unfolded node.
    std::vector<int> itemOfPos(g.size());
    std::vector<size_t> firstPos;  // per item
    std::unordered_map<std::string_view, int> itemOfKey;
    for (size_t i = 0; i < g.size(); ++i) {
      if (!key[i].empty()) {
        auto [it, fresh] = itemOfKey.emplace(key[i], int(firstPos.size()));
        if (fresh) firstPos.push_back(i);
        itemOfPos[i] = it->second;
      } else {
        itemOfPos[i] = int(firstPos.size());
        firstPos.push_back(i);
      }
    }
    const size_t items = firstPos.size();
    // Aggregated edges producer item -> user item, then a topological order that keeps graph
    // order where it can (smallest first position first).
    std::vector<std::vector<int>> succ(items);
    std::vector<int> indeg(items, 0);
    {
      std::vector<std::vector<int>> preds(items);
      for (size_t i = 0; i < g.size(); ++i)
        g.at(i).forEachInput([&](const ir::ValueRef& r) {
          if (!g.contains(r.node)) return;
          const int p = itemOfPos[g.position(r.node)], u = itemOfPos[i];
          if (p != u) preds[size_t(u)].push_back(p);
        });
      for (size_t u = 0; u < items; ++u) {
        std::sort(preds[u].begin(), preds[u].end());
        preds[u].erase(std::unique(preds[u].begin(), preds[u].end()), preds[u].end());
        for (int p : preds[u]) succ[size_t(p)].push_back(int(u)), ++indeg[u];
      }
    }
    std::priority_queue<std::pair<size_t, int>, std::vector<std::pair<size_t, int>>, std::greater<>> ready;
    for (size_t it = 0; it < items; ++it)
      if (indeg[it] == 0) ready.push({firstPos[it], int(it)});
    std::vector<int> order;
    order.reserve(items);
    while (!ready.empty()) {
      const int it = ready.top().second;
      ready.pop();
      order.push_back(it);
      for (int s : succ[size_t(it)])
        if (--indeg[size_t(s)] == 0) ready.push({firstPos[size_t(s)], s});
    }
    if (order.size() < items) {
      // A cycle through folds (a module called at two places, e.g. one ReLU module used twice
      // in a block): leave the folds on a cycle expanded and try again.
      const size_t before = broken.size();
      for (int it : itemsOnCycles(succ, indeg)) {
        const size_t pos = firstPos[size_t(it)];
        if (!key[pos].empty()) broken.emplace(key[pos]);
      }
      if (broken.size() == before) break;  // cannot happen: a cycle needs a fold
      continue;
    }

    // Build the folded graph in that order.
    FoldedGraph out;
    ids.reserve(g.nextId());
    out.foldOf.assign(g.nextId(), ir::kInvalidNode);
    std::vector<int> foldOfItem(items, -1);
    for (size_t i = 0; i < g.size(); ++i) {
      if (key[i].empty()) continue;
      int& f = foldOfItem[size_t(itemOfPos[i])];
      if (f < 0) {
        f = int(out.folds.size());
        Fold fold;
        fold.path = std::string(key[i]);
        fold.id = ids.idOf(fold.path);
        out.folds.push_back(std::move(fold));
      }
      out.folds[size_t(f)].members.push_back(g.at(i).id);
      out.foldOf[g.at(i).id] = out.folds[size_t(f)].id;
    }
    auto remap = [&](const ir::ValueRef& r) -> ir::ValueRef {
      const ir::NodeId f = out.foldOfNode(r.node);
      return f == ir::kInvalidNode ? r : ir::ValueRef{f, 0};
    };
    auto graph = std::make_shared<ir::Graph>(g.shellCopy());
    graph->reserveNodes(items);
    std::unordered_map<ir::NodeId, size_t> orderOf;  // position in the folded graph
    orderOf.reserve(items);
    for (int it : order) {
      const int f = foldOfItem[size_t(it)];
      if (f < 0) {
        const ir::NodePtr& p = g.ptrAt(firstPos[size_t(it)]);
        bool touchesFold = false;
        p->forEachInput([&](const ir::ValueRef& r) { touchesFold |= out.foldOfNode(r.node) != ir::kInvalidNode; });
        orderOf[p->id] = orderOf.size();
        if (!touchesFold) {
          graph->appendShared(p);
          continue;
        }
        ir::Node n = *p;
        n.forEachInputMutable([&](ir::ValueRef& r) { r = remap(r); });
        graph->append(std::move(n));
        continue;
      }
      const Fold& fold = out.folds[size_t(f)];
      ir::Node n;
      n.id = fold.id;
      n.kind = ir::NodeKind::Call;
      n.op = ir::internOp(kFoldTarget);
      n.target = std::string(kFoldTarget);
      n.module = fold.path;
      n.name = g.findByName(fold.path) == ir::kInvalidNode ? fold.path : g.uniqueName(fold.path);
      std::vector<ir::NodeId> inputs;
      std::map<std::string, int64_t> ops;
      for (ir::NodeId m : fold.members) {
        const ir::Node& mn = g.node(m);
        if (mn.isCall()) ++ops[shortOpName(mn)];
        mn.forEachInput([&](const ir::ValueRef& r) {
          if (out.foldOfNode(r.node) != fold.id) inputs.push_back(remap(r).node);
        });
      }
      std::sort(inputs.begin(), inputs.end());
      inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
      // Inputs in graph order of the folded graph (the order they were appended).
      std::sort(inputs.begin(), inputs.end(),
                [&](ir::NodeId a, ir::NodeId b) { return orderOf[a] < orderOf[b]; });
      for (ir::NodeId in : inputs) n.args.emplace_back(ir::ValueRef{in, 0});
      n.kwargs.push_back({std::string(kCountKey), ir::Arg(int64_t(fold.members.size()))});
      std::vector<std::pair<std::string, int64_t>> hist(ops.begin(), ops.end());
      std::stable_sort(hist.begin(), hist.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
      for (auto& [op, c] : hist) n.kwargs.push_back({op, ir::Arg(c)});
      n.outputs = {g.node(fold.members.back()).meta(0)};
      orderOf[n.id] = orderOf.size();
      graph->append(std::move(n));
    }
    graph->reserveIds(ids.base() + 1 + ir::NodeId(out.folds.size()) + 4096);
    graph->buildIndices();
    out.graph = std::move(graph);
    return out;
  }
  return {};
}

std::set<std::string, std::less<>> autoExpand(const ir::Graph& g, size_t budget) {
  // Module tree levels: depth of each call node's module.
  size_t maxDepth = 0;
  for (const ir::NodePtr& p : g.nodes())
    if (p->isCall() && !p->module.empty())
      maxDepth = std::max(maxDepth, size_t(std::count(p->module.begin(), p->module.end(), '.') + 1));
  auto prefixesBelow = [&](size_t depth) {
    std::set<std::string, std::less<>> out;
    for (const ir::NodePtr& p : g.nodes())
      if (p->isCall())
        for (const std::string& pre : modulePrefixes(p->module))
          if (size_t(std::count(pre.begin(), pre.end(), '.') + 1) <= depth) out.insert(pre);
    return out;
  };
  auto boxes = [&](const std::set<std::string, std::less<>>& expanded) {
    const std::vector<std::string_view> key = foldKeys(g, expanded, {});
    std::set<std::string_view> folds;
    size_t n = 0;
    for (size_t i = 0; i < g.size(); ++i) {
      if (!key[i].empty()) folds.insert(key[i]);
      else if (!isConstant(g, g.at(i))) ++n;  // constants are mostly badges
    }
    return n + folds.size();
  };
  std::set<std::string, std::less<>> best;
  for (size_t depth = 1; depth <= maxDepth; ++depth) {
    auto expanded = prefixesBelow(depth);
    if (boxes(expanded) > budget) break;
    best = std::move(expanded);
  }
  return best;
}

std::vector<std::string> revealPath(const ir::Graph& g, ir::NodeId id, const std::set<std::string, std::less<>>& expanded) {
  std::vector<std::string> out;
  const ir::Node* n = g.find(id);
  if (!n) return out;
  std::string module = n->module;
  if (isConstant(g, *n) && !g.users(id).empty()) module = g.node(g.users(id).front()).module;  // folds with its users
  for (std::string& p : modulePrefixes(module))
    if (!expanded.count(p)) out.push_back(std::move(p));
  return out;
}

void foldDiff(DrawDiff& d, const FoldedGraph& shown, const FoldedGraph* compared) {
  const ir::NodeId next = shown.graph ? shown.graph->nextId() : 0;
  if (d.markById.size() < next) d.markById.resize(next, uint8_t(DiffMark::None));
  for (const Fold& f : shown.folds) {
    size_t added = 0, changed = 0;
    for (ir::NodeId m : f.members) {
      const DiffMark mk = d.mark(m);
      added += mk == DiffMark::Added;
      changed += mk == DiffMark::Changed;
    }
    if (compared)
      if (const Fold* cf = compared->foldByPath(f.path))
        for (ir::NodeId m : cf->members)
          if (shown.foldOfNode(m) != f.id) {
            // A member of the compared fold that is no longer in this fold: removed or moved out.
            ++changed;
            break;
          }
    DiffMark mark = added == f.members.size() ? DiffMark::Added : added + changed > 0 ? DiffMark::Changed : DiffMark::None;
    d.markById[f.id] = uint8_t(mark);
  }
  std::vector<std::pair<ir::NodeId, ir::NodeId>> links;
  for (auto [from, to] : d.replacedBy) {
    if (compared && compared->foldOfNode(from) != ir::kInvalidNode) continue;
    links.emplace_back(from, shown.drawnId(to));
  }
  std::sort(links.begin(), links.end());
  links.erase(std::unique(links.begin(), links.end()), links.end());
  d.replacedBy = std::move(links);
}

}  // namespace ls::viewmodel
