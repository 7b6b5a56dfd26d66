// OpIndex: a graph's node ids by op, sized by the ops the graph holds.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/ir/arg.h"
#include "core/ir/symbol.h"

namespace ls::ir {

/// The node ids of each op a graph holds (Graph::nodesOfOp, the pass engine's should-run
/// checks). A small open-addressing table maps an OpId to its slot (the op and its ids), so
/// the index costs what the graph's distinct ops need (tens), not one entry per op interned
/// in the process (hundreds, and growing as pipelines are built): every graph version a pass
/// makes builds one, and zeroing a table indexed by OpId was 41% of the cache lines a
/// pipeline run after a cache-flushing write wrote to cold memory (docs/DESIGN.md, "Op index").
class OpIndex {
 public:
  /// The ids of `op`'s nodes, in insertion order until a remove (swap-removes); empty when
  /// the graph has none.
  std::span<const NodeId> nodes(OpId op) const {
    const int32_t s = find(op);
    return s < 0 ? std::span<const NodeId>() : std::span<const NodeId>(slots_[size_t(s)].ids);
  }
  void add(OpId op, NodeId id) { slotFor(op).ids.push_back(id); }
  /// Removes `id` from `op`'s nodes (the last id takes its place); no-op when absent.
  void remove(OpId op, NodeId id);
  /// The ops with at least one node, ascending.
  std::vector<OpId> present() const;
  /// Takes `like`'s ops, each with room for as many ids as `like` holds, so a graph rebuilt
  /// from `like` (a retrace's output) appends without regrowing.
  void reserveLike(const OpIndex& like);

 private:
  struct Slot {
    OpId op = kNoOp;
    std::vector<NodeId> ids;
  };
  int32_t find(OpId op) const {
    if (table_.empty()) return -1;
    const size_t mask = table_.size() - 1;
    for (size_t i = bucket(op, mask);; i = (i + 1) & mask) {
      const uint32_t t = table_[i];
      if (t == 0) return -1;
      if (slots_[t - 1].op == op) return int32_t(t - 1);
    }
  }
  static size_t bucket(OpId op, size_t mask) { return size_t((op * 0x9E3779B1u) >> 7) & mask; }
  Slot& slotFor(OpId op);
  void rebuildTable(size_t buckets);

  std::vector<Slot> slots_;
  std::vector<uint32_t> table_;  ///< power-of-two buckets, at most half full; 0 empty, else slot + 1
};

}  // namespace ls::ir
