// Whole-graph re-inference and comparison with recorded metadata.
#include "core/ops/reinfer.h"

namespace ls::ops {

namespace {

std::string metaList(const std::vector<ir::TensorMeta>& v) {
  if (v.size() == 1) return ir::toString(v[0]);
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += ir::toString(v[i]);
  }
  return s + ")";
}

bool sameMeta(const std::vector<ir::TensorMeta>& a, const std::vector<ir::TensorMeta>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].dtype != b[i].dtype || a[i].shape != b[i].shape) return false;
    if (a[i].isTensor() && a[i].dimOrder != b[i].dimOrder) return false;
  }
  return true;
}

void reinferInto(const ir::Graph& src, InferenceCache* cache, ReinferReport& rep, const std::string& prefix) {
  ir::Graph work = src;  // copy-on-write: only re-inferred nodes get copied
  std::vector<ir::TensorMeta> out;
  for (size_t i = 0; i < work.size(); ++i) {
    const ir::Node& n = work.at(i);
    if (n.kind != ir::NodeKind::Call) continue;
    const OpSchema* schema = OpRegistry::instance().find(n.op);
    if (!schema || n.hasFlag(ir::kFlagOpaque)) {
      ++rep.opaque;
      continue;
    }
    ++rep.checked;
    Status st = inferNode(work, n, out, cache);
    if (!st.isOk()) {
      rep.mismatches.push_back({n.id, prefix + n.name, schema->name, metaList(n.outputs), "", st.message()});
      continue;
    }
    if (sameMeta(out, n.outputs)) {
      ++rep.agreed;
      continue;  // downstream sees identical metadata either way: no copy needed
    }
    rep.mismatches.push_back({n.id, prefix + n.name, schema->name, metaList(n.outputs), metaList(out), ""});
    work.mutableNode(n.id).outputs = out;
  }
  for (const auto& [name, sg] : src.subgraphs()) reinferInto(*sg, cache, rep, prefix + name + "/");
}

}  // namespace

ReinferReport reinferGraph(const ir::Graph& g, InferenceCache* cache) {
  ReinferReport rep;
  uint64_t h0 = cache ? cache->hits() : 0, m0 = cache ? cache->misses() : 0;
  reinferInto(g, cache, rep, "");
  if (cache) {
    rep.cacheHits = cache->hits() - h0;
    rep.cacheMisses = cache->misses() - m0;
  }
  return rep;
}

Status refreshAllMeta(ir::Graph& g, InferenceCache* cache) {
  std::vector<ir::TensorMeta> out;
  for (size_t i = 0; i < g.size(); ++i) {
    const ir::Node& n = g.at(i);
    if (n.kind != ir::NodeKind::Call) continue;
    LS_RETURN_IF_ERROR(inferNode(g, n, out, cache));
    if (out != n.outputs) g.mutableNode(n.id).outputs = out;
  }
  for (auto& [name, sg] : g.subgraphs()) LS_RETURN_IF_ERROR(refreshAllMeta(*sg, cache).withContext("subgraph '" + name + "': "));
  return Status::ok();
}

}  // namespace ls::ops
