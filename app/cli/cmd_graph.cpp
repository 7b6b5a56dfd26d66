// lowerscope-cli graph commands: import, info (incl. --check-shapes), print.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "app/cli/commands.h"
#include "core/io/lsg.h"
#include "core/ir/printer.h"
#include "core/ops/reinfer.h"
#include "core/util/atomic_file.h"
#include "core/util/json_writer.h"

namespace ls::cli {
namespace {


std::string metaText(const ir::Node& n) {
  if (n.outputs.size() == 1) return ir::toString(n.outputs[0]);
  std::string s = "(";
  for (size_t i = 0; i < n.outputs.size(); ++i) s += (i ? ", " : "") + ir::toString(n.outputs[i]);
  return s + ")";
}

}  // namespace

int cmdImport(const std::string& in, const std::string& out, bool quiet) {
  auto g = load(in, quiet);
  if (!g) return fail(g.message());
  Status st = io::saveLsg(g.value(), out);
  if (!st) return fail(st.message());
  if (!quiet) fmt::print("wrote {} ({} nodes)\n", out, g->size());
  return 0;
}

int cmdPrint(const std::string& in, bool modules, bool constants, bool quiet) {
  auto g = load(in, quiet);
  if (!g) return fail(g.message());
  if (constants) {  // one line per constant: dtype, shape, kind, and its bytes, synthesis or recipe
    std::string text;
    for (const auto& [name, c] : g->constants()) text += ir::printConstant(c) + "\n";
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  if (!modules) {
    std::string text = ir::printGraph(g.value());
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  // Grouped by the module that produced each node (fxjson meta.module): a header line each
  // time the module changes along the node order, nodes indented below it.
  std::string text;
  const std::string* current = nullptr;
  static const std::string kNone;
  for (const ir::NodePtr& p : g->nodes()) {
    const std::string& m = p->module.empty() ? kNone : p->module;
    if (!current || *current != m) {
      text += m.empty() ? "# (no module)\n" : fmt::format("# module {}\n", m);
      current = &m;
    }
    text += "  " + ir::printNode(*g, *p) + "\n";
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

/// Call nodes per top-level module ("features" for "features.4.conv.1"), in first-seen order.
std::vector<std::pair<std::string, size_t>> topLevelModules(const ir::Graph& g, size_t* distinct) {
  std::vector<std::pair<std::string, size_t>> out;
  std::map<std::string, size_t> index;
  std::map<std::string, int> paths;
  for (const ir::NodePtr& p : g.nodes()) {
    if (p->kind != ir::NodeKind::Call || p->module.empty()) continue;
    paths[p->module] = 1;
    std::string top = p->module.substr(0, p->module.find('.'));
    auto [it, fresh] = index.emplace(top, out.size());
    if (fresh) out.emplace_back(top, 0);
    ++out[it->second].second;
  }
  *distinct = paths.size();
  return out;
}

struct Counts {
  size_t placeholders = 0, constants = 0, calls = 0, outputs = 0, opaque = 0;
  std::map<std::string, size_t> ops;
};

Counts countNodes(const ir::Graph& g) {
  Counts c;
  for (const ir::NodePtr& p : g.nodes()) {
    switch (p->kind) {
      case ir::NodeKind::Placeholder: ++c.placeholders; break;
      case ir::NodeKind::GetAttr: ++c.constants; break;
      case ir::NodeKind::Output: ++c.outputs; break;
      default:
        ++c.calls;
        ++c.ops[ir::opName(p->op)];
        if (p->hasFlag(ir::kFlagOpaque)) ++c.opaque;
    }
  }
  return c;
}

int cmdInfo(const std::string& in, bool json, bool checkShapes, const std::string& jsonOut, bool quiet) {
  auto loaded = load(in, json || quiet);
  if (!loaded) return fail(loaded.message());
  const ir::Graph& g = loaded.value();
  Counts c = countNodes(g);
  ir::GraphSignature sig = g.signature();
  size_t withData = 0;
  uint64_t declaredBytes = 0;
  for (const auto& [name, k] : g.constants()) {
    if (k.hasData()) ++withData;
    declaredBytes += uint64_t(k.numel()) * uint64_t(ir::dtypeSize(k.dtype));
  }
  ops::ReinferReport rep;
  if (checkShapes) {
    ops::InferenceCache cache;
    rep = ops::reinferGraph(g, &cache);
  }
  std::vector<std::pair<std::string, size_t>> hist(c.ops.begin(), c.ops.end());
  std::stable_sort(hist.begin(), hist.end(), [](auto& a, auto& b) { return a.second > b.second; });

  if (json || !jsonOut.empty()) {
    JsonWriter w;
    w.beginObject();
    w.field("file", in).field("model", g.modelName).field("nodes", uint64_t(g.size()));
    w.key("kinds").beginObject();
    w.field("placeholder", uint64_t(c.placeholders)).field("get_attr", uint64_t(c.constants));
    w.field("call_function", uint64_t(c.calls)).field("output", uint64_t(c.outputs)).field("opaque", uint64_t(c.opaque));
    w.endObject();
    w.key("inputs").beginArray();
    for (ir::NodeId id : sig.userInputs)
      w.beginObject().field("name", g.node(id).name).field("meta", metaText(g.node(id))).endObject();
    w.endArray();
    w.key("outputs").beginArray();
    for (const ir::ValueRef& r : sig.outputs) {
      const ir::Node* n = g.find(r.node);
      w.beginObject().field("name", n ? n->name : "?").field("meta", ir::toString(g.meta(r))).endObject();
    }
    w.endArray();
    w.key("constants").beginObject();
    w.field("count", uint64_t(g.constants().size())).field("with_data", uint64_t(withData));
    w.field("declared_bytes", declaredBytes).endObject();
    w.key("op_histogram").beginObject();
    for (auto& [op, n] : hist) w.field(op, uint64_t(n));
    w.endObject();
    w.field("subgraphs", uint64_t(g.subgraphs().size()));
    if (checkShapes) {
      w.key("check_shapes").beginObject();
      w.field("checked", uint64_t(rep.checked)).field("agreed", uint64_t(rep.agreed));
      w.field("opaque", uint64_t(rep.opaque));
      w.key("mismatches").beginArray();
      for (const auto& m : rep.mismatches)
        w.beginObject().field("node", m.name).field("op", m.op).field("recorded", m.recorded)
            .field("inferred", m.inferred).field("error", m.error).endObject();
      w.endArray().endObject();
    }
    w.endObject();
    std::string text = w.str() + "\n";
    if (!jsonOut.empty()) {
      Status st = writeFileAtomic(jsonOut, text);
      if (!st) return fail(st.message());
    }
    if (json) std::fwrite(text.data(), 1, text.size(), stdout);
  }
  if (!json) {
    fmt::print("model:     {}\n", g.modelName.empty() ? "(unnamed)" : g.modelName);
    fmt::print("nodes:     {} (placeholder {}, get_attr {}, call_function {}, output {})\n", g.size(),
               c.placeholders, c.constants, c.calls, c.outputs);
    if (c.opaque) fmt::print("opaque:    {} call nodes with ops unknown to the registry\n", c.opaque);
    for (ir::NodeId id : sig.userInputs) fmt::print("input:     %{} : {}\n", g.node(id).name, metaText(g.node(id)));
    for (const ir::ValueRef& r : sig.outputs) {
      const ir::Node* n = g.find(r.node);
      fmt::print("output:    %{} : {}\n", n ? n->name : "?", ir::toString(g.meta(r)));
    }
    fmt::print("constants: {} ({} parameters, {} buffers, {} constants; {} with data; {:.1f} MB declared)\n",
               g.constants().size(), sig.parameters.size(), sig.buffers.size(), sig.constants.size(), withData,
               double(declaredBytes) / 1e6);
    if (!g.subgraphs().empty()) fmt::print("subgraphs: {}\n", g.subgraphs().size());
    size_t modulePaths = 0;
    auto modules = topLevelModules(g, &modulePaths);
    if (!modules.empty()) {
      std::string tops;
      for (const auto& [m, n] : modules) tops += fmt::format("{}{} {}", tops.empty() ? "" : ", ", m, n);
      fmt::print("modules:   {} distinct paths; call nodes by top-level module: {}\n", modulePaths, tops);
    }
    fmt::print("ops ({} distinct):\n", hist.size());
    for (auto& [op, n] : hist) fmt::print("  {:>6}  {}\n", n, op);
    if (checkShapes) {
      for (const auto& m : rep.mismatches) {
        if (!m.error.empty()) fmt::print("MISMATCH %{} ({}): inference failed: {}\n", m.name, m.op, m.error);
        else fmt::print("MISMATCH %{} ({}): recorded {}, inferred {}\n", m.name, m.op, m.recorded, m.inferred);
      }
      double pct = rep.checked ? 100.0 * double(rep.agreed) / double(rep.checked) : 100.0;
      fmt::print("check-shapes: {}/{} call nodes agree ({:.1f}%){}\n", rep.agreed, rep.checked, pct,
                 rep.opaque ? fmt::format(", {} opaque not checked", rep.opaque) : "");
    }
  }
  return checkShapes && !rep.mismatches.empty() ? 1 : 0;
}


}  // namespace ls::cli
