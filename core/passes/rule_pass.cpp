// RulePass: a PassSpec run by the retrace engine (rule_pass.h).
#include "core/passes/rule_pass.h"

#include <memory>

#include "core/passes/pass_manager.h"

namespace ls::passes {

RulePass::RulePass(PassSpec spec) : RetracePass(spec.name, spec.description), spec_(std::move(spec)) {
  targets(spec_.targets);
  appliesTo(spec_.gate);
  rewritten_ = stat("rewritten", "nodes rewritten");
  for (const auto& [statName, desc] : spec_.stats) extra_.push_back(stat(statName, desc));
}

Status RulePass::rewrite(Rewriter& rw) {
  if (spec_.candidate && !spec_.candidate(rw.node())) return Status::ok();
  Result<bool> r = spec_.rewrite(rw, *this);
  if (!r) return r.status();
  if (r.value()) bump(rewritten_);
  return Status::ok();
}

void RulePass::count(size_t i, int64_t n) {
  if (i < extra_.size()) bump(extra_[i], n);
}

ShouldRun RulePass::shouldRunImpl(const ir::Graph& g, const PassContext& ctx) const {
  ShouldRun s = RetracePass::shouldRunImpl(g, ctx);
  if (!s.run || !spec_.candidate ||
      anyTargetNode(g, [&](const ir::Graph&, const ir::Node& n) { return spec_.candidate(n); }))
    return s;
  return ShouldRun::no(SkipReason::Precondition, spec_.noCandidate);
}

void addPass(PassRegistry& r, PassSpec spec) {
  std::string name = spec.name;
  r.add(name, [spec = std::move(spec)] { return std::make_unique<RulePass>(spec); });
}

}  // namespace ls::passes
