// Trace queries and memory accounting.
#include "core/trace/trace.h"

#include <atomic>
#include <unordered_set>

namespace ls::trace {

uint64_t nextGeneration() {
  static std::atomic<uint64_t> counter{0};
  return counter.fetch_add(1, std::memory_order_relaxed) + 1;
}

int Trace::snapshotAfter(int passIndex) const {
  for (int i = std::min(passIndex, int(records.size()) - 1); i >= 0; --i)
    if (records[size_t(i)].snapshot >= 0) return records[size_t(i)].snapshot;
  return -1;
}

const ir::Graph& Trace::graphAfter(int passIndex) const {
  static const ir::Graph kEmpty;
  int s = snapshotAfter(passIndex);
  if (s >= 0 && size_t(s) < snapshots.size()) return *snapshots[size_t(s)];
  return source ? *source : kEmpty;
}

Trace::Totals Trace::totals() const {
  Totals t;
  t.ns = totalNs;
  for (const PassRecord& r : records) {
    switch (r.status) {
      case PassStatus::Changed: ++t.ran, ++t.changed; break;
      case PassStatus::Unchanged: ++t.ran, ++t.unchanged; break;
      case PassStatus::Skipped: ++t.skipped; break;
      case PassStatus::Failed: ++t.failed; break;
      default: break;
    }
  }
  return t;
}

namespace {
size_t nodeBytes(const ir::Node& n) {
  size_t b = sizeof(ir::Node) + 32 /* control block */;
  auto str = [](const std::string& s) { return s.capacity() > 15 ? s.capacity() + 1 : 0; };
  b += str(n.name) + str(n.target) + str(n.module) + str(n.provenance.createdBy);
  b += n.args.capacity() * sizeof(ir::Arg) + n.kwargs.capacity() * sizeof(ir::Kwarg);
  for (const ir::Arg& a : n.args) {
    if (auto* l = a.asIntList()) b += l->capacity() * sizeof(int64_t);
    else if (auto* r = a.asRefList()) b += r->capacity() * sizeof(ir::ValueRef);
  }
  for (const ir::Kwarg& k : n.kwargs) b += str(k.name);
  b += n.outputs.capacity() * sizeof(ir::TensorMeta);
  b += n.provenance.derivedFrom.capacity() * sizeof(ir::NodeId);
  return b;
}

size_t containerBytes(const ir::Graph& g) {
  size_t b = sizeof(ir::Graph) + g.size() * sizeof(ir::NodePtr);
  for (ir::OpId op : g.opsPresent()) b += g.nodesOfOp(op).size() * sizeof(ir::NodeId) + 24;
  return b;
}

void collect(const ir::Graph& g, std::unordered_set<const ir::Node*>& seen, size_t& bytes) {
  bytes += containerBytes(g);
  for (const ir::NodePtr& p : g.nodes())
    if (seen.insert(p.get()).second) bytes += nodeBytes(*p);
  for (const auto& [name, sg] : g.subgraphs()) collect(*sg, seen, bytes);
}
}  // namespace

size_t Trace::approxGraphBytes(const ir::Graph& g) {
  std::unordered_set<const ir::Node*> seen;
  size_t bytes = 0;
  collect(g, seen, bytes);
  for (const auto& [name, c] : g.constants()) bytes += sizeof(c) + name.capacity() + c.fqn.capacity() + 64;
  return bytes;
}

size_t Trace::approxBytes() const {
  std::unordered_set<const ir::Node*> seen;
  size_t bytes = 0;
  if (source) collect(*source, seen, bytes);
  if (source)
    for (const auto& [name, c] : source->constants()) bytes += sizeof(c) + name.capacity() + c.fqn.capacity() + 64;
  for (const auto& s : snapshots) collect(*s, seen, bytes);
  bytes += records.size() * sizeof(PassRecord);
  for (const PassRecord& r : records) bytes += r.name.capacity() + r.message.capacity() + r.stats.size() * sizeof(StatValue);
  return bytes;
}

}  // namespace ls::trace
