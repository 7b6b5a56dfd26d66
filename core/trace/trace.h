// Trace: the source graph plus one record per pass (status, skip reason, timings, counts,
// statistics) and snapshots after every changed pass. Snapshots share unchanged nodes
// structurally (immutable node versions referenced from many graphs).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/passes/pass_record.h"
#include "core/trace/localization.h"

namespace ls::trace {

using passes::PassRecord;
using passes::PassStatus;
using passes::SemanticCheck;
using passes::SkipReason;
using passes::StatValue;

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
  /// What prepared `source` before this pipeline, recorded as a run of its own: for the INT
  /// profile over a float graph, the quantizer's passes (pipeline "quantize-pt2e": transform
  /// for annotation, batch-norm folding, annotate/calibrate/convert), whose final graph is this
  /// trace's source. Null when nothing prepared the graph.
  std::shared_ptr<const Trace> preparation;
  /// Numerics localisation of one pass (verify --each --localize): per-node errors of the
  /// graph after that pass against the graph before it. Null when not localised.
  std::shared_ptr<const Localization> localization;

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
