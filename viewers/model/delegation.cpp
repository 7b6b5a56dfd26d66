// Delegation summary of a partitioned graph (see delegation.h).
#include "viewers/model/delegation.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/backends/xnnpack/partitioner.h"
#include "core/ops/builtin_ops.h"
#include "viewers/model/counterparts.h"

namespace ls::viewmodel {

std::vector<ir::NodeId> delegateNodes(const ir::Graph& g) {
  const ir::OpId delegateOp = ir::internOp(ops::kCallDelegateOp);
  std::vector<ir::NodeId> ids;
  for (const ir::NodePtr& p : g.nodes())
    if (p->kind == ir::NodeKind::Call && p->op == delegateOp) ids.push_back(p->id);
  return ids;
}

Delegation delegation(const ir::Graph& g) {
  Delegation d;
  const ir::OpId delegateOp = ir::internOp(ops::kCallDelegateOp);
  std::map<std::string, UndelegatedRow> left;
  for (const ir::NodePtr& p : g.nodes()) {
    const ir::Node& n = *p;
    if (n.kind != ir::NodeKind::Call) continue;
    if (n.op == delegateOp) {
      DelegateRow row;
      row.node = n.id;
      if (!n.args.empty())
        if (const std::string* name = n.args[0].asString()) row.name = *name;
      std::map<std::string, int64_t> ops;
      if (auto it = g.subgraphs().find(row.name); it != g.subgraphs().end() && it->second)
        for (const ir::NodePtr& q : it->second->nodes())
          if (q->kind == ir::NodeKind::Call) ++ops[std::string(ir::opName(q->op))], ++row.nodes;
      row.ops.assign(ops.begin(), ops.end());
      std::stable_sort(row.ops.begin(), row.ops.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
      d.delegatedNodes += row.nodes;
      d.delegates.push_back(std::move(row));
      continue;
    }
    ++d.topLevelCalls;
    UndelegatedRow& u = left[std::string(ir::opName(n.op))];
    if (u.nodes.empty()) {
      u.op = std::string(ir::opName(n.op));
      auto why = xnnpack::unsupportedReason(g, n);
      u.reason = why ? *why : "supported, but left out of every partition (joining one would make a cycle)";
    }
    ++u.count;
    u.nodes.push_back(n.id);
  }
  for (auto& [op, u] : left) d.undelegated.push_back(std::move(u));
  std::stable_sort(d.undelegated.begin(), d.undelegated.end(),
                   [](const UndelegatedRow& a, const UndelegatedRow& b) { return a.count > b.count; });
  return d;
}

std::vector<uint32_t> partitionTints(const trace::Trace& t, int pass) {
  std::vector<uint32_t> out;
  const int last = int(t.records.size()) - 1;
  pass = std::clamp(pass, -1, last);
  // The first pass after which the graph holds delegates.
  int partitioned = -2;
  std::vector<ir::NodeId> delegates;
  for (int p = -1; p <= last && partitioned == -2; ++p) {
    if (p >= 0 && t.records[size_t(p)].snapshot < 0) continue;
    delegates = delegateNodes(t.graphAfter(p));
    if (!delegates.empty()) partitioned = p;
  }
  if (partitioned == -2) return out;
  const ir::Graph& shown = t.graphAfter(pass);
  out.assign(shown.nextId(), 0);
  // Colours by the delegate's index in the partitioned graph, so a partition keeps its colour.
  for (size_t i = 0; i < delegates.size(); ++i)
    for (ir::NodeId id : counterparts(t, partitioned, pass, {delegates[i]}))
      if (id < out.size()) out[id] = partitionColour(i) | 0xff000000u;
  return out;
}

uint32_t partitionColour(size_t index) {
  // Golden-angle hues at fixed saturation and value: neighbours differ, colours never repeat soon.
  const double h = std::fmod(double(index) * 137.508, 360.0) / 60.0;
  const double s = 0.55, v = 0.85, c = v * s, x = c * (1 - std::fabs(std::fmod(h, 2.0) - 1)), m = v - c;
  double r = 0, gr = 0, b = 0;
  switch (int(h)) {
    case 0: r = c, gr = x; break;
    case 1: r = x, gr = c; break;
    case 2: gr = c, b = x; break;
    case 3: gr = x, b = c; break;
    case 4: r = x, b = c; break;
    default: r = c, b = x; break;
  }
  auto byte = [&](double t) { return uint32_t(std::lround((t + m) * 255.0)); };
  return byte(r) << 16 | byte(gr) << 8 | byte(b);
}

}  // namespace ls::viewmodel
