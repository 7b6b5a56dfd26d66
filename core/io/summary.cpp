// JSON summary of a pipeline run.
#include "core/io/summary.h"

#include <array>

#include "core/util/json_writer.h"

namespace ls::io {

std::map<std::string, int64_t> opHistogram(const ir::Graph& g, bool includeNested) {
  std::map<std::string, int64_t> h;
  for (ir::OpId op : g.opsPresent()) h[ir::opName(op)] += int64_t(g.nodesOfOp(op).size());
  if (includeNested)
    for (const auto& [name, sg] : g.subgraphs())
      for (auto& [op, n] : opHistogram(*sg, true)) h[op] += n;
  return h;
}

namespace {

/// One JSON object per record; returns {ran, skipped, changed, failed}.
std::array<int, 4> writeRecords(JsonWriter& w, const std::vector<trace::PassRecord>& records) {
  int ran = 0, skipped = 0, changed = 0, failed = 0;
  for (const trace::PassRecord& r : records) {
    w.beginObject();
    w.field("index", r.index).field("name", r.name).field("status", passes::passStatusName(r.status));
    w.field("reason", passes::skipReasonName(r.reason));
    if (!r.message.empty()) w.field("message", r.message);
    w.field("ms", double(r.totalNs()) / 1e6);
    w.field("scan_ms", double(r.scanNs) / 1e6).field("run_ms", double(r.runNs) / 1e6);
    w.field("verify_ms", double(r.verifyNs) / 1e6);
    w.field("nodes_before", r.nodesBefore).field("nodes_after", r.nodesAfter);
    w.field("hot", r.hot).field("fast_copied", r.fastCopied).field("reinferred", r.reinferred);
    w.field("cache_hits", r.cacheHits).field("cache_misses", r.cacheMisses);
    if (r.semantic.checked) {
      w.key("semantic").beginObject();
      w.field("equivalent", r.semantic.equivalent).field("max_abs_error", r.semantic.maxAbsError);
      w.field("max_rel_error", r.semantic.maxRelError).field("max_steps", r.semantic.maxSteps);
      w.field("failing_output", r.semantic.failingOutput).field("failing_element", r.semantic.failingElement);
      w.field("exec_ms", double(r.semantic.execNs) / 1e6);
      w.endObject();
    }
    if (!r.stats.empty()) {
      w.key("stats").beginObject();
      for (const auto& st : r.stats) w.field(st.name, st.value);
      w.endObject();
    }
    w.endObject();
    switch (r.status) {
      case passes::PassStatus::Changed: ++ran, ++changed; break;
      case passes::PassStatus::Unchanged: ++ran; break;
      case passes::PassStatus::Skipped: ++skipped; break;
      case passes::PassStatus::Failed: ++failed; break;
      default: break;
    }
  }
  return {ran, skipped, changed, failed};
}

}  // namespace

std::string runSummaryJson(const RunSummary& s) {
  JsonWriter w;
  w.beginObject();
  w.field("model", s.model).field("pipeline", s.pipeline);
  w.field("profile", passes::profileName(s.profile)).field("target", passes::targetName(s.target));
  w.key("options").beginObject();
  w.field("skip", s.options.skip).field("fast_copy", s.options.fastCopy).field("cache", s.options.cache);
  w.endObject();
  if (!s.quantizePasses.empty()) {
    w.key("quantize").beginObject();
    w.field("pipeline", s.quantizePipeline).field("summary", s.quantizeSummary);
    w.field("ms", double(s.quantizeNs) / 1e6);
    w.key("passes").beginArray();
    writeRecords(w, s.quantizePasses);
    w.endArray();
    w.endObject();
  }
  if (s.supportChecked) {
    // Upstream's operator support checks on the graph the pipeline started from: enforced (the
    // pipeline fails on a refused node) for the Ethos-U targets, reported for generic.
    w.key("support").beginObject();
    w.field("enforced", s.target != passes::Target::Generic);
    w.field("ms", double(s.supportNs) / 1e6);
    w.key("rejected").beginArray();
    for (const passes::SupportRejection& r : s.rejected) {
      w.beginObject();
      w.field("node", r.name).field("op", r.op).field("check", r.check).field("reason", r.reason);
      w.field("text", r.text());
      w.endObject();
    }
    w.endArray();
    w.endObject();
  }
  w.key("passes").beginArray();
  const auto [ran, skipped, changed, failed] = writeRecords(w, s.records);
  w.endArray();
  w.key("totals").beginObject();
  w.field("ms", double(s.totalNs) / 1e6).field("ran", ran).field("skipped", skipped);
  w.field("changed", changed).field("failed", failed);
  w.endObject();
  w.key("final").beginObject();
  if (s.finalGraph) {
    w.field("nodes", uint64_t(s.finalGraph->size()));
    w.key("op_histogram").beginObject();
    for (auto& [op, n] : opHistogram(*s.finalGraph)) w.field(op, n);
    w.endObject();
    // The graph's inputs and outputs: what a caller feeds and reads, with the qparams of a
    // quantized one (INT: the boundary quantize/dequantize that run outside the graph).
    auto ioValue = [&](const std::string& name, const ir::TensorMeta& m) {
      w.beginObject();
      w.field("name", name).field("dtype", ir::dtypeName(m.dtype));
      w.key("shape").beginArray();
      for (int64_t d : m.shape.dims()) w.value(d);
      w.endArray();
      if (m.quant && m.quant->scheme == ir::QScheme::PerTensor && !m.quant->scales.empty()) {
        w.key("quant").beginObject();
        w.field("scale", m.quant->scales[0]).field("zero_point", m.quant->zeroPoints.empty() ? 0 : m.quant->zeroPoints[0]);
        w.field("qmin", m.quant->qmin).field("qmax", m.quant->qmax);
        w.endObject();
      }
      w.endObject();
    };
    const ir::Graph& fg = *s.finalGraph;
    w.key("inputs").beginArray();
    for (const ir::NodePtr& p : fg.nodes())
      if (p->kind == ir::NodeKind::Placeholder && !p->outputs.empty()) ioValue(p->name, p->outputs[0]);
    w.endArray();
    w.key("outputs").beginArray();
    if (const ir::Node* out = fg.outputNode(); out && !out->args.empty())
      if (const ir::RefList* l = out->args[0].asRefList())
        for (const ir::ValueRef& r : *l)
          if (!r.isNone()) ioValue(fg.node(r.node).name, fg.meta(r));
    w.endArray();
  }
  for (auto& [k, v] : s.finalExtras) w.field(k, v);
  for (auto& [k, m] : s.finalMaps) {
    w.key(k).beginObject();
    for (auto& [kk, vv] : m) w.field(kk, vv);
    w.endObject();
  }
  w.endObject();
  w.endObject();
  return w.str() + "\n";
}

}  // namespace ls::io
