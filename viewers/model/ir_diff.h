// The text IR diff of a pass: the printer's lines (core/ir/printer.h) of the compared and the
// shown graph, as a unified diff with context, computed with dtl (libdtl-dev, an O(ND) diff).
// No ImGui: tested in tests/viewers/ir_diff_test.cpp.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/ir/graph.h"

namespace ls::viewmodel {

struct IrDiffLine {
  enum class Kind : uint8_t { Hunk, Context, Added, Removed };
  Kind kind = Kind::Context;
  std::string text;  ///< without the leading '+', '-', ' ' (Hunk: "@@ -a,b +c,d @@")
};

struct IrDiff {
  std::vector<IrDiffLine> lines;
  size_t added = 0, removed = 0;
  size_t beforeLines = 0, afterLines = 0;
};

/// Unified diff of printGraph(before) -> printGraph(after) with `context` lines around changes.
IrDiff irDiff(const ir::Graph& before, const ir::Graph& after, int context = 3);

/// The diff as `diff -u` text, headed "--- beforeName" / "+++ afterName".
std::string unifiedText(const IrDiff& d, const std::string& beforeName, const std::string& afterName);

}  // namespace ls::viewmodel
