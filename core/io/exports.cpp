// Trace and comparison exports.
#include "core/io/exports.h"

#include <fmt/format.h>

#include "core/ir/printer.h"
#include "core/trace/diff.h"
#include "core/util/json_writer.h"

namespace ls::io {

using passes::passStatusName;
using passes::skipReasonName;
using trace::PassRecord;

namespace {

double us(int64_t ns) { return double(ns) / 1000.0; }
double ms(int64_t ns) { return double(ns) / 1e6; }

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) {
    if (c == '"') o += '"';
    o += c;
  }
  return o + "\"";
}

std::string mdCell(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '|') o += "\\|";
    else if (c == '\n') o += ' ';
    else o += c;
  }
  return o;
}

void chromeEvents(JsonWriter& w, const trace::Trace& t, int pid, const std::string& label) {
  w.beginObject().field("name", "process_name").field("ph", "M").field("pid", pid).field("tid", 1);
  w.key("args").beginObject().field("name", label).endObject().endObject();
  w.beginObject();
  w.field("name", t.pipeline.empty() ? std::string("pipeline") : t.pipeline).field("cat", "pipeline").field("ph", "X");
  w.field("ts", 0.0).field("dur", us(t.totalNs)).field("pid", pid).field("tid", 1);
  w.key("args").beginObject().field("model", t.model).field("profile", passes::profileName(t.profile));
  w.field("target", passes::targetName(t.target)).field("passes", uint64_t(t.records.size())).endObject();
  w.endObject();
  for (const PassRecord& r : t.records) {
    if (!r.ran() && r.status != passes::PassStatus::Failed) {
      w.beginObject().field("name", r.name).field("cat", "skipped").field("ph", "i").field("s", "t");
      w.field("ts", us(r.startNs)).field("pid", pid).field("tid", 1);
      w.key("args").beginObject().field("index", r.index).field("reason", skipReasonName(r.reason));
      if (!r.message.empty()) w.field("detail", r.message);
      w.endObject().endObject();
      continue;
    }
    w.beginObject().field("name", r.name).field("cat", "pass").field("ph", "X");
    w.field("ts", us(r.startNs)).field("dur", us(r.totalNs())).field("pid", pid).field("tid", 1);
    w.key("args").beginObject().field("index", r.index).field("status", passStatusName(r.status));
    w.field("nodes_before", r.nodesBefore).field("nodes_after", r.nodesAfter).field("hot", r.hot);
    w.field("fast_copied", r.fastCopied).field("reinferred", r.reinferred);
    if (!r.message.empty()) w.field("message", r.message);
    if (r.semantic.checked) {  // verify-each result
      w.field("equivalent", r.semantic.equivalent).field("max_abs_error", r.semantic.maxAbsError);
      w.field("max_rel_error", r.semantic.maxRelError).field("max_steps", r.semantic.maxSteps);
    }
    w.endObject().endObject();
    int64_t off = r.startNs;
    const std::pair<const char*, int64_t> phases[] = {{"scan", r.scanNs}, {"run", r.runNs}, {"verify", r.verifyNs}};
    for (auto& [name, dur] : phases) {
      if (dur <= 0) continue;
      w.beginObject().field("name", name).field("cat", "phase").field("ph", "X");
      w.field("ts", us(off)).field("dur", us(dur)).field("pid", pid).field("tid", 1).endObject();
      off += dur;
    }
  }
}

}  // namespace

std::string traceToChromeJson(const trace::Trace& t) {
  JsonWriter w;
  w.beginObject();
  w.key("traceEvents").beginArray();
  chromeEvents(w, t, 1, t.model + " / " + t.pipeline);
  w.endArray();
  w.field("displayTimeUnit", "ms");
  w.endObject();
  return w.str() + "\n";
}

std::string traceToCsv(const trace::Trace& t) {
  std::string s =
      "index,name,status,reason,start_ms,scan_ms,run_ms,verify_ms,total_ms,nodes_before,nodes_after,hot,fast_copied,"
      "reinferred,cache_hits,cache_misses,message\n";
  for (const PassRecord& r : t.records)
    s += fmt::format("{},{},{},{},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{},{},{},{},{},{},{},{}\n", r.index, csvField(r.name),
                     passStatusName(r.status), skipReasonName(r.reason), ms(r.startNs), ms(r.scanNs), ms(r.runNs),
                     ms(r.verifyNs), ms(r.totalNs()), r.nodesBefore, r.nodesAfter, r.hot, r.fastCopied, r.reinferred,
                     r.cacheHits, r.cacheMisses, csvField(r.message));
  return s;
}

