// lowerscope-cli bench: runs configurations of a pipeline interleaved (A B A B ...) over
// several graphs and reports medians, min/max and speedups, like the upstream PR tables.
#include <CLI/CLI.hpp>
#include <sys/mman.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <span>
#include <map>
#include <sstream>

#include "app/cli/commands.h"
#include "core/session/lowering_session.h"
#include "core/session/repeat_runs.h"
#include "core/backends/arm/tosa/tosa_writer.h"
#include "core/exec/compare.h"
#include "core/io/lsg.h"
#include "core/passes/pass_manager.h"
#include "core/util/atomic_file.h"
#include "core/util/clock.h"
#include "core/util/json_writer.h"
#include "core/util/progress.h"

namespace ls::cli {

namespace {

struct Config {
  std::string label;
  passes::EngineOptions engine;
  std::vector<std::string> disabled;
};

Result<Config> parseConfig(const std::string& spec) {
  auto eq = spec.find('=');
  if (eq == std::string::npos || eq == 0)
    return Status::error("--config '" + spec + "': expected LABEL=FLAGS, e.g. 'baseline=--no-skip --no-fast-copy'");
  Config c;
  c.label = spec.substr(0, eq);
  std::istringstream in(spec.substr(eq + 1));
  std::string tok;
  while (in >> tok) {
    if (tok == "--no-skip") c.engine.skip = false;
    else if (tok == "--no-fast-copy") c.engine.fastCopy = false;
    else if (tok == "--no-cache") c.engine.cache = false;
    else if (tok == "--cache") c.engine.cache = true;
    else if (tok == "--disable-pass") {
      if (!(in >> tok)) return Status::error("--config '" + spec + "': --disable-pass needs a pass name");
      c.disabled.push_back(tok);
    } else {
      return Status::error("--config '" + spec + "': unknown flag '" + tok +
                           "' (known: --no-skip --no-fast-copy --cache --no-cache --disable-pass NAME)");
    }
  }
  return c;
}

/// What the report needs of one (graph, configuration): the measured runs and their stats.
struct Samples {
  std::vector<session::RunSample> runs;
  session::SampleStats pm, e2e, cpu;  ///< cpu: the run's thread CPU time (RunSample::cpuNs)
  int ran = 0, skipped = 0;  ///< of the last run
  uint64_t fastCopied = 0, reinferred = 0, hits = 0, misses = 0;
  std::string failure;

