// LoweringSession: the one way to start a lowering run. load -> optional quantize (INT
// profile, float graph) -> optional constant materialisation -> PassManager built from the
// pipeline registry with the standard instrumentations -> immutable Trace. `lowerscope-cli
// lower`, `verify`, `bench` and the app's RunJob all use it, so the quantize point, its
// options and the seed cannot drift between them.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/io/load.h"
#include "core/passes/pass_manager.h"
#include "core/quant/quantizer.h"
#include "core/trace/trace.h"
#include "core/util/progress.h"
#include "core/util/status.h"

namespace ls::session {

/// What to run. Every consumer fills the same struct; defaults are the CLI's defaults.
struct SessionConfig {
  std::string pipeline = "generic";
  passes::Profile profile = passes::Profile::FP;
  passes::Target target = passes::Target::Generic;
  passes::EngineOptions engine;
  std::vector<std::string> disabled;  ///< pass names skipped with reason "disabled"
  /// Run only the first N passes of the pipeline (verify --bisect-limit); nullopt: all.
  std::optional<size_t> passLimit;
  bool structuralVerify = false;  ///< VerifierInstrumentation after every changed pass
  /// INT profile: a float graph (no quantize/dequantize ops) is quantized first with the
  /// post-training quantizer, calibrated on inputs seeded from `seed`.
  bool quantize = true;
  uint64_t seed = 1;
  /// INT calibration on the user's data (loadCalibrationSamples: a .npy file or a directory);
  /// empty: the seeded inputs.
  std::string calibration;
  /// Activation observers of the INT calibration: upstream's histogram, or min/max.
  quant::ActivationObserver observer = quant::ActivationObserver::Histogram;
  /// Extensions the target file may use beyond the profile (PassContext::extensions).
  std::vector<std::string> extensions;
  /// Shape-only constants get their synthesised values as data before the run, so every
  /// graph version sees the same weights (semantic verification needs it).
  bool materializeConstants = false;
  bool recordTrace = true;  ///< keep the source graph, records and snapshots
  bool statistics = true;   ///< copy each pass's named counters into its record
};

/// What a prepared graph went through before the pipeline.
struct Prepared {
  ir::Graph graph;
  bool quantized = false;    ///< the session quantized a float graph
  std::string quantizeSummary;  ///< the quantizer's one-line report when quantized
  /// The quantizer's passes (one record each) and their total time, when quantized.
  std::vector<passes::PassRecord> quantizePasses;
  int64_t quantizeNs = 0;
  bool alreadyQuantized = false;  ///< INT profile, but the input already held q/dq ops
  /// The quantizer's passes recorded as their own run (source: the float graph; final graph:
  /// `graph`), when the session quantized and records traces; attached to the pipeline's
  /// trace as Trace::preparation by run(Prepared, ...).
  std::shared_ptr<const trace::Trace> preparation;
};

/// Hooks of one run (all optional). Extra instrumentations run after the structural
/// verifier and before statistics and the trace recorder, so recorders see their results.
struct RunHooks {
  std::vector<passes::Instrumentation*> instrumentations;
  const std::atomic<bool>* cancel = nullptr;
  passes::ProgressFn progress;
  /// lower(): the quantizer's calibration progress (see prepare).
  StageProgressFn stageProgress;
};

/// The result of a run. `result.failedIndex >= 0` when a pass failed (also when it threw).
struct Outcome {
  passes::RunResult result;
  ir::Graph finalGraph;                       ///< the graph after the last good pass
  std::shared_ptr<const trace::Trace> trace;  ///< null unless recordTrace
  uint64_t cacheHits = 0, cacheMisses = 0;
  /// Nodes of the prepared graph the pipeline's operator support checks refuse for the
  /// target (PipelineDef::supportChecks), in graph order: "Rejected by <check>: <reason>".
  std::vector<passes::SupportRejection> rejected;
  bool supportChecked = false;  ///< the pipeline has support checks and they ran
  int64_t supportNs = 0;        ///< their time
  bool failed() const { return result.failedIndex >= 0; }
};

class LoweringSession {
 public:
  explicit LoweringSession(SessionConfig cfg);
  const SessionConfig& config() const { return cfg_; }

  /// Loads a graph file (.fxjson.json or .lsg); registers the built-in backends first.
  static Result<ir::Graph> load(const std::string& path, io::ImportReport* report = nullptr);

  /// The pass manager this session runs: the pipeline from the registry (cut to passLimit),
  /// disabled passes set, validated. Errors: unknown pipeline or pass, bad disabled name.
  Result<passes::PassManager> buildPassManager() const;
  /// Checks the configuration without running anything (same errors as buildPassManager).
  Status validate() const;

  /// Quantize (INT profile, float graph, quantize on) and materialise constants. `progress`
  /// receives the calibration's stage and fraction (QuantizeOptions::progress).
  Result<Prepared> prepare(ir::Graph g, const StageProgressFn& progress = {}) const;

  /// Runs the pipeline over a prepared graph. Never throws: an exception thrown by a pass
  /// is that pass failing (PassManager), one thrown anywhere else in the run is an error.
  Result<Outcome> run(ir::Graph g, const std::string& model, const RunHooks& hooks = {}) const;
  /// Runs the pipeline over `p.graph` and attaches p.preparation (the quantizer's recorded
  /// passes) to the trace.
  Result<Outcome> run(Prepared p, const std::string& model, const RunHooks& hooks = {}) const;

  /// prepare + run. `prepared` (optional) receives what prepare reported (not the graph).
  Result<Outcome> lower(ir::Graph g, const std::string& model, const RunHooks& hooks = {},
                        Prepared* prepared = nullptr) const;

 private:
  Result<Outcome> runWith(ir::Graph g, const std::string& model, const RunHooks& hooks,
                          std::shared_ptr<const trace::Trace> preparation) const;
  SessionConfig cfg_;
};

}  // namespace ls::session
