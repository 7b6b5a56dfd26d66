// compareTraces lines two runs up by a longest common subsequence of pass names: a Python run
// recorded by tools/lowerscope_record.py and an engine run match where they share passes, and
// passes present on one side only get rows of their own, in pipeline order.
#include <gtest/gtest.h>

#include "core/trace/compare.h"

namespace ls::trace {
namespace {

Trace run(std::initializer_list<const char*> names) {
  Trace t;
  int i = 0;
  for (const char* n : names) {
    PassRecord r;
    r.index = i++;
    r.name = n;
    r.status = PassStatus::Changed;
    r.runNs = 1000;
    t.records.push_back(r);
  }
  return t;
}

std::vector<std::string> rowNames(const TraceComparison& c) {
  std::vector<std::string> out;
  for (const CompareRow& r : c.rows) out.push_back(r.name + (r.inA ? "A" : "") + (r.inB ? "B" : ""));
  return out;
}

TEST(CompareTraces, AlignsByLongestCommonSubsequenceOfNames) {
  Trace a = run({"Decompose", "OnlyPython", "Fold", "Check"});
  Trace b = run({"Decompose", "EngineOnly", "Fold", "Extra", "Check"});
  TraceComparison c = compareTraces(a, b);
  EXPECT_EQ(rowNames(c), (std::vector<std::string>{"DecomposeAB", "OnlyPythonA", "EngineOnlyB", "FoldAB", "ExtraB",
                                                   "CheckAB"}));
  ASSERT_EQ(c.onlyInA.size(), 1u);
  EXPECT_EQ(c.rows[c.onlyInA[0]].name, "OnlyPython");
  ASSERT_EQ(c.onlyInB.size(), 2u);
  EXPECT_EQ(c.rows[c.onlyInB[0]].name, "EngineOnly");
  EXPECT_EQ(c.rows[c.onlyInB[1]].name, "Extra");
  EXPECT_EQ(c.rows[3].indexA, 2);
  EXPECT_EQ(c.rows[3].indexB, 2);
}

TEST(CompareTraces, RepeatedNamesMatchInOrderAndCountOccurrences) {
  // Matching by (name, n-th occurrence) would pair A's second Cleanup with B's second one (which
  // comes after Lower in B); the LCS keeps order: A's Lower matches B's, its Cleanups around it.
  Trace a = run({"Cleanup", "Lower", "Cleanup"});
  Trace b = run({"Lower", "Cleanup", "Cleanup"});
  TraceComparison c = compareTraces(a, b);
  EXPECT_EQ(rowNames(c), (std::vector<std::string>{"CleanupA", "LowerAB", "CleanupAB", "CleanupB"}));
  EXPECT_EQ(c.rows[2].occurrence, 1);
  EXPECT_EQ(c.rows[3].occurrence, 2);
}

TEST(CompareTraces, IdenticalPipelinesPairEveryPass) {
  Trace a = run({"P", "Q", "P"});
  TraceComparison c = compareTraces(a, a);
  ASSERT_EQ(c.rows.size(), 3u);
  for (const CompareRow& r : c.rows) EXPECT_TRUE(r.inA && r.inB && r.indexA == r.indexB);
  EXPECT_TRUE(c.onlyInA.empty() && c.onlyInB.empty());
}

TEST(CompareTraces, OneSideEmpty) {
  TraceComparison c = compareTraces(run({}), run({"P", "Q"}));
  EXPECT_EQ(rowNames(c), (std::vector<std::string>{"PB", "QB"}));
  EXPECT_EQ(c.ranOnlyInB.size(), 2u);
}

}  // namespace
}  // namespace ls::trace
