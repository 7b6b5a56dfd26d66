// Trace generations: every trace the app can hold (a recorded run, a loaded .lstrace) gets a
// new, increasing, process-unique generation; a copy keeps its generation.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/io/lstrace.h"
#include "tests/viewers/fixtures.h"

namespace ls::viewmodel {
namespace {

RunJob::Outcome runMobileNet() {
  auto g = io::loadGraphFile(test::assetGraph("mobilenet_v2.fxjson.json"));
  EXPECT_TRUE(g.isOk()) << g.message();
  auto src = std::make_shared<const ir::Graph>(std::move(g).value());
  RunConfig cfg;
  cfg.pipeline = "generic";
  return RunJob::runNow(src, "mobilenet_v2", cfg, nullptr, {});
}

TEST(TraceGeneration, RecordedRunsGetNewIncreasingGenerations) {
  RunJob::Outcome a = runMobileNet();
  RunJob::Outcome b = runMobileNet();
  ASSERT_TRUE(a.trace.isOk() && b.trace.isOk());
  uint64_t ga = a.trace.value()->generation, gb = b.trace.value()->generation;
  EXPECT_NE(ga, 0u);
  EXPECT_GT(gb, ga);
  trace::Trace copy = *a.trace.value();
  EXPECT_EQ(copy.generation, ga);
  EXPECT_GT(trace::Trace().generation, gb);
}

TEST(TraceGeneration, EachLoadOfAnLstraceGetsANewGeneration) {
  RunJob::Outcome a = runMobileNet();
  ASSERT_TRUE(a.trace.isOk());
  std::string path = (std::filesystem::temp_directory_path() /
                      ("ls_generation_" + std::to_string(a.trace.value()->generation) + ".lstrace"))
                         .string();
  ASSERT_TRUE(io::saveTrace(*a.trace.value(), path).isOk());
  auto first = io::loadTrace(path);
  auto second = io::loadTrace(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(first.isOk()) << first.message();
  ASSERT_TRUE(second.isOk()) << second.message();
  EXPECT_GT(first.value().generation, a.trace.value()->generation);
  EXPECT_GT(second.value().generation, first.value().generation);
}

}  // namespace
}  // namespace ls::viewmodel
