// UsersIndex: who reads each node's outputs, kept up to date through graph edits (not rebuilt).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/ir/node.h"

namespace ls::ir {

/// The users of every node of one graph: for producer p, the distinct nodes that read any
/// output of p. Built once from the nodes, then updated per edit in O(degree): a node added
/// or removed registers/unregisters itself with its inputs; a node about to be mutated
/// (Graph::mutableNode) has its inputs snapshotted, and flush() applies the difference with
/// its current inputs. Lists live in one flat pool (a list that outgrows its slot moves to the
/// pool's end; the pool is compacted when half of it is holes), so copying the index is two
/// memcpy-like vector copies. A list is put in graph order lazily (sortedUsers), from the
/// positions the graph passes in. Not thread-safe; Graph shares it between copies
/// copy-on-write.
class UsersIndex {
 public:
  /// Builds the index of `nodes` (ids < nextId).
  void build(std::span<const NodePtr> nodes, NodeId nextId);
  /// Registers `n` as a user of each distinct input. `atEnd`: n comes after every node already
  /// indexed (its producers' lists stay in graph order).
  void addNode(const Node& n, bool atEnd);
  /// Unregisters `n` from its inputs (flush() first if it may be pending) and drops its list.
  void removeNode(const Node& n);
  /// Records `n`'s inputs before a mutation that may rewire it (once until the next flush()).
  void beginEdit(const Node& n);
  bool hasPending() const { return !pendingIds_.empty(); }
  /// Ids at or above `next` are not nodes (a dangling reference): they get no list.
  void setIdLimit(NodeId next) { limit_ = next; }
  /// Applies the pending edits: `current(id)` gives the node's version now (null if gone).
  template <typename Lookup>
  void flush(Lookup&& current) {
    for (size_t k = 0; k < pendingIds_.size(); ++k) {
      const NodeId id = pendingIds_[k];
      slot(id).flags &= ~kPending;
      std::span<const NodeId> before(pendingInputs_.data() + pendingStart_[k], pendingStart_[k + 1] - pendingStart_[k]);
      const Node* n = current(id);
      if (n) distinctInputs(*n, scratch_);
      else scratch_.clear();
      applyDiff(id, before, scratch_);
    }
    pendingIds_.clear();
    pendingStart_.assign(1, 0);
    pendingInputs_.clear();
  }
  /// Users of `id` in graph order; `pos[id]` is each node's position. Valid until the next edit.
  std::span<const NodeId> sortedUsers(NodeId id, const std::vector<int32_t>& pos);
  /// Users of `id` as stored (graph order when sorted(id)).
  std::span<const NodeId> rawUsers(NodeId id) const;
  bool sorted(NodeId id) const { return id >= slots_.size() || !(slots_[id].flags & kUnsorted); }
  /// Puts every list in graph order (so later reads never write: concurrent readers).
  void sortAll(const std::vector<int32_t>& pos);

  /// The distinct node ids `n` reads, ascending.
  static void distinctInputs(const Node& n, std::vector<NodeId>& out);

 private:
  static constexpr uint32_t kUnsorted = 1, kPending = 2;
  struct Slot {
    uint32_t off = 0, count = 0, cap = 0, flags = 0;
  };
  Slot& slot(NodeId id) {
    if (id >= slots_.size()) slots_.resize(size_t(id) + 1);
    return slots_[id];
  }
  void add(NodeId producer, NodeId user, bool inOrder);
  void remove(NodeId producer, NodeId user);
  void applyDiff(NodeId user, std::span<const NodeId> before, std::span<const NodeId> after);
  void compact();

  std::vector<Slot> slots_;     // by producer NodeId
  std::vector<NodeId> pool_;    // list storage
  size_t holes_ = 0;            // pool entries no slot owns any more
  NodeId limit_ = 0;            // ids below it may have a list
  std::vector<NodeId> pendingIds_;
  std::vector<uint32_t> pendingStart_{0};
  std::vector<NodeId> pendingInputs_;
  std::vector<NodeId> scratch_, scratch2_;
};

}  // namespace ls::ir
