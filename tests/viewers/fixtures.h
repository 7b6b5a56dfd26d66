// Shared fixtures of the view-model tests: synthetic traces and real-model runs.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/io/load.h"
#include "viewers/model/run_job.h"

namespace ls::test {

/// A trace with the given statuses (one record per character: c changed, u unchanged,
/// s skipped, f failed) and per-pass times of (index + 1) * 1000 ns split scan/run/verify.
inline trace::Trace syntheticTrace(const std::string& statuses) {
  trace::Trace t;
  for (size_t i = 0; i < statuses.size(); ++i) {
    trace::PassRecord r;
    r.index = int32_t(i);
    r.name = "Pass" + std::to_string(i);
    switch (statuses[i]) {
      case 'c': r.status = passes::PassStatus::Changed; break;
      case 'u': r.status = passes::PassStatus::Unchanged; break;
      case 's': r.status = passes::PassStatus::Skipped, r.reason = passes::SkipReason::NoTargetOps; break;
      default: r.status = passes::PassStatus::Failed, r.message = "boom"; break;
    }
    int64_t ns = int64_t(i + 1) * 1000;
    r.scanNs = ns / 10;
    r.runNs = r.status == passes::PassStatus::Skipped ? 0 : ns / 2;
    r.verifyNs = r.status == passes::PassStatus::Skipped ? 0 : ns / 5;
    r.nodesBefore = 100;
    r.nodesAfter = r.status == passes::PassStatus::Changed ? 100 - i : 100;
    t.records.push_back(r);
  }
  return t;
}

inline std::string assetGraph(const std::string& name) { return std::string(LS_ASSETS_DIR) + "/graphs/" + name; }

/// A bundled model loaded as the app holds it (shared, immutable); fails the test on a load error.
inline std::shared_ptr<const ir::Graph> loadedAsset(const std::string& name) {
  auto g = io::loadGraphFile(assetGraph(name));
  EXPECT_TRUE(g.isOk()) << g.message();
  return g.isOk() ? std::make_shared<const ir::Graph>(std::move(g).value()) : nullptr;
}

/// Runs the generic pipeline over a real model (cached per model name for the test binary).
inline viewmodel::TracePtr realRun(const std::string& file) {
  static std::map<std::string, viewmodel::TracePtr> cache;
  auto it = cache.find(file);
  if (it != cache.end()) return it->second;
  auto g = io::loadGraphFile(assetGraph(file));
  EXPECT_TRUE(g.isOk()) << g.message();
  if (!g) return nullptr;
  auto src = std::make_shared<const ir::Graph>(std::move(g).value());
  viewmodel::RunConfig cfg;
  cfg.pipeline = "generic";
  auto o = viewmodel::RunJob::runNow(src, file, cfg, nullptr, {});
  EXPECT_TRUE(o.trace.isOk()) << o.trace.message();
  if (!o.trace) return nullptr;
  cache[file] = o.trace.value();
  return o.trace.value();
}

/// Runs `pipeline` over the bundled model `file` (not cached: each test gets its own trace).
inline viewmodel::TracePtr pipelineRun(const std::string& file, const std::string& pipeline) {
  auto g = io::loadGraphFile(assetGraph(file));
  EXPECT_TRUE(g.isOk()) << g.message();
  if (!g) return nullptr;
  viewmodel::RunConfig cfg;
  cfg.pipeline = pipeline;
  auto o = viewmodel::RunJob::runNow(std::make_shared<const ir::Graph>(std::move(g).value()), file, cfg, nullptr, {});
  EXPECT_TRUE(o.trace.isOk()) << o.trace.message();
  return o.trace.isOk() ? o.trace.value() : nullptr;
}

}  // namespace ls::test
