// Text IR diff: applying the hunks to the printed "before" graph gives the printed "after" graph,
// on a real pass; context is bounded; equal graphs give no hunk.
#include "viewers/model/ir_diff.h"

#include <cstdio>
#include <sstream>

#include <gtest/gtest.h>

#include "core/ir/printer.h"
#include "tests/viewers/fixtures.h"

namespace ls::viewmodel {
namespace {

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

/// Applies `d` to `a` (a patch): every line outside a hunk is kept.
std::vector<std::string> patch(const std::vector<std::string>& a, const IrDiff& d) {
  std::vector<std::string> out;
  size_t next = 0;  // next line of `a` (0-based) not yet consumed
  for (const IrDiffLine& l : d.lines) {
    if (l.kind == IrDiffLine::Kind::Hunk) {
      long long aStart = 0, aLen = 0, bStart = 0, bLen = 0;
      EXPECT_EQ(std::sscanf(l.text.c_str(), "@@ -%lld,%lld +%lld,%lld @@", &aStart, &aLen, &bStart, &bLen), 4) << l.text;
      const size_t first = aLen ? size_t(aStart - 1) : next;
      while (next < first && next < a.size()) out.push_back(a[next++]);
    } else if (l.kind == IrDiffLine::Kind::Added) {
      out.push_back(l.text);
    } else {
      EXPECT_LT(next, a.size());
      if (next < a.size()) {
        EXPECT_EQ(a[next], l.text);
      }
      ++next;
      if (l.kind == IrDiffLine::Kind::Context) out.push_back(l.text);
    }
  }
  while (next < a.size()) out.push_back(a[next++]);
  return out;
}

TEST(IrDiff, HunksTurnTheBeforeTextIntoTheAfterTextOnARealPass) {
  viewmodel::TracePtr run = test::pipelineRun("squeezenet1_1.fxjson.json", "tosa");
  ASSERT_TRUE(run);
  const trace::Trace& t = *run;
  int checked = 0;
  for (int i = 0; i < int(t.records.size()); ++i) {
    if (t.records[size_t(i)].status != passes::PassStatus::Changed) continue;
    const ir::Graph &a = t.graphBefore(i), &b = t.graphAfter(i);
    IrDiff d = irDiff(a, b, 2);
    const std::vector<std::string> la = lines(ir::printGraph(a)), lb = lines(ir::printGraph(b));
    EXPECT_EQ(patch(la, d), lb) << t.records[size_t(i)].name;
    EXPECT_EQ(int64_t(d.added) - int64_t(d.removed), int64_t(lb.size()) - int64_t(la.size()));
    EXPECT_GT(d.added + d.removed, 0u) << t.records[size_t(i)].name;
    // At most 2 context lines on each side of a change: no run of more than 4 context lines.
    int contextRun = 0;
    for (const IrDiffLine& l : d.lines) {
      contextRun = l.kind == IrDiffLine::Kind::Context ? contextRun + 1 : 0;
      EXPECT_LE(contextRun, 4);
    }
    ++checked;
  }
  EXPECT_GE(checked, 5);
  const ir::Graph& last = t.finalGraph();
  EXPECT_TRUE(irDiff(last, last).lines.empty());
  const std::string text = unifiedText(irDiff(t.graphBefore(int(t.records.size()) - 1), last), "before", "after");
  EXPECT_EQ(text.rfind("--- before\n+++ after\n", 0), 0u);
}

}  // namespace
}  // namespace ls::viewmodel
