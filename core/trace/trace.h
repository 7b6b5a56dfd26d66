// Trace: the source graph plus one record per pass (status, skip reason, timings, counts,
// statistics) and snapshots after every changed pass. Snapshots share unchanged nodes
// structurally (immutable node versions referenced from many graphs).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/passes/pass.h"

namespace ls::trace {

using passes::PassStatus;
using passes::SkipReason;

struct StatValue {
  std::string name;
  std::string description;
  int64_t value = 0;
  bool operator==(const StatValue&) const = default;
};

/// Semantic check of one pass (verify-each, core/exec/verify.h): the graph after the pass
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

/// A new process-unique trace generation (1, 2, ...; thread-safe, never 0).
uint64_t nextGeneration();

struct Trace {
  /// Identity of this trace's contents for caches of derived data (views, exports): caches
  /// compare generations, never addresses (a freed trace's address is reused). Every trace
  /// constructed (recorder, .lstrace loader, tests) gets a new one; a copy keeps it, so give
  /// a copy that is then changed a fresh nextGeneration().
  uint64_t generation = nextGeneration();
  std::string model;
  std::string pipeline;
  passes::Profile profile = passes::Profile::FP;
  passes::Target target = passes::Target::Generic;
  passes::EngineOptions options;
  int64_t totalNs = 0;  ///< wall time of the whole pipeline run
  std::shared_ptr<const ir::Graph> source;
  std::vector<PassRecord> records;
  std::vector<std::shared_ptr<const ir::Graph>> snapshots;

  /// The graph after pass `passIndex` (-1: the source graph).
  const ir::Graph& graphAfter(int passIndex) const;
  /// The graph before pass `passIndex`.
  const ir::Graph& graphBefore(int passIndex) const { return graphAfter(passIndex - 1); }
  const ir::Graph& finalGraph() const { return graphAfter(int(records.size()) - 1); }
  /// Snapshot index in effect after `passIndex` (-1 = source).
  int snapshotAfter(int passIndex) const;

  struct Totals {
    int64_t ns = 0;
    int ran = 0, skipped = 0, changed = 0, unchanged = 0, failed = 0;
  };
  Totals totals() const;

  /// Approximate heap bytes of the trace: every distinct node version counted once, plus
  /// per-snapshot containers; and of the source graph alone (for the memory target).
  size_t approxBytes() const;
  static size_t approxGraphBytes(const ir::Graph& g);
};

}  // namespace ls::trace
