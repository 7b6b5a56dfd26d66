// RunJob: loading and running on the worker thread, progress, cancel, errors.
#include "viewers/model/run_job.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "core/io/lstrace.h"
#include "core/passes/pass_manager.h"
#include "tests/viewers/fixtures.h"

namespace ls::viewmodel {
namespace {

namespace fs = std::filesystem;

RunConfig generic() {
  RunConfig c;
  c.pipeline = "generic";
  return c;
}

TEST(RunJob, LoadsAndRunsARealModelOffThread) {
  RunJob job;
  std::atomic<int> finished{0};
  job.onFinished = [&] { ++finished; };
  ASSERT_TRUE(job.startFile(test::assetGraph("deit_tiny_vit.fxjson.json"), generic()));
  job.join();
  EXPECT_FALSE(job.busy());
  EXPECT_EQ(finished.load(), 1);
  auto o = job.take();
  ASSERT_TRUE(o.has_value());
  ASSERT_TRUE(o->trace.isOk()) << o->trace.message();
  const trace::Trace& t = *o->trace.value();
  EXPECT_FALSE(o->fromTraceFile);
  EXPECT_EQ(t.pipeline, "generic");
  EXPECT_EQ(t.records.size(), passes::PipelineRegistry::instance().find("generic")->passes.size());
  EXPECT_TRUE(o->source);
  EXPECT_EQ(t.source->size(), o->source->size());
  EXPECT_GT(t.totals().changed, 0);
  EXPECT_FALSE(job.take().has_value());  // taken once
  RunJob::Progress p = job.progress();
  EXPECT_EQ(p.phase, RunJob::Phase::Finished);
  EXPECT_EQ(p.count, t.records.size());
}

TEST(RunJob, IntProfileQuantizesAFloatGraphFirst) {
  auto statusOf = [](const trace::Trace& t, const std::string& pass) {
    for (const auto& r : t.records)
      if (r.name == pass) return r.status;
    return passes::PassStatus::Failed;
  };
  RunConfig cfg;
  cfg.pipeline = "tosa";
  cfg.profile = passes::Profile::INT;
  RunJob job;
  ASSERT_TRUE(job.startFile(test::assetGraph("squeezenet1_1.fxjson.json"), cfg));
  job.join();
  auto o = job.take();
  ASSERT_TRUE(o && o->trace.isOk()) << (o ? o->trace.message() : "no outcome");
  const trace::Trace& t = *o->trace.value();
  EXPECT_NE(o->quantized.find("per-channel int8 weights"), std::string::npos) << o->quantized;
  // The trace starts from the quantized graph; the loaded float graph stays the source model.
  EXPECT_FALSE(t.source->nodesOfOp(ir::internOp("quantized_decomposed.quantize_per_tensor.default")).empty());
  EXPECT_TRUE(o->source->nodesOfOp(ir::internOp("quantized_decomposed.quantize_per_tensor.default")).empty());
  EXPECT_EQ(statusOf(t, "FoldAndAnnotateQParamsPass"), passes::PassStatus::Changed);
  // --no-quantize: the INT passes find no q/dq to fold.
  cfg.quantize = false;
  ASSERT_TRUE(job.startFile(test::assetGraph("squeezenet1_1.fxjson.json"), cfg));
  job.join();
  auto f = job.take();
  ASSERT_TRUE(f && f->trace.isOk());
  EXPECT_EQ(f->quantized, "");
  EXPECT_EQ(statusOf(*f->trace.value(), "FoldAndAnnotateQParamsPass"), passes::PassStatus::Skipped);
  EXPECT_NE(describe(cfg).find("no-quantize"), std::string::npos);
}

/// Opens a trace file with a RunJob, as the app does (after checking it is seen as a trace).
std::optional<RunJob::Outcome> openTraceFile(const fs::path& path) {
  EXPECT_TRUE(isTracePath(path.string()));
  RunJob job;
  job.startFile(path.string(), generic());
  job.join();
  return job.take();
}

TEST(RunJob, OpensSavedTraces) {
  auto t = test::realRun("deit_tiny_vit.fxjson.json");
  ASSERT_TRUE(t);
  fs::path path = fs::temp_directory_path() / ("ls_runjob_" + std::to_string(::getpid()) + ".lstrace");
  ASSERT_TRUE(io::saveTrace(*t, path.string()).isOk());
  auto o = openTraceFile(path);
  ASSERT_TRUE(o && o->trace.isOk()) << (o ? o->trace.message() : "");
  EXPECT_TRUE(o->fromTraceFile);
  EXPECT_EQ(o->trace.value()->records.size(), t->records.size());
  EXPECT_EQ(o->config.pipeline, "generic");
  fs::remove(path);
}

TEST(RunJob, OpensRecorderBundlesAsTraces) {
  // A bundle recorded by tools/lowerscope_record.py (the fuzz seed), copied under a name without
  // the .lsbundle extension: the app recognises it by its first bytes.
  fs::path path = fs::temp_directory_path() / ("ls_runjob_" + std::to_string(::getpid()) + "_recorded.json");
  fs::copy_file(std::string(LS_TESTS_DIR) + "/fuzz/corpus/bundle/tiny_pm.lsbundle", path,
                fs::copy_options::overwrite_existing);
  auto o = openTraceFile(path);
  ASSERT_TRUE(o && o->trace.isOk()) << (o ? o->trace.message() : "");
  EXPECT_TRUE(o->fromTraceFile);
  const trace::Trace& t = *o->trace.value();
  ASSERT_EQ(t.records.size(), 5u);
  EXPECT_EQ(t.records[0].name, "DecomposeAddmmPass");
  EXPECT_EQ(t.records[4].status, passes::PassStatus::Failed);
  EXPECT_EQ(o->config.pipeline, "python:PassManager");
  fs::remove(path);
}

TEST(RunJob, CorruptAndMissingFilesAreErrorsNamingTheFile) {
  fs::path bad = fs::temp_directory_path() / ("ls_runjob_bad_" + std::to_string(::getpid()) + ".lstrace");
  std::ofstream(bad, std::ios::binary) << "xxxxLST1 definitely not a flatbuffer";
  RunJob job;
  job.startFile(bad.string(), generic());
  job.join();
  auto o = job.take();
  ASSERT_TRUE(o);
  ASSERT_FALSE(o->trace.isOk());
  EXPECT_NE(o->trace.message().find(bad.filename().string()), std::string::npos) << o->trace.message();
  fs::remove(bad);

  job.startFile("/no/such/model.fxjson.json", generic());
  job.join();
  o = job.take();
  ASSERT_TRUE(o);
  EXPECT_FALSE(o->trace.isOk());
}

TEST(RunJob, UnknownPipelineKeepsTheLoadedGraph) {
  RunConfig c;
  c.pipeline = "no-such-pipeline";
  RunJob job;
  job.startFile(test::assetGraph("squeezenet1_1.fxjson.json"), c);
  job.join();
  auto o = job.take();
  ASSERT_TRUE(o);
  EXPECT_FALSE(o->trace.isOk());
  EXPECT_NE(o->trace.message().find("no-such-pipeline"), std::string::npos) << o->trace.message();
  EXPECT_TRUE(o->source);
}

TEST(RunJob, QuantizingReportsTheCalibrationStage) {
  auto g = io::loadGraphFile(test::assetGraph("squeezenet1_1.fxjson.json"));
  ASSERT_TRUE(g.isOk());
  auto src = std::make_shared<const ir::Graph>(std::move(g).value());
  RunConfig cfg = generic();
  cfg.profile = passes::Profile::INT;
  std::vector<double> calibration;
  size_t passes = 0;
  auto o = RunJob::runNow(
      src, "squeezenet", cfg, nullptr, [&](size_t, size_t n, const std::string&) { passes += n > 0; },
      [&](std::string_view stage, double f) {
        if (stage == "quantize: calibration") calibration.push_back(f);
      });
  ASSERT_TRUE(o.trace.isOk()) << o.trace.message();
  ASSERT_FALSE(calibration.empty());
  EXPECT_TRUE(std::is_sorted(calibration.begin(), calibration.end()));
  EXPECT_DOUBLE_EQ(calibration.back(), 1.0);
  EXPECT_GT(passes, 0u);
}

TEST(RunJob, CancelStopsBeforeTheNextPass) {
  auto g = io::loadGraphFile(test::assetGraph("deit_tiny_vit.fxjson.json"));
  ASSERT_TRUE(g.isOk());
  auto src = std::make_shared<const ir::Graph>(std::move(g).value());
  std::atomic<bool> cancel{false};
  size_t calls = 0;
  // Cancel while pass 1 runs: the engine stops inside that pass (it is recorded as failed with
  // "cancelled") or before the next one; no later pass runs.
  auto o = RunJob::runNow(src, "deit", generic(), &cancel, [&](size_t i, size_t, const std::string&) {
    ++calls;
    if (i == 1) cancel.store(true);
  });
  ASSERT_TRUE(o.trace.isOk());
  EXPECT_TRUE(o.cancelled);
  const trace::Trace& t = *o.trace.value();
  ASSERT_GE(t.records.size(), 3u);
  for (size_t i = 2; i < t.records.size(); ++i) {
    EXPECT_FALSE(t.records[i].ran()) << t.records[i].name;
    EXPECT_EQ(t.records[i].status, passes::PassStatus::Skipped);
  }
  EXPECT_EQ(calls, 2u);
}

TEST(RunJob, HeldOpenShowsTheLoadedGraphBeforeItsRun) {
  // As the app opens a file: the loaded graph is published, the job waits until the caller has
  // drawn it (release), then runs; the run's trace keeps that very graph as its source, so its
  // layout stays valid.
  RunJob job;
  ASSERT_TRUE(job.startFile(test::assetGraph("deit_tiny_vit.fxjson.json"), generic(), /*holdAfterLoad=*/true));
  std::shared_ptr<const ir::Graph> loaded;
  for (int i = 0; i < 6000 && !(loaded = job.takeLoaded()); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(loaded);
  EXPECT_FALSE(job.takeLoaded());  // once
  for (int i = 0; i < 6000 && !job.holding(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_TRUE(job.holding());
  EXPECT_TRUE(job.busy());
  EXPECT_FALSE(job.take().has_value());
  job.release();
  job.join();
  EXPECT_FALSE(job.holding());
  auto o = job.take();
  ASSERT_TRUE(o.has_value());
  ASSERT_TRUE(o->trace.isOk()) << o->trace.message();
  EXPECT_EQ(o->trace.value()->source, loaded);
  EXPECT_EQ(o->source, loaded);
  EXPECT_GT(o->trace.value()->totals().changed, 0);
}

TEST(RunJob, CancelEndsAHeldOpen) {
  RunJob job;
  ASSERT_TRUE(job.startFile(test::assetGraph("deit_tiny_vit.fxjson.json"), generic(), /*holdAfterLoad=*/true));
  for (int i = 0; i < 6000 && !job.holding(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(job.holding());
  const auto t0 = std::chrono::steady_clock::now();
  job.cancel();
  job.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, RunJob::kHoldTimeout);  // woken, not timed out
  auto o = job.take();
  ASSERT_TRUE(o.has_value());
  EXPECT_TRUE(o->cancelled);
}

TEST(RunJob, DefaultPipelineIsRegistered) {
  std::string p = defaultPipeline();
  ASSERT_FALSE(p.empty());
  EXPECT_NE(passes::PipelineRegistry::instance().find(p), nullptr);
  if (passes::PipelineRegistry::instance().find("tosa")) {
    EXPECT_EQ(p, "tosa");
  }
}

}  // namespace
}  // namespace ls::viewmodel
