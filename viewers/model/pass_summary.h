// What the pipeline view shows for the selected pass: its full status and skip reason with the
// target ops it looked for, its node changes grouped by pattern ("12x aten.permute_copy ->
// tosa.TRANSPOSE (replace)"), and its statistics. No ImGui: tested in
// tests/viewers/pass_summary_test.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/trace/diff.h"
#include "core/trace/trace.h"

namespace ls::viewmodel {

/// One line of a pass's change list: `count` occurrences of one pattern.
struct ChangeGroup {
  size_t count = 0;
  std::string text;  ///< "aten.permute_copy + aten.permute_copy -> tosa.TRANSPOSE (fusion)", "+ tosa.CONST_SHAPE"
  bool operator==(const ChangeGroup&) const = default;
};

/// Groups the changes between two snapshots by pattern: provenance links by (removed ops,
/// added ops, kind); other added and removed nodes by op; changed nodes by op and what
/// changed (op / args / metadata). Most frequent first, then by text.
std::vector<ChangeGroup> groupChanges(const ir::Graph& before, const ir::Graph& after, const trace::GraphDiff& d);

struct PassSummary {
  std::string title;        ///< "#12 DecomposeGeluPass: skipped"
  std::string description;  ///< the pass's one-line description, when this build registers it
  std::string reason;       ///< full skip reason or failure message; empty when it ran
  std::vector<std::string> targetOps;  ///< the ops the pass looks for (registry), empty if untargeted/unknown
  std::string timing;       ///< "scan 1.2 us, run 3.4 ms, verify -"
  std::string nodes;        ///< "412 -> 398 nodes (-14); 12 hot, 386 fast-copied, 0 re-inferred"
  std::vector<ChangeGroup> changes;
  std::vector<std::pair<std::string, int64_t>> statistics;  ///< non-zero counters
};

/// The summary of pass `passIndex` of `t`; `diff` is the diff of its before/after snapshots
/// (the caller caches it; pass null to have it computed).
PassSummary passSummary(const trace::Trace& t, int passIndex, const trace::GraphDiff* diff = nullptr);

/// The summary as text lines, as the view shows them ("12x a -> b (replace)", "looks for: ...").
std::vector<std::string> summaryLines(const PassSummary& s);

}  // namespace ls::viewmodel
