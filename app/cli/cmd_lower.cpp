// lowerscope-cli lower: run a pipeline over a graph, print one row per pass and totals.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

#include "app/cli/commands.h"
#include "core/quant/quantizer.h"
#include "core/backends/xnnpack/partitioner.h"
#include "core/exec/synth.h"
#include "core/io/lsg.h"
#include "core/io/lstrace.h"
#include "core/io/summary.h"
#include "core/backends/arm/tosa/tosa_writer.h"
#include "core/passes/pass_manager.h"
#include "core/session/lowering_session.h"
#include "core/util/atomic_file.h"
#include "core/util/progress.h"

namespace ls::cli {

LowerCommand* addLowerCommand(CLI::App& app) {
  static LowerCommand cmd;
  auto* s = app.add_subcommand("lower", "Run a lowering pipeline over a graph and report every pass");
  cmd.sub = s;
  s->add_option("graph", cmd.input, graphFileHelp())->required();
  s->add_option("--pipeline", cmd.pipeline, pipelineHelp())->capture_default_str();
  s->add_option("--profile", cmd.profile, "TOSA profile: fp or int")->check(CLI::IsMember({"fp", "int"}))->capture_default_str();
  s->add_option("--target", cmd.target, "hardware target: generic, u55 or u85")
      ->check(CLI::IsMember({"generic", "u55", "u85"}))
      ->capture_default_str();
  s->add_flag("--no-skip", cmd.noSkip, "run every pass even when should_run says there is nothing to do");
  s->add_flag("--no-fast-copy", cmd.noFastCopy, "re-infer every node in every retrace (the upstream baseline)");
  auto* withCache =
      s->add_flag("--cache", cmd.cache, "memoise meta inference (off by default: it costs more than it saves)");
  s->add_flag("--no-cache", cmd.noCache, "do not memoise meta inference (the default)")->excludes(withCache);
  s->add_option("--disable-pass", cmd.disabled, "skip this pass (repeatable; `lowerscope-cli passes` lists them)");
  s->add_flag("--verify-each", cmd.verifyEach, "run the verifier after every changed pass");
  s->add_option("--trace", cmd.traceOut, "write the trace (.lstrace)");
  s->add_option("--out", cmd.graphOut, "write the final graph (.lsg)");
  s->add_option("--json", cmd.jsonOut, "write a JSON summary to this file (see README)");
  s->add_option("--tosa", cmd.tosaOut,
                "write the lowered graph as a TOSA 1.0 flatbuffer (.tosa); fails, listing them, if any op is not TOSA");
  addQuietFlag(s, cmd.quiet, "the totals line");
  s->add_flag("--no-quantize", cmd.noQuantize, "with --profile int: do not quantize a float graph first");
  addSessionOptions(s, cmd.quant);
  return &cmd;
}

bool selected(const LowerCommand& cmd) { return cmd.sub && cmd.sub->parsed(); }

namespace {

/// --tosa: the pipeline output must be pure TOSA; shape-only weights get the values the
/// reference executor synthesises for them (reported). Returns false after printing the error.
bool writeTosa(const ir::Graph& g, const std::string& path, bool quiet, bool integerOnly,
               const std::vector<std::string>& extensions) {
  std::vector<std::string> bad = io::nonTosaNodes(g);
  if (!bad.empty()) {
    std::string msg = fmt::format("--tosa {}: the lowered graph is not pure TOSA; {} node(s) with other ops:", path,
                                  bad.size());
    // Per-op counts first (a real model can have hundreds of offenders), then every node.
    std::map<std::string, size_t> byOp;
    for (const std::string& b : bad) ++byOp[b.substr(b.rfind(" (") + 2, b.size() - b.rfind(" (") - 3)];
    for (const auto& [op, count] : byOp) msg += fmt::format("\n  {} x{}", op, count);
    msg += "\nnodes:";
    for (const std::string& b : bad) msg += "\n  " + b;
    fail(msg);
    return false;
  }
  io::TosaWriteOptions opts;
  opts.synthesizeMissingData = true;
  opts.integerOnly = integerOnly;  // checked against PRO-INT alone before any byte is written
  opts.extensions = extensions;
  io::TosaWriteReport rep;
  Status st = io::saveTosa(g, path, opts, &rep);
  if (!st) {
    fail(st.message());
    return false;
  }
  if (!quiet) {
    fmt::print("tosa: wrote {} ({} operators, {} tensors, {} bytes of constant data)\n", path, rep.operators,
               rep.tensors, rep.constantBytes);
    if (!rep.synthesized.empty())
      fmt::print("tosa: note: {} constant(s) had no data in the source graph; wrote the values the reference "
                 "executor synthesises for them (first: {})\n",
                 rep.synthesized.size(), rep.synthesized.front());
  }
  return true;
}

}  // namespace

int runLower(const LowerCommand& cmd) {
  auto loaded = load(cmd.input, cmd.quiet);
  if (!loaded) return fail(loaded.message());
  ir::Graph source = std::move(loaded).value();
  std::string model = source.modelName.empty() ? cmd.input : source.modelName;

  session::LoweringSession lowering(sessionConfig(cmd));
  if (Status v = lowering.validate(); !v) return fail(v.message());
  // One redrawn line on stderr while quantizing and lowering (only on a terminal).
  Progress line;
  auto prepared = lowering.prepare(std::move(source), [&](std::string_view stage, double f) { line.stage(stage, f); });
  line.finish();
  if (!prepared) return fail(prepared.message());
  if (!cmd.quiet) reportQuantize(*prepared);
  const std::vector<passes::PassRecord> quantizePasses = prepared->quantizePasses;
  const std::string quantizeSummary = prepared->quantizeSummary;
  const int64_t quantizeNs = prepared->quantizeNs;
  session::RunHooks hooks;
  if (line.active())
    hooks.progress = [&](size_t i, size_t n, const std::string& pass) {
      line.stage("lower " + pass, double(i) / double(std::max<size_t>(n, 1)));
    };
  auto outcome = lowering.run(std::move(*prepared), model, hooks);
  line.finish();
  if (!outcome) return fail(outcome.message());
  const passes::RunResult& res = outcome->result;
  ir::Graph& g = outcome->finalGraph;
  const session::SessionConfig& cfg = lowering.config();

  if (!cmd.quiet) {
    fmt::print("{:>4}  {:<40} {:<10} {:<20} {:>9}  {}\n", "#", "pass", "status", "reason", "ms", "nodes");
    for (const auto& r : res.records) {
      std::string nodes = r.ran() || r.status == passes::PassStatus::Failed
                              ? fmt::format("{} -> {}", r.nodesBefore, r.nodesAfter)
                              : "";
      fmt::print("{:>4}  {:<40} {:<10} {:<20} {:>9.3f}  {}\n", r.index, r.name, passes::passStatusName(r.status),
                 passes::skipReasonName(r.reason), double(r.totalNs()) / 1e6, nodes);
      if (r.status == passes::PassStatus::Failed) fmt::print("      error: {}\n", r.message);
    }
  }
  int ran = 0, skipped = 0, changed = 0, failed = 0;
  for (const auto& r : res.records) {
    ran += r.ran();
    skipped += r.status == passes::PassStatus::Skipped;
    changed += r.status == passes::PassStatus::Changed;
    failed += r.status == passes::PassStatus::Failed;
  }
  fmt::print("total: {:.3f} ms, {} passes: {} ran ({} changed), {} skipped, {} failed; nodes {} -> {}; cache {} hits / {} misses\n",
             double(res.totalNs) / 1e6, res.records.size(), ran, changed, skipped, failed,
             res.records.empty() ? g.size() : res.records.front().nodesBefore, g.size(), outcome->cacheHits,
             outcome->cacheMisses);

  // Quantized graph I/O (INT: ExtractIOQuantizationPass): the caller quantizes the inputs and
  // dequantizes the outputs with these parameters, outside the graph.
  {
    std::vector<std::string> io;
    auto describe = [](const std::string& what, const std::string& name, const ir::TensorMeta& m) {
      return fmt::format("{} {} {} (scale {:.9g}, zero point {})", what, name, ir::dtypeName(m.dtype), m.quant->scales[0],
                         m.quant->zeroPoints.empty() ? 0 : m.quant->zeroPoints[0]);
    };
    for (const ir::NodePtr& p : g.nodes())
      if (p->kind == ir::NodeKind::Placeholder && !p->outputs.empty() && exec::isQuantizedIO(p->outputs[0]))
        io.push_back(describe("input", p->name, p->outputs[0]));
    if (const ir::Node* out = g.outputNode(); out && !out->args.empty())
      if (const ir::RefList* l = out->args[0].asRefList())
        for (const ir::ValueRef& r : *l)
          if (!r.isNone() && exec::isQuantizedIO(g.meta(r))) io.push_back(describe("output", g.node(r.node).name, g.meta(r)));
    if (!io.empty() && !cmd.quiet) fmt::print("quantized graph I/O (quantize/dequantize run outside the graph): {}\n", fmt::join(io, "; "));
  }
  if (cmd.pipeline == "xnnpack" && !failed && !cmd.quiet) {
    xnnpack::PartitionReport pr = xnnpack::partitionReport(g);
    fmt::print("xnnpack: {} delegates, {} delegated nodes\n", pr.delegates, pr.delegatedNodes);
    for (const auto& [op, n] : pr.undelegated) fmt::print("  undelegated {:>4}  {}: {}\n", n, op, pr.reasons[op]);
  }
  // Upstream's operator support checks (the tosa pipelines): each node they refuse, with the
  // check and its reason. On u55/u85 the pipeline's last pass fails on them, so no .tosa holds
  // them; on the generic target they are notes.
  if (!outcome->rejected.empty() && !cmd.quiet) {
    const bool enforced = cfg.target != passes::Target::Generic;
    fmt::print("operator support ({}): {} node(s) refused by upstream's checks{} ({:.3f} ms)\n",
               passes::targetName(cfg.target), outcome->rejected.size(),
               enforced ? "" : " (not enforced for the generic target)", double(outcome->supportNs) / 1e6);
    for (const passes::SupportRejection& r : outcome->rejected)
      fmt::print("  {} ({}): {}\n", r.name, r.op, r.text());
  }
  int rc = failed ? 1 : 0;
  if (!cmd.graphOut.empty()) {
    Status st = io::saveLsg(g, cmd.graphOut);
    if (!st) rc = fail(st.message());
  }
  if (!cmd.tosaOut.empty() && !failed) rc = writeTosa(g, cmd.tosaOut, cmd.quiet,
                           cfg.profile == passes::Profile::INT && cfg.target != passes::Target::Generic,
                           cfg.extensions)
                      ? rc
                      : 1;
  if (!cmd.jsonOut.empty()) {
    io::RunSummary s;
    s.model = model;
    s.pipeline = cmd.pipeline;
    s.profile = cfg.profile;
    s.target = cfg.target;
    s.options = cfg.engine;
    s.records = res.records;
    s.totalNs = res.totalNs;
    s.quantizePipeline = quant::kQuantizePipelineName;
    s.quantizeSummary = quantizeSummary;
    s.quantizePasses = quantizePasses;
    s.quantizeNs = quantizeNs;
    s.finalGraph = &g;
    s.supportChecked = outcome->supportChecked;
    s.supportNs = outcome->supportNs;
    s.rejected = outcome->rejected;
    if (cmd.pipeline == "xnnpack") {
      xnnpack::PartitionReport pr = xnnpack::partitionReport(g);
      s.finalExtras["delegates"] = pr.delegates;
      s.finalExtras["delegated_nodes"] = pr.delegatedNodes;
      s.finalMaps["undelegated"] = pr.undelegated;
    }
    Status st = writeFileAtomic(cmd.jsonOut, io::runSummaryJson(s));
    if (!st) rc = fail(st.message());
  }
  if (!cmd.traceOut.empty() && outcome->trace) {
    Status st = io::saveTrace(*outcome->trace, cmd.traceOut);
    if (!st) rc = fail(st.message());
  }
  if (failed) fmt::print(stderr, "error: {}\n", res.failure);
  if (failed && !cmd.tosaOut.empty()) fmt::print(stderr, "error: --tosa {} not written: the pipeline failed\n", cmd.tosaOut);
  return rc;
}

}  // namespace ls::cli
