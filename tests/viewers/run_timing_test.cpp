// The app measures pass times as the CLI does (issue 16 item 4, issue 17 A/B acceptance):
//  - a run the app starts (RunJob: the loaded graph kept by the app, trace recorded, progress
//    reported) and `lowerscope-cli lower` (a freshly loaded graph, no trace) over the same model
//    and pipeline, interleaved in one process: their pass times agree within a stated tolerance;
//  - the app's A/B repeats (RunJob::runRepeats) and `lowerscope-cli bench` over the same model and
//    configurations: the app's medians lie within bench's reported min-max.
// The machine running the tests is shared and often loaded, so agreement is asserted on the CPU
// time of the running thread (it does not grow while other processes hold the cores); wall-time
// agreement gets a wider tolerance or several attempts.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/io/load.h"
#include "core/passes/pass_manager.h"
#include "core/session/lowering_session.h"
#include "core/session/repeat_runs.h"
#include "core/util/clock.h"
#include "tests/cli/cli_util.h"
#include "tests/viewers/fixtures.h"
#include "viewers/model/run_job.h"

namespace ls::viewmodel {
namespace {

/// CPU time of each pass that ran (from beforePass to afterPass, on the running thread), by index.
class PassCpu : public passes::Instrumentation {
 public:
  void beforePipeline(const passes::RunInfo&, const ir::Graph&) override { cpu.clear(); }
  void beforePass(const passes::Pass&, passes::PassRecord&, const ir::Graph&) override { start_ = threadCpuNs(); }
  Status afterPass(const passes::Pass&, passes::PassRecord& rec, const ir::Graph&) override {
    cpu[rec.index] = threadCpuNs() - start_;
    return Status::ok();
  }
  std::map<int, int64_t> cpu;

