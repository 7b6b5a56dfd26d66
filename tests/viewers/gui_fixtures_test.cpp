// Fixture files for the GUI screenshot tests (tests/gui), written only when
// LS_GUI_FIXTURE_DIR is set (ctest's gui_fixtures test); skipped otherwise.
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/io/lstrace.h"
#include "tests/viewers/fixtures.h"

namespace ls::viewmodel {
namespace {

// A real run in which one pass failed: the recorded form of what PassManager produces when a
// pass returns an error (the pass is failed with its message, the graph keeps the last good
// snapshot, later passes are skipped as not reached).
TEST(GuiFixtures, TraceWithAFailedPass) {
  const char* dir = std::getenv("LS_GUI_FIXTURE_DIR");
  if (!dir) GTEST_SKIP() << "LS_GUI_FIXTURE_DIR not set";
  auto run = test::realRun("deit_tiny_vit.fxjson.json");
  ASSERT_TRUE(run);
  trace::Trace t = *run;
  ASSERT_GE(t.records.size(), 4u);
  trace::PassRecord& f = t.records[2];
  f.status = passes::PassStatus::Failed;
  f.reason = passes::SkipReason::None;
  f.message = fmt::format("{} failed: node 'getitem_3': expected a tensor input at argument 0", f.name);
  f.snapshot = -1;
  for (size_t i = 3; i < t.records.size(); ++i) {
    trace::PassRecord& r = t.records[i];
    r.status = passes::PassStatus::Skipped;
    r.reason = passes::SkipReason::NotReached;
    r.message = "pipeline stopped after pass #2 failed";
    r.runNs = r.verifyNs = 0;
    r.snapshot = -1;
  }
  // Drop snapshots after the failure.
  int keep = 0;
  for (size_t i = 0; i < 2; ++i) keep = std::max(keep, t.records[i].snapshot + 1);
  t.snapshots.resize(size_t(keep));
  Status st = io::saveTrace(t, std::string(dir) + "/failed.lstrace");
  ASSERT_TRUE(st.isOk()) << st.message();
}

}  // namespace
}  // namespace ls::viewmodel
