// FlatViewMap: random inserts, lookups and erases checked against std::unordered_map,
// including erases inside wrapped probe runs (backward shift) and growth.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "core/util/flat_view_map.h"

namespace ls {
namespace {

// The map's key hash reads every byte of keys of every length (the short paths, the overlapping
// last loads, the 16-byte loop), depends on the bytes not their address, and spreads node-like
// names evenly over the low bits a table masks.
TEST(HashKey, EveryByteCountsAndLowBitsSpread) {
  std::unordered_set<uint64_t> seen;
  size_t keys = 0;
  for (size_t len = 0; len <= 70; ++len) {
    std::string base(len, 'a');
    for (size_t i = 0; i < len; ++i) base[i] = char('a' + (i * 7) % 26);
    seen.insert(hashKey(base)), ++keys;
    for (size_t i = 0; i < len; ++i)
      for (int bit : {0, 5}) {
        std::string k = base;
        k[i] = char(k[i] ^ (1 << bit));
        seen.insert(hashKey(k)), ++keys;
      }
  }
  EXPECT_EQ(seen.size(), keys) << "two keys of the family collided";
  const std::string a = "aten_convolution_default_17", b = std::string("x") + a;
  EXPECT_EQ(hashKey(a), hashKey(std::string_view(b).substr(1)));

  // 64k names of the shapes passes make, into 4096 buckets by the low 12 bits: about 16 each.
  std::vector<int> bucket(4096, 0);
  for (int i = 0; i < 16384; ++i)
    for (const char* stem : {"node_", "aten_convolution_default_", "tosa_transpose_", "p_layer4_1_bn2_weight_"})
      ++bucket[hashKey(stem + std::to_string(i)) & 4095];
  const auto [lo, hi] = std::minmax_element(bucket.begin(), bucket.end());
  EXPECT_GE(*lo, 2);  // Poisson(16): below 3 or above 40 has odds around 1e-4 per bucket
  EXPECT_LE(*hi, 40);
}

TEST(FlatViewMap, InsertKeepsTheFirstValueFindAndErase) {
  FlatViewMap<int> m;
  EXPECT_EQ(m.find("a"), nullptr);
  EXPECT_FALSE(m.erase("a"));
  EXPECT_TRUE(m.insert("a", 1));
  EXPECT_FALSE(m.insert("a", 2));  // like unordered_map::emplace: the first value stays
  ASSERT_NE(m.find("a"), nullptr);
  EXPECT_EQ(*m.find("a"), 1);
  EXPECT_EQ(m.findOrInsert("b", 7), 7);
  ++m.findOrInsert("b", 100);
  EXPECT_EQ(*m.find("b"), 8);
  EXPECT_TRUE(m.insert("", 3));  // the empty name is a key like any other
  EXPECT_EQ(*m.find(""), 3);
  EXPECT_EQ(m.size(), 3u);
  EXPECT_TRUE(m.erase("a"));
  EXPECT_FALSE(m.contains("a"));
  EXPECT_TRUE(m.contains("b"));
  EXPECT_EQ(m.size(), 2u);
  m.clear();
  EXPECT_TRUE(m.empty());
  EXPECT_FALSE(m.contains("b"));
}

// Many keys in a small table collide and wrap around its end: every erase must keep the
// remaining keys reachable (the backward shift moves only entries whose home allows it).
TEST(FlatViewMap, RandomOperationsMatchUnorderedMap) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    std::mt19937 rng(seed);
    std::deque<std::string> store;  // the map holds views: keys live here
    std::vector<std::string_view> keys;
    const int universe = 8 + int(seed) * 13;
    for (int i = 0; i < universe; ++i) keys.push_back(store.emplace_back("node_" + std::to_string(i * 7919 % 1000)));
    FlatViewMap<uint32_t> m;
    std::unordered_map<std::string_view, uint32_t> ref;
    for (int step = 0; step < 4000; ++step) {
      std::string_view k = keys[rng() % keys.size()];
      const uint32_t v = rng();
      switch (rng() % 4) {
        case 0:
        case 1: EXPECT_EQ(m.insert(k, v), ref.emplace(k, v).second); break;
        case 2: EXPECT_EQ(m.erase(k), ref.erase(k) > 0); break;
        default: {
          const uint32_t* got = m.find(k);
          auto it = ref.find(k);
          ASSERT_EQ(got != nullptr, it != ref.end()) << "seed " << seed << " step " << step << " key " << k;
          if (got) {
            EXPECT_EQ(*got, it->second);
          }
        }
      }
      ASSERT_EQ(m.size(), ref.size());
    }
    for (std::string_view k : keys) {
      const uint32_t* got = m.find(k);
      auto it = ref.find(k);
      ASSERT_EQ(got != nullptr, it != ref.end()) << "seed " << seed << " key " << k;
      if (got) {
        EXPECT_EQ(*got, it->second);
      }
    }
    size_t seen = 0;
    m.forEach([&](std::string_view k, uint32_t v) {
      ++seen;
      auto it = ref.find(k);
      ASSERT_NE(it, ref.end());
      EXPECT_EQ(it->second, v);
    });
    EXPECT_EQ(seen, ref.size());
  }
}

TEST(FlatViewMap, ReserveThenFillWithoutLosingKeys) {
  std::deque<std::string> store;
  FlatViewMap<size_t> m;
  m.reserve(1000);
  for (size_t i = 0; i < 5000; ++i) EXPECT_TRUE(m.insert(store.emplace_back("k" + std::to_string(i)), i));
  for (size_t i = 0; i < 5000; ++i) {
    const size_t* v = m.find(store[i]);
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(*v, i);
  }
  for (size_t i = 0; i < 5000; i += 2) EXPECT_TRUE(m.erase(store[i]));
  for (size_t i = 0; i < 5000; ++i) EXPECT_EQ(m.contains(store[i]), i % 2 == 1);
}

}  // namespace
}  // namespace ls
