// Reference outputs, verify-each instrumentation and pipeline bisection.
#include "core/verify/verify.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>

#include "core/exec/synth.h"

namespace ls::verify {

using namespace exec;

namespace {

int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Float output compared in quantisation steps of `step`.
OutputDiff compareInSteps(const Tensor& actual, const Tensor& expected, double step, const CompareOptions& opts) {
  // The float metrics (max abs/rel) as usual; the verdict from the error in steps.
  CompareOptions loose = opts;
  OutputDiff d = compareTensors(actual, expected, loose);
  if (d.shapeMismatch || d.dtypeMismatch) return d;
  d.mismatches = 0;
  d.firstFailingElement = -1;
  const double tol = double(opts.maxSteps) + 1e-3;  // dequantised values are multiples of step
  double worst = 0.0;
  for (int64_t i = 0; i < actual.numel(); ++i) {
    const double a = actual.getDouble(i), b = expected.getDouble(i);
    double steps = std::abs(a - b) / step;
    if (std::isnan(a) || std::isnan(b)) steps = (opts.nanEqual && std::isnan(a) && std::isnan(b)) ? 0.0 : INFINITY;
    worst = std::max(worst, steps);
    if (!(steps <= tol)) {
      if (d.firstFailingElement < 0) {
        d.firstFailingElement = i;
        d.actualAtFailure = a;
        d.expectedAtFailure = b;
      }
      ++d.mismatches;
    }
  }
  d.maxSteps = int64_t(std::ceil(worst - 1e-3));
  d.equivalent = d.mismatches == 0;
  return d;
}

}  // namespace

// ---------------------------------------------------------------- Reference

Result<Reference> Reference::compute(const ir::Graph& source, const VerifyOptions& opts,
                                     std::shared_ptr<ConstantCache> constants, RunValues* all) {
  Reference r;
  r.opts_ = opts;
  r.constants_ = constants ? std::move(constants) : std::make_shared<ConstantCache>();
  r.inputs_ = synthesizeInputs(source, opts.seed);
  // The INT reference evaluates the quantised source in float64: its q/dq arithmetic then
  // rounds the exact values, as the integer lowering does (docs/DESIGN.md).
  r.sourceQuantised_ = exec::hasQuantOps(source);
  Executor ex(ExecOptions{.threads = opts.threads, .exactAccumulation = opts.quantSteps, .float64 = opts.quantSteps},
              r.constants_);
  if (opts.progress)
    ex.setProgress([&](size_t done, size_t total) {
      opts.progress("verify: reference run", double(done) / double(std::max<size_t>(total, 1)));
    });
  if (all) {
    auto vals = ex.runAll(source, r.inputs_);
    if (!vals) return Status::error("the source graph does not run: " + vals.message());
    *all = std::move(vals).value();
    r.outputs_ = all->outputs;
  } else {
    auto out = ex.run(source, r.inputs_);
    if (!out) return Status::error("the source graph does not run: " + out.message());
    r.outputs_ = std::move(out).value();
  }
  if (opts.quantSteps) r.steps_ = outputQuantSteps(source, *r.constants_, &r.zeroPoints_);
  r.steps_.resize(r.outputs_.size(), 0.0);
  r.quantised_ = quantisedOutputs(source);
  r.quantised_.resize(r.outputs_.size(), false);
  r.zeroPoints_.resize(r.outputs_.size(), 0);
  return r;
}

CheckResult Reference::compare(const std::vector<Tensor>& actual) const {
  CheckResult res;
  trace::SemanticCheck& s = res.semantic;
  s.checked = true;
  if (actual.size() != outputs_.size()) {
    s.equivalent = false;
    s.failingOutput = 0;
    res.message = fmt::format("output count differs: {} vs expected {}", actual.size(), outputs_.size());
    return res;
  }
  // Quantised integers where the source returns dequantised floats: dequantise them with the
  // source's parameters, then compare in steps like any float output.
  std::vector<Tensor> converted;
  const std::vector<Tensor>* act = &actual;
  for (size_t i = 0; i < actual.size(); ++i) {
    const bool intForFloat = i < steps_.size() && steps_[i] > 0 && actual[i].defined() && outputs_[i].defined() &&
                             !ir::isFloating(actual[i].dtype()) && actual[i].dtype() != ir::DType::Bool &&
                             ir::isFloating(outputs_[i].dtype());
    if (!intForFloat) continue;
    if (converted.empty()) converted = actual;
    Tensor f(outputs_[i].dtype(), actual[i].shape());
    // In the reference's arithmetic: the float64 dequantize, rounded to the output's dtype once.
    for (int64_t k = 0; k < f.numel(); ++k) f.setDouble(k, double(actual[i].getInt(k) - zeroPoints_[i]) * steps_[i]);
    converted[i] = f;
  }
  if (!converted.empty()) act = &converted;
  const std::vector<Tensor>& actualF = *act;
  CompareResult base = compareOutputs(actualF, outputs_, opts_.compare, quantised_);
  s.maxAbsError = base.maxAbsError;
  // The relative error reported is the one the pass/fail rule uses: normwise (to the output's
  // max |expected|) under scaleRelative, else per element.
  s.maxRelError = opts_.compare.scaleRelative ? base.maxRelToMax : base.maxRelError;
  s.maxSteps = double(base.maxSteps);
  bool anyStepped = std::any_of(steps_.begin(), steps_.end(), [](double v) { return v > 0; });
  if (!anyStepped) {
    s.equivalent = base.equivalent;
    s.failingOutput = base.firstFailingOutput;
    s.failingElement = base.firstFailingElement;
    res.message = base.message;
    return res;
  }
  // Some outputs compare in quantisation steps: redo the verdict output by output.
  s.equivalent = true;
  for (size_t i = 0; i < actualF.size(); ++i) {
    const bool stepped = steps_[i] > 0 && actualF[i].defined() && ir::isFloating(actualF[i].dtype());
    OutputDiff d = stepped ? compareInSteps(actualF[i], outputs_[i], steps_[i], opts_.compare)
                           : compareTensors(actualF[i], outputs_[i], opts_.compare, quantised_[i]);
    if (stepped) s.maxSteps = std::max(s.maxSteps, d.maxAbsError / steps_[i]);
    if (!d.equivalent && s.equivalent) {
      s.equivalent = false;
      s.failingOutput = int32_t(i);
      s.failingElement = d.firstFailingElement;
      if (d.shapeMismatch || d.dtypeMismatch)
        res.message = fmt::format("output #{}: {} vs expected {}", i,
                                  actualF[i].defined() ? ir::toString(actualF[i].meta()) : "none",
                                  outputs_[i].defined() ? ir::toString(outputs_[i].meta()) : "none");
      else if (stepped)
        res.message = fmt::format(
            "output #{} element {}: {:.9g} vs expected {:.9g} ({:.3g} quantisation steps of {:.6g} > {}; {} of {} "
            "elements over the tolerance, the worst {:.3g} steps)",
            i, d.firstFailingElement, d.actualAtFailure, d.expectedAtFailure,
            std::abs(d.actualAtFailure - d.expectedAtFailure) / steps_[i], steps_[i], opts_.compare.maxSteps,
            d.mismatches, actualF[i].numel(), d.maxAbsError / steps_[i]);
      else
        res.message = base.message;
    }
  }
  if (s.equivalent)
    res.message = fmt::format("equivalent (max abs {:.3g}, max rel {:.3g}, max steps {:.3g})", s.maxAbsError,
                              s.maxRelError, s.maxSteps);
  return res;
}

CheckResult Reference::check(const ir::Graph& g) const {
  int64_t t0 = nowNs();
  // In float64 as the INT reference, and a quantised graph checked against a float reference
  // (how far quantisation moved the model): its exact values are the quantised model's.
  const bool float64 = opts_.quantSteps || (!sourceQuantised_ && exec::hasQuantOps(g));
  Executor ex(ExecOptions{.threads = opts_.threads, .exactAccumulation = opts_.quantSteps || float64, .float64 = float64},
              constants_);
  auto out = ex.run(g, adaptInputs(g, inputs_));  // quantized inputs get the source's values quantized
  CheckResult r;
  if (!out) {
    r.semantic.checked = true;
    r.semantic.equivalent = false;
    r.executionFailed = true;
    r.message = "the graph does not run: " + out.message();
  } else {
    r = compare(adaptOutputs(g, std::move(*out), outputs_));  // quantized outputs dequantized with their qparams
  }
  r.semantic.execNs = nowNs() - t0;
  return r;
}

// ---------------------------------------------------------------- verify-each

/// Values of the previous check, for reuse: a node whose version (shared node pointer) is
/// the same as in the previously checked graph and whose inputs all kept their values keeps
/// its values. The previous graph is held so node addresses cannot be recycled.
struct VerifyEachInstrumentation::Memo {
  ir::Graph graph;
  std::vector<const ir::Node*> nodeAt;  // by NodeId: node version in `graph`
  std::vector<uint64_t> constHash;      // by NodeId: content hash of a get_attr's constant
  RunValues values;
};

VerifyEachInstrumentation::VerifyEachInstrumentation(VerifyOptions opts) : opts_(std::move(opts)) {}
VerifyEachInstrumentation::~VerifyEachInstrumentation() = default;

void VerifyEachInstrumentation::useReference(std::shared_ptr<const Reference> ref,
                                             std::shared_ptr<const RunValues> sourceValues) {
  preset_ = std::move(ref);
  presetValues_ = std::move(sourceValues);
}

void VerifyEachInstrumentation::beforePipeline(const passes::RunInfo& info, const ir::Graph& g) {
  checks_.clear();
  memo_.reset();
  reused_ = computed_ = 0;
  passCount_ = info.passCount;
  setup_ = Status::ok();
  RunValues all;
  bool haveAll = false;
  if (preset_) {
    ref_ = preset_;
    if (presetValues_) {
      all = *presetValues_;
      haveAll = true;
    }
  } else {
    VerifyOptions o = opts_;
    if (info.ctx && info.ctx->profile == passes::Profile::INT) o.quantSteps = true;
    auto r = Reference::compute(g, o, nullptr, o.reuseValues ? &all : nullptr);
    if (!r) {
      setup_ = r.status();
      ref_.reset();
      return;
    }
    ref_ = std::make_shared<const Reference>(std::move(r).value());
    haveAll = o.reuseValues;
  }
  if (opts_.reuseValues && !haveAll) {
    Executor ex(ExecOptions{.threads = opts_.threads, .exactAccumulation = opts_.quantSteps}, ref_->constants());
    auto vals = ex.runAll(g, adaptInputs(g, ref_->inputs()));
    if (vals) {
      all = std::move(vals).value();
      haveAll = true;
    }
  }
  if (opts_.reuseValues && haveAll) {
    // Seed the memo with the source graph's values (the first changed pass reuses its prefix).
    memo_ = std::make_unique<Memo>();
    memo_->graph = g;
    memo_->values = std::move(all);
    memo_->nodeAt.assign(g.nextId(), nullptr);
    memo_->constHash.assign(g.nextId(), 0);
    for (const ir::NodePtr& p : g.nodes()) {
      memo_->nodeAt[p->id] = p.get();
      if (p->kind == ir::NodeKind::GetAttr)
        if (const ir::Constant* c = g.constant(p->target)) memo_->constHash[p->id] = c->contentHash;
    }
  }
}

Status VerifyEachInstrumentation::afterPass(const passes::Pass& p, trace::PassRecord& rec, const ir::Graph& g) {
  if (rec.status != passes::PassStatus::Changed || !ref_) return Status::ok();
  int64_t t0 = nowNs();
  const std::string stage = "verify-each " + p.name();
  const double passes = double(std::max<size_t>(passCount_, 1));
  if (opts_.progress) opts_.progress(stage, double(rec.index) / passes);
  CheckResult res;
  if (memo_) {
    // A node keeps its values when it is the same node version as in the previously checked
    // graph (same op, args and metadata) and every input value is bitwise the same as then:
    // a pass that rewires a node recomputes it, and when its result did not change, nothing
    // downstream is recomputed.
    const Memo& m = *memo_;
    const bool sameSubgraphs =
        g.subgraphs().size() == m.graph.subgraphs().size() &&
        std::equal(g.subgraphs().begin(), g.subgraphs().end(), m.graph.subgraphs().begin(),
                   [](const auto& a, const auto& b) { return a.first == b.first && a.second == b.second; });
    uint64_t reusedNow = 0, computedNow = 0;
    auto identical = [](const Tensor& a, const Tensor& b) {
      if (!a.defined() || !b.defined()) return a.defined() == b.defined();
      if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
      return a.bytes() == b.bytes() || std::memcmp(a.bytes(), b.bytes(), a.nbytes()) == 0;
    };
    Executor::ReuseFn reuse = [&](const ir::Node& n,
                                  const std::vector<std::vector<Tensor>>& now) -> const std::vector<Tensor>* {
      const bool call = n.kind == ir::NodeKind::Call;
      auto miss = [&]() -> const std::vector<Tensor>* {
        computedNow += call;
        return nullptr;
      };
      if (!sameSubgraphs || n.id >= m.nodeAt.size() || m.nodeAt[n.id] != &n) return miss();
      if (n.kind == ir::NodeKind::GetAttr) {
        const ir::Constant* c = g.constant(n.target);
        if (!c || c->contentHash != m.constHash[n.id]) return miss();
      }
      const std::vector<Tensor>& prev = m.values.of(n.id);
      if (prev.empty()) return miss();
      bool same = true;
      n.forEachInput([&](const ir::ValueRef& r) {
        if (!same) return;
        const Tensor* cur = r.node < now.size() && r.output < now[r.node].size() ? &now[r.node][r.output] : nullptr;
        same = cur && identical(*cur, m.values.at(r));
      });
      if (!same) return miss();
      reusedNow += call;
      return &prev;
    };
    Executor ex(ExecOptions{.threads = opts_.threads, .exactAccumulation = opts_.quantSteps}, ref_->constants());
    if (opts_.progress)
      ex.setProgress([&](size_t done, size_t total) {
        opts_.progress(stage, (double(rec.index) + double(done) / double(std::max<size_t>(total, 1))) / passes);
      });
    auto all = ex.runAll(g, adaptInputs(g, ref_->inputs()), reuse);
    reused_ += reusedNow;
    computed_ += computedNow;
    if (!all) {
      res.semantic.checked = true;
      res.semantic.equivalent = false;
      res.executionFailed = true;
      res.message = "the graph does not run: " + all.message();
    } else {
      res = ref_->compare(adaptOutputs(g, all->outputs, ref_->outputs()));
      // The new values become the memo for the next pass.
      memo_->graph = g;
      memo_->values = std::move(all).value();
      memo_->nodeAt.assign(g.nextId(), nullptr);
      memo_->constHash.assign(g.nextId(), 0);
      for (const ir::NodePtr& np : g.nodes()) {
        memo_->nodeAt[np->id] = np.get();
        if (np->kind == ir::NodeKind::GetAttr)
          if (const ir::Constant* c = g.constant(np->target)) memo_->constHash[np->id] = c->contentHash;
      }
    }
  } else {
    res = ref_->check(g);
  }
  res.semantic.execNs = nowNs() - t0;
  rec.semantic = res.semantic;
  checks_.push_back({rec.index, p.name(), res});
  if (!res.semantic.equivalent && opts_.stopOnFailure)
    return Status::error(fmt::format("pass '{}' (#{}) changed the outputs: {}", p.name(), rec.index, res.message));
  return Status::ok();
}

const PassCheck* VerifyEachInstrumentation::firstFailure() const {
  for (const PassCheck& c : checks_)
    if (!c.result.semantic.equivalent) return &c;
  return nullptr;
}

// ---------------------------------------------------------------- bisect

Result<PrefixFactory> registryPrefixes(const std::string& pipeline, std::vector<std::string> disabled,
                                       size_t* passCount) {
  auto full = passes::PassManager::fromPipeline(pipeline);
  if (!full) return full.status();
  for (const std::string& d : disabled) full->disable(d);
  LS_RETURN_IF_ERROR(full->validate());
  const passes::PipelineDef* def = passes::PipelineRegistry::instance().find(pipeline);
  std::vector<std::string> names = def->passes;
  if (passCount) *passCount = names.size();
  return PrefixFactory([pipeline, names, disabled](size_t limit) -> Result<passes::PassManager> {
    passes::PassManager pm;
    pm.pipelineName = pipeline;
    for (size_t i = 0; i < std::min(limit, names.size()); ++i) {
      auto pass = passes::PassRegistry::instance().create(names[i]);
      if (!pass) return Status::error(fmt::format("pipeline '{}': unknown pass '{}'", pipeline, names[i]));
      pm.add(std::move(pass));
    }
    for (const std::string& d : disabled)
      if (std::find(names.begin(), names.begin() + std::ptrdiff_t(std::min(limit, names.size())), d) !=
          names.begin() + std::ptrdiff_t(std::min(limit, names.size())))
        pm.disable(d);
    return pm;
  });
}

Result<BisectResult> bisect(const ir::Graph& source, size_t passCount, const PrefixFactory& prefixes,
                            const passes::PassContext& ctx, const BisectOptions& opts) {
  VerifyOptions vo = opts.verify;
  if (ctx.profile == passes::Profile::INT) vo.quantSteps = true;
  auto ref = Reference::compute(source, vo);
  if (!ref) return ref.status();
  BisectResult out;
  std::vector<std::string> names(passCount);
  auto probe = [&](size_t limit) -> Result<bool> {
    auto pm = prefixes(limit);
    if (!pm) return pm.status();
    if (limit > 0 && pm->passes().size() == limit) names[limit - 1] = pm->passes()[limit - 1]->name();
    passes::VerifierInstrumentation verifier;
    if (opts.structural) pm->addInstrumentation(&verifier);
    ir::Graph g = source;
    passes::PassContext c;
    c.profile = ctx.profile;
    c.target = ctx.target;
    c.engine = ctx.engine;
    ops::InferenceCache cache;
    c.cache = &cache;
    passes::RunResult rr = pm->run(g, c);
    BisectProbe pr;
    pr.limit = limit;
    if (rr.failedIndex >= 0) {
      pr.failed = true;
      pr.detail = rr.failure;
    } else {
      CheckResult cr = ref->check(g);
      pr.failed = !cr.semantic.equivalent;
      pr.detail = cr.message;
    }
    out.probes.push_back(pr);
    return pr.failed;
  };
  auto full = probe(passCount);
  if (!full) return full.status();
  out.fullPipelineFails = *full;
  if (!*full) return out;
  // Invariant: the prefix of `good` passes passes the check, the prefix of `bad` fails it.
  size_t good = 0, bad = passCount;
  std::string badDetail = out.probes.back().detail;
  while (bad - good > 1) {
    size_t mid = good + (bad - good) / 2;
    auto f = probe(mid);
    if (!f) return f.status();
    if (*f) {
      bad = mid;
      badDetail = out.probes.back().detail;
    } else {
      good = mid;
    }
  }
  if (bad == 0) {
    out.detail = "the check fails without any pass: " + badDetail;
    return out;
  }
  out.culprit = int(bad - 1);
  if (names[bad - 1].empty()) {
    auto pm = prefixes(bad);
    if (pm && pm->passes().size() == bad) names[bad - 1] = pm->passes()[bad - 1]->name();
  }
  out.culpritName = names[bad - 1];
  out.detail = badDetail;
  return out;
}

}  // namespace ls::verify
