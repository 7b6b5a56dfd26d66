// lowerscope-cli verify: run a pipeline and check that the lowered graph computes what the
// source graph computes (reference executor, seeded inputs); optionally after every pass
// (--each) and with a bisection to the first responsible pass (--bisect); with --localize, the
// node of the first bad pass's result where the error starts.
// Exit codes: 0 equivalent, 1 not equivalent (or a pass failed), 2 usage or input error.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include "app/cli/commands.h"
#include "core/backends/arm/tosa/tosa_import.h"
#include "core/exec/executor.h"
#include "core/exec/synth.h"
#include "core/verify/int_agreement.h"
#include "core/verify/localize.h"
#include "core/verify/verify.h"
#include "core/io/lstrace.h"
#include "core/passes/pass_manager.h"
#include "core/util/atomic_file.h"
#include "core/util/json_writer.h"
#include "core/util/progress.h"

namespace ls::cli {

struct VerifyCommand {
  CLI::App* sub = nullptr;
  std::string input, pipeline = "generic", profile = "fp", target = "generic", jsonOut, traceOut;
  bool each = false, doBisect = false, noReuse = false, stopOnFailure = false, noQuantize = false, elementwise = false,
       againstFloat = false, localize = false, quiet = false;
  std::vector<std::string> disabled;
  uint64_t seed = 1;
  double rtol = 1e-4, atol = 1e-5;
  int64_t maxSteps = 1;
  int64_t limit = -1;
  std::string tosaOut;
  SessionCli quant;
};

namespace {

int usageError(const std::string& msg) {
  fmt::print(stderr, "error: {}\n", msg);
  return 2;
}

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::string reproduceCommand(const VerifyCommand& c, size_t limit) {
  std::string s = fmt::format("lowerscope-cli verify {} --pipeline {} --profile {} --target {}", c.input, c.pipeline,
                              c.profile, c.target);
  for (const std::string& d : c.disabled) s += " --disable-pass " + d;
  if (c.noQuantize) s += " --no-quantize";
  if (!c.quant.calibration.empty()) s += " --calibration " + c.quant.calibration;
  if (c.quant.observer != "histogram") s += " --observer " + c.quant.observer;
  for (const std::string& e : c.quant.extensions) s += " --tosa-extension " + e;
  if (c.seed != 1) s += fmt::format(" --seed {}", c.seed);
  // The tolerances the verdict was reached with (only when not the defaults).
  if (c.rtol != 1e-4) s += fmt::format(" --rtol {}", c.rtol);
  if (c.atol != 1e-5) s += fmt::format(" --atol {}", c.atol);
  if (c.maxSteps != 1) s += fmt::format(" --max-steps {}", c.maxSteps);
  if (c.elementwise) s += " --elementwise";
  return s + fmt::format(" --bisect-limit {}", limit);
}

void writeSemantic(JsonWriter& w, const trace::SemanticCheck& s) {
  w.field("equivalent", s.equivalent).field("max_abs_error", s.maxAbsError).field("max_rel_error", s.maxRelError);
  w.field("max_steps", s.maxSteps).field("failing_output", s.failingOutput).field("failing_element", s.failingElement);
  w.field("exec_ms", double(s.execNs) / 1e6);
}

std::string errorText(double e) { return std::isfinite(e) ? fmt::format("{:.3g}", e) : "inf"; }

std::string opOf(const ir::Graph& g, ir::NodeId id) {
  const ir::Node* n = g.find(id);
  return n ? n->target : "?";
}

/// "id" or "provenance: NAME" (the node it was compared with before the pass).
std::string matchText(const trace::NodeError& e, const ir::Graph& before) {
  if (e.match == trace::NodeMatch::SameId) return std::string(trace::nodeMatchName(e.match));
  const ir::Node* n = before.find(e.matched);
  return fmt::format("{}: {}", trace::nodeMatchName(e.match), n ? n->name : "?");
}

/// Teacher-forced agreement of an INT lowering that missed the tolerance: its own differences,
/// or rounding ties carried through the network.
void printAgreement(const verify::IntAgreement& a) {
  fmt::print("int agreement (each quantize of the source fed the lowered graph's int8 values, float64): {} of {} "
             "elements at {} of {} quantize nodes differ\n",
             a.differ, a.elements, a.nodes.size(), a.compared);
  if (a.differ == 0) {
    fmt::print("  no quantised value differs: the output difference comes from outside the quantize nodes "
               "compared ({} of {} found in the lowered graph)\n",
               a.compared, a.quantizes);
  } else if (a.onlyTies()) {
    fmt::print("  every difference is one step at a rounding tie (the integer graph rounds .5 up, as TOSA specifies; "
               "PyTorch's quantize rounds it to even): the lowered graph computes the quantised model, and the "
               "output difference is these ties carried through the network\n");
  } else if (a.onlyNearTies()) {
    fmt::print("  every difference is one step at a rounding tie or within 1e-3 steps of one ({} of them: values the "
               "lowering fixed in float32 as PyTorch computes them, such as folded constants, round such near-ties "
               "otherwise than the float64 reference): the output difference is rounding carried through the "
               "network, not a lowering error\n",
               a.notTie);
  } else {
    fmt::print("  {} difference{} not near a rounding tie (up to {} step{}): the lowering computes other values "
               "than its source there\n",
               a.notNearTie, a.notNearTie == 1 ? " is" : "s are", a.maxDiff, a.maxDiff == 1 ? "" : "s");
  }
  const size_t shown = std::min<size_t>(a.nodes.size(), 5);
  for (size_t i = 0; i < shown; ++i) {
    const verify::QuantizeDisagreement& d = a.nodes[i];
    fmt::print("  {} after {} ({}): {} of {} elements differ, {} not at a tie, {} not near one, up to {} step{}\n",
               d.quantize, d.producer, d.producerOp, d.differ, d.elements, d.notTie, d.notNearTie, d.maxDiff,
               d.maxDiff == 1 ? "" : "s");
    fmt::print("    e.g. element {}: x / scale = {:.9g} quantises to {} in the source, {} in the lowered graph\n",
               d.example, d.exampleSteps, d.exampleSource, d.exampleLowered);
  }
  if (a.nodes.size() > shown) fmt::print("  ... {} more quantize nodes\n", a.nodes.size() - shown);
}

/// The ranked table and the culprit line of a localisation: the nodes with an error, at least
/// 10 rows and at most 20.
void printLocalization(const trace::Localization& l, const ir::Graph& before, const ir::Graph& after) {
  fmt::print("localize: pass #{} {}: {} nodes compared, {} above tolerance, {} skipped\n", l.passIndex, l.pass,
             l.nodes.size(), l.exceeding(), l.skipped.size());
  fmt::print("localize: error = {}\n", l.metric);
  fmt::print("{:>4}  {:<32} {:<34} {:>10} {:>12} {:>10}  {}\n", "rank", "node", "op", "error", "max abs", "inputs",
             "match");
  const std::vector<size_t> order = l.ranked();
  const size_t withError = size_t(
      std::count_if(l.nodes.begin(), l.nodes.end(), [](const trace::NodeError& e) { return e.error > 0; }));
  const size_t rows = std::min<size_t>(20, std::max<size_t>(10, withError));
  for (size_t r = 0; r < std::min(rows, order.size()); ++r) {
    const trace::NodeError& e = l.nodes[order[r]];
    fmt::print("{:>4}  {:<32} {:<34} {:>10} {:>12.4g} {:>10}  {}{}\n", r + 1, after.node(e.id).name, opOf(after, e.id),
               errorText(e.error), e.maxAbsError, errorText(e.inputError), matchText(e, before),
               e.id == l.culprit ? "  <- culprit" : e.source ? "  <- source" : "");
  }
  if (order.size() > rows) fmt::print("      ... {} more\n", order.size() - rows);
  const size_t shownSkips = std::min<size_t>(l.skipped.size(), 8);
  for (size_t i = 0; i < shownSkips; ++i)
    fmt::print("skipped: {} ({}): {}\n", after.node(l.skipped[i].id).name, opOf(after, l.skipped[i].id),
               l.skipped[i].reason);
  if (l.skipped.size() > shownSkips) fmt::print("skipped: ... {} more\n", l.skipped.size() - shownSkips);
  if (const trace::NodeError* c = l.find(l.culprit))
    fmt::print("culprit: node {} ({}{}): error {} (max abs {:.4g}) while its inputs are within tolerance (max {})\n",
               after.node(c->id).name, opOf(after, c->id),
               c->match == trace::NodeMatch::Provenance
                   ? fmt::format(", replaces '{}' by provenance", before.find(c->matched) ? before.node(c->matched).name : "?")
                   : "",
               errorText(c->error), c->maxAbsError, errorText(c->inputError));
  else
    fmt::print("culprit: none: every compared node is within tolerance (the outputs' error comes from skipped nodes "
               "or from values the pass does not keep)\n");
}

void writeLocalization(JsonWriter& w, const trace::Localization& l, const ir::Graph& before, const ir::Graph& after) {
  w.key("localization").beginObject();
  w.field("index", l.passIndex).field("name", l.pass).field("metric", l.metric);
  if (const trace::NodeError* c = l.find(l.culprit)) {
    w.key("culprit").beginObject();
    w.field("node", after.node(c->id).name).field("op", opOf(after, c->id)).field("error", c->error);
    w.field("input_error", c->inputError);
    w.endObject();
  }
  w.key("nodes").beginArray();
  for (size_t i : l.ranked()) {
    const trace::NodeError& e = l.nodes[i];
    w.beginObject();
    w.field("node", after.node(e.id).name).field("op", opOf(after, e.id)).field("error", e.error);
    w.field("max_abs_error", e.maxAbsError).field("input_error", e.inputError).field("exceeds", e.exceeds);
    w.field("source", e.source).field("match", std::string(trace::nodeMatchName(e.match)));
    if (const ir::Node* m = before.find(e.matched)) w.field("matched", m->name);
    w.endObject();
  }
  w.endArray();
  w.key("skipped").beginArray();
  for (const trace::SkippedNode& k : l.skipped) {
    w.beginObject();
    w.field("node", after.node(k.id).name).field("reason", k.reason);
    w.endObject();
  }
  w.endArray();
  w.endObject();
}

}  // namespace

VerifyCommand* addVerifyCommand(CLI::App& app) {
  static VerifyCommand cmd;
  auto* s = app.add_subcommand(
      "verify", "Run a pipeline and check the result computes what the source graph computes (exit 0 equivalent, "
                "1 not, 2 usage/input error)");
  cmd.sub = s;
  s->add_option("graph", cmd.input, graphFileHelp())->required();
  s->add_option("--pipeline", cmd.pipeline, pipelineHelp())->capture_default_str();
  s->add_option("--profile", cmd.profile, "TOSA profile: fp or int (int compares outputs in quantisation steps)")
      ->check(CLI::IsMember({"fp", "int"}))
      ->capture_default_str();
  s->add_option("--target", cmd.target, "hardware target: generic, u55 or u85")
      ->check(CLI::IsMember({"generic", "u55", "u85"}))
      ->capture_default_str();
  s->add_flag("--each", cmd.each, "check after every pass that changed the graph and report the first bad one");
  s->add_flag("--bisect", cmd.doBisect,
              "when the check fails, find the first responsible pass by running halved pipeline prefixes");
  s->add_option("--bisect-limit", cmd.limit, "run only the first N passes of the pipeline (as -opt-bisect-limit)");
  s->add_option("--disable-pass", cmd.disabled, "skip this pass (repeatable; `lowerscope-cli passes` lists them)");
  s->add_option("--json", cmd.jsonOut, "write the verification result as JSON to this file");
  s->add_option("-o,--trace", cmd.traceOut,
                "write the trace (.lstrace); with --each every changed pass's record carries its errors, with "
                "--localize the trace also holds the per-node errors of the first bad pass");
  s->add_flag("--localize", cmd.localize,
              "implies --each: in the first bad pass's result, compare every node's value with its counterpart before "
              "the pass (same node id or provenance), rank the nodes by error and name the first whose error "
              "exceeds the tolerance while its inputs' do not");
  s->add_option("--seed", cmd.seed, "seed of the synthesised graph inputs")->capture_default_str();
  s->add_option("--rtol", cmd.rtol,
                "relative tolerance for float outputs: |diff| <= atol + rtol * max|expected| of the output tensor")
      ->capture_default_str();
  s->add_flag("--elementwise", cmd.elementwise,
              "float rule per element as torch.allclose: |diff| <= atol + rtol * |expected| (strict near zero)");
  s->add_option("--atol", cmd.atol, "absolute tolerance for float outputs")->capture_default_str();
  s->add_option("--max-steps", cmd.maxSteps, "tolerance for quantised outputs, in quantisation steps")
      ->capture_default_str();
  s->add_flag("--stop-on-failure", cmd.stopOnFailure, "implies --each: stop the pipeline at the first bad pass");
  s->add_flag("--no-reuse", cmd.noReuse, "implies --each: recompute every node after every pass (no value reuse)");
  s->add_flag("--against-float", cmd.againstFloat,
              "with --profile int on a float graph: also report how far the quantized source and the lowered graph "
              "are from the float model (the cost of quantisation vs the cost of the integer lowering)");
  s->add_option("--tosa", cmd.tosaOut,
                 "also write the lowered graph as a TOSA 1.0 file, read it back and require that it computes the "
                 "lowered graph's outputs bit for bit on the same inputs (int8 for --profile int)");
  addSessionOptions(s, cmd.quant);
  s->add_flag("--no-quantize", cmd.noQuantize,
              "with --profile int: do not quantize a float graph first (it is verified as it is)");
  addQuietFlag(s, cmd.quiet, "the result line");
  return &cmd;
}

bool selected(const VerifyCommand& cmd) { return cmd.sub && cmd.sub->parsed(); }

int runVerify(const VerifyCommand& options) {
  auto t0 = std::chrono::steady_clock::now();
  VerifyCommand cmd = options;
  // The options that only mean something per pass turn the per-pass check on.
  cmd.each = cmd.each || cmd.localize || cmd.stopOnFailure || cmd.noReuse;
  if (!(cmd.rtol >= 0) || !(cmd.atol >= 0) || cmd.maxSteps < 0)
    return usageError("--rtol, --atol and --max-steps must not be negative");
  auto loaded = load(cmd.input, cmd.quiet);
  if (!loaded) return usageError(loaded.message());
  ir::Graph g = std::move(loaded).value();
  const std::string model = g.modelName.empty() ? cmd.input : g.modelName;

  session::SessionConfig cfg;
  cfg.pipeline = cmd.pipeline;
  cfg.profile = *passes::parseProfile(cmd.profile);
  cfg.target = *passes::parseTarget(cmd.target);
  cfg.disabled = cmd.disabled;
  cfg.structuralVerify = true;
  cfg.quantize = !cmd.noQuantize;
  cfg.seed = cmd.seed;
  applySessionOptions(cmd.quant, cfg);
  // Weights: shape-only constants get their synthesised values as data once, before any
  // pass, so every graph version (and every bisect probe) sees the same weights.
  cfg.materializeConstants = true;
  if (cmd.localize && cmd.stopOnFailure)
    return usageError("--localize needs the first bad pass's result, which --stop-on-failure rolls back");
  cfg.recordTrace = !cmd.traceOut.empty() || cmd.localize;

  std::optional<ir::Graph> floatModel;
  if (cfg.profile == passes::Profile::INT && cfg.quantize && cmd.againstFloat && !exec::hasQuantOps(g)) {
    floatModel = g;
    exec::materializeConstants(*floatModel);
  }
  session::LoweringSession probe(cfg);
  if (Status v = probe.validate(); !v) return usageError(v.message());
  // One redrawn line on stderr while quantizing, computing the reference and checking passes
  // (only on a terminal).
  Progress line;
  const StageProgressFn showProgress = [&](std::string_view stage, double f) { line.stage(stage, f); };
  auto prepared = probe.prepare(std::move(g), showProgress);
  line.finish();
  if (!prepared) return usageError(prepared.message());
  if (!cmd.quiet) reportQuantize(*prepared);
  g = std::move(prepared->graph);
  std::shared_ptr<const trace::Trace> preparation = prepared->preparation;

  size_t passCount = 0;
  auto prefixes = verify::registryPrefixes(cmd.pipeline, cmd.disabled, &passCount);
  if (!prefixes) return usageError(prefixes.message());
  if (cmd.limit > int64_t(passCount))
    return usageError(fmt::format("--bisect-limit {}: pipeline '{}' has only {} passes", cmd.limit, cmd.pipeline,
                                  passCount));
  const size_t runCount = cmd.limit >= 0 ? size_t(cmd.limit) : passCount;
  if (cmd.limit >= 0) cfg.passLimit = runCount;
  cfg.materializeConstants = false;  // done above
  cfg.quantize = false;              // done above
  session::LoweringSession lowering(cfg);

  verify::VerifyOptions vo;
  vo.seed = cmd.seed;
  vo.compare.rtol = cmd.rtol;
  vo.compare.atol = cmd.atol;
  vo.compare.scaleRelative = !cmd.elementwise;
  vo.compare.maxSteps = cmd.maxSteps;
  vo.quantSteps = cfg.profile == passes::Profile::INT;
  vo.stopOnFailure = cmd.stopOnFailure;
  vo.reuseValues = !cmd.noReuse;
  if (line.active()) vo.progress = showProgress;

  auto sourceValues = std::make_shared<exec::RunValues>();
  auto refr = verify::Reference::compute(g, vo, nullptr, cmd.each && vo.reuseValues ? sourceValues.get() : nullptr);
  line.finish();
  if (!refr) return usageError(refr.message());
  auto ref = std::make_shared<const verify::Reference>(std::move(refr).value());
  const ir::Graph source = g;

  verify::VerifyEachInstrumentation each(vo);
  each.useReference(ref, cmd.each && vo.reuseValues ? sourceValues : nullptr);
  session::RunHooks hooks;
  if (cmd.each) hooks.instrumentations.push_back(&each);
  auto tRun = std::chrono::steady_clock::now();
  session::Prepared run;
  run.graph = std::move(g);
  run.preparation = std::move(preparation);
  auto outcome = lowering.run(std::move(run), model, hooks);
  line.finish();
  if (!outcome) return usageError(outcome.message());
  const double runMs = msSince(tRun);
  const passes::RunResult& res = outcome->result;
  g = std::move(outcome->finalGraph);

  // The final graph: with --each its check is the last changed pass's (unless a pass failed
  // and the graph was rolled back); a pipeline that changed nothing left the source graph.
  bool changedAny = false;
  for (const auto& r : res.records) changedAny = changedAny || r.status == passes::PassStatus::Changed;
  verify::CheckResult final;
  if (res.failedIndex < 0 && !changedAny) {
    final = ref->compare(ref->outputs());
  } else if (cmd.each && res.failedIndex < 0 && !each.checks().empty()) {
    final = each.checks().back().result;
  } else {
    final = ref->check(g);
  }
  bool equivalent = final.semantic.equivalent && res.failedIndex < 0;
  if (!cmd.quiet)
    fmt::print("verify {} with pipeline '{}' ({} passes{}), profile {}, target {}, seed {}\n", model, cmd.pipeline,
               runCount, runCount < passCount ? fmt::format(" of {}", passCount) : "", cmd.profile, cmd.target,
               cmd.seed);
  if (cmd.each && !each.setupStatus()) return usageError(each.setupStatus().message());
  if (cmd.each && !cmd.quiet) {
    fmt::print("{:>4}  {:<40} {:>12} {:>12} {:>8} {:>9}  {}\n", "#", "pass", "max abs", "max rel", "steps", "exec ms",
               "result");
    for (const verify::PassCheck& c : each.checks()) {
      const trace::SemanticCheck& s = c.result.semantic;
      fmt::print("{:>4}  {:<40} {:>12.3g} {:>12.3g} {:>8.3g} {:>9.1f}  {}\n", c.passIndex, c.pass, s.maxAbsError,
                 s.maxRelError, s.maxSteps, double(s.execNs) / 1e6, s.equivalent ? "ok" : "MISMATCH");
    }
    fmt::print("checked {} changed passes; values reused for {} of {} node evaluations\n", each.checks().size(),
               each.reusedNodes(), each.reusedNodes() + each.computedNodes());
    if (const verify::PassCheck* f = each.firstFailure())
      fmt::print("first pass that breaks equivalence: #{} {}: {}\n", f->passIndex, f->pass, f->result.message);
  }
  // Localisation of the first bad pass, kept in the trace that is saved.
  std::shared_ptr<const trace::Trace> traceOut = outcome->trace;
  if (cmd.localize) {
    const verify::PassCheck* f = each.firstFailure();
    if (!f) {
      if (!cmd.quiet) fmt::print("localize: no pass changed the outputs beyond the tolerance; nothing to localise\n");
    } else if (!outcome->trace) {
      return usageError("localize: the run recorded no trace");
    } else if (f->result.executionFailed) {
      if (!cmd.quiet) fmt::print("localize: pass #{} {}: its graph does not run; nothing to compare\n", f->passIndex, f->pass);
    } else {
      auto loc = verify::localizePass(*outcome->trace, f->passIndex, *ref);
      if (!loc) return usageError(loc.message());
      if (!cmd.quiet)
        printLocalization(*loc, outcome->trace->graphBefore(f->passIndex), outcome->trace->graphAfter(f->passIndex));
      auto withLoc = std::make_shared<trace::Trace>(*outcome->trace);
      withLoc->generation = trace::nextGeneration();
      withLoc->localization = std::make_shared<const trace::Localization>(std::move(loc).value());
      traceOut = std::move(withLoc);
    }
  }
  if (res.failedIndex >= 0) fmt::print("pipeline failed: {}\n", res.failure);
  if (!cmd.quiet) fmt::print("final graph: {}\n", final.message);
  std::optional<verify::IntAgreement> agreement;
  if (vo.quantSteps && res.failedIndex < 0 && !final.executionFailed && !final.semantic.equivalent &&
      !source.nodesOfOp(ir::internOp("quantized_decomposed.quantize_per_tensor.default")).empty()) {
    auto ag = verify::intAgreement(source, g, ref->inputs(), verify::AgreementOptions{.threads = vo.threads});
    if (!ag) {
      if (!cmd.quiet) fmt::print("int agreement: not available: {}\n", ag.message());
    } else {
      if (!cmd.quiet) printAgreement(*ag);
      agreement = std::move(ag).value();
    }
  }

  verify::BisectResult bis;
  bool bisected = false;
  if (cmd.doBisect && !equivalent) {
    passes::PassContext bctx;
    bctx.profile = cfg.profile;
    bctx.target = cfg.target;
    verify::BisectOptions bo;
    bo.verify = vo;
    auto b = verify::bisect(source, runCount, *prefixes, bctx, bo);
    if (!b) return usageError(b.message());
    bis = std::move(b).value();
    bisected = true;
    if (!cmd.quiet) {
      for (const verify::BisectProbe& p : bis.probes)
        fmt::print("bisect: first {:>3} passes: {}\n", p.limit, p.failed ? "FAIL" : "ok");
      if (bis.culprit >= 0) {
        fmt::print("bisect: first bad pass is #{} {}: {}\n", bis.culprit, bis.culpritName, bis.detail);
        fmt::print("bisect: reproduce with: {}\n", reproduceCommand(cmd, size_t(bis.culprit) + 1));
        fmt::print("bisect: passes with:    {}\n", reproduceCommand(cmd, size_t(bis.culprit)));
      } else if (!bis.fullPipelineFails) {
        fmt::print("bisect: the check passes when re-run from the start; nothing to bisect\n");
      } else {
        fmt::print("bisect: {}\n", bis.detail);
      }
    }
  }
  // Against the float model: the same seeded inputs through the float graph; the error of the
  // quantized source is what quantisation costs, the lowered graph's adds what lowering costs.
  struct FloatGap {
    double sourceAbs = 0, loweredAbs = 0, maxFloat = 0;
  };
  std::optional<FloatGap> gap;
  if (cmd.againstFloat && !floatModel) {
    if (!cmd.quiet)
      fmt::print("against float: not available (the input already holds quantize/dequantize ops, or --profile is not int)\n");
  } else if (floatModel) {
    verify::VerifyOptions fo = vo;
    fo.quantSteps = false;
    auto fref = verify::Reference::compute(*floatModel, fo);
    if (!fref) return usageError("against float: " + fref.message());
    FloatGap fg;
    for (const exec::Tensor& t : fref->outputs())
      if (ir::isFloating(t.dtype()))
        for (int64_t i = 0; i < t.numel(); ++i) fg.maxFloat = std::max(fg.maxFloat, std::abs(t.getDouble(i)));
    verify::CheckResult qs = fref->check(source), lw = fref->check(g);
    if (qs.executionFailed || lw.executionFailed)
      return usageError("against float: " + (qs.executionFailed ? qs.message : lw.message));
    fg.sourceAbs = qs.semantic.maxAbsError, fg.loweredAbs = lw.semantic.maxAbsError;
    const double denom = fg.maxFloat > 0 ? fg.maxFloat : 1.0;
    if (!cmd.quiet)
      fmt::print("against float: quantized source max abs {:.4g} ({:.3g} of max|float| {:.4g}); lowered graph max "
                 "abs {:.4g} ({:.3g})\n",
                 fg.sourceAbs, fg.sourceAbs / denom, fg.maxFloat, fg.loweredAbs, fg.loweredAbs / denom);
    gap = fg;
  }
  // The file as written: read back like any .tosa and run on the inputs the lowered graph takes.
  std::optional<arm::TosaFileRun> fileRun;
  if (!cmd.tosaOut.empty() && res.failedIndex < 0) {
    io::TosaWriteOptions wopts;
    wopts.extensions = cfg.extensions;
    auto bytes = io::serializeTosa(g, wopts);
    if (!bytes) {
      if (!cmd.quiet) fmt::print("tosa file: not written: {}\n", bytes.message());
      equivalent = false;
    } else {
      const std::string name = cmd.tosaOut.substr(cmd.tosaOut.find_last_of('/') + 1);
      auto fr = arm::runTosaFileAgainst(g, *bytes, name, exec::adaptInputs(g, ref->inputs()));
      if (!fr) return usageError(fr.message());
      if (!cmd.quiet) fmt::print("tosa file {}: {}\n", cmd.tosaOut, fr->message);
      equivalent = equivalent && fr->identical;
      fileRun = std::move(fr).value();
      if (Status st = writeFileAtomic(cmd.tosaOut, *bytes); !st) return usageError(st.message());
    }
  }
  fmt::print("result: {} (pipeline {:.1f} ms, total {:.1f} ms)\n", equivalent ? "EQUIVALENT" : "NOT EQUIVALENT", runMs,
             msSince(t0));

  if (!cmd.jsonOut.empty()) {
    JsonWriter w;
    w.beginObject();
    w.field("model", model).field("pipeline", cmd.pipeline).field("profile", cmd.profile).field("target", cmd.target);
    w.field("seed", cmd.seed).field("passes_run", uint64_t(runCount)).field("pipeline_passes", uint64_t(passCount));
    w.field("equivalent", equivalent).field("pipeline_ms", runMs);
    if (res.failedIndex >= 0) w.field("pipeline_failure", res.failure);
    w.key("final").beginObject();
    writeSemantic(w, final.semantic);
    w.field("message", final.message);
    w.endObject();
    if (fileRun) {
      w.key("tosa_file").beginObject();
      w.field("path", cmd.tosaOut).field("bit_identical", fileRun->identical).field("message", fileRun->message);
      w.endObject();
    }
    if (agreement) {
      w.key("int_agreement").beginObject();
      w.field("quantizes", uint64_t(agreement->quantizes)).field("compared", uint64_t(agreement->compared));
      w.field("elements", agreement->elements).field("differ", agreement->differ);
      w.field("not_at_tie", agreement->notTie).field("not_near_tie", agreement->notNearTie);
      w.field("max_steps", agreement->maxDiff);
      w.field("only_ties", agreement->onlyTies()).field("only_near_ties", agreement->onlyNearTies());
      w.key("nodes").beginArray();
      for (const verify::QuantizeDisagreement& d : agreement->nodes) {
        w.beginObject();
        w.field("quantize", d.quantize).field("producer", d.producer).field("producer_op", d.producerOp);
        w.field("elements", d.elements).field("differ", d.differ).field("not_at_tie", d.notTie);
        w.field("not_near_tie", d.notNearTie);
        w.field("max_steps", d.maxDiff);
        w.key("example").beginObject();
        w.field("element", d.example).field("steps", d.exampleSteps);
        w.field("source", d.exampleSource).field("lowered", d.exampleLowered);
        w.endObject();
        w.endObject();
      }
      w.endArray();
      w.endObject();
    }
    if (gap) {
      w.key("against_float").beginObject();
      w.field("max_abs_float", gap->maxFloat).field("quantized_source_max_abs", gap->sourceAbs);
      w.field("lowered_max_abs", gap->loweredAbs);
      w.endObject();
    }
    if (cmd.each) {
      w.key("passes").beginArray();
      for (const verify::PassCheck& c : each.checks()) {
        w.beginObject();
        w.field("index", c.passIndex).field("name", c.pass);
        writeSemantic(w, c.result.semantic);
        w.field("message", c.result.message);
        w.endObject();
      }
      w.endArray();
      if (const verify::PassCheck* f = each.firstFailure()) {
        w.key("first_failure").beginObject();
        w.field("index", f->passIndex).field("name", f->pass);
        writeSemantic(w, f->result.semantic);
        w.field("message", f->result.message);
        w.endObject();
      }
    }
    if (traceOut && traceOut->localization)
      writeLocalization(w, *traceOut->localization, traceOut->graphBefore(traceOut->localization->passIndex),
                        traceOut->graphAfter(traceOut->localization->passIndex));
    if (bisected) {
      w.key("bisect").beginObject();
      w.field("culprit", bis.culprit).field("name", bis.culpritName).field("detail", bis.detail);
      if (bis.culprit >= 0) w.field("command", reproduceCommand(cmd, size_t(bis.culprit) + 1));
      w.key("probes").beginArray();
      for (const verify::BisectProbe& p : bis.probes) {
        w.beginObject();
        w.field("limit", uint64_t(p.limit)).field("failed", p.failed);
        w.endObject();
      }
      w.endArray();
      w.endObject();
    }
    w.endObject();
    Status st = writeFileAtomic(cmd.jsonOut, w.str() + "\n");
    if (!st) return usageError(st.message());
  }
  if (!cmd.traceOut.empty() && traceOut) {
    Status st = io::saveTrace(*traceOut, cmd.traceOut);
    if (!st) return usageError(st.message());
  }
  return equivalent ? 0 : 1;
}

}  // namespace ls::cli
