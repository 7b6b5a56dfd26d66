// UsersIndex: per-producer user lists in one flat pool, updated per edit.
#include "core/ir/users_index.h"

#include <algorithm>

namespace ls::ir {

void UsersIndex::distinctInputs(const Node& n, std::vector<NodeId>& out) {
  out.clear();
  n.forEachInput([&](const ValueRef& r) { out.push_back(r.node); });
  if (out.size() > 1) {
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
}

void UsersIndex::build(std::span<const NodePtr> nodes, NodeId nextId) {
  // Two sweeps (count, then fill) into one exactly-sized pool: lists come out in graph order.
  slots_.assign(nextId, Slot{});
  limit_ = nextId;
  pendingIds_.clear();
  pendingStart_.assign(1, 0);
  pendingInputs_.clear();
  holes_ = 0;
  for (const NodePtr& p : nodes) {
    distinctInputs(*p, scratch_);
    for (NodeId in : scratch_)
      if (in < limit_) ++slots_[in].count;
  }
  uint32_t off = 0;
  for (Slot& s : slots_) {
    s.off = off;
    s.cap = s.count;
    off += s.count;
    s.count = 0;
  }
  pool_.assign(off, kInvalidNode);
  for (const NodePtr& p : nodes) {
    distinctInputs(*p, scratch_);
    for (NodeId in : scratch_) {
      if (in >= limit_) continue;
      Slot& s = slots_[in];
      pool_[s.off + s.count++] = p->id;
    }
  }
}

void UsersIndex::add(NodeId producer, NodeId user, bool inOrder) {
  if (producer >= limit_) return;
  Slot& s = slot(producer);
  if (s.count == s.cap) {
    // Move the list to the end of the pool with room to grow; its old place becomes a hole.
    const uint32_t cap = std::max<uint32_t>(2, s.cap * 2);
    const uint32_t off = uint32_t(pool_.size());
    pool_.resize(pool_.size() + cap, kInvalidNode);
    std::copy_n(pool_.begin() + s.off, s.count, pool_.begin() + off);
    holes_ += s.cap;
    s.off = off;
    s.cap = cap;
  }
  pool_[s.off + s.count++] = user;
  if (!inOrder && s.count > 1) s.flags |= kUnsorted;
}

void UsersIndex::remove(NodeId producer, NodeId user) {
  if (producer >= slots_.size()) return;
  Slot& s = slots_[producer];
  auto first = pool_.begin() + s.off, last = first + s.count;
  auto it = std::find(first, last, user);
  if (it == last) return;
  std::copy(it + 1, last, it);  // keeps the order
  --s.count;
}

void UsersIndex::addNode(const Node& n, bool atEnd) {
  distinctInputs(n, scratch_);
  for (NodeId in : scratch_) add(in, n.id, atEnd);
}

void UsersIndex::removeNode(const Node& n) {
  distinctInputs(n, scratch_);
  for (NodeId in : scratch_) remove(in, n.id);
  if (n.id < slots_.size()) {
    Slot& s = slots_[n.id];
    holes_ += s.cap;
    s = Slot{};
  }
  if (holes_ > 64 && holes_ * 2 > pool_.size()) compact();
}

void UsersIndex::beginEdit(const Node& n) {
  if (n.id >= limit_) return;
  Slot& s = slot(n.id);
  if (s.flags & kPending) return;
  s.flags |= kPending;
  pendingIds_.push_back(n.id);
  n.forEachInput([&](const ValueRef& r) { pendingInputs_.push_back(r.node); });
  // Stored sorted and distinct, as flush() diffs it against distinctInputs.
  auto first = pendingInputs_.begin() + pendingStart_.back();
  std::sort(first, pendingInputs_.end());
  pendingInputs_.erase(std::unique(first, pendingInputs_.end()), pendingInputs_.end());
  pendingStart_.push_back(uint32_t(pendingInputs_.size()));
}

void UsersIndex::applyDiff(NodeId user, std::span<const NodeId> before, std::span<const NodeId> after) {
  size_t i = 0, j = 0;
  while (i < before.size() || j < after.size()) {
    if (j == after.size() || (i < before.size() && before[i] < after[j])) {
      remove(before[i++], user);
    } else if (i == before.size() || after[j] < before[i]) {
      add(after[j++], user, false);
    } else {
      ++i;
      ++j;
    }
  }
  if (holes_ > 64 && holes_ * 2 > pool_.size()) compact();
}

void UsersIndex::compact() {
  std::vector<NodeId> pool;
  pool.reserve(pool_.size() - holes_);
  for (Slot& s : slots_) {
    const uint32_t off = uint32_t(pool.size());
    pool.insert(pool.end(), pool_.begin() + s.off, pool_.begin() + s.off + s.count);
    s.off = off;
    s.cap = s.count;
  }
  pool_ = std::move(pool);
  holes_ = 0;
}

std::span<const NodeId> UsersIndex::rawUsers(NodeId id) const {
  if (id >= slots_.size()) return {};
  const Slot& s = slots_[id];
  return {pool_.data() + s.off, s.count};
}

std::span<const NodeId> UsersIndex::sortedUsers(NodeId id, const std::vector<int32_t>& pos) {
  if (id >= slots_.size()) return {};
  Slot& s = slots_[id];
  if (s.flags & kUnsorted) {
    auto at = [&](NodeId u) { return u < pos.size() ? pos[u] : -1; };
    std::sort(pool_.begin() + s.off, pool_.begin() + s.off + s.count,
              [&](NodeId a, NodeId b) { return at(a) < at(b); });
    s.flags &= ~kUnsorted;
  }
  return {pool_.data() + s.off, s.count};
}

void UsersIndex::sortAll(const std::vector<int32_t>& pos) {
  for (NodeId id = 0; id < slots_.size(); ++id)
    if (slots_[id].flags & kUnsorted) sortedUsers(id, pos);
}

}  // namespace ls::ir
