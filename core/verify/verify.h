// Semantic verification of pipelines: the source graph's outputs on seeded inputs are the
// reference; verify-each (an instrumentation) runs the graph after every changed pass and
// compares, bisect finds the first pass responsible for a failing check by running pipeline
// prefixes (LLVM's -opt-bisect-limit).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/exec/compare.h"
#include "core/exec/executor.h"
#include "core/passes/pass_manager.h"
#include "core/trace/trace.h"
#include "core/util/progress.h"

namespace ls::verify {

using exec::CompareOptions;
using exec::ConstantCache;
using exec::RunValues;
using exec::Tensor;

struct VerifyOptions {
  /// Graph inputs are synthesizeInputs(source, seed).
  uint64_t seed = 1;
  /// Float outputs: |a - b| <= atol + rtol * |b|. Quantised integer outputs (the source returns
  /// a quantised value): at most maxSteps units; other integer and bool outputs exactly.
  CompareOptions compare;
  /// Compare float outputs that the source graph produces with a per-tensor dequantize in
  /// quantisation steps of that dequantize's scale (|a - b| / scale <= compare.maxSteps)
  /// instead of rtol/atol. The instrumentation turns this on for the INT profile.
  bool quantSteps = false;
  /// verify-each: fail the first non-equivalent pass (the pipeline stops there and the graph
  /// is rolled back) instead of recording the error and going on.
  bool stopOnFailure = false;
  /// Reuse the values of nodes that a pass did not touch (same node version, same input
  /// values) from the previous check instead of recomputing them.
  bool reuseValues = true;
  /// Executor threads (0 = default).
  int threads = 0;
  /// Reports the reference run (stage "verify: reference run") and verify-each's checks (stage
  /// "verify-each <pass>", the fraction over the whole pipeline), per executed node.
  StageProgressFn progress;
};

/// Outcome of one comparison with the reference.
struct CheckResult {
  trace::SemanticCheck semantic;  ///< checked = true
  std::string message;            ///< "equivalent (...)" or what failed first
  bool executionFailed = false;   ///< the graph did not run (message says why)
};

/// The reference of a verification: seeded inputs, the source graph's outputs and the way
/// each output is compared (plain float tolerance, integer units or quantisation steps).
class Reference {
 public:
  /// Runs `source` on synthesizeInputs(source, opts.seed). Fails if it does not run.
  /// With `all`, the source graph runs once keeping every node's values there (verify-each
  /// seeds its value reuse with them).
  static Result<Reference> compute(const ir::Graph& source, const VerifyOptions& opts,
                                   std::shared_ptr<ConstantCache> constants = nullptr, RunValues* all = nullptr);

  const std::vector<Tensor>& inputs() const { return inputs_; }
  const std::vector<Tensor>& outputs() const { return outputs_; }
  /// Per output: the quantisation step it is compared in (0: float rtol/atol or integer units).
  const std::vector<double>& steps() const { return steps_; }
  /// Per output: the source returns a quantised integer value there (compared within maxSteps
  /// units); other integer outputs must be equal.
  const std::vector<bool>& quantisedIntegers() const { return quantised_; }
  const std::shared_ptr<ConstantCache>& constants() const { return constants_; }
  const VerifyOptions& options() const { return opts_; }

  /// Compares `actual` (outputs of a transformed graph on inputs()) with the reference. An
  /// output compared in steps may also come back as the quantised integers themselves (a
  /// lowering that ends in int8): they are dequantised with the source's scale and zero point.
  CheckResult compare(const std::vector<Tensor>& actual) const;
  /// Runs `g` on inputs() and compares. An execution error is a failed check. `g` runs in
  /// float64 (ExecOptions::float64) when the reference did (quantSteps), and when it holds
  /// quantize/dequantize ops while the source does not (a quantised model against its float
  /// model: the quantised model's values are its exact ones, those of an integer lowering).
  CheckResult check(const ir::Graph& g) const;

