// Global op-name interning table.
#include "core/ir/symbol.h"

#include <deque>
#include <mutex>
#include <shared_mutex>

#include "core/util/flat_view_map.h"

namespace ls::ir {
namespace {

struct Table {
  std::shared_mutex mu;
  std::deque<std::string> names{std::string()};
  FlatViewMap<OpId> ids;  // views into `names`
};

Table& table() {
  static Table* t = new Table();  // never destroyed: ids outlive static destructors
  return *t;
}

}  // namespace

OpId internOp(std::string_view name) {
  Table& t = table();
  {
    std::shared_lock lock(t.mu);
    if (const OpId* id = t.ids.find(name)) return *id;
  }
  std::unique_lock lock(t.mu);
  if (const OpId* id = t.ids.find(name)) return *id;
  t.names.emplace_back(name);
  OpId id = OpId(t.names.size() - 1);
  t.ids.insert(t.names.back(), id);
  return id;
}

OpId findOp(std::string_view name) {
  Table& t = table();
  std::shared_lock lock(t.mu);
  const OpId* id = t.ids.find(name);
  return id ? *id : kNoOp;
}

const std::string& opName(OpId id) {
  Table& t = table();
  std::shared_lock lock(t.mu);
  if (id >= t.names.size()) return t.names[0];
  return t.names[id];
}

uint32_t opCount() {
  Table& t = table();
  std::shared_lock lock(t.mu);
  return uint32_t(t.names.size());
}

}  // namespace ls::ir
