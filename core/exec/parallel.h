// parallelFor: splits an index range over a few std::threads (the executor's kernels use at
// most ExecOptions::threads; no pool, threads are spawned per call and joined).
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
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

/// Calls fn(i) for every i in [0, sizes.size()), the largest sizes[i] first, over the
/// machine's threads when the sizes add up to at least `parallelFrom` (else inline, in that
/// order): for work that grows with each item's bytes, such as hashing or filling constants.
template <typename Fn>
void forEachLargestFirst(const std::vector<size_t>& sizes, size_t parallelFrom, Fn&& fn) {
  std::vector<size_t> order(sizes.size());
  size_t total = 0;
  for (size_t i = 0; i < sizes.size(); ++i) order[i] = i, total += sizes[i];
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return sizes[a] > sizes[b]; });
  parallelForEach(total >= parallelFrom ? resolveThreads(0) : 1, int64_t(order.size()),
                  [&](int64_t k) { fn(order[size_t(k)]); });
}

/// parallelForEach on threads that live as long as the pool (for many short rounds, such as
/// one per graph node: no thread start-up per round, and a worker's thread_local buffers
/// survive from round to round). The calling thread works too. forEach() is not reentrant
/// and is called from one thread at a time.
class WorkerPool {
 public:
  /// `threads` in all, the calling thread included (<= 1: forEach runs inline).
  explicit WorkerPool(int threads) {
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { work(); });
  }
  ~WorkerPool() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int threads() const { return int(workers_.size()) + 1; }

  /// Calls fn(i) for every i in [0, n), each index on one thread; returns when all are done.
  void forEach(int64_t n, const std::function<void(int64_t)>& fn) {
    if (workers_.empty() || n <= 1) {
      for (int64_t i = 0; i < n; ++i) fn(i);
      return;
    }
    {
      std::lock_guard lock(mu_);
      fn_ = &fn;
      n_ = n;
      next_ = 0;
      busy_ = int(workers_.size());
      ++round_;
    }
    wake_.notify_all();
    take(fn, n);
    std::unique_lock lock(mu_);
    done_.wait(lock, [this] { return busy_ == 0; });
    fn_ = nullptr;
  }

 private:
  void take(const std::function<void(int64_t)>& fn, int64_t n) {
    for (int64_t i = next_++; i < n; i = next_++) fn(i);
  }
  void work() {
    uint64_t seen = 0;
    for (;;) {
      const std::function<void(int64_t)>* fn;
      int64_t n;
      {
        std::unique_lock lock(mu_);
        wake_.wait(lock, [&] { return stop_ || round_ != seen; });
        if (stop_) return;
        seen = round_;
        fn = fn_;
        n = n_;
      }
      take(*fn, n);
      std::lock_guard lock(mu_);
      if (--busy_ == 0) done_.notify_one();
    }
  }

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_, done_;
  const std::function<void(int64_t)>* fn_ = nullptr;
  int64_t n_ = 0;
  std::atomic<int64_t> next_{0};
  int busy_ = 0;
  uint64_t round_ = 0;
  bool stop_ = false;
};

}  // namespace ls::exec
