// LayoutCache: layouts of graph snapshots computed on a worker thread and kept per snapshot,
// so the graph view never waits for a layout.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "core/graph_layout/graph_layout.h"

namespace ls::graph_layout {

/// Computes layouts off the calling thread, one worker thread per cache, and keeps them
/// keyed by snapshot identity: the address of an immutable, shared ir::Graph (e.g. a
/// trace::Trace snapshot). The cache holds a reference to every graph it has an entry for,
/// so a key cannot be reused by another graph while its entry exists.
///
/// Threading rules:
///  - Every public method is thread-safe. The intended use is one UI thread calling
///    request()/tryGet() every frame; the worker only computes and publishes.
///  - A requested graph must not be mutated any more (snapshots are immutable). The worker
///    reads it concurrently with other readers; computeLayout uses no lazy graph indices.
///  - LayoutOptions::measureWidth runs on the worker thread (see LayoutOptions).
///  - tryGet() returns a pointer that stays valid until the entry is evicted, which happens
///    only inside request() (capacity) and clear(). Use get() to hold a layout across those
///    calls or hand it to another thread.
///  - The ready callback runs on the worker thread, without the cache lock held; it may call
///    the cache (e.g. to post an "empty event" that wakes the UI loop).
///  - The destructor drops queued requests, waits for the running one and joins the worker.
class LayoutCache {
 public:
  using GraphPtr = std::shared_ptr<const ir::Graph>;
  enum class State : uint8_t { Absent, Queued, Ready, Failed, COUNT };

  explicit LayoutCache(LayoutOptions options = {}, size_t capacity = 256);
  ~LayoutCache();
  LayoutCache(const LayoutCache&) = delete;
  LayoutCache& operator=(const LayoutCache&) = delete;

  /// Asks for the layout of `graph`; no-op if it is ready, failed or already queued (a queued
  /// request moves to the front). With `previous` (the snapshot before `graph` in the same
  /// lineage), the layout is computed incrementally from previous's layout so surviving
  /// nodes keep their positions (computeLayout's guarantee). If previous's layout is queued,
  /// it is computed first; if it is neither ready nor queued, `graph` is laid out fresh.
  /// Newest requests are served first. Evicts least recently used ready entries beyond
  /// the capacity.
  void request(GraphPtr graph, GraphPtr previous = nullptr);

  /// The finished layout, or null while it is queued, running, absent or failed. Never
  /// blocks on a computation. Marks the entry as recently used.
  const Layout* tryGet(const ir::Graph* key);
  /// Same, shared: stays valid after eviction.
  std::shared_ptr<const Layout> get(const ir::Graph* key);

  State state(const ir::Graph* key) const;
  /// The failure message of a failed entry ("" otherwise).
  std::string error(const ir::Graph* key) const;

  /// Blocks until `key` is ready or failed (true if ready), or the timeout passes. For tests
  /// and headless tools (screenshots); never call it on the UI thread in the frame loop.
  bool wait(const ir::Graph* key, std::chrono::milliseconds timeout);

  /// Called on the worker thread after each layout is published (also after a failure).
  void setOnReady(std::function<void(const ir::Graph*)> callback);

  /// While paused the worker starts no computation (the running one finishes); requests queue
  /// up and wait() waits. The app pauses layouts while a pipeline run is timed, so they do not
  /// compete with the passes for the cores.
  void setPaused(bool paused);
  bool paused() const;

  /// Drops every entry and queued request (a running computation finishes and is discarded),
  /// except the ready layout of `keep` (e.g. a graph a new run shares with the old one).
  void clear(const ir::Graph* keep = nullptr);
  /// New options for every later layout: clears the cache (as clear()).
  void setOptions(LayoutOptions options);

  /// The options of layouts requested from now on.
  LayoutOptions options() const;
  size_t size() const;            ///< entries (queued, ready or failed)
  size_t computedCount() const;   ///< layouts computed so far (for tests)

 private:
  struct Entry {
    GraphPtr graph;
    GraphPtr previous;
    std::shared_ptr<const Layout> layout;
    std::string error;
    State state = State::Queued;
    uint64_t lastUse = 0;
    uint64_t epoch = 0;  // clear() generation the entry belongs to
  };

  void workerLoop();
  void evictLocked();

  std::shared_ptr<const LayoutOptions> options_;  // guarded by mu_; the worker copies the pointer
  const size_t capacity_;
  mutable std::mutex mu_;
  std::condition_variable wake_;   // worker: new work or stop
  std::condition_variable done_;   // waiters: an entry finished
  std::unordered_map<const ir::Graph*, Entry> entries_;
  std::deque<const ir::Graph*> queue_;  // back = newest
  std::function<void(const ir::Graph*)> onReady_;
  uint64_t useClock_ = 0;
  uint64_t epoch_ = 0;
  size_t computed_ = 0;
  bool stop_ = false;
  bool paused_ = false;
  std::thread worker_;  // last: starts after everything above is initialised
};

}  // namespace ls::graph_layout
