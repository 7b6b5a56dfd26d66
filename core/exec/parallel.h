// parallelFor: splits an index range over a few std::threads (the executor's kernels use at
// most ExecOptions::threads; no pool, threads are spawned per call and joined).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace ls::exec {

/// Calls fn(begin, end) on disjoint chunks covering [0, n), using up to `threads` threads
/// (the calling thread takes the first chunk). Runs inline when threads <= 1 or when
/// n * costPerItem is below ~100k operations (thread start-up would dominate).
template <typename Fn>
void parallelFor(int threads, int64_t n, int64_t costPerItem, Fn&& fn) {
  if (n <= 0) return;
  int64_t work = n * std::max<int64_t>(costPerItem, 1);
  int t = int(std::min<int64_t>({int64_t(threads), n, std::max<int64_t>(work / 100000, 1)}));
  if (t <= 1) {
    fn(int64_t(0), n);
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(size_t(t - 1));
  int64_t chunk = (n + t - 1) / t;
  for (int i = 1; i < t; ++i) {
    int64_t b = i * chunk, e = std::min(n, b + chunk);
    if (b >= e) break;
    pool.emplace_back([&fn, b, e] { fn(b, e); });
  }
  fn(int64_t(0), std::min(n, chunk));
  for (std::thread& th : pool) th.join();
}

/// Threads to use for `threads` as the synthesis and materialisation APIs take it: the value
/// itself when positive, else one per hardware thread.
inline int resolveThreads(int threads) {
  return threads > 0 ? threads : std::max(1, int(std::thread::hardware_concurrency()));
}

/// Calls fn(i) for every i in [0, n) on up to `threads` threads that take the next index as
/// they finish the last (for items of very different cost: order them largest first). Runs
/// inline when threads <= 1 or n <= 1.
template <typename Fn>
void parallelForEach(int threads, int64_t n, Fn&& fn) {
  const int t = int(std::min<int64_t>(threads, n));
  if (t <= 1) {
    for (int64_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<int64_t> next{0};
  auto work = [&] {
    for (int64_t i = next++; i < n; i = next++) fn(i);
  };
  std::vector<std::thread> pool;
  pool.reserve(size_t(t - 1));
  for (int i = 1; i < t; ++i) pool.emplace_back(work);
  work();
  for (std::thread& th : pool) th.join();
}

}  // namespace ls::exec
