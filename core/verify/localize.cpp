// Numerics localisation: per-node errors of a pass's result against the graph before it.
#include "core/verify/localize.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "core/exec/synth.h"
#include "core/verify/verify.h"

namespace ls::verify {

using exec::Tensor;

namespace {

std::string metricText(const exec::CompareOptions& o) {
  const std::string floats =
      o.scaleRelative ? fmt::format("max|after - before| / (atol {} + rtol {} * max|before|)", o.atol, o.rtol)
                      : fmt::format("max over elements of |after - before| / (atol {} + rtol {} * |before|)", o.atol, o.rtol);
  return fmt::format("{}; quantised integers: max|diff| / {} step(s), other integers: exact; within tolerance <= 1",
                     floats, o.maxSteps);
}

}  // namespace

Result<trace::Localization> localize(const ir::Graph& before, const ir::Graph& after, const std::vector<Tensor>& inputs,
                                     const LocalizeOptions& opts, std::shared_ptr<exec::ConstantCache> constants) {
  if (!constants) constants = std::make_shared<exec::ConstantCache>();
  exec::Executor ex(exec::ExecOptions{.threads = opts.threads, .exactAccumulation = opts.exactAccumulation}, constants);
  auto vb = ex.runAll(before, exec::adaptInputs(before, inputs));
  if (!vb) return Status::error("localize: the graph before the pass does not run: " + vb.message());
  auto va = ex.runAll(after, exec::adaptInputs(after, inputs));
  if (!va) return Status::error("localize: the graph after the pass does not run: " + va.message());

  trace::Localization loc;
  loc.metric = metricText(opts.compare);
  loc.rtol = opts.compare.rtol;
  loc.atol = opts.compare.atol;
  loc.maxSteps = opts.compare.maxSteps;
  loc.scaleRelative = opts.compare.scaleRelative;

  // Positions before the pass (provenance picks the last removed origin) and users after it.
  std::unordered_map<ir::NodeId, size_t> posBefore;
  for (size_t i = 0; i < before.size(); ++i) posBefore[before.at(i).id] = i;
  std::unordered_map<ir::NodeId, std::vector<ir::NodeId>> usersAfter;
  for (const ir::NodePtr& p : after.nodes())
    p->forEachInput([&](const ir::ValueRef& r) { usersAfter[r.node].push_back(p->id); });

  // New nodes: the removed node each takes over from (provenance), grouped by it.
  std::unordered_map<ir::NodeId, ir::NodeId> origin;                   // new node -> removed node
  std::unordered_map<ir::NodeId, std::vector<ir::NodeId>> takenOver;   // removed node -> new nodes
  for (const ir::NodePtr& p : after.nodes()) {
    if (!p->isCall() || before.contains(p->id)) continue;
    ir::NodeId best = ir::kInvalidNode;
    for (ir::NodeId src : p->provenance.derivedFrom) {
      auto it = posBefore.find(src);
      if (it == posBefore.end() || after.contains(src)) continue;  // only removed nodes hand over their value
      if (best == ir::kInvalidNode || it->second > posBefore[best]) best = src;
    }
    if (best == ir::kInvalidNode) continue;
    origin[p->id] = best;
    takenOver[best].push_back(p->id);
  }

  // Match and compare every call node after the pass.
  std::unordered_map<ir::NodeId, double> upstream;  // error reaching a node's value (matched: its own)
  auto inputError = [&](const ir::Node& n) {
    double worst = 0.0;
    n.forEachInput([&](const ir::ValueRef& r) {
      auto it = upstream.find(r.node);
      if (it != upstream.end()) worst = std::max(worst, it->second);
    });
    return worst;
  };
  for (const ir::NodePtr& p : after.nodes()) {
    const ir::Node& n = *p;
    if (!n.isCall()) continue;
    ir::NodeId counterpart = ir::kInvalidNode;
    trace::NodeMatch how = trace::NodeMatch::SameId;
    std::string skip;
    if (before.contains(n.id)) {
      counterpart = n.id;
    } else if (auto o = origin.find(n.id); o != origin.end()) {
      const std::vector<ir::NodeId>& group = takenOver[o->second];
      std::vector<ir::NodeId> sinks;
      for (ir::NodeId m : group) {
        const auto& users = usersAfter[m];
        if (std::none_of(users.begin(), users.end(),
                         [&](ir::NodeId u) { return std::find(group.begin(), group.end(), u) != group.end(); }))
          sinks.push_back(m);
      }
      const std::string& was = before.node(o->second).name;
      if (sinks.size() != 1)
        skip = fmt::format("'{}' was split into {} values", was, sinks.size());
      else if (sinks[0] != n.id)
        skip = fmt::format("inside the rewrite of '{}' (compared at its last node '{}')", was, after.node(sinks[0]).name);
      else
        counterpart = o->second, how = trace::NodeMatch::Provenance;
    } else {
      skip = "no counterpart before the pass (a new node whose provenance names no removed node)";
    }
    if (counterpart == ir::kInvalidNode) {
      loc.skipped.push_back({n.id, skip});
      upstream[n.id] = inputError(n);
      continue;
    }
    const std::vector<Tensor>& outA = va->of(n.id);
    const std::vector<Tensor>& outB = vb->of(counterpart);
    double maxAbs = 0.0, tolerances = 0.0;
    int compared = 0;
    std::string mismatch;
    for (size_t k = 0; k < std::min(outA.size(), outB.size()); ++k) {
      const Tensor &a = outA[k], &b = outB[k];
      if (!a.defined() || !b.defined()) continue;
      if (a.dtype() != b.dtype() || a.shape() != b.shape()) {
        if (mismatch.empty()) mismatch = fmt::format("{} vs {} before the pass", ir::toString(a.meta()), ir::toString(b.meta()));
        continue;
      }
      // The verify rule: quantised integers (qparams on the value before the pass) in steps,
      // other integers exactly.
      const std::vector<ir::TensorMeta>& metaB = before.node(counterpart).outputs;
      const bool quantised = k < metaB.size() && metaB[k].quant != nullptr;
      const exec::OutputDiff d = exec::compareTensors(a, b, opts.compare, quantised);
      maxAbs = std::max(maxAbs, d.maxAbsError);
      tolerances = std::max(tolerances, d.tolerances);
      ++compared;
    }
    if (compared == 0) {
      loc.skipped.push_back({n.id, mismatch.empty() ? "no tensor output to compare" : "not comparable: " + mismatch});
      upstream[n.id] = inputError(n);
      continue;
    }
    trace::NodeError ne;
    ne.id = n.id;
    ne.matched = counterpart;
    ne.match = how;
    ne.maxAbsError = maxAbs;
    ne.error = tolerances;
    ne.inputError = inputError(n);
    ne.exceeds = ne.error > 1.0;
    ne.source = ne.exceeds && ne.inputError <= 1.0;
    if (ne.source && loc.culprit == ir::kInvalidNode) loc.culprit = n.id;
    upstream[n.id] = ne.error;
    loc.nodes.push_back(ne);
  }
  return loc;
}

Result<trace::Localization> localizePass(const trace::Trace& t, int passIndex, const Reference& ref) {
  if (passIndex < 0 || passIndex >= int(t.records.size()))
    return Status::error(fmt::format("localize: pass #{} is not in the trace ({} passes)", passIndex, t.records.size()));
  const VerifyOptions& vo = ref.options();
  LocalizeOptions lo;
  lo.compare = vo.compare;
  lo.threads = vo.threads;
  lo.exactAccumulation = vo.quantSteps;
  auto loc = localize(t.graphBefore(passIndex), t.graphAfter(passIndex), ref.inputs(), lo, ref.constants());
  const std::string& name = t.records[size_t(passIndex)].name;
  if (!loc) return Status::error(fmt::format("pass '{}' (#{}): {}", name, passIndex, loc.message()));
  loc->passIndex = passIndex;
  loc->pass = name;
  return loc;
}

}  // namespace ls::verify
