// OpIndex (see op_index.h).
#include "core/ir/op_index.h"

#include <algorithm>

namespace ls::ir {

void OpIndex::remove(OpId op, NodeId id) {
  const int32_t s = find(op);
  if (s < 0) return;
  std::vector<NodeId>& ids = slots_[size_t(s)].ids;
  auto it = std::find(ids.begin(), ids.end(), id);
  if (it == ids.end()) return;
  *it = ids.back();
  ids.pop_back();
}

std::vector<OpId> OpIndex::present() const {
  std::vector<OpId> out;
  out.reserve(slots_.size());
  for (const Slot& s : slots_)
    if (!s.ids.empty()) out.push_back(s.op);
  std::sort(out.begin(), out.end());
  return out;
}

void OpIndex::reserveLike(const OpIndex& like) {
  if (slots_.empty()) {
    // Same ops in the same slots: the table carries over as it is.
    slots_.resize(like.slots_.size());
    for (size_t i = 0; i < slots_.size(); ++i) {
      slots_[i].op = like.slots_[i].op;
      slots_[i].ids.reserve(like.slots_[i].ids.size());
    }
    table_ = like.table_;
    return;
  }
  for (const Slot& s : like.slots_) {
    Slot& mine = slotFor(s.op);
    mine.ids.reserve(mine.ids.size() + s.ids.size());
  }
}

OpIndex::Slot& OpIndex::slotFor(OpId op) {
  if (const int32_t s = find(op); s >= 0) return slots_[size_t(s)];
  if (2 * (slots_.size() + 1) > table_.size()) rebuildTable(std::max<size_t>(16, 2 * table_.size()));
  slots_.push_back(Slot{op, {}});
  const size_t mask = table_.size() - 1;
  size_t i = bucket(op, mask);
  while (table_[i] != 0) i = (i + 1) & mask;
  table_[i] = uint32_t(slots_.size());
  return slots_.back();
}

void OpIndex::rebuildTable(size_t buckets) {
  table_.assign(buckets, 0);
  const size_t mask = buckets - 1;
  for (size_t s = 0; s < slots_.size(); ++s) {
    size_t i = bucket(slots_[s].op, mask);
    while (table_[i] != 0) i = (i + 1) & mask;
    table_[i] = uint32_t(s + 1);
  }
}

}  // namespace ls::ir
