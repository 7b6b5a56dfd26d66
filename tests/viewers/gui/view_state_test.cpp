// ViewState::revalidate: indices into runs (selected and pinned pass, panes) are brought back in
// range when the runs they index change under them, as the GUI action fuzzer's crashes did (a
// refused run left pass 86 selected while a graph without passes was shown).
#include <gtest/gtest.h>

#include <memory>

#include "tests/viewers/fixtures.h"
#include "viewers/view_state.h"

namespace ls::viewers {
namespace {

viewmodel::TracePtr traceOf(const char* statuses) {
  return std::make_shared<const trace::Trace>(test::syntheticTrace(statuses));
}

TEST(ViewState, RevalidateClampsTheSelectionToAShorterRun) {
  ViewState s;
  s.trace = traceOf("cccccc");
  s.selectPass(5);
  s.pinnedPass = 4;
  s.trace = traceOf("cc");  // replaced without selectPass (a failed open keeps the old index)
  EXPECT_TRUE(s.revalidate());
  EXPECT_EQ(s.selectedPass, 1);
  EXPECT_EQ(s.pinnedPass, kNoPin);
  EXPECT_FALSE(s.revalidate());  // in range now: nothing to fix
}

TEST(ViewState, RevalidateOfARunWithoutPassesSelectsTheSource) {
  ViewState s;
  s.trace = traceOf("ccc");
  s.selectPass(2);
  s.pinnedPass = -1;  // the source can stay pinned
  s.trace = traceOf("");
  EXPECT_TRUE(s.revalidate());
  EXPECT_EQ(s.selectedPass, -1);
  EXPECT_EQ(s.pinnedPass, -1);
  s.trace.reset();
  s.pinnedPass = 0;
  EXPECT_TRUE(s.revalidate());
  EXPECT_EQ(s.selectedPass, -1);
  EXPECT_EQ(s.pinnedPass, kNoPin);
}

TEST(ViewState, RevalidateDropsPanesWhoseRunOrPassIsGone) {
  ViewState s;
  s.trace = traceOf("cccc");
  s.compareTrace = traceOf("cccc");
  s.addPane(3);
  s.addPane(-1);
  s.addPane(2, /*runB=*/true);
  s.compareTrace.reset();  // comparison cleared: B's pane goes
  s.trace = traceOf("cc");  // A is shorter: pass 3 goes, the source stays
  EXPECT_TRUE(s.revalidate());
  ASSERT_EQ(s.panes.size(), 1u);
  EXPECT_EQ(s.panes[0].pass, -1);
  EXPECT_FALSE(s.panes[0].runB);
}

TEST(ViewState, RevalidateKeepsValidState) {
  ViewState s;
  s.trace = traceOf("cscs");
  s.selectPass(3);
  s.pinnedPass = 1;
  s.addPane(0);
  EXPECT_FALSE(s.revalidate());
  EXPECT_EQ(s.selectedPass, 3);
  EXPECT_EQ(s.pinnedPass, 1);
  EXPECT_EQ(s.panes.size(), 1u);
}

}  // namespace
}  // namespace ls::viewers