std::string traceToMarkdown(const trace::Trace& t) {
  auto tot = t.totals();
  std::string s = fmt::format("## {} / {} ({}, {})\n\n", t.model, t.pipeline, passes::profileName(t.profile),
                              passes::targetName(t.target));
  s += fmt::format("{} passes: {} ran ({} changed), {} skipped, {} failed; total {:.3f} ms\n\n", t.records.size(),
                   tot.ran, tot.changed, tot.skipped, tot.failed, ms(t.totalNs));
  s += "| # | pass | status | reason | ms | nodes | fast-copied | re-inferred |\n";
  s += "|---:|---|---|---|---:|---|---:|---:|\n";
  for (const PassRecord& r : t.records)
    s += fmt::format("| {} | {} | {} | {} | {:.3f} | {} | {} | {} |\n", r.index, mdCell(r.name), passStatusName(r.status),
                     skipReasonName(r.reason), ms(r.totalNs()),
                     r.ran() ? fmt::format("{} -> {}", r.nodesBefore, r.nodesAfter) : "", r.fastCopied, r.reinferred);
  return s;
}

std::string snapshotToDot(const trace::Trace& t, int passIndex) {
  const ir::Graph& after = t.graphAfter(passIndex);
  const ir::Graph& before = t.graphBefore(passIndex);
  trace::GraphDiff d = trace::diffGraphs(before, after);
  std::unordered_map<ir::NodeId, const char*> colour;
  for (ir::NodeId id : d.added) colour[id] = "#b7f0b1";
  for (const auto& c : d.changed) colour[c.id] = "#ffd780";
  auto esc = [](const std::string& s) {
    std::string o;
    for (char c : s) {
      if (c == '"' || c == '\\') o += '\\';
      o += c;
    }
    return o;
  };
  std::string s = fmt::format("digraph \"{}\" {{\n  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", fontname=\"Helvetica\"];\n",
                              esc(t.model + " after pass " + std::to_string(passIndex)));
  for (const ir::NodePtr& p : after.nodes()) {
    const ir::Node& n = *p;
    std::string label = n.kind == ir::NodeKind::Call ? ir::opName(n.op) : std::string(ir::nodeKindName(n.kind));
    std::string metas;
    for (const auto& m : n.outputs) metas += (metas.empty() ? "" : ", ") + ir::toString(m);
    auto it = colour.find(n.id);
    s += fmt::format("  n{} [label=\"{}\\n{}\\n{}\"{}];\n", n.id, esc(n.name), esc(label), esc(metas),
                     it != colour.end() ? fmt::format(", fillcolor=\"{}\"", it->second) : "");
  }
  for (ir::NodeId id : d.removed) {
    const ir::Node& n = before.node(id);
    s += fmt::format("  n{} [label=\"{}\\n{}\", style=\"rounded,dashed\", color=\"#d03030\", fontcolor=\"#d03030\"];\n", id,
                     esc(n.name), esc(n.kind == ir::NodeKind::Call ? ir::opName(n.op) : std::string(ir::nodeKindName(n.kind))));
  }
  for (const ir::NodePtr& p : after.nodes())
    p->forEachInput([&](const ir::ValueRef& r) { s += fmt::format("  n{} -> n{};\n", r.node, p->id); });
  s += fmt::format("  // diff against the previous graph: {}\n}}\n", trace::summarize(d));
  return s;
}

std::string comparisonToCsv(const trace::TraceComparison& c) {
  std::string s = fmt::format("name,occurrence,index_a,index_b,ms_{},ms_{},ratio,status_a,status_b,reason_a,reason_b\n",
                              csvField(c.labelA), csvField(c.labelB));
  for (const auto& r : c.rows)
    s += fmt::format("{},{},{},{},{:.6f},{:.6f},{:.4f},{},{},{},{}\n", csvField(r.name), r.occurrence, r.indexA, r.indexB,
                     ms(r.nsA), ms(r.nsB), r.ratio(), r.inA ? passStatusName(r.statusA) : "absent",
                     r.inB ? passStatusName(r.statusB) : "absent", skipReasonName(r.reasonA), skipReasonName(r.reasonB));
  s += fmt::format("TOTAL,,,,{:.6f},{:.6f},{:.4f},,,,\n", ms(c.totalA), ms(c.totalB), c.totalRatio());
  return s;
}

