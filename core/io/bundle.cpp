// Trace bundle import (simdjson DOM, error-code API only): records -> PassRecords, snapshots
// through the fxjson importer, node ids shared across snapshots by fx node name.
#include "core/io/bundle.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "core/io/lstrace.h"
#include "core/io/share_nodes.h"
#include "core/util/atomic_file.h"

namespace ls::io {
namespace {

namespace dom = simdjson::dom;
using dom::element_type;
using trace::PassRecord;
using trace::PassStatus;
using trace::SkipReason;

std::string_view kindOf(const dom::element& e) {
  switch (e.type()) {
    case element_type::ARRAY: return "a list";
    case element_type::OBJECT: return "an object";
    case element_type::INT64:
    case element_type::UINT64: return "an integer";
    case element_type::DOUBLE: return "a float";
    case element_type::STRING: return "a string";
    case element_type::BOOL: return "a bool";
    case element_type::NULL_VALUE: return "null";
  }
  return "an unknown value";
}

bool has(const dom::object& o, std::string_view key, dom::element& out) {
  return o.at_key(key).get(out) == simdjson::SUCCESS && !out.is_null();
}

/// Reads an optional integer field in [0, max]; `where` prefixes the error.
Status readCount(const dom::object& o, std::string_view key, int64_t& out, const std::string& where,
                 int64_t max = std::numeric_limits<int32_t>::max()) {
  dom::element e;
  if (!has(o, key, e)) return Status::ok();
  int64_t v = 0;
  if (e.type() != element_type::INT64 || e.get_int64().get(v) != simdjson::SUCCESS)
    return Status::error(fmt::format("{}: {}: expected a non-negative integer, got {}", where, key, kindOf(e)));
  if (v < 0 || v > max)
    return Status::error(fmt::format("{}: {}: {} is out of range (expected 0..{})", where, key, v, max));
  out = v;
  return Status::ok();
}

Status readString(const dom::object& o, std::string_view key, std::string& out, const std::string& where) {
  dom::element e;
  if (!has(o, key, e)) return Status::ok();
  std::string_view s;
  if (e.get_string().get(s) != simdjson::SUCCESS)
    return Status::error(fmt::format("{}: {}: expected a string, got {}", where, key, kindOf(e)));
  out = std::string(s);
  return Status::ok();
}

/// One pass as the file records it, type-checked; graph consistency is checked by the reader.
struct RawPass {
  std::string name, status, reason, message;
  std::vector<std::string> targets;
  int64_t startNs = 0, wallNs = 0, cpuNs = -1, shouldRunNs = 0;
  int64_t graph = -1;          ///< index into "graphs"; -1: the previous pass's graph
  std::optional<bool> modified;  ///< PassResult.modified when the pass returned one
};

PassStatus statusOf(std::string_view s, bool& ok) {
  ok = true;
  for (int i = 0; i < int(PassStatus::COUNT); ++i)
    if (passes::passStatusName(PassStatus(i)) == s) return PassStatus(i);
  ok = false;
  return PassStatus::Failed;
}

class BundleReader {
 public:
  BundleReader(std::string_view bytes, const std::string& source, ImportReport* report)
      : bytes_(bytes), source_(source), report_(report) {}
  Result<trace::Trace> run();

 private:
  Status error(const std::string& msg) const { return Status::error(source_ + ": " + msg); }
  Status readPass(size_t i, const dom::element& e, RawPass& p) const;
  Result<const ir::Graph*> imported(int64_t index, const std::string& context);
  ir::Graph identify(const ir::Graph& g, const ir::Graph* prev, const std::string& createdBy);

