// PassManager: runs an ordered pipeline of passes with skip/disable logic, must-run-after
// checks and instrumentation hooks; registries of passes and pipelines by name.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <utility>
#include <string>
#include <vector>

#include "core/passes/pass.h"
#include "core/passes/pass_record.h"

namespace ls::passes {

// ---------------------------------------------------------------- registries

using PassFactory = std::function<std::unique_ptr<Pass>()>;

/// Pass factories by name (the pass's upstream name where it has one). Filled by
/// registerBackend (core/passes/backend.h) before any pipeline runs; read-only after that.
class PassRegistry {
 public:
  static PassRegistry& instance();
  /// Adds a factory. A name registered twice is an error, reported by takeErrors() (and by
  /// registerBackend); the first registration stays.
  void add(const std::string& name, PassFactory f);
  /// Registration errors since the last call.
  std::vector<std::string> takeErrors() { return std::exchange(errors_, {}); }
  std::unique_ptr<Pass> create(const std::string& name) const;  ///< null if unknown
  bool contains(const std::string& name) const { return factories_.count(name) > 0; }
  std::vector<std::string> names() const;
  /// What a backend knows about where a pass comes from: one line per upstream entry it runs or
  /// stands for ("upstream _tosa_pipeline #44 DecomposeIntPowPass (backends/arm/_passes/...)").
  /// Backends add them when they register; `lowerscope-cli passes` prints them.
  void addOrigin(const std::string& name, std::string line) { origins_[name].push_back(std::move(line)); }
  const std::vector<std::string>& origins(const std::string& name) const;

 private:
  std::map<std::string, PassFactory> factories_;
  std::map<std::string, std::vector<std::string>> origins_;
  std::vector<std::string> errors_;
};

/// A pipeline: an ordered list of pass names (duplicates allowed, as upstream).
struct PipelineDef {
  std::string name;
  std::string description;
  std::vector<std::string> passes;
  /// The backend's part of the quantizer's transform for annotation (upstream's
  /// transform_for_annotation_pipeline): registered passes run on the float graph, before the
  /// built-in decompositions, before an INT-profile run annotates it.
  std::vector<std::string> annotationPasses = {};
  /// The backend's operator support checks (upstream's partitioner checks), evaluated on the
  /// graph the pipeline starts from (after quantization) for a profile and target: the nodes
  /// they refuse, in graph order. Empty function: the pipeline has none.
  std::function<std::vector<SupportRejection>(const ir::Graph&, Profile, Target)> supportChecks = {};
};

class PipelineRegistry {
 public:
  static PipelineRegistry& instance();
  /// Adds a pipeline; a name registered twice is an error (takeErrors), the first stays.
  void add(PipelineDef def);
  std::vector<std::string> takeErrors() { return std::exchange(errors_, {}); }
  const PipelineDef* find(const std::string& name) const;
  std::vector<std::string> names() const;

 private:
  std::map<std::string, PipelineDef> defs_;
  std::vector<std::string> errors_;
};

// ---------------------------------------------------------------- instrumentation

struct RunInfo {
  std::string model;
  std::string pipeline;
  const PassContext* ctx = nullptr;
  size_t passCount = 0;
};

/// Hooks around every pass (MLIR PassInstrumentation style). Hooks run on the thread that
/// runs the pipeline. afterPass may fail (e.g. the verifier): the pass is then recorded as
/// failed, the graph rolled back to before it, and the pipeline stops.
class Instrumentation {
 public:
  virtual ~Instrumentation() = default;
  virtual void beforePipeline(const RunInfo&, const ir::Graph&) {}
  virtual void beforePass(const Pass&, PassRecord&, const ir::Graph&) {}
  virtual Status afterPass(const Pass&, PassRecord&, const ir::Graph&) { return Status::ok(); }
  virtual void passSkipped(const Pass&, PassRecord&, const ir::Graph&) {}
  virtual void passFailed(const Pass&, PassRecord&, const ir::Graph& lastGood) { (void)lastGood; }
  virtual void afterPipeline(const RunInfo&, const ir::Graph&, int64_t totalNs) { (void)totalNs; }
  /// True when afterPass can fail (the manager then keeps a rollback copy, which is cheap).
  virtual bool canFail() const { return false; }
};

/// Verifier: after every changed pass checks the graph is well formed (no dangling uses,
/// order, unique names) and every value's metadata equals re-inference. The error names the
/// pass and the node; the time is recorded as the pass's verify phase.
class VerifierInstrumentation : public Instrumentation {
 public:
  Status afterPass(const Pass& p, PassRecord& rec, const ir::Graph& g) override;
  bool canFail() const override { return true; }
  /// The check itself, usable on any graph.
  static Status verifyGraph(const ir::Graph& g);
};

/// Timing: aggregates per-pass wall time by phase across runs; prints an MLIR-style report.
class TimingInstrumentation : public Instrumentation {
 public:
  Status afterPass(const Pass&, PassRecord& rec, const ir::Graph&) override;
  void passSkipped(const Pass&, PassRecord& rec, const ir::Graph&) override;
  void afterPipeline(const RunInfo&, const ir::Graph&, int64_t totalNs) override { totalNs_ += totalNs; }
  std::string report() const;

 private:
  struct Row {
    int64_t scan = 0, run = 0, verify = 0;
    int count = 0;
  };
  std::map<std::string, Row> rows_;
  int64_t totalNs_ = 0;
};

/// Statistics: copies each pass's named counters into its record.
class StatisticsInstrumentation : public Instrumentation {
 public:
  Status afterPass(const Pass& p, PassRecord& rec, const ir::Graph&) override;
  void passFailed(const Pass& p, PassRecord& rec, const ir::Graph&) override;
};

// ---------------------------------------------------------------- manager

struct RunResult {
  std::vector<PassRecord> records;
  int64_t totalNs = 0;
  int failedIndex = -1;  ///< index of the failed pass, -1 if none
  std::string failure;
  bool cancelled = false;
};

/// Progress callback: (pass index, pass count, pass name), called before each pass.
using ProgressFn = std::function<void(size_t, size_t, const std::string&)>;

class PassManager {
 public:
  PassManager() = default;
  /// Builds the pipeline `name` from the registries; unknown pipeline or pass is an error.
  static Result<PassManager> fromPipeline(const std::string& name);

  void add(std::unique_ptr<Pass> p) { passes_.push_back(std::move(p)); }
  const std::vector<std::unique_ptr<Pass>>& passes() const { return passes_; }
  void disable(const std::string& passName) { disabled_.insert(passName); }
  void addInstrumentation(Instrumentation* i) { instr_.push_back(i); }
  void setProgress(ProgressFn f) { progress_ = std::move(f); }
  std::string pipelineName;

  /// Checks "must run after" constraints and that every disabled name exists.
  Status validate() const;
  /// Runs every pass over `g`. A failing pass never throws: it is recorded as failed, `g`
  /// keeps the last good graph and the remaining passes are recorded as not reached. An
  /// exception thrown by a pass's should_run or run is caught here and recorded the same way
  /// (the message says it threw). Passes built on RetracePass or GraphEditor leave `g`
  /// untouched when they throw; with a can-fail instrumentation `g` is restored from the
  /// rollback copy for any pass.
  RunResult run(ir::Graph& g, PassContext& ctx);

 private:
  std::vector<std::unique_ptr<Pass>> passes_;
  std::set<std::string> disabled_;
  std::vector<Instrumentation*> instr_;
  ProgressFn progress_;
};

}  // namespace ls::passes
