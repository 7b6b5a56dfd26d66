// The one form of a pass that rewrites nodes one at a time: a table entry (PassSpec) names the
// pass once (registry name = Pass::name()), declares its target ops (matched by OpId), where it
// applies (profile/target), which target nodes are candidates, and a rewrite that returns
// Result<bool>: true when it rewrote the node (the base counts it in the "rewritten"
// statistic), false to keep the node, an error to fail the pass naming the node. The rewrite
// builds through NodeBuilder (node_builder.h) and ends with Rewriter::replaceWith (or
// rewriteInPlace). Passes that keep state across nodes or edit whole graphs stay classes
// (InPlacePass, RetracePass).
//
//   const passes::PassSpec kDecomposeIntPow{
//       .name = "DecomposeIntPowPass",
//       .description = "pow(x, n) with an integral n -> x * x * ...",
//       .targets = {"aten.pow.Tensor_Scalar"},
//       .rewrite = decomposeIntPow,
//       .candidate = decomposablePow,
//       .noCandidate = "no pow by an integral scalar exponent"};
//   passes::addPass(registry, kDecomposeIntPow);
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/passes/retrace.h"

namespace ls::passes {

class PassRegistry;

/// The extra statistics of a rule (PassSpec::stats, by index).
class RuleStats {
 public:
  virtual ~RuleStats() = default;
  /// Adds `n` to extra statistic `i` (an index into PassSpec::stats).
  virtual void count(size_t i, int64_t n = 1) = 0;
  /// True when the pass runs in the quantizer's transform for annotation (it honours the
  /// disallow flag there): upstream's is_tfa_pass, for rules that leave work to the pipeline.
  virtual bool forAnnotation() const { return false; }
};

/// The rewrite of one hot node (a target op node that is a candidate and may be transformed).
using RewriteFn = std::function<Result<bool>(Rewriter& rw, RuleStats& stats)>;

/// A pass as data: one entry per pass.
struct PassSpec {
  std::string name;         ///< ends in "Pass"; upstream's name where upstream has the pass
  std::string description;  ///< one line: what becomes what
  std::vector<std::string> targets;  ///< op names, interned to OpIds once
  RewriteFn rewrite;
  Applicability gate = Applicability::any();
  /// Only target nodes `candidate` accepts reach the rewrite, and the pass is skipped (a
  /// precondition; `noCandidate` says why) when no target node is one. It reads the node
  /// alone (its args and kwargs), which a retrace copies unchanged until a rewrite happens.
  bool (*candidate)(const ir::Node&) = nullptr;
  std::string noCandidate;
  /// Extra statistics (name, description), counted through RuleStats by index.
  std::vector<std::pair<std::string, std::string>> stats;
};

/// The pass a PassSpec describes.
class RulePass : public RetracePass, private RuleStats {
 public:
  explicit RulePass(PassSpec spec);
  const PassSpec& spec() const { return spec_; }

 protected:
  Status rewrite(Rewriter& rw) final;
  ShouldRun shouldRunImpl(const ir::Graph& g, const PassContext& ctx) const override;

 private:
  void count(size_t i, int64_t n) override;
  bool forAnnotation() const override { return checksAllowedToTransform(); }
  PassSpec spec_;
  size_t rewritten_ = 0;
  std::vector<size_t> extra_;
};

/// Registers `spec` as a pass factory under its name (each create() makes a fresh RulePass).
void addPass(PassRegistry& r, PassSpec spec);

}  // namespace ls::passes
