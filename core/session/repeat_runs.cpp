// Repeated, interleaved pipeline runs and their statistics.
#include "core/session/repeat_runs.h"

#include <malloc.h>

#include <algorithm>
#include <chrono>

#include "core/io/load.h"
#include "core/io/lsg.h"
#include "core/backends/arm/tosa/tosa_writer.h"
#include "core/util/clock.h"

namespace ls::session {

SampleStats sampleStats(std::vector<int64_t> v) {
  SampleStats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  s.n = n;
  s.min = v.front();
  s.max = v.back();
  s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  int64_t sum = 0;
  for (int64_t x : v) sum += x;
  s.mean = sum / int64_t(n);
  return s;
}

Result<std::vector<std::vector<RunSample>>> runInterleaved(size_t configs, const RepeatOptions& opts, const RunBody& body,
                                                           const RepeatProgress& progress, const std::atomic<bool>* cancel) {
  if (opts.repeat < 1) return Status::error("repeat: at least one measured run per configuration");
  if (opts.warmup < 0) return Status::error("warmup: must not be negative");
  // glibc moves its mmap and trim thresholds with what the process allocated before (a process
  // that parsed a large JSON file serves a run's big blocks from its heap, one that did not maps
  // and unmaps them for every run and pays the page faults again): fixed thresholds make a run's
  // cost independent of that history, so bench and the app's repeats measure the same work.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  std::vector<std::vector<RunSample>> out(configs);
  const size_t total = configs * size_t(opts.repeat + opts.warmup);
  size_t done = 0;
  for (int rep = 0; rep < opts.warmup + opts.repeat; ++rep) {
    for (size_t ci = 0; ci < configs; ++ci) {
      if (cancel && cancel->load()) return Status::error("cancelled");
      if (progress) progress(done, total, ci, rep);
      Result<RunSample> s = body(ci, rep);
      ++done;
      if (!s) return Status::error(s.message());
      if (rep >= opts.warmup) out[ci].push_back(std::move(s).value());
    }
  }
  return out;
}

RunInput RunInput::fromFile(std::string path) {
  RunInput in;
  in.name_ = path;
  in.path_ = std::move(path);
  return in;
}

Result<RunInput> RunInput::fromGraph(const ir::Graph& g, std::string name) {
  RunInput in;
  LS_ASSIGN_OR_RETURN(bytes, io::serializeLsg(g));
  in.lsg_ = std::make_shared<const std::string>(std::move(bytes));
  in.name_ = std::move(name);
  return in;
}

Result<ir::Graph> RunInput::load() const {
  return path_.empty() ? io::loadLsgBytes(*lsg_, name_, lsg_) : io::loadGraphFile(path_, nullptr, io::FileAccess::Map);
}

SessionConfig timingConfig(SessionConfig c) {
  c.recordTrace = false;
  c.statistics = false;
  return c;
}

Result<RunSample> timedRun(const LoweringSession& lowering, ir::Graph g, const std::string& model, ir::Graph* finalGraph) {
  const int64_t t0 = nowNs(), c0 = threadCpuNs();
  auto outcome = lowering.run(std::move(g), model);
  const int64_t e2e = nowNs() - t0, cpu = threadCpuNs() - c0;
  if (!outcome) return Status::error(outcome.message());
  RunSample s;
  s.pmNs = outcome->result.totalNs;
  s.cpuNs = cpu;
  s.e2eNs = e2e;
  s.records = std::move(outcome->result.records);
  s.cacheHits = outcome->cacheHits;
  s.cacheMisses = outcome->cacheMisses;
  if (outcome->result.failedIndex >= 0) s.failure = outcome->result.failure;
  if (finalGraph) *finalGraph = std::move(outcome->finalGraph);
  return s;
}

Result<RunSample> timedE2eRun(const LoweringSession& lowering, const RunInput& input, const std::string& model,
                              SerializeAs as) {
  const int64_t t0 = nowNs();
  auto g = input.load();
  if (!g) return Status::error(g.message());
  ir::Graph finalGraph;
  auto s = timedRun(lowering, std::move(g).value(), model, &finalGraph);
  if (!s) return s;
  if (as == SerializeAs::None) {
    s->e2eNs = nowNs() - t0;
    return s;
  }
  Status written = Status::ok();
  int64_t end = 0;
  if (as == SerializeAs::Tosa) {
    io::TosaWriteOptions opts;
    opts.synthesizeMissingData = true;  // as `lower --tosa`
    opts.integerOnly = lowering.config().profile == passes::Profile::INT;
    written = io::serializeTosaTo(finalGraph, opts, [&](std::string_view) {
      end = nowNs();
      return Status::ok();
    });
  } else {
    written = io::serializeLsgTo(finalGraph, [&](std::string_view) {
      end = nowNs();
      return Status::ok();
    });
  }
  if (!written) return written;
  s->e2eNs = (end ? end : nowNs()) - t0;
  return s;
}

std::vector<SampleStats> passStats(const std::vector<RunSample>& runs) {
  size_t passes = 0;
  for (const RunSample& r : runs) passes = std::max(passes, r.records.size());
  std::vector<SampleStats> out(passes);
  std::vector<int64_t> v;
  for (size_t i = 0; i < passes; ++i) {
    v.clear();
    for (const RunSample& r : runs)
      if (i < r.records.size()) v.push_back(r.records[i].totalNs());
    out[i] = sampleStats(v);
  }
  return out;
}

SampleStats totalStats(const std::vector<RunSample>& runs) {
  std::vector<int64_t> v;
  v.reserve(runs.size());
  for (const RunSample& r : runs) v.push_back(r.pmNs);
  return sampleStats(v);
}

}  // namespace ls::session