 private:
  VerifyOptions opts_;
  std::vector<Tensor> inputs_, outputs_;
  std::vector<double> steps_;
  std::vector<int64_t> zeroPoints_;
  std::vector<bool> quantised_;
  bool sourceQuantised_ = false;  ///< the source graph holds quantize/dequantize ops
  std::shared_ptr<ConstantCache> constants_;
};

/// One verify-each check.
struct PassCheck {
  int passIndex = -1;
  std::string pass;
  CheckResult result;
};

/// verify-each: after every pass that changed the graph, runs the graph on the reference
/// inputs and compares with the source graph's outputs; the result goes into the pass's
/// record (PassRecord::semantic) and checks(). The reference is computed in beforePipeline
/// from the graph the pipeline starts with (materialise shape-only constants before: see
/// materializeConstants). For the INT profile float outputs behind a dequantize are compared
/// in quantisation steps. Runs before recorders (it is a "can fail" instrumentation), so
/// traces carry the result.
class VerifyEachInstrumentation : public passes::Instrumentation {
 public:
  explicit VerifyEachInstrumentation(VerifyOptions opts = {});
  ~VerifyEachInstrumentation() override;

  /// Uses `ref` (computed on the graph the pipeline will start with) instead of computing the
  /// reference in beforePipeline; `sourceValues` (Reference::compute's `all`) seeds value reuse.
  void useReference(std::shared_ptr<const Reference> ref, std::shared_ptr<const RunValues> sourceValues = nullptr);

  void beforePipeline(const passes::RunInfo& info, const ir::Graph& g) override;
  Status afterPass(const passes::Pass& p, trace::PassRecord& rec, const ir::Graph& g) override;
  bool canFail() const override { return true; }

  /// Error of the reference run (the source graph did not execute); checks are then off.
  const Status& setupStatus() const { return setup_; }
  const Reference* reference() const { return ref_.get(); }
  const std::vector<PassCheck>& checks() const { return checks_; }
  /// The first pass whose graph is not equivalent, or null.
  const PassCheck* firstFailure() const;
  /// Nodes whose values were reused / recomputed over all checks (reuseValues).
  uint64_t reusedNodes() const { return reused_; }
  uint64_t computedNodes() const { return computed_; }

 private:
  struct Memo;
  VerifyOptions opts_;
  Status setup_;
  std::shared_ptr<const Reference> ref_, preset_;
  std::shared_ptr<const RunValues> presetValues_;
  std::vector<PassCheck> checks_;
  std::unique_ptr<Memo> memo_;
  uint64_t reused_ = 0, computed_ = 0;
  size_t passCount_ = 0;  // of the running pipeline (progress)
};

// ---------------------------------------------------------------- bisect

/// Builds the pipeline restricted to its first `limit` passes.
using PrefixFactory = std::function<Result<passes::PassManager>(size_t limit)>;

/// Prefixes of a registered pipeline (with the given passes disabled where present).
Result<PrefixFactory> registryPrefixes(const std::string& pipeline, std::vector<std::string> disabled,
                                       size_t* passCount);

struct BisectProbe {
  size_t limit = 0;  ///< passes run
  bool failed = false;
  std::string detail;
};

struct BisectResult {
  bool fullPipelineFails = false;  ///< false: nothing to bisect (culprit stays -1)
  int culprit = -1;                ///< index of the first pass responsible
  std::string culpritName;
  std::string detail;              ///< the check's failure with the culprit included
  std::vector<BisectProbe> probes;  ///< every prefix tried, in order
};

struct BisectOptions {
  VerifyOptions verify;
  /// Also run the structural verifier after every changed pass (its failure fails the check).
  bool structural = true;
};

/// Finds the first pass whose inclusion makes the check fail, by halving: the check of a
/// prefix of k passes runs the first k passes on a copy of `source` and compares with the
/// source graph's outputs (a failed pass or verifier error fails it too). Assumes, like
/// -opt-bisect-limit, that once the check fails it fails for every longer prefix. `ctx`
/// supplies profile, target and engine options (each probe gets its own inference cache).
Result<BisectResult> bisect(const ir::Graph& source, size_t passCount, const PrefixFactory& prefixes,
                            const passes::PassContext& ctx, const BisectOptions& opts = {});

}  // namespace ls::verify
