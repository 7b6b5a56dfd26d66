// Comparison of two traces (A/B runs of a pipeline): per-pass times, ratios, statuses, passes
// run in one and skipped in the other, top regressions and improvements, and a CI gate.
#pragma once

#include <string>
#include <vector>

#include "core/trace/trace.h"

namespace ls::trace {

struct CompareRow {
  std::string name;
  int occurrence = 0;  ///< n-th row of this pass name in the comparison (duplicates allowed)
  int indexA = -1, indexB = -1;
  int64_t nsA = 0, nsB = 0;  ///< total (scan+run+verify); 0 when absent
  PassStatus statusA = PassStatus::Skipped, statusB = PassStatus::Skipped;
  SkipReason reasonA = SkipReason::None, reasonB = SkipReason::None;
  bool inA = false, inB = false;
  /// B / A time ratio (> 1 is slower in B); 0 when A took no time.
  double ratio() const { return nsA > 0 ? double(nsB) / double(nsA) : 0.0; }
  bool ranA() const { return inA && (statusA == PassStatus::Changed || statusA == PassStatus::Unchanged); }
  bool ranB() const { return inB && (statusB == PassStatus::Changed || statusB == PassStatus::Unchanged); }
};

struct GateOptions {
  double failAbove = 0.0;         ///< ratio threshold (e.g. 1.10); 0 disables the gate
  int64_t noiseFloorNs = 200000;  ///< passes faster than this in both runs are never gated
};

struct TraceComparison {
  std::string labelA = "A", labelB = "B";
  std::vector<CompareRow> rows;        ///< both pipelines merged in order (passes matched by LCS of names)
  int64_t totalA = 0, totalB = 0;      ///< pipeline wall time
  std::vector<size_t> ranOnlyInA, ranOnlyInB;  ///< row indices
  std::vector<size_t> onlyInA, onlyInB;        ///< row indices of passes absent from the other run
  std::vector<size_t> regressions, improvements;  ///< row indices, worst first (above noise)
  bool gateFailed = false;
  std::vector<std::string> gateReasons;
  double totalRatio() const { return totalA > 0 ? double(totalB) / double(totalA) : 0.0; }
};

/// Lines the two runs up pass by pass: a longest common subsequence of the pass names (so a
/// Python pipeline recorded by tools/lowerscope_record.py and an engine run match where they
/// share passes), passes present on one side only get a row with in{A,B} false.
TraceComparison compareTraces(const Trace& a, const Trace& b, const GateOptions& gate = {},
                              size_t topN = 5);

}  // namespace ls::trace
