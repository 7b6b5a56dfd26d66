// PassManager, registries and the built-in instrumentations.
#include "core/passes/pass_manager.h"

#include "core/passes/editor.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>

#include "core/ops/registry.h"

namespace ls::passes {

namespace {
int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

// ---------------------------------------------------------------- registries

PassRegistry& PassRegistry::instance() {
  static PassRegistry* r = new PassRegistry();
  return *r;
}

void PassRegistry::add(const std::string& name, PassFactory f) {
  if (!factories_.emplace(name, std::move(f)).second) errors_.push_back(fmt::format("pass '{}' registered twice", name));
}

std::unique_ptr<Pass> PassRegistry::create(const std::string& name) const {
  auto it = factories_.find(name);
  return it == factories_.end() ? nullptr : it->second();
}

const std::vector<std::string>& PassRegistry::origins(const std::string& name) const {
  static const std::vector<std::string> kNone;
  auto it = origins_.find(name);
  return it == origins_.end() ? kNone : it->second;
}

std::vector<std::string> PassRegistry::names() const {
  std::vector<std::string> v;
  for (auto& [n, f] : factories_) v.push_back(n);
  return v;
}

PipelineRegistry& PipelineRegistry::instance() {
  static PipelineRegistry* r = new PipelineRegistry();
  return *r;
}

void PipelineRegistry::add(PipelineDef def) {
  std::string n = def.name;
  if (!defs_.emplace(n, std::move(def)).second) errors_.push_back(fmt::format("pipeline '{}' registered twice", n));
}

const PipelineDef* PipelineRegistry::find(const std::string& name) const {
  auto it = defs_.find(name);
  return it == defs_.end() ? nullptr : &it->second;
}

std::vector<std::string> PipelineRegistry::names() const {
  std::vector<std::string> v;
  for (auto& [n, d] : defs_) v.push_back(n);
  return v;
}

// ---------------------------------------------------------------- instrumentations

Status VerifierInstrumentation::verifyGraph(const ir::Graph& g) {
  LS_RETURN_IF_ERROR(g.validate());
  std::vector<ir::TensorMeta> metas;
  for (const ir::NodePtr& p : g.nodes()) {
    const ir::Node& n = *p;
    if (n.kind == ir::NodeKind::Output) {
      if (!n.args.empty())
        if (auto* l = n.args[0].asRefList()) {
          if (l->size() != n.outputs.size())
            return Status::error(fmt::format("output node lists {} values but records {} metadata entries", l->size(),
                                             n.outputs.size()));
          for (size_t i = 0; i < l->size(); ++i)
            if (g.meta((*l)[i]) != n.outputs[i])
              return Status::error(fmt::format("output slot {}: recorded {} but the value is {}", i,
                                               ir::toString(n.outputs[i]), ir::toString(g.meta((*l)[i]))));
        }
      continue;
    }
    if (n.kind != ir::NodeKind::Call || n.hasFlag(ir::kFlagOpaque)) continue;
    const ops::OpSchema* s = ops::OpRegistry::instance().find(n.op);
    if (!s) return Status::error(fmt::format("node '{}': op '{}' is not registered", n.name, ir::opName(n.op)));
    Status st = ops::checkArgs(*s, n, g);
    if (!st.isOk()) return Status::error(fmt::format("node '{}': {}", n.name, st.message()));
    st = ops::inferNode(g, n, metas, nullptr);
    if (!st.isOk()) return st;
    // qparams annotations (not inferable) are kept by re-inference (GraphEditor, retrace).
    keepQuantAnnotations(n.outputs, metas);
    if (metas != n.outputs) {
      std::string rec, inf;
      for (auto& m : n.outputs) rec += (rec.empty() ? "" : ", ") + ir::toString(m);
      for (auto& m : metas) inf += (inf.empty() ? "" : ", ") + ir::toString(m);
      return Status::error(fmt::format("node '{}' ({}): stale metadata: recorded {} but re-inference gives {}", n.name,
                                       ir::opName(n.op), rec, inf));
    }
  }
  for (const auto& [name, sg] : g.subgraphs())
    LS_RETURN_IF_ERROR(verifyGraph(*sg).withContext("subgraph '" + name + "': "));
  return Status::ok();
}

Status VerifierInstrumentation::afterPass(const Pass& p, PassRecord& rec, const ir::Graph& g) {
  if (rec.status != PassStatus::Changed) return Status::ok();
  int64_t t0 = nowNs();
  Status st = verifyGraph(g);
  rec.verifyNs = nowNs() - t0;
  if (!st.isOk()) return Status::error(fmt::format("verifier failed after pass '{}' (#{}): {}", p.name(), rec.index, st.message()));
  return Status::ok();
}

Status TimingInstrumentation::afterPass(const Pass&, PassRecord& rec, const ir::Graph&) {
  Row& r = rows_[rec.name];
  r.scan += rec.scanNs;
  r.run += rec.runNs;
  r.verify += rec.verifyNs;
  ++r.count;
  return Status::ok();
}

void TimingInstrumentation::passSkipped(const Pass&, PassRecord& rec, const ir::Graph&) {
  Row& r = rows_[rec.name];
  r.scan += rec.scanNs;
  ++r.count;
}

std::string TimingInstrumentation::report() const {
  std::vector<std::pair<std::string, Row>> v(rows_.begin(), rows_.end());
  std::sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.second.run + a.second.scan > b.second.run + b.second.scan; });
  std::string s = fmt::format("  Total wall time: {:.3f} ms\n  {:>10}  {:>10}  {:>10}  {:>5}  name\n", totalNs_ / 1e6,
                              "scan ms", "run ms", "verify ms", "count");
  for (auto& [name, r] : v)
    s += fmt::format("  {:>10.3f}  {:>10.3f}  {:>10.3f}  {:>5}  {}\n", r.scan / 1e6, r.run / 1e6, r.verify / 1e6, r.count, name);
  return s;
}

