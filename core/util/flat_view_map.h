// FlatViewMap: an open-addressing hash map from string views (storage owned by the caller) to
// small values, for the hot name lookups of the pass engine (node names, constant targets).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "core/util/hash.h"

namespace ls {

/// A hash map from `std::string_view` keys to `V` in one flat array (linear probing, load at
/// most 1/2, backward-shift erase, so no tombstones). The map stores views: the caller keeps
/// every key's characters alive and unchanged while the key is in the map. Each slot keeps
/// the key's hash, so a probe compares characters only when the hashes are equal, and a
/// rehash never hashes a key again. Compared with `std::unordered_map<std::string_view, V>`:
/// one allocation for the whole table instead of one per entry, and no pointer chasing.
/// `V` must be default-constructible and cheap to copy. Not thread-safe for mutation;
/// concurrent const lookups are safe.
template <typename V>
class FlatViewMap {
 public:
  FlatViewMap() = default;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  /// Makes room for `n` entries without a rehash.
  void reserve(size_t n) {
    size_t want = kMinSlots;
    while (want < 2 * n) want <<= 1;
    if (want > slots_.size()) rehash(want);
  }
  void clear() {
    slots_.clear();
    size_ = 0;
  }

  /// The value of `key`, or null.
  const V* find(std::string_view key) const { return findWith(key, hashOf(key)); }
  V* find(std::string_view key) { return const_cast<V*>(std::as_const(*this).find(key)); }
  bool contains(std::string_view key) const { return find(key) != nullptr; }

  /// Inserts (key, value) when `key` is absent (an existing value is kept, like
  /// unordered_map::emplace). Returns whether it inserted.
  bool insert(std::string_view key, V value) {
    bool inserted = false;
    V& v = slotFor(key, hashOf(key), inserted);
    if (inserted) v = value;
    return inserted;
  }
  /// The value of `key`, inserted as `init` when absent.
  V& findOrInsert(std::string_view key, V init = V()) {
    bool inserted = false;
    V& v = slotFor(key, hashOf(key), inserted);
    if (inserted) v = init;
    return v;
  }
  /// Removes `key`. Returns whether it was present.
  bool erase(std::string_view key) {
    if (slots_.empty()) return false;
    const uint64_t h = hashOf(key);
    const size_t mask = slots_.size() - 1;
    size_t i = size_t(h) & mask;
    for (;; i = (i + 1) & mask) {
      if (slots_[i].hash == 0) return false;
      if (slots_[i].hash == h && slots_[i].key == key) break;
    }
    // Backward shift: move later entries of the probe run into the hole when their home slot
    // does not lie (cyclically) between the hole and them.
    for (size_t j = (i + 1) & mask;; j = (j + 1) & mask) {
      if (slots_[j].hash == 0) break;
      const size_t home = size_t(slots_[j].hash) & mask;
      const bool movable = i <= j ? (home <= i || home > j) : (home <= i && home > j);
      if (movable) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i] = Slot{};
    --size_;
    return true;
  }

  /// Calls fn(key, value) for every entry, in no particular order.
  template <typename Fn>
  void forEach(Fn&& fn) const {
    for (const Slot& s : slots_)
      if (s.hash) fn(s.key, s.value);
  }

 private:
  static constexpr size_t kMinSlots = 16;
  struct Slot {
    uint64_t hash = 0;  ///< 0: empty; otherwise the key's hash with the low bit set
    std::string_view key;
    V value{};
  };
  static uint64_t hashOf(std::string_view key) { return hashKey(key) | 1; }

  const V* findWith(std::string_view key, uint64_t h) const {
    if (slots_.empty()) return nullptr;
    const size_t mask = slots_.size() - 1;
    for (size_t i = size_t(h) & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.hash == 0) return nullptr;
      if (s.hash == h && s.key == key) return &s.value;
    }
  }
  V& slotFor(std::string_view key, uint64_t h, bool& inserted) {
    if (2 * (size_ + 1) > slots_.size()) rehash(slots_.empty() ? kMinSlots : 2 * slots_.size());
    const size_t mask = slots_.size() - 1;
    for (size_t i = size_t(h) & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.hash == 0) {
        s.hash = h;
        s.key = key;
        ++size_;
        inserted = true;
        return s.value;
      }
      if (s.hash == h && s.key == key) return s.value;
    }
  }
  void rehash(size_t n) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(n, Slot{});
    const size_t mask = n - 1;
    for (const Slot& s : old)
      if (s.hash)
        for (size_t i = size_t(s.hash) & mask;; i = (i + 1) & mask)
          if (slots_[i].hash == 0) {
            slots_[i] = s;
            break;
          }
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace ls