  explicit Samples(std::vector<session::RunSample> measured = {}) : runs(std::move(measured)) {
    pm = session::totalStats(runs);
    std::vector<int64_t> e;
    for (const session::RunSample& s : runs) e.push_back(s.e2eNs);
    e2e = session::sampleStats(std::move(e));
    std::vector<int64_t> c;
    for (const session::RunSample& s : runs) c.push_back(s.cpuNs);
    cpu = session::sampleStats(std::move(c));
    if (runs.empty()) return;
    const session::RunSample& last = runs.back();
    for (const auto& r : last.records) {
      ran += r.ran();
      skipped += r.status == passes::PassStatus::Skipped;
      fastCopied += r.fastCopied;
      reinferred += r.reinferred;
    }
    hits = last.cacheHits;
    misses = last.cacheMisses;
    for (const session::RunSample& s : runs)
      if (!s.failure.empty()) failure = s.failure;
  }
};

/// The bytes of the weights a graph carries: its constants with data, when they are at least
/// half of all its constant bytes; none for a shape-only graph (whose small constants alone
/// hold data), where a memory pass over the weights means nothing.
std::vector<std::span<const uint8_t>> weightBlobs(const ir::Graph& g) {
  std::vector<std::span<const uint8_t>> out;
  size_t held = 0, declared = 0;
  for (const auto& [name, c] : g.constants()) {
    declared += size_t(c.numel()) * ir::dtypeSize(c.dtype);
    if (!c.hasData()) continue;
    out.emplace_back(c.data->bytes);
    held += c.data->bytes.size();
  }
  if (held * 2 < declared) out.clear();
  return out;
}

/// The weights one after the other into `out` (`total` bytes), observably (a byte is read
/// back, or the compiler may drop the copy).
void copyBlobs(const std::vector<std::span<const uint8_t>>& blobs, uint8_t* out, size_t total) {
  size_t off = 0;
  for (std::span<const uint8_t> b : blobs) {
    std::memcpy(out + off, b.data(), b.size());
    off += b.size();
  }
  volatile uint8_t sink = total ? out[total / 2] : 0;
  (void)sink;
}

/// One memory pass over the weights: every byte read once and written once, into memory not
/// touched before (as a one-shot lowering's output buffer is), so page faults are paid as a
/// real lowering pays them. The reference the E2E time is compared with. The memory is mapped
/// from the system directly: the process allocator (mimalloc, with its reserved arena) would
/// hand back the pages of the previous round, already touched.
int64_t timeMemoryPass(const std::vector<std::span<const uint8_t>>& blobs, size_t total) {
  const size_t size = std::max<size_t>(total, 1);
  const int64_t t0 = nowNs();
  void* mem = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return -1;
  copyBlobs(blobs, static_cast<uint8_t*>(mem), total);
  const int64_t ns = nowNs() - t0;
  ::munmap(mem, size);  // not timed: E2E does not include freeing its output either
  return ns;
}

/// The same copy into `out`, memory the previous rounds touched already: the pure bandwidth
/// floor (no page faults), which E2E is reported against too (a run's own buffers come from
/// the allocator's reused pages).
int64_t timeWarmMemoryPass(const std::vector<std::span<const uint8_t>>& blobs, std::vector<uint8_t>& out) {
  const int64_t t0 = nowNs();
  copyBlobs(blobs, out.data(), out.size());
  return nowNs() - t0;
}

}  // namespace

struct BenchCommand {
  CLI::App* sub = nullptr;
  std::vector<std::string> graphs, configs;
  std::string pipeline = "generic", profile = "fp", target = "generic", format = "md", out, serialize = "lsg";
  int repeat = 5, warmup = 1;
  bool quiet = false;
  SessionCli quant;
};

BenchCommand* addBenchCommand(CLI::App& app) {
  static BenchCommand cmd;
  auto* s = app.add_subcommand("bench", "Benchmark pipeline configurations (interleaved runs, medians, speedups)");
  cmd.sub = s;
  s->add_option("graphs", cmd.graphs, graphFileHelp() + "; one or more")->required();
  s->add_option("--pipeline", cmd.pipeline, pipelineHelp())->capture_default_str();
  s->add_option("--profile", cmd.profile, "TOSA profile: fp or int")->check(CLI::IsMember({"fp", "int"}))->capture_default_str();
  s->add_option("--target", cmd.target, "hardware target: generic, u55 or u85")->check(CLI::IsMember({"generic", "u55", "u85"}))->capture_default_str();
  addSessionOptions(s, cmd.quant);
  s->add_option("--config", cmd.configs, "LABEL=FLAGS (repeatable); the first is the reference for speedups")
      ->expected(1)
      ->take_all();
  s->add_option("--repeat", cmd.repeat, "measured runs per configuration")->check(CLI::PositiveNumber)->capture_default_str();
  s->add_option("--warmup", cmd.warmup, "unmeasured runs per configuration")->check(CLI::NonNegativeNumber)->capture_default_str();
  s->add_option("--format", cmd.format, "md, csv or json")->check(CLI::IsMember({"md", "csv", "json"}))->capture_default_str();
  s->add_option("--out", cmd.out, "write the report here (atomically) instead of stdout");
  s->add_option("--serialize", cmd.serialize,
                "what E2E serialises the lowered graph to (in memory): lsg, tosa (a TOSA 1.0 flatbuffer; the "
                "pipeline must lower to pure TOSA), or none (E2E = load + lower; runs back to back with nothing "
                "between them, as a peer's passes in a loop)")
      ->check(CLI::IsMember({"lsg", "tosa", "none"}))
      ->capture_default_str();
  addQuietFlag(s, cmd.quiet, "the report");
  return &cmd;
}

bool selected(const BenchCommand& c) { return c.sub && c.sub->parsed(); }

int runBench(const BenchCommand& cmd) {
  std::vector<Config> configs;
  std::vector<std::string> specs = cmd.configs;
  if (specs.empty()) specs = {"baseline=--no-skip --no-fast-copy", "optimized="};
  for (const auto& s : specs) {
    auto c = parseConfig(s);
    if (!c) return fail(c.message());
    configs.push_back(c.value());
  }
  if (!passes::PipelineRegistry::instance().find(cmd.pipeline))
    return fail(passes::PassManager::fromPipeline(cmd.pipeline).message());
  std::vector<std::string> models;
  std::map<std::pair<size_t, size_t>, Samples> samples;  // (graph, config)
  std::vector<session::SampleStats> memoryPass;           // per graph, when it holds weights
  std::vector<session::SampleStats> warmPass;             // the same into memory touched before
  std::vector<size_t> weightBytes;
  Progress progress;
  size_t total = cmd.graphs.size() * size_t(cmd.repeat + cmd.warmup) * configs.size(), step = 0;
  for (size_t gi = 0; gi < cmd.graphs.size(); ++gi) {
    auto probe = load(cmd.graphs[gi], true);
    if (!probe) return fail(probe.message());
    models.push_back(probe->modelName.empty() ? cmd.graphs[gi] : probe->modelName);
    // --profile int lowers a quantized program: a float graph is quantized once, before the
    // timed runs (as PT2E's prepare/convert happen before to_edge), and every run then loads
    // that program from .lsg bytes in memory.
    session::RunInput input = session::RunInput::fromFile(cmd.graphs[gi]);
    session::SessionConfig base;
    base.pipeline = cmd.pipeline;
    base.profile = *passes::parseProfile(cmd.profile);
    base.target = *passes::parseTarget(cmd.target);
    applySessionOptions(cmd.quant, base);
    base = session::timingConfig(base);
    if (base.profile == passes::Profile::INT && !exec::hasQuantOps(*probe)) {
      auto prep = session::LoweringSession(base).prepare(std::move(probe).value());
      if (!prep) return fail(fmt::format("{}: {}", cmd.graphs[gi], prep.message()));
      auto quantized = session::RunInput::fromGraph(prep->graph, cmd.graphs[gi] + " (quantized)");
      if (!quantized) return fail(quantized.message());
      input = std::move(quantized).value();
      if (!cmd.quiet)
        fmt::print(stderr, "{}: quantized once before timing: {}\n", models.back(), prep->quantizeSummary);
    }
    base.quantize = false;  // done once above
    // The weights the E2E run loads (of the quantized program for INT), for the memory-pass reference.
    auto weightsGraph = input.load();
    if (!weightsGraph) return fail(weightsGraph.message());
    const std::vector<std::span<const uint8_t>> blobs = weightBlobs(*weightsGraph);
    size_t weightTotal = 0;
    for (std::span<const uint8_t> b : blobs) weightTotal += b.size();
    weightBytes.push_back(weightTotal);
    std::vector<int64_t> passNs, warmNs;
    std::vector<uint8_t> warmOut(weightTotal, 0);  // zero-filled: touched before the first round
    std::vector<session::LoweringSession> sessions;
    for (const Config& c : configs) {
      session::SessionConfig sc = base;
      sc.engine = c.engine;
      sc.disabled = c.disabled;
      sessions.emplace_back(sc);
    }
    // E2E = load + lower + serialize; the pass-manager time is the lowering's own. The memory
    // pass is timed in the same rounds (before the first configuration's run), so drift of the
    // machine hits it as it hits the runs.
    auto body = [&](size_t ci, int rep) -> Result<session::RunSample> {
      if (ci == 0 && weightTotal > 0) {
        int64_t ns = timeMemoryPass(blobs, weightTotal);
        if (ns < 0) return Status::error(fmt::format("bench: cannot map {} bytes for the memory pass", weightTotal));
        if (rep >= cmd.warmup) passNs.push_back(ns);
        const int64_t warm = timeWarmMemoryPass(blobs, warmOut);
        if (rep >= cmd.warmup) warmNs.push_back(warm);
      }
      return session::timedE2eRun(sessions[ci], input, models.back(),
                                  cmd.serialize == "tosa"   ? session::SerializeAs::Tosa
                                  : cmd.serialize == "none" ? session::SerializeAs::None
                                                            : session::SerializeAs::Lsg);
    };
    auto runs = session::runInterleaved(
        configs.size(), session::RepeatOptions{cmd.repeat, cmd.warmup}, body, [&](size_t, size_t, size_t ci, int rep) {
          if (!cmd.quiet) progress.update(++step, total, fmt::format("{} {} #{}", models.back(), configs[ci].label, rep));
        });
    if (!runs) return fail(runs.message());
    for (size_t ci = 0; ci < configs.size(); ++ci) samples[{gi, ci}] = Samples(std::move((*runs)[ci]));
    memoryPass.push_back(session::sampleStats(std::move(passNs)));
    warmPass.push_back(session::sampleStats(std::move(warmNs)));
  }
  progress.finish();

  auto speedup = [&](size_t gi, size_t ci, bool e2e) {
    const Samples& ref = samples[{gi, 0}];
    const Samples& s = samples[{gi, ci}];
    int64_t a = (e2e ? ref.e2e : ref.pm).median, b = (e2e ? s.e2e : s.pm).median;
    return b > 0 ? double(a) / double(b) : 0.0;
  };
  auto minmax = [](const session::SampleStats& v) { return std::make_pair(double(v.min) / 1e6, double(v.max) / 1e6); };
  // E2E over one memory pass over the weights (0 when the graph holds no weight bytes).
  auto overPass = [&](size_t gi, size_t ci, bool warm = false) {
    const int64_t pass = (warm ? warmPass : memoryPass)[gi].median;
    return weightBytes[gi] && pass > 0 ? double(samples[{gi, ci}].e2e.median) / double(pass) : 0.0;
  };
  std::string text;
  if (cmd.format == "md") {
    text += fmt::format("Pipeline `{}` ({}, {}), {} runs per configuration (+{} warm-up), interleaved; medians.{}\n\n",
                        cmd.pipeline, cmd.profile, cmd.target, cmd.repeat, cmd.warmup,
                        cmd.profile == "int" ? " Float graphs were quantized once before timing (E2E = load of the "
                                               "quantized program + lower + serialize)."
                                             : "");
    for (size_t ci = 1; ci < configs.size(); ++ci) {
      text += fmt::format("Speedup of `{}` over `{}`:\n\n| model | E2E | pass-manager |\n|---|---:|---:|\n", configs[ci].label,
                          configs[0].label);
      double sumE = 0, sumP = 0;
      for (size_t gi = 0; gi < models.size(); ++gi) {
        double e = speedup(gi, ci, true), p = speedup(gi, ci, false);
        sumE += e;
        sumP += p;
        text += fmt::format("| {} | {:+.1f}% | {:+.1f}% |\n", models[gi], (e - 1) * 100, (p - 1) * 100);
      }
      double n = double(models.size());
      text += fmt::format("| **average (unweighted)** | **{:+.1f}%** | **{:+.1f}%** |\n\n", (sumE / n - 1) * 100,
                          (sumP / n - 1) * 100);
    }
    text += "| model | config | E2E ms median (min-max) | pass-manager ms median (min-max) | passes ran/skipped | "
            "fast-copied | re-inferred | cache hit rate | E2E speedup | PM speedup |\n"
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    for (size_t gi = 0; gi < models.size(); ++gi)
      for (size_t ci = 0; ci < configs.size(); ++ci) {
        const Samples& s = samples[{gi, ci}];
        auto [elo, ehi] = minmax(s.e2e);
        auto [plo, phi] = minmax(s.pm);
        double hr = s.hits + s.misses ? double(s.hits) / double(s.hits + s.misses) : 0.0;
        text += fmt::format("| {} | {} | {:.2f} ({:.2f}-{:.2f}) | {:.2f} ({:.2f}-{:.2f}) | {}/{} | {} | {} | {:.1f}% | x{:.2f} | x{:.2f} |\n",
                            models[gi], configs[ci].label, s.e2e.median / 1e6, elo, ehi, s.pm.median / 1e6, plo, phi,
                            s.ran, s.skipped, s.fastCopied, s.reinferred, hr * 100, speedup(gi, ci, true),
                            speedup(gi, ci, false));
      }
    if (std::any_of(weightBytes.begin(), weightBytes.end(), [](size_t b) { return b > 0; })) {
      text += fmt::format(
          "\nE2E (load + lower + serialize {}) against one memory pass over the weights (each weight byte read "
          "once and written once into fresh memory, timed in the same rounds; and the same copy into memory "
          "touched before, the bandwidth floor):\n\n"
          "| model | weights MB | memory pass ms median (min-max) | warm copy ms | config | E2E ms median | "
          "E2E / memory pass | E2E / warm copy |\n"
          "|---|---:|---:|---:|---|---:|---:|---:|\n",
          cmd.serialize);
      for (size_t gi = 0; gi < models.size(); ++gi) {
        if (!weightBytes[gi]) continue;
        auto [lo, hi] = minmax(memoryPass[gi]);
        for (size_t ci = 0; ci < configs.size(); ++ci)
          text += fmt::format("| {} | {:.1f} | {:.2f} ({:.2f}-{:.2f}) | {:.2f} | {} | {:.2f} | x{:.1f} | x{:.1f} |\n",
                              models[gi], double(weightBytes[gi]) / 1e6, memoryPass[gi].median / 1e6, lo, hi,
                              warmPass[gi].median / 1e6, configs[ci].label, samples[{gi, ci}].e2e.median / 1e6,
                              overPass(gi, ci), overPass(gi, ci, true));
      }
    }
  } else if (cmd.format == "csv") {
    text = "model,config,e2e_ms_median,e2e_ms_min,e2e_ms_max,pm_ms_median,pm_ms_min,pm_ms_max,passes_ran,passes_skipped,"
           "fast_copied,reinferred,cache_hit_rate,e2e_speedup,pm_speedup,cpu_ms_median,cpu_ms_min,cpu_ms_max,weight_bytes,"
           "memory_pass_ms_median,e2e_over_memory_pass,memory_pass_warm_ms_median,e2e_over_warm_memory_pass\n";
    for (size_t gi = 0; gi < models.size(); ++gi)
      for (size_t ci = 0; ci < configs.size(); ++ci) {
        const Samples& s = samples[{gi, ci}];
        auto [elo, ehi] = minmax(s.e2e);
        auto [plo, phi] = minmax(s.pm);
        double hr = s.hits + s.misses ? double(s.hits) / double(s.hits + s.misses) : 0.0;
        text += fmt::format(
            "{},{},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{},{},{},{},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{},{:.4f},{:.4f},"
            "{:.4f},{:.4f}\n",
            models[gi], configs[ci].label, s.e2e.median / 1e6, elo, ehi, s.pm.median / 1e6, plo, phi, s.ran, s.skipped,
            s.fastCopied, s.reinferred, hr, speedup(gi, ci, true), speedup(gi, ci, false), s.cpu.median / 1e6,
            s.cpu.min / 1e6, s.cpu.max / 1e6, weightBytes[gi], memoryPass[gi].median / 1e6, overPass(gi, ci),
            warmPass[gi].median / 1e6, overPass(gi, ci, true));
      }
  } else {
    JsonWriter w;
    w.beginObject().field("pipeline", cmd.pipeline).field("profile", cmd.profile).field("target", cmd.target);
    w.field("repeat", cmd.repeat).field("warmup", cmd.warmup).field("serialize", cmd.serialize);
    w.key("results").beginArray();
    for (size_t gi = 0; gi < models.size(); ++gi)
      for (size_t ci = 0; ci < configs.size(); ++ci) {
        const Samples& s = samples[{gi, ci}];
        auto [elo, ehi] = minmax(s.e2e);
        auto [plo, phi] = minmax(s.pm);
        w.beginObject().field("model", models[gi]).field("config", configs[ci].label);
        w.field("e2e_ms_median", s.e2e.median / 1e6).field("e2e_ms_min", elo).field("e2e_ms_max", ehi);
        w.field("pm_ms_median", s.pm.median / 1e6).field("pm_ms_min", plo).field("pm_ms_max", phi);
        w.field("pm_ms_mean", s.pm.mean / 1e6);
        w.field("cpu_ms_median", s.cpu.median / 1e6).field("cpu_ms_min", s.cpu.min / 1e6).field("cpu_ms_max", s.cpu.max / 1e6);
        w.field("passes_ran", s.ran).field("passes_skipped", s.skipped);
        w.field("fast_copied", s.fastCopied).field("reinferred", s.reinferred);
        w.field("cache_hits", s.hits).field("cache_misses", s.misses);
        w.field("e2e_speedup", speedup(gi, ci, true)).field("pm_speedup", speedup(gi, ci, false));
        w.field("weight_bytes", weightBytes[gi]).field("memory_pass_ms_median", memoryPass[gi].median / 1e6);
        w.field("e2e_over_memory_pass", overPass(gi, ci));
        w.field("memory_pass_warm_ms_median", warmPass[gi].median / 1e6)
            .field("e2e_over_warm_memory_pass", overPass(gi, ci, true));
        if (!s.failure.empty()) w.field("failure", s.failure);
        w.endObject();
      }
    w.endArray().endObject();
    text = w.str() + "\n";
  }
  if (!cmd.out.empty()) {
    Status st = writeFileAtomic(cmd.out, text);
    if (!st) return fail(st.message());
  } else {
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  for (auto& [key, s] : samples)
    if (!s.failure.empty()) return fail(fmt::format("{}: {}", models[key.first], s.failure));
  return 0;
}

}  // namespace ls::cli