Status StatisticsInstrumentation::afterPass(const Pass& p, PassRecord& rec, const ir::Graph&) {
  rec.stats.clear();
  for (const Statistic& s : p.statistics()) rec.stats.push_back({s.name, s.description, s.value});
  return Status::ok();
}

void StatisticsInstrumentation::passFailed(const Pass& p, PassRecord& rec, const ir::Graph& g) {
  (void)afterPass(p, rec, g);
}

// ---------------------------------------------------------------- manager

Result<PassManager> PassManager::fromPipeline(const std::string& name) {
  const PipelineDef* def = PipelineRegistry::instance().find(name);
  if (!def) {
    std::string known;
    for (auto& n : PipelineRegistry::instance().names()) known += (known.empty() ? "" : ", ") + n;
    return Status::error(fmt::format("unknown pipeline '{}' (known: {})", name, known));
  }
  PassManager pm;
  pm.pipelineName = name;
  for (const std::string& p : def->passes) {
    auto pass = PassRegistry::instance().create(p);
    if (!pass) return Status::error(fmt::format("pipeline '{}': unknown pass '{}'", name, p));
    pm.add(std::move(pass));
  }
  return pm;
}

Status PassManager::validate() const {
  std::set<std::string> seen;
  std::string problems;
  for (size_t i = 0; i < passes_.size(); ++i) {
    for (const std::string& before : passes_[i]->mustRunAfter())
      if (!seen.count(before))
        problems += fmt::format("{}pass '{}' (#{}) must run after '{}', which does not come earlier in the pipeline",
                                problems.empty() ? "" : "; ", passes_[i]->name(), i, before);
    seen.insert(passes_[i]->name());
  }
  for (const std::string& d : disabled_)
    if (!seen.count(d))
      problems += fmt::format("{}cannot disable '{}': no such pass in {}", problems.empty() ? "" : "; ", d,
                              pipelineName.empty() ? std::string("the pipeline") : fmt::format("pipeline '{}'", pipelineName));
  if (!problems.empty()) return Status::error(problems);
  return Status::ok();
}

