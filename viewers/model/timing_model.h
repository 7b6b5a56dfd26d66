// Timing view model: per-pass rows split by phase, sorting, and comparison rows for two runs.
// No ImGui: tested in tests/viewers/timing_model_test.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/trace/compare.h"
#include "core/trace/trace.h"

namespace ls::viewmodel {

enum class TimingOrder : uint8_t { Pipeline, Slowest, COUNT };

struct TimingRow {
  int index = 0;  ///< record index
  int64_t scanNs = 0, runNs = 0, verifyNs = 0;
  int64_t totalNs() const { return scanNs + runNs + verifyNs; }
};

/// One row per pass (skipped passes too: their scan time is what skipping costs), in pipeline
/// order or slowest first (ties keep pipeline order).
std::vector<TimingRow> timingRows(const trace::Trace& t, TimingOrder order);

/// Sum of the phases over all passes.
struct PhaseTotals {
  int64_t scanNs = 0, runNs = 0, verifyNs = 0;
  int64_t totalNs() const { return scanNs + runNs + verifyNs; }
};
PhaseTotals phaseTotals(const trace::Trace& t);

enum class CompareOrder : uint8_t { Pipeline, WorstRatio, BestRatio, LargestDelta, COUNT };
/// Row indices of `c.rows` in the requested order. Ratio orders put rows without a ratio
/// (absent or zero time in A) last.
std::vector<size_t> compareOrder(const trace::TraceComparison& c, CompareOrder order);

/// "12.3 ms", "456 us", "789 ns" (ASCII: the default font has no micro sign).
std::string formatDuration(int64_t ns);
/// "1.23x" or "-" when there is no ratio.
std::string formatRatio(double r);

}  // namespace ls::viewmodel
