// PassRecord: what happened to one pass of a pipeline run (status, skip reason, phase
// times, node counts, statistics, semantic check). Filled by the PassManager and its
// instrumentations; the trace (core/trace) stores them with graph snapshots.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/passes/pass.h"

namespace ls::passes {

struct StatValue {
  std::string name;
  std::string description;
  int64_t value = 0;
  bool operator==(const StatValue&) const = default;
};

/// Semantic check of one pass (verify-each, core/verify/verify.h): the graph after the pass
/// run on seeded inputs and compared with the source graph's outputs.
struct SemanticCheck {
  bool checked = false;      ///< false: not checked (pass unchanged/skipped, or verify-each off)
  bool equivalent = true;
  double maxAbsError = 0.0;  ///< float outputs: max |a - b|
  double maxRelError = 0.0;  ///< float outputs: max |a - b| / max|b| (normwise rule) or / max(|b|, floor) (elementwise)
  double maxSteps = 0.0;     ///< quantised outputs: max error in quantisation steps
  int32_t failingOutput = -1;
  int64_t failingElement = -1;
  int64_t execNs = 0;        ///< time spent running and comparing
  bool operator==(const SemanticCheck&) const = default;
};

/// What happened to one pass of a pipeline run.
struct PassRecord {
  int32_t index = 0;
  std::string name;
  PassStatus status = PassStatus::Unchanged;
  SkipReason reason = SkipReason::None;
  std::string message;  ///< skip detail or failure text
  int64_t startNs = 0;   ///< start of the pass relative to the pipeline start
  int64_t scanNs = 0;    ///< should_run
  int64_t runNs = 0;     ///< the pass itself
  int64_t verifyNs = 0;  ///< verifier instrumentation
  uint64_t nodesBefore = 0, nodesAfter = 0;
  uint64_t hot = 0, fastCopied = 0, reinferred = 0;
  uint64_t cacheHits = 0, cacheMisses = 0;
  std::vector<StatValue> stats;
  /// Index into Trace::snapshots of the graph after this pass; -1 when the pass did not
  /// change the graph (the graph is that of the previous changed pass, or the source).
  int32_t snapshot = -1;
  SemanticCheck semantic;  ///< filled by the verify-each instrumentation

  int64_t totalNs() const { return scanNs + runNs + verifyNs; }
  bool ran() const { return status == PassStatus::Changed || status == PassStatus::Unchanged; }
};

}  // namespace ls::passes
