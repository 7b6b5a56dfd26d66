// Op interning: ids are dense, stable and the same from every thread, whatever the per-thread
// lookup caches hold (core/ir/symbol.cpp keeps a small direct-mapped cache per thread).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>
#include <thread>
#include <vector>

#include "core/ir/symbol.h"

namespace ls::ir {
namespace {

TEST(OpInterning, IdsAndNamesStayRightWhenManyNamesShareCacheSlots) {
  // Far more names than the per-thread cache has slots: entries evict each other constantly.
  std::vector<std::string> names;
  for (int i = 0; i < 3000; ++i) names.push_back(fmt::format("test.symbol_op_{}.default", i));
  std::vector<OpId> ids;
  for (const std::string& n : names) ids.push_back(internOp(n));
  for (int round = 0; round < 3; ++round)
    for (size_t i = 0; i < names.size(); ++i) {
      const size_t k = round % 2 ? names.size() - 1 - i : i;  // forwards, then backwards
      ASSERT_EQ(internOp(names[k]), ids[k]) << names[k];
      ASSERT_EQ(findOp(names[k]), ids[k]) << names[k];
      ASSERT_EQ(opName(ids[k]), names[k]);
    }
  for (size_t i = 1; i < ids.size(); ++i) EXPECT_NE(ids[i], ids[i - 1]);
  EXPECT_EQ(findOp("test.symbol_op_never_interned.default"), kNoOp);
  EXPECT_EQ(opName(kNoOp), "");
  EXPECT_EQ(opName(OpId(opCount()) + 5), "");  // out of range: the empty name
}

TEST(OpInterning, ThreadsInterningOverlappingNamesAgreeOnEveryId) {
  constexpr int kThreads = 4, kNames = 1500;
  std::vector<std::vector<OpId>> seen(kThreads, std::vector<OpId>(kNames));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t, &seen] {
      // Each thread walks the same names from a different start, so first interning races.
      for (int j = 0; j < kNames; ++j) {
        const int i = (j + t * 397) % kNames;
        seen[size_t(t)][size_t(i)] = internOp(fmt::format("test.symbol_race_{}.default", i));
      }
      for (int i = 0; i < kNames; ++i)
        if (opName(seen[size_t(t)][size_t(i)]) != fmt::format("test.symbol_race_{}.default", i))
          seen[size_t(t)][size_t(i)] = kNoOp;  // reported below
    });
  for (std::thread& th : threads) th.join();
  for (int i = 0; i < kNames; ++i) {
    ASSERT_NE(seen[0][size_t(i)], kNoOp) << i;
    for (int t = 1; t < kThreads; ++t) ASSERT_EQ(seen[size_t(t)][size_t(i)], seen[0][size_t(i)]) << "name " << i;
    EXPECT_EQ(internOp(fmt::format("test.symbol_race_{}.default", i)), seen[0][size_t(i)]);
  }
}

}  // namespace
}  // namespace ls::ir
