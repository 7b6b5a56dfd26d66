// Global op-name interning table.
#include "core/ir/symbol.h"

#include <deque>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

namespace ls::ir {
namespace {

struct Table {
  std::shared_mutex mu;
  std::deque<std::string> names{std::string()};
  std::unordered_map<std::string_view, OpId> ids;
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
    auto it = t.ids.find(name);
    if (it != t.ids.end()) return it->second;
  }
  std::unique_lock lock(t.mu);
  auto it = t.ids.find(name);
  if (it != t.ids.end()) return it->second;
  t.names.emplace_back(name);
  OpId id = OpId(t.names.size() - 1);
  t.ids.emplace(std::string_view(t.names.back()), id);
  return id;
}

OpId findOp(std::string_view name) {
  Table& t = table();
  std::shared_lock lock(t.mu);
  auto it = t.ids.find(name);
  return it == t.ids.end() ? kNoOp : it->second;
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