  std::string_view bytes_;
  std::string source_;
  ImportReport* report_;
  dom::parser parser_;
  std::vector<dom::element> graphs_;
  std::vector<std::optional<ir::Graph>> imported_;  ///< by graph index, as the fxjson importer made it
  std::unordered_map<std::string, ir::NodeId> ids_;  ///< fx node name -> id, across all snapshots
  ir::NodeId nextId_ = 0;
  std::unordered_set<std::string> warned_;
};

Status BundleReader::readPass(size_t i, const dom::element& e, RawPass& p) const {
  std::string where = fmt::format("{}: passes[{}]", source_, i);
  dom::object o;
  if (e.get_object().get(o) != simdjson::SUCCESS)
    return Status::error(fmt::format("{}: expected a pass record object, got {}", where, kindOf(e)));
  LS_RETURN_IF_ERROR(readString(o, "name", p.name, where));
  if (p.name.empty()) return Status::error(where + ": name: expected the pass's name (a non-empty string)");
  where = fmt::format("{}: pass #{} '{}'", source_, i, p.name);
  LS_RETURN_IF_ERROR(readString(o, "status", p.status, where));
  bool known = false;
  statusOf(p.status, known);
  if (!known)
    return Status::error(fmt::format("{}: status: expected changed, unchanged, skipped or failed, got '{}'", where,
                                     p.status));
  LS_RETURN_IF_ERROR(readString(o, "reason", p.reason, where));
  LS_RETURN_IF_ERROR(readString(o, "message", p.message, where));
  LS_RETURN_IF_ERROR(readCount(o, "start_ns", p.startNs, where, kMaxTraceTimeNs));
  LS_RETURN_IF_ERROR(readCount(o, "wall_ns", p.wallNs, where, kMaxTraceTimeNs));
  LS_RETURN_IF_ERROR(readCount(o, "cpu_ns", p.cpuNs, where, kMaxTraceTimeNs));
  LS_RETURN_IF_ERROR(readCount(o, "should_run_ns", p.shouldRunNs, where, kMaxTraceTimeNs));
  LS_RETURN_IF_ERROR(readCount(o, "graph", p.graph, where));
  if (p.shouldRunNs > p.wallNs)
    return Status::error(fmt::format("{}: should_run_ns ({}) exceeds wall_ns ({}): expected the hook's time to be "
                                     "part of the pass's wall time",
                                     where, p.shouldRunNs, p.wallNs));
  dom::element f;
  if (has(o, "modified", f)) {
    bool m = false;
    if (f.get_bool().get(m) != simdjson::SUCCESS)
      return Status::error(fmt::format("{}: modified: expected a bool or null, got {}", where, kindOf(f)));
    p.modified = m;
  }
  if (has(o, "targeted_ops", f)) {
    dom::array arr;
    if (f.get_array().get(arr) != simdjson::SUCCESS)
      return Status::error(fmt::format("{}: targeted_ops: expected a list of op names, got {}", where, kindOf(f)));
    for (dom::element t : arr) {
      std::string_view s;
      if (t.get_string().get(s) != simdjson::SUCCESS)
        return Status::error(fmt::format("{}: targeted_ops: expected op names (strings), got {}", where, kindOf(t)));
      p.targets.emplace_back(s);
    }
  }
  return Status::ok();
}

Result<const ir::Graph*> BundleReader::imported(int64_t index, const std::string& context) {
  if (index < 0 || size_t(index) >= imported_.size())
    return error(fmt::format("{}: graph index {} out of range (expected 0..{})", context, index,
                             int64_t(imported_.size()) - 1));
  std::optional<ir::Graph>& slot = imported_[size_t(index)];
  if (slot) return &*slot;
  const dom::element& e = graphs_[size_t(index)];
  if (e.type() != element_type::OBJECT)
    return error(fmt::format("graphs[{}] ({}): expected an fxjson graph object, got {}", index, context, kindOf(e)));
  const std::string text = simdjson::minify(e);
  ImportReport rep;
  const std::string name = fmt::format("{}: graphs[{}] ({})", source_, index, context);
  auto g = importFxJson(text, name, &rep);
  if (!g) return g.status();
  if (report_) {
    // The same finding warns once, not once per snapshot that still holds it: a grouped one
    // (an unknown op kind) by what it is, with the count of the first graph that has it.
    std::unordered_map<std::string, const NodeFinding*> grouped;
    for (const NodeFinding& f : rep.nodeFindings) grouped.emplace(name + ": " + f.text(), &f);
    for (std::string& w : rep.warnings) {
      auto finding = grouped.find(w);
      std::string what = finding != grouped.end() ? finding->second->what
                         : w.rfind(name, 0) == 0   ? w.substr(name.size())
                                                   : w;
      if (!warned_.insert(std::move(what)).second) continue;
      if (finding != grouped.end()) report_->nodeFindings.push_back(*finding->second);
      report_->warnings.push_back(std::move(w));
    }
    report_->opaqueNodes = std::max(report_->opaqueNodes, rep.opaqueNodes);
  }
  slot = std::move(g).value();
  return &*slot;
}

ir::Graph BundleReader::identify(const ir::Graph& g, const ir::Graph* prev, const std::string& createdBy) {
  std::unordered_map<ir::NodeId, ir::NodeId> remap;
  remap.reserve(g.size());
  for (const ir::NodePtr& p : g.nodes()) {
    auto [it, added] = ids_.try_emplace(p->name, nextId_);
    if (added) ++nextId_;
    remap.emplace(p->id, it->second);
  }
  ir::Graph out = g.shellCopy();
  out.reserveNodes(g.size());
  for (const ir::NodePtr& p : g.nodes()) {
    ir::Node n = *p;
    n.id = remap[p->id];
    n.forEachInputMutable([&](ir::ValueRef& r) {
      auto it = remap.find(r.node);
      r.node = it == remap.end() ? ir::kInvalidNode : it->second;
    });
    if (prev) {
      if (const ir::Node* old = prev->find(n.id))
        n.provenance = old->provenance;
      else
        n.provenance.createdBy = createdBy;
    }
    out.append(std::move(n));
  }
  out.reserveIds(nextId_);
  return prev ? shareNodesWith(std::move(out), *prev) : out;
}

Result<trace::Trace> BundleReader::run() {
  dom::element doc;
  if (auto err = parser_.parse(bytes_.data(), bytes_.size()).get(doc))
    return error(fmt::format("invalid JSON: {}", simdjson::error_message(err)));
  dom::object top;
  if (doc.get_object().get(top) != simdjson::SUCCESS)
    return error(fmt::format("expected a JSON object at the top level, got {}", kindOf(doc)));
  std::string format;
  LS_RETURN_IF_ERROR(readString(top, "format", format, source_));
  if (format != kBundleFormat)
    return error(fmt::format("format: expected \"{}\", got \"{}\"", kBundleFormat, format));
  int64_t version = -1;
  LS_RETURN_IF_ERROR(readCount(top, "version", version, source_));
  if (version != 1) return error(fmt::format("version: expected 1, got {}", version));

  trace::Trace t;
  t.pipeline = "python";
  LS_RETURN_IF_ERROR(readString(top, "model", t.model, source_));
  LS_RETURN_IF_ERROR(readString(top, "pipeline", t.pipeline, source_));
  int64_t totalNs = -1;
  LS_RETURN_IF_ERROR(readCount(top, "total_ns", totalNs, source_, kMaxTraceRunNs));

  dom::element e;
  dom::array graphs;
  if (!has(top, "graphs", e) || e.get_array().get(graphs) != simdjson::SUCCESS)
    return error("graphs: expected the list of fxjson graphs (source and snapshots)");
  for (dom::element g : graphs) graphs_.push_back(g);
  imported_.resize(graphs_.size());
  int64_t sourceIndex = -1;
  LS_RETURN_IF_ERROR(readCount(top, "source", sourceIndex, source_));
  if (sourceIndex < 0) return error("source: expected the index of the source graph in graphs");
  LS_ASSIGN_OR_RETURN(src, imported(sourceIndex, "source graph"));
  auto current = std::make_shared<const ir::Graph>(identify(*src, nullptr, ""));
  t.source = current;

  dom::array passes;
  if (!has(top, "passes", e) || e.get_array().get(passes) != simdjson::SUCCESS)
    return error("passes: expected the list of pass records");
  int64_t graphIndex = sourceIndex, endNs = 0;
  size_t i = 0;
  for (dom::element pe : passes) {
    RawPass p;
    LS_RETURN_IF_ERROR(readPass(i, pe, p));
    const std::string context = fmt::format("after pass #{} '{}'", i, p.name);
    bool known = false;
    PassRecord r;
    r.index = int32_t(i);
    r.name = p.name;
    r.status = statusOf(p.status, known);
    r.startNs = p.startNs;
    r.scanNs = p.shouldRunNs;
    r.runNs = p.wallNs - p.shouldRunNs;
    r.nodesBefore = current->size();
    const int64_t after = p.graph < 0 ? graphIndex : p.graph;
    const bool changed = after != graphIndex;
    if (r.status == PassStatus::Changed && !changed)
      return error(fmt::format("pass #{} '{}': status changed but graph {} is the previous pass's: expected the index "
                               "of the graph after the pass",
                               i, p.name, after));
    if ((r.status == PassStatus::Unchanged || r.status == PassStatus::Skipped) && changed)
      return error(fmt::format("pass #{} '{}': status {} but graph {} differs from the previous pass's graph {}", i,
                               p.name, p.status, after, graphIndex));
    if (changed) {
      LS_ASSIGN_OR_RETURN(g, imported(after, context));
      current = std::make_shared<const ir::Graph>(identify(*g, current.get(), p.name));
      r.snapshot = int32_t(t.snapshots.size());
      t.snapshots.push_back(current);
      graphIndex = after;
    }
    r.nodesAfter = current->size();
    if (r.status == PassStatus::Skipped) {
      r.reason = SkipReason::Precondition;
      std::string text = p.reason.empty() ? p.message : p.reason;
      for (int k = 1; k < int(SkipReason::COUNT); ++k) {
        if (passes::skipReasonName(SkipReason(k)) != p.reason) continue;
        r.reason = SkipReason(k);  // one of ours, by name: the message is the detail
        text = p.message;
      }
      if (!p.targets.empty()) {
        std::string list;
        for (const std::string& op : p.targets) list += (list.empty() ? "" : ", ") + op;
        text += (text.empty() ? "" : "; ") + std::string("target ops: ") + list;
      }
      r.message = std::move(text);
    } else {
      r.message = p.message;
    }
    if (p.cpuNs >= 0)
      r.stats.push_back({"cpu_us", "CPU time of the pass (process time, as the recorder measured it)", p.cpuNs / 1000});
    if (p.modified)
      r.stats.push_back({"modified", "PassResult.modified as the pass returned it (1 true, 0 false)", *p.modified});
    endNs = std::max(endNs, p.startNs + p.wallNs);
    t.records.push_back(std::move(r));
    ++i;
  }
  t.totalNs = totalNs >= 0 ? totalNs : endNs;
  return t;
}

}  // namespace

bool looksLikeBundle(std::string_view bytes) {
  size_t i = 0;
  auto skipSpace = [&] {
    while (i < bytes.size() && (bytes[i] == ' ' || bytes[i] == '\n' || bytes[i] == '\r' || bytes[i] == '\t')) ++i;
  };
  auto expect = [&](std::string_view s) {
    skipSpace();
    if (bytes.substr(i, s.size()) != s) return false;
    i += s.size();
    return true;
  };
  return expect("{") && expect("\"format\"") && expect(":") && expect("\"") && expect(kBundleFormat) && expect("\"");
}

Result<trace::Trace> loadBundleBytes(std::string_view bytes, const std::string& sourceName, ImportReport* report) {
  return BundleReader(bytes, sourceName, report).run();
}

Result<trace::Trace> loadBundle(const std::string& path, ImportReport* report) {
  auto bytes = readFile(path);
  if (!bytes) return bytes.status();
  return loadBundleBytes(*bytes, path, report);
}

}  // namespace ls::io