std::string comparisonToJson(const trace::TraceComparison& c) {
  JsonWriter w;
  w.beginObject().field("a", c.labelA).field("b", c.labelB);
  w.key("totals").beginObject().field("ms_a", ms(c.totalA)).field("ms_b", ms(c.totalB)).field("ratio", c.totalRatio()).endObject();
  w.key("passes").beginArray();
  for (const auto& r : c.rows) {
    w.beginObject().field("name", r.name).field("occurrence", r.occurrence).field("index_a", r.indexA).field("index_b", r.indexB);
    w.field("ms_a", ms(r.nsA)).field("ms_b", ms(r.nsB)).field("ratio", r.ratio());
    w.field("status_a", r.inA ? passStatusName(r.statusA) : "absent").field("status_b", r.inB ? passStatusName(r.statusB) : "absent");
    w.field("reason_a", skipReasonName(r.reasonA)).field("reason_b", skipReasonName(r.reasonB)).endObject();
  }
  w.endArray();
  auto names = [&](const char* key, const std::vector<size_t>& idx) {
    w.key(key).beginArray();
    for (size_t i : idx) w.value(c.rows[i].name);
    w.endArray();
  };
  names("ran_only_in_a", c.ranOnlyInA);
  names("ran_only_in_b", c.ranOnlyInB);
  names("only_in_a", c.onlyInA);
  names("only_in_b", c.onlyInB);
  names("top_regressions", c.regressions);
  names("top_improvements", c.improvements);
  w.key("gate").beginObject().field("failed", c.gateFailed).key("reasons").beginArray();
  for (const auto& r : c.gateReasons) w.value(r);
  w.endArray().endObject();
  w.endObject();
  return w.str() + "\n";
}

std::string comparisonToMarkdown(const trace::TraceComparison& c) {
  std::string s = fmt::format("| pass | {} ms | {} ms | ratio | status {} | status {} |\n|---|---:|---:|---:|---|---|\n",
                              mdCell(c.labelA), mdCell(c.labelB), mdCell(c.labelA), mdCell(c.labelB));
  auto st = [](bool in, passes::PassStatus ps, passes::SkipReason r) {
    if (!in) return std::string("absent");
    std::string o(passStatusName(ps));
    if (ps == passes::PassStatus::Skipped) o += fmt::format(" ({})", skipReasonName(r));
    return o;
  };
  for (const auto& r : c.rows)
    s += fmt::format("| {} | {:.3f} | {:.3f} | {} | {} | {} |\n", mdCell(r.name), ms(r.nsA), ms(r.nsB),
                     r.nsA > 0 ? fmt::format("x{:.2f}", r.ratio()) : "-", st(r.inA, r.statusA, r.reasonA),
                     st(r.inB, r.statusB, r.reasonB));
  s += fmt::format("| **total** | **{:.3f}** | **{:.3f}** | **x{:.2f}** | | |\n", ms(c.totalA), ms(c.totalB), c.totalRatio());
  auto list = [&](const std::string& title, const std::vector<size_t>& idx) {
    if (idx.empty()) return;
    s += "\n" + title + ":";
    for (size_t k = 0; k < idx.size(); ++k) s += (k ? ", " : " ") + c.rows[idx[k]].name;
    s += "\n";
  };
  list("Ran only in " + c.labelA, c.ranOnlyInA);
  list("Ran only in " + c.labelB, c.ranOnlyInB);
  list("Only in " + c.labelA, c.onlyInA);
  list("Only in " + c.labelB, c.onlyInB);
  list("Top regressions", c.regressions);
  list("Top improvements", c.improvements);
  if (c.gateFailed) {
    s += "\nGate FAILED:\n";
    for (const auto& r : c.gateReasons) s += "- " + r + "\n";
  }
  return s;
}

std::string comparisonToChromeJson(const trace::Trace& a, const trace::Trace& b, const trace::TraceComparison& c) {
  JsonWriter w;
  w.beginObject();
  w.key("traceEvents").beginArray();
  chromeEvents(w, a, 1, c.labelA + ": " + a.model + " / " + a.pipeline);
  chromeEvents(w, b, 2, c.labelB + ": " + b.model + " / " + b.pipeline);
  w.endArray();
  w.field("displayTimeUnit", "ms");
  w.endObject();
  return w.str() + "\n";
}

}  // namespace ls::io
