// Pipeline view model: which passes a filter shows, and where the stepping keys go.
// No ImGui: tested in tests/viewers/pass_list_test.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/trace/trace.h"

namespace ls::viewmodel {

/// The pipeline view's filters. A failed pass is never hidden by the hide flags (it is what the
/// user must see); the search always applies.
struct PassFilter {
  bool hideSkipped = false;
  bool hideUnchanged = false;
  std::string search;  ///< case-insensitive substring of the pass name; empty = all
  bool operator==(const PassFilter&) const = default;
};

/// Case-insensitive substring test (ASCII).
bool containsNoCase(std::string_view text, std::string_view needle);

/// Record indices shown under `filter`, pipeline order. The source graph row (-1) is not
/// included; the view always shows it first.
std::vector<int> visiblePasses(const trace::Trace& t, const PassFilter& filter);

/// Keyboard stepping in the pipeline view.
enum class StepKey : uint8_t {
  Prev,         ///< Up: previous visible pass (or the source row)
  Next,         ///< Down: next visible pass
  PrevChanged,  ///< Shift+Up: previous visible pass whose status is changed
  NextChanged,  ///< Shift+Down: next visible pass whose status is changed
  First,        ///< Home: the source graph (-1)
  Last,         ///< End: the last visible pass
  COUNT
};

/// The pass selected after pressing `key` with `current` selected (-1 = source graph row).
/// Works when `current` itself is hidden by the filter (steps to its visible neighbours).
/// Returns `current` when there is nowhere to go.
int step(const trace::Trace& t, const std::vector<int>& visible, int current, StepKey key);

/// Node count change of a pass (after - before); 0 for passes that did not run.
int64_t nodeDelta(const trace::PassRecord& r);

/// Largest per-pass total time (for scaling time bars); at least 1.
int64_t maxPassNs(const trace::Trace& t);

}  // namespace ls::viewmodel
