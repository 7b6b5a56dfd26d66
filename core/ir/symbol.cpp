// Global op-name interning table.
#include "core/ir/symbol.h"

#include <deque>
#include <mutex>
#include <shared_mutex>

#include "core/util/flat_view_map.h"
#include "core/util/hash.h"

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

/// The ids this thread looked up last, read without the lock: a pass interns the same few dozen
/// op names thousands of times per pipeline run, and the shared lock's two atomic operations
/// cost more than the lookup. Direct-mapped by the name's hash; an entry points at the table's
/// copy of the name, whose characters never move (a deque that only grows). Plain data, so
/// nothing is destroyed at thread exit (a static destructor may still intern a name).
struct CacheEntry {
  uint64_t hash;
  const std::string* name;
  OpId id;
};
constexpr size_t kCacheSlots = 256;
thread_local CacheEntry tlCache[kCacheSlots];

/// This thread's cache slot for `name` (hash `h`), and whether it holds `name`.
CacheEntry& cacheSlot(std::string_view name, uint64_t h, bool& hit) {
  CacheEntry& e = tlCache[h % kCacheSlots];
  hit = e.name && e.hash == h && *e.name == name;
  return e;
}

OpId internOp(std::string_view name) {
  const uint64_t h = hashKey(name);
  bool hit = false;
  CacheEntry& e = cacheSlot(name, h, hit);
  if (hit) return e.id;
  Table& t = table();
  OpId id = kNoOp;
  const std::string* stable = nullptr;  // read under the lock: the deque's block map may move
  {
    std::shared_lock lock(t.mu);
    if (const OpId* found = t.ids.find(name)) id = *found, stable = &t.names[id];
  }
  if (!stable) {
    std::unique_lock lock(t.mu);
    if (const OpId* found = t.ids.find(name)) {
      id = *found;
    } else {
      t.names.emplace_back(name);
      id = OpId(t.names.size() - 1);
      t.ids.insert(t.names.back(), id);
    }
    stable = &t.names[id];
  }
  e = CacheEntry{h, stable, id};
  return id;
}

OpId findOp(std::string_view name) {
  bool hit = false;
  const CacheEntry& e = cacheSlot(name, hashKey(name), hit);
  if (hit) return e.id;
  Table& t = table();
  std::shared_lock lock(t.mu);
  const OpId* id = t.ids.find(name);
  return id ? *id : kNoOp;
}

/// The same for names by id (passes dispatch on the op's name).
struct NameEntry {
  OpId id;
  const std::string* name;
};
thread_local NameEntry tlNames[kCacheSlots];

const std::string& opName(OpId id) {
  NameEntry& e = tlNames[id % kCacheSlots];
  if (e.name && e.id == id) return *e.name;
  Table& t = table();
  std::shared_lock lock(t.mu);
  if (id >= t.names.size()) return t.names[0];
  e = NameEntry{id, &t.names[id]};
  return *e.name;
}

uint32_t opCount() {
  Table& t = table();
  std::shared_lock lock(t.mu);
  return uint32_t(t.names.size());
}

}  // namespace ls::ir
