// A/B comparison of two pipeline runs over N interleaved repeats each (the runs of
// session::runInterleaved, as `lowerscope-cli bench` does): per pass and in total the median
// and min-max of both sides, a noise floor below which a difference is "within noise", a
// neutral verdict ("A 1.40x faster" / "B 1.40x faster"), a pass skipped in one run and run in
// the other as "saved X ms", and the op counts of both final graphs that differ.
// No ImGui: tested in tests/viewers/ab_compare_test.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/session/repeat_runs.h"
#include "core/trace/trace.h"

namespace ls::viewmodel {

/// A difference of medians is noise when it is at most the larger of: `relative` of the larger
/// median, `absoluteNs`, and (with `spread`) the larger min-max spread of the two sides, i.e.
/// what repeats of one configuration already vary by.
struct NoiseFloor {
  double relative = 0.02;
  int64_t absoluteNs = 1000;
  bool spread = true;
};

enum class AbVerdict : uint8_t {
  AFaster,   ///< A's median lower by more than the noise floor
  BFaster,
  Noise,     ///< within the noise floor
  SavedInA,  ///< skipped in A, ran in B: A saved the difference
  SavedInB,
  OnlyA,     ///< the pass exists only in A's pipeline
  OnlyB,
  COUNT
};
std::string_view abVerdictName(AbVerdict v);  ///< "A", "B", "noise", "saved-A", "saved-B", "only-A", "only-B"

struct AbRow {
  std::string name;
  int indexA = -1, indexB = -1;  ///< record indices (-1: absent)
  passes::PassStatus statusA = passes::PassStatus::Skipped, statusB = passes::PassStatus::Skipped;
  passes::SkipReason reasonA = passes::SkipReason::None, reasonB = passes::SkipReason::None;
  session::SampleStats a, b;  ///< total time (scan+run+verify) over the repeats
  AbVerdict verdict = AbVerdict::Noise;
  double factor = 1.0;   ///< slower median / faster median (AFaster, BFaster)
  int64_t floorNs = 0;   ///< the noise floor applied
  int64_t savedNs = 0;   ///< SavedInA/B: median of the side that ran minus the skipping side's
  bool inA() const { return indexA >= 0; }
  bool inB() const { return indexB >= 0; }
  bool ranA() const { return inA() && (statusA == passes::PassStatus::Changed || statusA == passes::PassStatus::Unchanged); }
  bool ranB() const { return inB() && (statusB == passes::PassStatus::Changed || statusB == passes::PassStatus::Unchanged); }
  /// Neutral wording: "A 1.40x faster", "B 1.40x faster", "within noise", "A saved 1.20 ms
  /// (skipped)", "only in A".
  std::string verdictText() const;
};

/// An op whose count differs between the final graphs (e.g. tosa.TRANSPOSE 1 vs 2).
struct OpCountDiff {
  std::string op;
  int64_t a = 0, b = 0;
};

struct AbComparison {
  std::string labelA = "A", labelB = "B";
  size_t repeatsA = 0, repeatsB = 0;  ///< samples per side (1: a single run, no noise estimate)
  NoiseFloor floor;
  AbRow total;               ///< pass-manager wall time
  std::vector<AbRow> rows;   ///< pipeline order (A's, then passes only in B)
  std::vector<OpCountDiff> opDiffs;  ///< largest difference first
  size_t count(AbVerdict v) const;
};

/// Compares run A with run B. `runsA` / `runsB` are the measured repeats of each side's
/// configuration (records index-aligned with the trace's); when empty, the trace's own times
/// are the one sample. Passes are matched by (name, occurrence), as trace::compareTraces.
AbComparison compareAb(const trace::Trace& a, const trace::Trace& b, const std::vector<session::RunSample>& runsA,
                       const std::vector<session::RunSample>& runsB, const NoiseFloor& floor = {});

/// "52.2 (33.7-56.1) ms": median and min-max in the median's unit; the median alone for one
/// sample.
std::string formatStats(const session::SampleStats& s);

/// The verdict of two sample sets under `floor` (fills verdict, factor, floorNs of `row`).
void judge(AbRow& row, const NoiseFloor& floor);

/// Rows by |median difference| against the baseline side (0: A, 1: B), largest first; ties
/// keep pipeline order.
std::vector<size_t> abRowsByDifference(const AbComparison& c);
/// Signed difference of medians against the baseline (other - baseline).
int64_t deltaVsBaseline(const AbRow& r, int baseline);

}  // namespace ls::viewmodel
