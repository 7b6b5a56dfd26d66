// LayoutCache: worker-thread layout computation with per-snapshot caching (see the header for
// the threading rules).
#include "core/graph_layout/layout_cache.h"

#include <optional>

#include <algorithm>
#include <exception>

namespace ls::graph_layout {

LayoutCache::LayoutCache(LayoutOptions options, size_t capacity)
    : options_(std::make_shared<const LayoutOptions>(std::move(options))), capacity_(std::max<size_t>(capacity, 1)), worker_([this] { workerLoop(); }) {}

LayoutCache::~LayoutCache() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
    queue_.clear();
  }
  wake_.notify_all();
  done_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void LayoutCache::request(GraphPtr graph, GraphPtr previous) {
  if (!graph) return;
  {
    std::lock_guard<std::mutex> lk(mu_);
    if (stop_) return;
    const ir::Graph* key = graph.get();
    auto it = entries_.find(key);
    if (it != entries_.end()) {
      it->second.lastUse = ++useClock_;
      auto q = std::find(queue_.begin(), queue_.end(), key);
      if (q != queue_.end()) {
        queue_.erase(q);
        queue_.push_back(key);
      }
      return;
    }
    Entry e;
    e.graph = std::move(graph);
    e.previous = std::move(previous);
    e.lastUse = ++useClock_;
    e.epoch = epoch_;
    entries_.emplace(key, std::move(e));
    queue_.push_back(key);
    evictLocked();
  }
  wake_.notify_one();
}

void LayoutCache::evictLocked() {
  while (entries_.size() > capacity_) {
    auto victim = entries_.end();
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->second.state != State::Ready && it->second.state != State::Failed) continue;
      if (victim == entries_.end() || it->second.lastUse < victim->second.lastUse) victim = it;
    }
    if (victim == entries_.end()) return;  // only queued work left: keep it
    entries_.erase(victim);
  }
}

const Layout* LayoutCache::tryGet(const ir::Graph* key) {
  std::lock_guard<std::mutex> lk(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end() || it->second.state != State::Ready) return nullptr;
  it->second.lastUse = ++useClock_;
  return it->second.layout.get();
}

std::shared_ptr<const Layout> LayoutCache::get(const ir::Graph* key) {
  std::lock_guard<std::mutex> lk(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end() || it->second.state != State::Ready) return nullptr;
  it->second.lastUse = ++useClock_;
  return it->second.layout;
}

LayoutCache::State LayoutCache::state(const ir::Graph* key) const {
  std::lock_guard<std::mutex> lk(mu_);
  auto it = entries_.find(key);
  return it == entries_.end() ? State::Absent : it->second.state;
}

std::string LayoutCache::error(const ir::Graph* key) const {
  std::lock_guard<std::mutex> lk(mu_);
  auto it = entries_.find(key);
  return it == entries_.end() ? std::string() : it->second.error;
}

bool LayoutCache::wait(const ir::Graph* key, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lk(mu_);
  State s = State::Absent;
  done_.wait_for(lk, timeout, [&] {
    auto it = entries_.find(key);
    s = it == entries_.end() ? State::Absent : it->second.state;
    return stop_ || s == State::Absent || s == State::Ready || s == State::Failed;
  });
  return s == State::Ready;
}

void LayoutCache::setOnReady(std::function<void(const ir::Graph*)> callback) {
  std::lock_guard<std::mutex> lk(mu_);
  onReady_ = std::move(callback);
}

void LayoutCache::clear(const ir::Graph* keep) {
  std::lock_guard<std::mutex> lk(mu_);
  ++epoch_;
  std::optional<Entry> kept;
  if (auto it = keep ? entries_.find(keep) : entries_.end(); it != entries_.end() && it->second.state == State::Ready) {
    kept = std::move(it->second);
    kept->previous.reset();
    kept->epoch = epoch_;
  }
  entries_.clear();
  queue_.clear();
  if (kept) entries_.emplace(keep, std::move(*kept));
}

void LayoutCache::setOptions(LayoutOptions options) {
  std::lock_guard<std::mutex> lk(mu_);
  options_ = std::make_shared<const LayoutOptions>(std::move(options));
  entries_.clear();
  queue_.clear();
  ++epoch_;
}

LayoutOptions LayoutCache::options() const {
  std::lock_guard<std::mutex> lk(mu_);
  return *options_;
}

size_t LayoutCache::size() const {
  std::lock_guard<std::mutex> lk(mu_);
  return entries_.size();
}

size_t LayoutCache::computedCount() const {
  std::lock_guard<std::mutex> lk(mu_);
  return computed_;
}

void LayoutCache::setPaused(bool paused) {
  {
    std::lock_guard<std::mutex> lk(mu_);
    paused_ = paused;
  }
  wake_.notify_all();
}

bool LayoutCache::paused() const {
  std::lock_guard<std::mutex> lk(mu_);
  return paused_;
}

void LayoutCache::workerLoop() {
  std::unique_lock<std::mutex> lk(mu_);
  for (;;) {
    wake_.wait(lk, [&] { return stop_ || (!paused_ && !queue_.empty()); });
    if (stop_) return;

    // Newest request first, but a queued predecessor before its successor.
    const ir::Graph* key = queue_.back();
    for (size_t guard = 0; guard < queue_.size(); ++guard) {
      const Entry& e = entries_.at(key);
      if (!e.previous) break;
      auto p = entries_.find(e.previous.get());
      if (p == entries_.end() || p->second.state != State::Queued) break;
      key = p->first;
    }
    queue_.erase(std::find(queue_.begin(), queue_.end(), key));

    const Entry& e = entries_.at(key);
    GraphPtr graph = e.graph;
    std::shared_ptr<const Layout> previous;
    if (e.previous) {
      auto p = entries_.find(e.previous.get());
      if (p != entries_.end() && p->second.state == State::Ready) previous = p->second.layout;
    }
    uint64_t epoch = e.epoch;
    std::shared_ptr<const LayoutOptions> options = options_;
    lk.unlock();

    std::shared_ptr<const Layout> result;
    std::string error;
    try {
      result = std::make_shared<const Layout>(computeLayout(*graph, *options, previous.get()));
    } catch (const std::exception& ex) {
      error = std::string("layout of '") + graph->modelName + "' failed: " + ex.what();
    } catch (...) {
      error = std::string("layout of '") + graph->modelName + "' failed";
    }

    lk.lock();
    ++computed_;
    auto it = entries_.find(key);
    if (it == entries_.end() || it->second.epoch != epoch) continue;  // cleared meanwhile
    it->second.layout = std::move(result);
    it->second.error = std::move(error);
    it->second.state = it->second.layout ? State::Ready : State::Failed;
    it->second.previous.reset();  // the predecessor's layout is no longer needed
    evictLocked();
    auto callback = onReady_;
    lk.unlock();
    done_.notify_all();
    if (callback) callback(key);
    lk.lock();
  }
}

}  // namespace ls::graph_layout
