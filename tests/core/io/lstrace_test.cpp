// .lstrace loading of values that only a damaged or hostile file holds: times that are negative
// or would overflow when a view adds them up (found by the lstrace fuzz target: UBSan signed
// overflow in PassRecord::totalNs) are rejected with an error naming the record.
#include <gtest/gtest.h>

#include <limits>

#include "core/io/lstrace.h"
#include "support/graph_builder.h"

namespace ls::io {
namespace {

trace::Trace tinyTrace() {
  test::GraphBuilder b;
  auto x = b.input("x", {2, 3});
  b.output({b.call("aten.relu.default", {x})});
  trace::Trace t;
  t.model = "tiny";
  t.pipeline = "generic";
  t.source = std::make_shared<const ir::Graph>(std::move(b.g));
  trace::PassRecord r;
  r.index = 0;
  r.name = "SomePass";
  r.status = passes::PassStatus::Unchanged;
  r.scanNs = 10, r.runNs = 20, r.verifyNs = 5;
  t.records = {r, r};
  t.records[1].index = 1;
  return t;
}

TEST(LstraceLoad, ReasonableTimesRoundTrip) {
  trace::Trace t = tinyTrace();
  auto bytes = serializeTrace(t);
  ASSERT_TRUE(bytes.isOk()) << bytes.message();
  auto back = loadTraceBytes(*bytes, "ok.lstrace");
  ASSERT_TRUE(back.isOk()) << back.message();
  EXPECT_EQ(back->records.size(), 2u);
  EXPECT_EQ(back->records[0].totalNs() + back->records[1].totalNs(), 70);
}

TEST(LstraceLoad, TimesThatWouldOverflowOrAreNegativeAreRejectedNamingTheRecord) {
  struct Case {
    int64_t scan, run, verify, total;
    const char* expect;
  } cases[] = {
      {8601646998709300325, 7237123382664852595, 0, 0, "pass record 0 ('SomePass'): scan time"},
      {-1, 0, 0, 0, "scan time -1 ns is out of range"},
      {0, 0, int64_t(1) << 50, 0, nullptr},  // the largest time allowed
      {0, 0, 0, -5, "total time -5 ns is out of range"},
      {0, std::numeric_limits<int64_t>::max(), 0, 0, "run time"},
  };
  for (const Case& c : cases) {
    trace::Trace t = tinyTrace();
    t.records[0].scanNs = c.scan, t.records[0].runNs = c.run, t.records[0].verifyNs = c.verify;
    t.totalNs = c.total;
    auto bytes = serializeTrace(t);
    ASSERT_TRUE(bytes.isOk()) << bytes.message();
    auto back = loadTraceBytes(*bytes, "bad.lstrace");
    if (!c.expect) {
      EXPECT_TRUE(back.isOk()) << back.message();
      continue;
    }
    ASSERT_FALSE(back.isOk()) << c.scan << " " << c.run;
    EXPECT_NE(back.message().find("bad.lstrace"), std::string::npos) << back.message();
    EXPECT_NE(back.message().find(c.expect), std::string::npos) << back.message();
  }
}

}  // namespace
}  // namespace ls::io
