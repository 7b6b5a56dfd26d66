// LoweringSession: load, quantize, materialise, run with the standard instrumentations.
#include "core/session/lowering_session.h"

#include <fmt/format.h>

#include <chrono>
#include <exception>

#include "core/exec/compare.h"
#include "core/exec/synth.h"
#include "core/quant/quantizer.h"
#include "core/session/builtin.h"
#include "core/session/calibration.h"
#include "core/trace/trace_recorder.h"

namespace ls::session {

LoweringSession::LoweringSession(SessionConfig cfg) : cfg_(std::move(cfg)) { (void)registerBuiltins(); }

Result<ir::Graph> LoweringSession::load(const std::string& path, io::ImportReport* report) {
  LS_RETURN_IF_ERROR(registerBuiltins());
  return io::loadGraphFile(path, report);
}

Result<passes::PassManager> LoweringSession::buildPassManager() const {
  LS_RETURN_IF_ERROR(registerBuiltins());
  LS_ASSIGN_OR_RETURN(full, passes::PassManager::fromPipeline(cfg_.pipeline));
  passes::PassManager pm;
  if (!cfg_.passLimit) {
    pm = std::move(full);
  } else {
    if (*cfg_.passLimit > full.passes().size())
      return Status::error(fmt::format("pipeline '{}' has only {} passes, {} requested", cfg_.pipeline,
                                       full.passes().size(), *cfg_.passLimit));
    pm.pipelineName = full.pipelineName;
    for (size_t i = 0; i < *cfg_.passLimit; ++i) pm.add(passes::PassRegistry::instance().create(full.passes()[i]->name()));
  }
  for (const std::string& d : cfg_.disabled) pm.disable(d);
  LS_RETURN_IF_ERROR(pm.validate());
  return pm;
}

Status LoweringSession::validate() const {
  auto pm = buildPassManager();
  return pm ? Status::ok() : pm.status();
}

Result<Prepared> LoweringSession::prepare(ir::Graph g, const StageProgressFn& progress) const {
  Prepared p;
  try {
    if (cfg_.profile == passes::Profile::INT && cfg_.quantize) {
      if (exec::hasQuantOps(g)) {
        p.alreadyQuantized = true;
      } else {
        quant::QuantizeOptions o;
        o.seed = cfg_.seed;
        o.activationObserver = cfg_.observer;
        if (!cfg_.calibration.empty()) {
          auto samples = loadCalibrationSamples(cfg_.calibration, g);
          if (!samples) return samples.status();
          o.calibrationInputs = std::move(samples).value();
        }
        o.progress = progress;
        if (const passes::PipelineDef* def = passes::PipelineRegistry::instance().find(cfg_.pipeline))
          o.extraTfaPasses = def->annotationPasses;
        trace::TraceRecorder recorder;
        std::vector<passes::Instrumentation*> instr;
        if (cfg_.recordTrace) instr.push_back(&recorder);
        auto rep = quant::quantizeGraph(g, o, instr);
        if (!rep) return Status::error("quantizing the float graph for the INT profile failed: " + rep.message());
        p.quantized = true;
        p.quantizeSummary = rep->summary();
        p.quantizePasses = rep->passes;
        p.quantizeNs = rep->totalNs;
        if (cfg_.recordTrace) {
          trace::Trace t = recorder.take();
          t.pipeline = quant::kQuantizePipelineName;
          t.profile = passes::Profile::INT;
          t.target = cfg_.target;
          p.preparation = std::make_shared<const trace::Trace>(std::move(t));
        }
      }
    }
    if (cfg_.materializeConstants) exec::materializeConstants(g);
  } catch (const std::exception& e) {
    return Status::error(fmt::format("preparing the graph threw an exception: {}", e.what()));
  }
  p.graph = std::move(g);
  return p;
}

Result<Outcome> LoweringSession::run(ir::Graph g, const std::string& model, const RunHooks& hooks) const {
  return runWith(std::move(g), model, hooks, nullptr);
}

Result<Outcome> LoweringSession::runWith(ir::Graph g, const std::string& model, const RunHooks& hooks,
                                         std::shared_ptr<const trace::Trace> preparation) const {
  LS_ASSIGN_OR_RETURN(pm, buildPassManager());
  passes::PassContext ctx;
  ctx.profile = cfg_.profile;
  ctx.target = cfg_.target;
  ctx.engine = cfg_.engine;
  ops::InferenceCache cache;
  ctx.cache = &cache;
  ctx.cancel = hooks.cancel;
  ctx.extensions = cfg_.extensions;
  // The pipeline's operator support checks run where upstream's partitioner runs them: on the
  // graph the lowering starts from (the quantized edge graph), before any pass.
  bool supportChecked = false;
  int64_t supportNs = 0;
  if (const passes::PipelineDef* def = passes::PipelineRegistry::instance().find(cfg_.pipeline);
      def && def->supportChecks) {
    try {
      const auto t0 = std::chrono::steady_clock::now();
      ctx.rejected = def->supportChecks(g, cfg_.profile, cfg_.target);
      supportNs = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
      supportChecked = true;
    } catch (const std::exception& e) {
      return Status::error(fmt::format("pipeline '{}': the operator support checks threw: {}", cfg_.pipeline, e.what()));
    }
  }

  passes::VerifierInstrumentation verifier;
  passes::StatisticsInstrumentation stats;
  trace::TraceRecorder recorder;
  if (cfg_.structuralVerify) pm.addInstrumentation(&verifier);
  for (passes::Instrumentation* i : hooks.instrumentations) pm.addInstrumentation(i);
  if (cfg_.statistics) pm.addInstrumentation(&stats);
  if (cfg_.recordTrace) pm.addInstrumentation(&recorder);
  if (hooks.progress) pm.setProgress(hooks.progress);

  Outcome o;
  try {
    o.result = pm.run(g, ctx);
  } catch (const std::exception& e) {
    return Status::error(fmt::format("pipeline '{}' threw outside any pass: {}", cfg_.pipeline, e.what()));
  }
  o.rejected = ctx.rejected;
  o.supportChecked = supportChecked;
  o.supportNs = supportNs;
  o.cacheHits = cache.hits();
  o.cacheMisses = cache.misses();
  if (cfg_.recordTrace) {
    trace::Trace t = recorder.take();
    t.model = model;
    t.pipeline = cfg_.pipeline;
    t.profile = cfg_.profile;
    t.target = cfg_.target;
    t.options = cfg_.engine;
    if (preparation && preparation->model.empty()) {
      auto prep = std::make_shared<trace::Trace>(*preparation);
      prep->model = model;
      preparation = std::move(prep);
    }
    t.preparation = std::move(preparation);
    o.trace = std::make_shared<const trace::Trace>(std::move(t));
  }
  o.finalGraph = std::move(g);
  return o;
}

Result<Outcome> LoweringSession::run(Prepared p, const std::string& model, const RunHooks& hooks) const {
  return runWith(std::move(p.graph), model, hooks, std::move(p.preparation));
}

Result<Outcome> LoweringSession::lower(ir::Graph g, const std::string& model, const RunHooks& hooks,
                                       Prepared* prepared) const {
  LS_ASSIGN_OR_RETURN(p, prepare(std::move(g), hooks.stageProgress));
  if (prepared) {
    prepared->quantized = p.quantized;
    prepared->quantizeSummary = p.quantizeSummary;
    prepared->alreadyQuantized = p.alreadyQuantized;
    prepared->preparation = p.preparation;
    prepared->quantizePasses = p.quantizePasses;
    prepared->quantizeNs = p.quantizeNs;
  }
  return run(std::move(p), model, hooks);
}

}  // namespace ls::session