 private:
  int64_t start_ = 0;
};

int64_t sumOf(const std::map<int, int64_t>& m) {
  int64_t s = 0;
  for (const auto& [i, v] : m) s += v;
  return s;
}
int64_t shownTotal(const std::vector<passes::PassRecord>& records) {
  int64_t s = 0;
  for (const passes::PassRecord& r : records) s += r.totalNs();
  return s;
}
double median(std::vector<int64_t> v) { return double(session::sampleStats(std::move(v)).median); }

TEST(RunTiming, AppJobPassTimesAgreeWithCliLower) {
  const std::string path = test::assetGraph("mobilenet_v2.fxjson.json");
  // The app keeps the loaded graph (to re-run it) and hands RunJob a shared pointer to it.
  auto loaded = io::loadGraphFile(path);
  ASSERT_TRUE(loaded) << loaded.message();
  auto appSource = std::make_shared<const ir::Graph>(std::move(loaded).value());
  RunConfig cfg;
  cfg.pipeline = "tosa";
  // `lowerscope-cli lower --pipeline tosa` (no --trace): its SessionConfig.
  session::SessionConfig cli;
  cli.pipeline = "tosa";
  cli.recordTrace = false;

  constexpr int kWarmup = 1, kRepeat = 7;
  // One measurement: "" when every check holds, else what failed. A run of 2-3 ms on a shared
  // machine is now and then preempted for a whole time slice (4 ms of wall time and no CPU in
  // one pass, seen at load 4 with a build alongside), which moves one side's wall median:
  // up to three measurements, one in which every check holds passes (as the A/B test below).
  auto measure = [&]() -> std::string {
    std::vector<int64_t> appCpu, cliCpu, appWall, cliWall;
    std::map<int, std::vector<int64_t>> appPass, cliPass;
    for (int rep = 0; rep < kWarmup + kRepeat; ++rep) {
      // Interleaved, and which side goes first alternates, so drift of the machine hits both alike.
      for (int side = 0; side < 2; ++side) {
        const bool app = (side + rep) % 2 == 0;
        PassCpu timer;
        std::vector<passes::PassRecord> records;
        if (app) {
          // The worker's body, with the app's progress reporting.
          std::mutex mu;
          RunJob::Progress progress;
          auto report = [&](size_t i, size_t n, const std::string& name) {
            std::lock_guard lock(mu);
            progress.index = i, progress.count = n, progress.passName = name;
          };
          RunJob::Outcome o = RunJob::runNow(appSource, "mobilenet_v2", cfg, nullptr, report, {}, {&timer});
          if (!o.trace) return o.trace.message();
          records = o.trace.value()->records;
        } else {
          auto g = io::loadGraphFile(path);
          if (!g) return g.message();
          session::LoweringSession lowering(cli);
          session::RunHooks hooks;
          hooks.instrumentations = {&timer};
          auto prepared = lowering.prepare(std::move(g).value());
          if (!prepared) return prepared.message();
          auto out = lowering.run(std::move(*prepared), "mobilenet_v2", hooks);
          if (!out) return out.message();
          records = out->result.records;
        }
        if (rep < kWarmup) continue;
        (app ? appCpu : cliCpu).push_back(sumOf(timer.cpu));
        (app ? appWall : cliWall).push_back(shownTotal(records));
        for (const auto& [i, v] : timer.cpu) (app ? appPass : cliPass)[i].push_back(v);
      }
    }
    const double cpuRatio = median(appCpu) / median(cliCpu), wallRatio = median(appWall) / median(cliWall);
    const std::string summary =
        fmt::format("pass CPU ms median app {:.2f} cli {:.2f} (ratio {:.3f}); shown pass times ms median app {:.2f} cli {:.2f} "
                    "(ratio {:.3f})",
                    median(appCpu) / 1e6, median(cliCpu) / 1e6, cpuRatio, median(appWall) / 1e6, median(cliWall) / 1e6, wallRatio);
    RecordProperty("summary", summary);
    std::string why;
    // CPU time of the passes: the same work within 20% (the issue measured the app at 2-4x).
    if (cpuRatio <= 1 / 1.2 || cpuRatio >= 1.2) why += " pass CPU ratio outside 1/1.2-1.2;";
    // Every pass taking at least a tenth of the total: within 50% (short passes are noisier).
    const double total = median(cliCpu);
    for (const auto& [i, v] : cliPass) {
      const double c = median(v), a = median(appPass[i]);
      if (c < 0.1 * total) continue;
      if (std::max(a, c) / std::max(1.0, std::min(a, c)) >= 1.5)
        why += fmt::format(" pass #{}: app {:.3f} ms CPU, cli {:.3f} ms CPU;", i, a / 1e6, c / 1e6);
    }
    // The wall times the app shows: within 2x even on a loaded machine.
    if (wallRatio <= 0.5 || wallRatio >= 2.0) why += " shown wall ratio outside 0.5-2;";
    return why.empty() ? why : why + " " + summary;
  };
  std::string failures;
  for (int attempt = 0; attempt < 3; ++attempt) {
    const std::string why = measure();
    if (why.empty()) return;
    failures += fmt::format("attempt {}:{}\n", attempt + 1, why);
  }
  ADD_FAILURE() << "the app's pass times never agreed with the CLI's:\n" << failures;
}

/// One row of `lowerscope-cli bench --format csv`.
struct BenchRow {
  double pmMedian = 0, pmMin = 0, pmMax = 0, cpuMedian = 0, cpuMin = 0, cpuMax = 0;
};
std::map<std::string, BenchRow> parseBenchCsv(const std::string& text) {
  std::map<std::string, BenchRow> rows;
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> header;
  auto split = [](const std::string& l) {
    std::vector<std::string> f;
    std::stringstream ss(l);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    return f;
  };
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto f = split(line);
    if (header.empty()) {
      header = f;
      continue;
    }
    auto col = [&](const std::string& name) {
      auto it = std::find(header.begin(), header.end(), name);
      return it == header.end() || size_t(it - header.begin()) >= f.size() ? -1.0 : std::stod(f[size_t(it - header.begin())]);
    };
    rows[f.at(1)] = BenchRow{col("pm_ms_median"), col("pm_ms_min"), col("pm_ms_max"),
                             col("cpu_ms_median"), col("cpu_ms_min"), col("cpu_ms_max")};
  }
  return rows;
}

TEST(RunTiming, AppAbMediansFallWithinCliBenchMinMax) {
  const std::string path = test::assetGraph("mobilenet_v2.fxjson.json");
  auto loaded = io::loadGraphFile(path);
  ASSERT_TRUE(loaded) << loaded.message();
  const ir::Graph source = std::move(loaded).value();
  RunConfig a, b;
  a.pipeline = b.pipeline = "tosa";
  b.engine.skip = false;
  b.engine.fastCopy = false;
  const session::RepeatOptions opts{5, 1};
  const auto out = clitest::scratchDir("run_timing") / "bench.csv";

  // The wall times of two processes on a shared machine drift apart now and then: up to three
  // attempts (bench, then the app's repeats, back to back); one in which every check holds passes.
  std::string failures;
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto cli = clitest::runCli(fmt::format("bench {} --pipeline tosa --config A= --config \"B=--no-skip --no-fast-copy\" "
                                           "--repeat {} --warmup {} --format csv --out {}",
                                           path, opts.repeat, opts.warmup, out.string()));
    ASSERT_EQ(cli.code, 0) << cli.out;
    auto rows = parseBenchCsv(clitest::readText(out));
    ASSERT_TRUE(rows.count("A") && rows.count("B")) << clitest::readText(out);
    auto reps = RunJob::runRepeats(source, "mobilenet_v2", a, b, opts, nullptr, {});
    ASSERT_TRUE(reps) << reps.message();
    std::string why;
    for (const auto& [label, runs] : {std::pair{"A", &reps->runsA}, std::pair{"B", &reps->runsB}}) {
      const BenchRow& r = rows.at(label);
      ASSERT_GE(r.cpuMin, 0) << "bench reports no CPU columns";
      const double pm = double(session::totalStats(*runs).median) / 1e6;
      std::vector<int64_t> c;
      for (const session::RunSample& s : *runs) c.push_back(s.cpuNs);
      const double cpu = median(c) / 1e6;
      // The app's pass-manager median near bench's min-max, and the CPU time of
      // the runs within bench's CPU min-max widened by 20% (five runs' CPU times lie close together).
      // Wall time moves with whatever else the machine runs between the two measurements: bench's
      // min-max widened by 25% (the CPU check below is the tight one; a 2-4x gap, what the app used
      // to show, fails both).
      if (pm < r.pmMin / 1.25 || pm > r.pmMax * 1.25)
        why += fmt::format(" {}: app pass-manager median {:.2f} ms outside bench {:.2f} ({:.2f}-{:.2f}) +-25%;", label, pm,
                           r.pmMedian, r.pmMin, r.pmMax);
      if (cpu < r.cpuMin * 0.8 || cpu > r.cpuMax * 1.2)
        why += fmt::format(" {}: app CPU median {:.2f} ms outside bench {:.2f} ({:.2f}-{:.2f}) +-20%;", label, cpu, r.cpuMedian,
                           r.cpuMin, r.cpuMax);
      RecordProperty(fmt::format("attempt{}_{}", attempt, label),
                     fmt::format("app pm {:.2f} cpu {:.2f}; bench pm {:.2f} ({:.2f}-{:.2f}) cpu {:.2f} ({:.2f}-{:.2f})", pm, cpu,
                                 r.pmMedian, r.pmMin, r.pmMax, r.cpuMedian, r.cpuMin, r.cpuMax));
    }
    if (why.empty()) return;
    failures += fmt::format("attempt {}:{}\n", attempt + 1, why);
  }
  ADD_FAILURE() << "the app's A/B medians never fell within bench's min-max:\n" << failures;
}

}  // namespace
}  // namespace ls::viewmodel