RunResult PassManager::run(ir::Graph& g, PassContext& ctx) {
  RunResult res;
  RunInfo info{g.modelName, pipelineName, &ctx, passes_.size()};
  bool rollback = std::any_of(instr_.begin(), instr_.end(), [](Instrumentation* i) { return i->canFail(); });
  int64_t start = nowNs();
  for (Instrumentation* i : instr_) i->beforePipeline(info, g);
  bool stopped = false;
  res.records.reserve(passes_.size());
  for (size_t idx = 0; idx < passes_.size(); ++idx) {
    Pass& pass = *passes_[idx];
    PassRecord rec;
    rec.index = int32_t(idx);
    rec.name = pass.name();
    rec.nodesBefore = rec.nodesAfter = g.size();
    auto skip = [&](SkipReason r, std::string detail) {
      rec.status = PassStatus::Skipped;
      rec.reason = r;
      rec.message = std::move(detail);
      for (Instrumentation* i : instr_) i->passSkipped(pass, rec, g);
      res.records.push_back(std::move(rec));
    };
    // Skipped before its scan: the pass starts and ends now.
    auto skipEarly = [&](SkipReason r, std::string detail) {
      rec.startNs = nowNs() - start;
      skip(r, std::move(detail));
    };
    if (stopped) {
      skipEarly(SkipReason::NotReached, fmt::format("pipeline stopped after pass #{} failed", res.failedIndex));
      continue;
    }
    if (ctx.cancel && ctx.cancel->load()) {
      res.cancelled = true;
      skipEarly(SkipReason::Cancelled, "run cancelled");
      continue;
    }
    if (progress_) progress_(idx, passes_.size(), pass.name());
    if (!disabled_.empty() && disabled_.count(pass.name())) {
      skipEarly(SkipReason::Disabled, "disabled by the user");
      continue;
    }
    // One clock read per boundary: the scan starts the pass, and the pass itself starts where
    // the scan ended unless instrumentations run in between (a clock read costs ~20 ns here,
    // five per pass were 2% of a --no-skip pipeline).
    const int64_t t0 = nowNs();
    rec.startNs = t0 - start;
    ShouldRun sr;
    std::string thrown;
    if (ctx.engine.skip) {
      try {
        sr = pass.shouldRun(g, ctx);
      } catch (const std::exception& e) {
        thrown = fmt::format("should_run threw: {}", e.what());
      } catch (...) {
        thrown = "should_run threw a non-standard exception";
      }
    }
    const int64_t scanEnd = nowNs();
    rec.scanNs = scanEnd - t0;
    if (!thrown.empty()) {
      rec.status = PassStatus::Failed;
      rec.message = fmt::format("pass '{}' (#{}) failed: {}", pass.name(), idx, thrown);
      for (Instrumentation* i : instr_) i->passFailed(pass, rec, g);
      res.failedIndex = int(idx);
      res.failure = rec.message;
      res.records.push_back(std::move(rec));
      stopped = true;
      continue;
    }
    if (!sr.run) {
      skip(sr.reason, std::move(sr.detail));
      continue;
    }
    for (Instrumentation* i : instr_) i->beforePass(pass, rec, g);
    ctx.counters = {};
    uint64_t h0 = ctx.cache ? ctx.cache->hits() : 0, m0 = ctx.cache ? ctx.cache->misses() : 0;
    ir::Graph before;
    if (rollback) before = g;
    const int64_t t1 = instr_.empty() ? scanEnd : nowNs();
    // The exception boundary: a pass that throws (bad_alloc, a bad Result::value(), ...) is
    // recorded as failed with the exception's message; the pipeline stops, the caller lives.
    PassResult pr;
    bool threw = false;
    try {
      pr = pass.run(g, ctx);
    } catch (const std::exception& e) {
      pr = PassResult::failed(fmt::format("threw an exception: {}", e.what()));
      threw = true;
    } catch (...) {
      pr = PassResult::failed("threw a non-standard exception");
      threw = true;
    }
    if (threw && rollback) g = before;  // the graph as it was before the pass
    rec.runNs = nowNs() - t1;
    rec.hot = ctx.counters.hot;
    rec.fastCopied = ctx.counters.fastCopied;
    rec.reinferred = ctx.counters.reinferred;
    if (ctx.cache) {
      rec.cacheHits = ctx.cache->hits() - h0;
      rec.cacheMisses = ctx.cache->misses() - m0;
    }
    rec.nodesAfter = g.size();
    auto failWith = [&](std::string msg) {
      rec.status = PassStatus::Failed;
      rec.message = std::move(msg);
      rec.nodesAfter = g.size();
      for (Instrumentation* i : instr_) i->passFailed(pass, rec, g);
      res.failedIndex = int(idx);
      res.failure = rec.message;
      res.records.push_back(std::move(rec));
      stopped = true;
    };
    if (pr.status == PassStatus::Failed) {
      failWith(fmt::format("pass '{}' (#{}) failed: {}", pass.name(), idx, pr.message));
      continue;
    }
    rec.status = pr.status;
    // Checks that can fail (the verifier) run first, so recorders see the final status.
    Status instrStatus;
    for (Instrumentation* i : instr_)
      if (i->canFail() && instrStatus.isOk()) instrStatus = i->afterPass(pass, rec, g);
    if (!instrStatus.isOk()) {
      g = std::move(before);
      failWith(instrStatus.message());
      continue;
    }
    for (Instrumentation* i : instr_)
      if (!i->canFail()) (void)i->afterPass(pass, rec, g);
    res.records.push_back(std::move(rec));
  }
  res.totalNs = nowNs() - start;
  for (Instrumentation* i : instr_) i->afterPipeline(info, g, res.totalNs);
  return res;
}

}  // namespace ls::passes
