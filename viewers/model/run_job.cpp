// RunJob: file loading and pipeline runs on a worker thread.
#include "viewers/model/run_job.h"

#include <exception>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "core/exec/compare.h"
#include "core/io/load.h"
#include "core/io/bundle.h"
#include "core/io/lstrace.h"
#include "core/ops/registry.h"
#include "core/passes/pass_manager.h"
#include "core/session/lowering_session.h"

namespace ls::viewmodel {

namespace {
void buildAllIndices(const ir::Graph& g, int depth = 0) {
  g.buildIndices();
  if (depth > 16) return;
  for (const auto& [name, sub] : g.subgraphs())
    if (sub) buildAllIndices(*sub, depth + 1);
}

session::SessionConfig sessionConfig(const RunConfig& cfg) {
  session::SessionConfig sc;
  sc.pipeline = cfg.pipeline;
  sc.profile = cfg.profile;
  sc.target = cfg.target;
  sc.engine = cfg.engine;
  sc.disabled = cfg.disabled;
  sc.structuralVerify = cfg.verify;
  sc.quantize = cfg.quantize;
  sc.calibration = cfg.calibration;
  sc.observer = cfg.observer;
  return sc;
}

bool endsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

std::string defaultPipeline() {
  auto& reg = passes::PipelineRegistry::instance();
  if (reg.find("tosa")) return "tosa";
  if (reg.find("generic")) return "generic";
  auto names = reg.names();
  return names.empty() ? std::string() : names.front();
}

std::string describe(const RunConfig& c) {
  std::string s = fmt::format("{} {}/{}", c.pipeline, passes::profileName(c.profile), passes::targetName(c.target));
  if (!c.engine.skip) s += " no-skip";
  if (!c.engine.fastCopy) s += " no-fast-copy";
  if (c.engine.cache) s += " cache";
  if (c.profile == passes::Profile::INT && !c.quantize) s += " no-quantize";
  if (c.profile == passes::Profile::INT && c.quantize && !c.calibration.empty())
    s += " calibration=" + std::filesystem::path(c.calibration).filename().string();
  if (c.profile == passes::Profile::INT && c.quantize && c.observer == quant::ActivationObserver::MinMax)
    s += " minmax";
  for (const std::string& d : c.disabled) s += " -" + d;
  return s;
}

bool isTracePath(const std::string& path) {
  if (endsWith(path, ".lstrace") || endsWith(path, ".lsbundle")) return true;
  std::ifstream in(path, std::ios::binary);
  char head[64] = {};
  in.read(head, sizeof head);
  const std::string_view bytes(head, size_t(in.gcount()));
  return io::looksLikeTrace(bytes) || io::looksLikeBundle(bytes);
}

RunJob::~RunJob() {
  cancel();
  if (thread_.joinable()) thread_.join();
}

bool RunJob::busy() const { return running_.load(); }

RunJob::Progress RunJob::progress() const {
  std::lock_guard lock(mu_);
  return progress_;
}

std::optional<RunJob::Outcome> RunJob::take() {
  std::lock_guard lock(mu_);
  if (running_.load() || !outcome_) return std::nullopt;
  std::optional<Outcome> o = std::move(outcome_);
  outcome_.reset();
  return o;
}

void RunJob::join() {
  if (thread_.joinable()) thread_.join();
}

std::shared_ptr<const ir::Graph> RunJob::takeLoaded() {
  std::lock_guard lock(mu_);
  return std::move(loaded_);
}

void RunJob::cancel() {
  {
    std::lock_guard lock(mu_);  // a held job checks the flag under the lock: no lost wake-up
    cancel_.store(true);
  }
  released_.notify_all();
}

void RunJob::release() {
  {
    std::lock_guard lock(mu_);
    release_ = true;
  }
  released_.notify_all();
}

void RunJob::launch(std::function<Outcome()> body, std::string what) {
  if (thread_.joinable()) thread_.join();
  cancel_.store(false);
  running_.store(true);
  {
    std::lock_guard lock(mu_);
    outcome_.reset();
    loaded_.reset();
    release_ = false;
    progress_ = Progress{Phase::Loading, 0, 0, {}, std::move(what)};
  }
  thread_ = std::thread([this, body = std::move(body)] {
    Outcome o = body();
    {
      std::lock_guard lock(mu_);
      outcome_ = std::move(o);
      progress_.phase = Phase::Finished;
    }
    running_.store(false);
    if (onFinished) onFinished();
  });
}

RunJob::Outcome RunJob::runNow(std::shared_ptr<const ir::Graph> source, const std::string& model, const RunConfig& cfg,
                               const std::atomic<bool>* cancel,
                               const std::function<void(size_t, size_t, const std::string&)>& progress,
                               const StageProgressFn& stage, const std::vector<passes::Instrumentation*>& extra) {
  Outcome o;
  o.config = cfg;
  o.source = source;
  const session::SessionConfig sc = sessionConfig(cfg);
  const session::LoweringSession lowering(sc);
  if (Status v = lowering.validate(); !v) {
    o.trace = Status::error(v.message());
    return o;
  }
  // The worker thread's boundary: nothing a run throws reaches the UI loop.
  try {
    if (sc.profile == passes::Profile::INT && sc.quantize && progress)
      progress(0, 0, "quantizing (post-training, calibrated on seeded inputs)");
    auto prepared = lowering.prepare(*source, stage);
    if (!prepared) {
      o.trace = Status::error(prepared.message());
      return o;
    }
    const bool quantized = prepared->quantized;
    if (quantized) o.quantized = prepared->quantizeSummary;
    session::RunHooks hooks;
    hooks.cancel = cancel;
    hooks.progress = progress;
    hooks.instrumentations = extra;
    auto outcome = lowering.run(std::move(*prepared), model, hooks);
    if (!outcome) {
      o.trace = Status::error(outcome.message());
      return o;
    }
    if (!quantized && outcome->trace && outcome->trace->source && outcome->trace->source->size() == source->size()) {
      // Nothing prepared the graph: the recorded source is a copy of the loaded graph (the same
      // node versions). Keep the loaded graph itself, so what was laid out and drawn before the
      // run stays valid (layouts are kept per graph).
      auto same = std::make_shared<trace::Trace>(*outcome->trace);
      same->source = source;
      outcome->trace = std::move(same);
    }
    const trace::Trace& t = *outcome->trace;
    if (t.source) buildAllIndices(*t.source);
    for (const auto& s : t.snapshots)
      if (s) buildAllIndices(*s);
    if (t.preparation) {
      if (t.preparation->source) buildAllIndices(*t.preparation->source);
      for (const auto& s : t.preparation->snapshots)
        if (s) buildAllIndices(*s);
    }
    // A cancel seen inside a pass stops it with an error; either way the run was cancelled.
    o.cancelled = outcome->result.cancelled || (cancel && cancel->load());
    o.trace = TracePtr(outcome->trace);
  } catch (const std::exception& e) {
    o.trace = Status::error(fmt::format("the run threw an exception: {}", e.what()));
  }
  return o;
}

void RunJob::publish(size_t index, size_t count, std::string_view name, double fraction) {
  std::lock_guard lock(mu_);
  progress_.index = index;
  progress_.count = count;
  progress_.fraction = fraction;
  progress_.passName = name;
}

Result<AbRepeats> RunJob::runRepeats(const ir::Graph& source, const std::string& model, const RunConfig& a, const RunConfig& b,
                                     const session::RepeatOptions& opts, const std::atomic<bool>* cancel,
                                     const std::function<void(size_t, size_t, const std::string&)>& progress) {
  AbRepeats r;
  r.a = a, r.b = b, r.options = opts;
  // The worker thread's boundary: nothing a run throws reaches the UI loop.
  try {
    std::vector<session::LoweringSession> sessions;
    std::vector<session::RunInput> prepared;
    for (const RunConfig& cfg : {a, b}) {
      session::SessionConfig sc = session::timingConfig(sessionConfig(cfg));
      const session::LoweringSession prep(sc);
      LS_RETURN_IF_ERROR(prep.validate());
      // Quantized once before the timed runs, as `lowerscope-cli bench --profile int`.
      auto p = prep.prepare(source);
      if (!p) return Status::error(p.message());
      // Every run loads it afresh, as bench loads its file for every run (RunInput).
      auto input = session::RunInput::fromGraph(p->graph, model);
      if (!input) return Status::error(input.message());
      prepared.push_back(std::move(input).value());
      sc.quantize = false;
      sessions.emplace_back(sc);
    }
    // bench's E2E run (load, lower, write .lsg in memory): the same work between two runs.
    auto body = [&](size_t ci, int) -> Result<session::RunSample> {
      return session::timedE2eRun(sessions[ci], prepared[ci], model);
    };
    auto runs = session::runInterleaved(
        2, opts, body,
        [&](size_t done, size_t total, size_t ci, int rep) {
          if (progress)
            progress(done, total, fmt::format("repeat {} of {}: {}", rep + 1, opts.warmup + opts.repeat, ci == 0 ? "A" : "B"));
        },
        cancel);
    if (!runs) return Status::error(runs.message());
    r.runsA = std::move((*runs)[0]);
    r.runsB = std::move((*runs)[1]);
  } catch (const std::exception& e) {
    return Status::error(fmt::format("the timed repeats threw an exception: {}", e.what()));
  }
  return r;
}

bool RunJob::startCompare(std::shared_ptr<const ir::Graph> source, std::string model, RunConfig a, RunConfig b,
                          session::RepeatOptions opts) {
  if (busy()) return false;
  launch(
      [this, source = std::move(source), model, a, b, opts] {
        {
          std::lock_guard lock(mu_);
          progress_.phase = Phase::Running;
        }
        auto report = [this](size_t i, size_t n, const std::string& name) { publish(i, n, name, 0.0); };
        Outcome o = runNow(source, model, b, &cancel_, report,
                           [this](std::string_view name, double f) { publish(0, 0, name, f); });
        if (!o.trace || o.cancelled) return o;
        auto reps = runRepeats(*source, model, a, b, opts, &cancel_, report);
        if (reps) o.repeats = std::make_shared<const AbRepeats>(std::move(reps).value());
        else o.repeatsError = reps.message();
        o.cancelled = cancel_.load();
        return o;
      },
      model);
  return true;
}

bool RunJob::startGraph(std::shared_ptr<const ir::Graph> source, std::string model, RunConfig cfg) {
  if (busy()) return false;
  launch(
      [this, source = std::move(source), model, cfg] {
        {
          std::lock_guard lock(mu_);
          progress_.phase = Phase::Running;
        }
        return runNow(source, model, cfg, &cancel_,
            [this](size_t i, size_t n, const std::string& name) { publish(i, n, name, 0.0); },
            [this](std::string_view name, double f) { publish(0, 0, name, f); });
      },
      model);
  return true;
}

bool RunJob::startFile(std::string path, RunConfig cfg, bool holdAfterLoad) {
  if (busy()) return false;
  launch(
      [this, path, cfg, holdAfterLoad] {
        Outcome o;
        o.path = path;
        o.config = cfg;
        if (isTracePath(path)) {
          auto t = io::loadTrace(path);
          o.fromTraceFile = true;
          if (!t) {
            o.trace = Status::error(t.message());
            return o;
          }
          trace::Trace tr = std::move(t).value();
          o.source = tr.source;
          if (tr.source) buildAllIndices(*tr.source);
          for (const auto& s : tr.snapshots)
            if (s) buildAllIndices(*s);
          o.config.pipeline = tr.pipeline;
          o.config.profile = tr.profile;
          o.config.target = tr.target;
          o.config.engine = tr.options;
          o.trace = TracePtr(std::make_shared<const trace::Trace>(std::move(tr)));
          return o;
        }
        io::ImportReport report;
        auto g = io::loadGraphFile(path, &report);
        if (!g) {
          o.trace = Status::error(g.message());
          return o;
        }
        auto src = std::make_shared<const ir::Graph>(std::move(g).value());
        buildAllIndices(*src);
        std::string model = src->modelName.empty() ? path : src->modelName;
        {
          std::unique_lock lock(mu_);
          loaded_ = src;
          if (holdAfterLoad) {
            holding_.store(true);
            released_.wait_for(lock, kHoldTimeout, [&] { return release_ || cancel_.load(); });
            holding_.store(false);
          }
          progress_.phase = Phase::Running;
          progress_.what = model;
        }
        Outcome r = runNow(src, model, cfg, &cancel_,
            [this](size_t i, size_t n, const std::string& name) { publish(i, n, name, 0.0); },
            [this](std::string_view name, double f) { publish(0, 0, name, f); });
        r.path = path;
        r.warnings = std::move(report.warnings);
        return r;
      },
      path);
  return true;
}

}  // namespace ls::viewmodel
