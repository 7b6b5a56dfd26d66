// Sugiyama-style layered layout: layering, dummy nodes, crossing reduction, coordinate
// assignment and edge routing. The contract (and the stability guarantee) is in layout.h.
#include "core/graph_layout/graph_layout.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <utility>

namespace ls::graph_layout {

bool isConstantNode(const ir::Graph& g, const ir::Node& n) {
  if (n.kind == ir::NodeKind::GetAttr) return true;
  return n.kind == ir::NodeKind::Placeholder && g.constant(n.target) != nullptr;
}

bool isParameterNode(const ir::Graph& g, const ir::Node& n) {
  if (isConstantNode(g, n)) return true;
  if (!n.isCall()) return false;
  bool inputs = false;
  n.forEachInput([&](const ir::ValueRef&) { inputs = true; });
  return !inputs;
}

namespace {

constexpr double kPinWeight = 1e6;   // survivors that had to give way: move as little as possible
constexpr double kHintWeight = 1e3;  // new nodes derived from previous nodes
constexpr double kDummyWeight = 2;   // long edges prefer straight lines
constexpr double kLooseWeight = 0.1; // nodes without neighbours on the side of a sweep
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPinTolerance = 1e-2;  // canvas units

/// Compressed rows: the items of row i are list[start[i] .. start[i + 1]).
struct Csr {
  std::vector<uint32_t> start;
  std::vector<uint32_t> list;
  const uint32_t* begin(uint32_t i) const { return list.data() + start[i]; }
  const uint32_t* end(uint32_t i) const { return list.data() + start[i + 1]; }
  uint32_t count(uint32_t i) const { return start[i + 1] - start[i]; }

  /// Rows from (row, value) pairs; values keep the order of `pairs` within a row.
  static Csr build(uint32_t rows, const std::vector<uint32_t>& rowOf, const std::vector<uint32_t>& valueOf) {
    Csr c;
    c.start.assign(size_t(rows) + 1, 0);
    for (uint32_t r : rowOf) ++c.start[r + 1];
    for (uint32_t i = 0; i < rows; ++i) c.start[i + 1] += c.start[i];
    c.list.resize(rowOf.size());
    std::vector<uint32_t> fill(c.start.begin(), c.start.end() - 1);
    for (size_t k = 0; k < rowOf.size(); ++k) c.list[fill[rowOf[k]]++] = valueOf[k];
    return c;
  }
};

/// Median of a small set (mean of the two middle values for an even count). Reorders `v`.
double median(std::vector<double>& v) {
  size_t m = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + long(m), v.end());
  double hi = v[m];
  if (v.size() % 2 == 1) return hi;
  double lo = *std::max_element(v.begin(), v.begin() + long(m));
  return 0.5 * (lo + hi);
}

/// A pooled run of the pool-adjacent-violators algorithm: total weight, weighted sum, end.
struct PavBlock {
  double w, wy;
  uint32_t end;  // exclusive
};

class Builder {
 public:
  Builder(const ir::Graph& g, const LayoutOptions& o, const Layout* prev) : g_(g), o_(o), prev_(prev) {}

  Layout run() {
    collectNodes();
    matchPrevious();
    if (incremental_) layerIncremental();
    else layerFresh();
    buildVirtualGraph();
    initialOrder();
    stats_.initialCrossings = countInternalCrossings();
    stats_.crossings = stats_.initialCrossings;
    if (!incremental_) reduceCrossings();
    place();
    return emit();
  }

 private:
  // ------------------------------------------------------------------ graph
  void collectNodes() {
    n_ = uint32_t(g_.size());
    ir::NodeId maxId = 0;
    for (const ir::NodePtr& p : g_.nodes()) maxId = std::max(maxId, p->id);
    posById_.assign(n_ ? size_t(maxId) + 1 : 0, -1);
    for (uint32_t i = 0; i < n_; ++i) posById_[g_.at(i).id] = int32_t(i);

    // Distinct producers of every node (graph positions), in argument order.
    std::vector<uint32_t> stamp(n_, UINT32_MAX);
    std::vector<uint32_t> userCount(n_, 0);
    predStartAll_.assign(size_t(n_) + 1, 0);
    predAll_.clear();
    for (uint32_t i = 0; i < n_; ++i) {
      g_.at(i).forEachInput([&](const ir::ValueRef& r) {
        if (r.node >= posById_.size()) return;
        int32_t p = posById_[r.node];
        // Only earlier nodes: a graph that is not topologically ordered must not break us.
        if (p < 0 || uint32_t(p) >= i || stamp[size_t(p)] == i) return;
        stamp[size_t(p)] = i;
        predAll_.push_back(uint32_t(p));
        ++userCount[size_t(p)];
      });
      predStartAll_[i + 1] = uint32_t(predAll_.size());
    }

    // Badges: parameters with no inputs and at least one user, attached to their first user.
    attachUserPos_.assign(n_, -1);
    badge_.assign(n_, 0);
    if (o_.constantBadges) {
      for (uint32_t i = 0; i < n_; ++i)
        for (uint32_t k = predStartAll_[i]; k < predStartAll_[i + 1]; ++k) {
          uint32_t p = predAll_[k];
          if (badge_[p] || predStartAll_[p] != predStartAll_[p + 1] || !isParameterNode(g_, g_.at(p))) continue;
          badge_[p] = 1;
          attachUserPos_[p] = int32_t(i);
        }
    }
    // Attached constants: no inputs, exactly one user.
    if (o_.hideConstants) {
      for (uint32_t i = 0; i < n_; ++i)
        for (uint32_t k = predStartAll_[i]; k < predStartAll_[i + 1]; ++k) {
          uint32_t p = predAll_[k];
          if (!badge_[p] && userCount[p] == 1 && predStartAll_[p] == predStartAll_[p + 1] && isConstantNode(g_, g_.at(p)))
            attachUserPos_[p] = int32_t(i);
        }
    }

    realOfPos_.assign(n_, -1);
    posOfReal_.clear();
    for (uint32_t i = 0; i < n_; ++i)
      if (attachUserPos_[i] < 0) {
        realOfPos_[i] = int32_t(posOfReal_.size());
        posOfReal_.push_back(i);
      }
    r_ = uint32_t(posOfReal_.size());

    // Attached constants per real user, in graph order; real edges by target, argument order.
    std::vector<uint32_t> rows, vals;
    for (uint32_t i = 0; i < n_; ++i)
      if (attachUserPos_[i] >= 0 && !badge_[i]) {
        rows.push_back(uint32_t(realOfPos_[size_t(attachUserPos_[i])]));
        vals.push_back(i);
      }
    attached_ = Csr::build(r_, rows, vals);
    stats_.attachedConstants = uint32_t(rows.size());
    for (uint8_t b : badge_) stats_.badges += b;

    edgeFrom_.clear();
    edgeTo_.clear();
    std::vector<uint32_t> predRows;
    for (uint32_t r = 0; r < r_; ++r) {
      uint32_t i = posOfReal_[r];
      for (uint32_t k = predStartAll_[i]; k < predStartAll_[i + 1]; ++k) {
        int32_t pr = realOfPos_[predAll_[k]];
        if (pr < 0) continue;
        edgeFrom_.push_back(uint32_t(pr));
        edgeTo_.push_back(r);
      }
    }
    e_ = uint32_t(edgeFrom_.size());
    // Producers with more users than maxFanout: their edges become stubs.
    fanoutStub_.assign(r_, 0);
    if (o_.maxFanout > 0) {
      std::vector<uint32_t> users(r_, 0);
      for (uint32_t e = 0; e < e_; ++e) ++users[edgeFrom_[e]];
      for (uint32_t r = 0; r < r_; ++r) fanoutStub_[r] = users[r] > uint32_t(o_.maxFanout);
    }
    std::vector<uint32_t> ids(e_);
    for (uint32_t e = 0; e < e_; ++e) ids[e] = e;
    preds_ = Csr::build(r_, edgeTo_, ids);
    succs_ = Csr::build(r_, edgeFrom_, ids);
    dataPath_.assign(r_, 0);
    for (uint32_t r = 0; r < r_; ++r) {
      const ir::Node& node = g_.at(posOfReal_[r]);
      if (node.kind == ir::NodeKind::Placeholder && !isConstantNode(g_, node)) dataPath_[r] = 1;
      for (const uint32_t* e = preds_.begin(r); e != preds_.end(r) && !dataPath_[r]; ++e)
        dataPath_[r] = dataPath_[edgeFrom_[*e]];
    }

    // Widths and the extent attached constants add on the left.
    width_.resize(n_);
    for (uint32_t i = 0; i < n_; ++i) {
      float w = badge_[i] ? 0.f : o_.measureWidth ? o_.measureWidth(g_, g_.at(i)) : o_.nodeWidth;
      if (!(w >= o_.minNodeWidth) && !badge_[i]) w = o_.minNodeWidth;  // also catches NaN
      width_[i] = w;
    }
    stats_.realNodes = r_;
  }

  // ------------------------------------------------------------------ previous layout
  void matchPrevious() {
    prevBox_.assign(r_, -1);
    hintLayer_.assign(r_, -1);
    hintX_.assign(r_, 0.0);
    if (!prev_ || r_ == 0) return;
    uint32_t survivors = 0, hinted = 0;
    for (uint32_t r = 0; r < r_; ++r) {
      const ir::Node& node = g_.at(posOfReal_[r]);
      const NodeBox* b = prev_->find(node.id);
      if (b && !b->attached()) {
        prevBox_[r] = int32_t(b - prev_->nodes.data());
        ++survivors;
        continue;
      }
      int minLayer = INT32_MAX;
      double sumX = 0;
      int cnt = 0;
      for (ir::NodeId d : node.provenance.derivedFrom) {
        const NodeBox* db = prev_->find(d);
        if (!db || db->attached()) continue;
        minLayer = std::min(minLayer, db->layer);
        sumX += double(db->x) + 0.5 * double(db->w);
        ++cnt;
      }
      if (cnt) {
        hintLayer_[r] = minLayer;
        hintX_[r] = sumX / cnt;
        ++hinted;
      }
    }
    incremental_ = size_t(survivors + hinted) * 2 >= r_;
    stats_.incremental = incremental_;
  }

  // ------------------------------------------------------------------ layering
  /// Longest path from the sources, then every node moves to the side with more edges
  /// (down when it has at least as many users as inputs), then empty layers are removed.
  void layerFresh() {
    layer_.assign(r_, 0);
    for (uint32_t r = 0; r < r_; ++r)
      for (const uint32_t* e = preds_.begin(r); e != preds_.end(r); ++e)
        layer_[r] = std::max(layer_[r], layer_[edgeFrom_[*e]] + 1);
    pullTowardEdges([](uint32_t) { return true; });
    // Compact: drop layers without nodes (edges only get shorter).
    int maxL = 0;
    for (int l : layer_) maxL = std::max(maxL, l);
    std::vector<int> used(size_t(maxL) + 1, 0);
    for (int l : layer_) used[size_t(l)] = 1;
    int next = 0;
    for (int& u : used) u = u ? next++ : -1;
    for (int& l : layer_) l = used[size_t(l)];
    layerCount_ = r_ ? next : 0;
  }

  /// Survivors start at their previous layer, derived nodes at their origin's layer; every
  /// node is pushed down only as far as its inputs require. Other new nodes are placed as in
  /// a fresh layout. Layers are not compacted (removed nodes leave gaps, nothing moves up).
  void layerIncremental() {
    layer_.assign(r_, 0);
    for (uint32_t r = 0; r < r_; ++r) {
      int l = 0;
      if (prevBox_[r] >= 0) l = prev_->nodes[size_t(prevBox_[r])].layer;
      else if (hintLayer_[r] >= 0) l = hintLayer_[r];
      for (const uint32_t* e = preds_.begin(r); e != preds_.end(r); ++e) l = std::max(l, layer_[edgeFrom_[*e]] + 1);
      layer_[r] = std::max(l, 0);
    }
    // Nodes that only feed pushed-down nodes (weights, side inputs) move down with them.
    std::vector<int> seed(r_, -1);
    for (uint32_t r = 0; r < r_; ++r)
      if (prevBox_[r] >= 0) seed[r] = prev_->nodes[size_t(prevBox_[r])].layer;
      else if (hintLayer_[r] >= 0) seed[r] = hintLayer_[r];
    for (uint32_t r = r_; r-- > 0;) {
      if (seed[r] < 0) continue;
      int shift = INT32_MAX, hi = INT32_MAX;
      for (const uint32_t* e = succs_.begin(r); e != succs_.end(r); ++e) {
        uint32_t s = edgeTo_[*e];
        hi = std::min(hi, layer_[s] - 1);
        if (seed[s] >= 0) shift = std::min(shift, layer_[s] - seed[s]);
      }
      if (shift == INT32_MAX || seed[r] + shift <= layer_[r]) continue;
      layer_[r] = std::min(seed[r] + shift, hi);
    }
    pullTowardEdges([&](uint32_t r) { return seed[r] < 0; });
    int maxL = -1;
    for (int l : layer_) maxL = std::max(maxL, l);
    layerCount_ = maxL + 1;
  }

  /// One reverse and one forward pass moving the nodes `movable(r)` within their feasible
  /// range toward the side with more edges (network-simplex-like, one step).
  template <typename Pred>
  void pullTowardEdges(Pred movable) {
    for (uint32_t r = r_; r-- > 0;) {
      uint32_t out = succs_.count(r), in = preds_.count(r);
      if (out == 0 || out < in || !movable(r)) continue;
      int hi = INT32_MAX;
      for (const uint32_t* e = succs_.begin(r); e != succs_.end(r); ++e) hi = std::min(hi, layer_[edgeTo_[*e]] - 1);
      layer_[r] = std::max(layer_[r], hi);
    }
    for (uint32_t r = 0; r < r_; ++r) {
      uint32_t out = succs_.count(r), in = preds_.count(r);
      if (in == 0 || in <= out || !movable(r)) continue;
      int lo = 0;
      for (const uint32_t* e = preds_.begin(r); e != preds_.end(r); ++e) lo = std::max(lo, layer_[edgeFrom_[*e]] + 1);
      layer_[r] = std::min(layer_[r], lo);
    }
  }

  // ------------------------------------------------------------------ virtual graph
  void buildVirtualGraph() {
    itemLayer_.assign(layer_.begin(), layer_.end());
    dummyEdge_.clear();
    segUpper_.clear();
    segLower_.clear();
    segEdge_.clear();
    edgeFirstSeg_.assign(e_, 0);
    edgeDirect_.assign(e_, 0);
    uint32_t items = r_;
    for (uint32_t e = 0; e < e_; ++e) {
      uint32_t u = edgeFrom_[e], v = edgeTo_[e];
      int span = layer_[v] - layer_[u];
      edgeFirstSeg_[e] = uint32_t(segUpper_.size());
      if (span > 1 && fanoutStub_[u]) {
        edgeDirect_[e] = 2;
        ++stats_.stubEdges;
        continue;
      }
      if (o_.maxEdgeSpan > 0 && span > o_.maxEdgeSpan) {
        edgeDirect_[e] = 1;
        ++stats_.directEdges;
        continue;
      }
      uint32_t from = u;
      for (int k = 1; k < span; ++k) {
        uint32_t d = items++;
        itemLayer_.push_back(layer_[u] + k);
        dummyEdge_.push_back(e);
        addSegment(from, d, e);
        from = d;
      }
      addSegment(from, v, e);
    }
    items_ = items;
    stats_.dummies = items_ - r_;

    std::vector<uint32_t> segIds(segUpper_.size());
    for (uint32_t s = 0; s < segIds.size(); ++s) segIds[s] = s;
    down_ = Csr::build(items_, segUpper_, segIds);
    up_ = Csr::build(items_, segLower_, segIds);

    // Horizontal extents around each item's centre.
    leftExt_.assign(items_, 0.f);
    rightExt_.assign(items_, 0.f);
    for (uint32_t r = 0; r < r_; ++r) {
      float half = width_[posOfReal_[r]] * 0.5f;
      float attach = 0;
      for (const uint32_t* c = attached_.begin(r); c != attached_.end(r); ++c) attach += width_[*c] + o_.edgeGap;
      leftExt_[r] = half + attach;
      rightExt_[r] = half;
    }

    // Layer buckets.
    layerStart_.assign(size_t(layerCount_) + 1, 0);
    for (uint32_t v = 0; v < items_; ++v) ++layerStart_[size_t(itemLayer_[v]) + 1];
    for (int l = 0; l < layerCount_; ++l) layerStart_[size_t(l) + 1] += layerStart_[size_t(l)];
    order_.assign(items_, 0);
    rank_.assign(items_, 0);
  }

  void addSegment(uint32_t upper, uint32_t lower, uint32_t e) {
    segUpper_.push_back(upper);
    segLower_.push_back(lower);
    segEdge_.push_back(e);
  }

  bool isDummy(uint32_t v) const { return v >= r_; }
  /// A real node on the data path: reachable from a graph input that is not a constant. The
  /// others compute parameters (weights, their transposes): they hang off the spine.
  bool isSpine(uint32_t v) const { return v < r_ && dataPath_[v]; }
  uint32_t layerSize(int l) const { return layerStart_[size_t(l) + 1] - layerStart_[size_t(l)]; }
  uint32_t* layerBegin(int l) { return order_.data() + layerStart_[size_t(l)]; }

  // ------------------------------------------------------------------ in-layer order
  void initialOrder() {
    key_.assign(items_, 0.0);
    anchorX_.assign(items_, 0.0);
    anchorW_.assign(items_, 0.0);
    if (prev_ && r_ > 0 && (incremental_ || anyPrevious())) {
      estimateKeysFromPrevious();
    } else {
      // Graph order; a dummy follows its edge's source.
      for (uint32_t v = 0; v < items_; ++v)
        key_[v] = isDummy(v) ? double(posOfReal_[edgeFrom_[dummyEdge_[v - r_]]]) + 0.5 : double(posOfReal_[v]);
    }
    std::vector<uint32_t> fill(layerStart_.begin(), layerStart_.end() - 1);
    for (uint32_t v = 0; v < items_; ++v) order_[fill[size_t(itemLayer_[v])]++] = v;
    for (int l = 0; l < layerCount_; ++l) {
      uint32_t* b = layerBegin(l);
      std::sort(b, b + layerSize(l), [&](uint32_t a, uint32_t c) {
        if (key_[a] != key_[c]) return key_[a] < key_[c];
        return a < c;
      });
      for (uint32_t i = 0; i < layerSize(l); ++i) rank_[b[i]] = i;
    }
  }

  bool anyPrevious() const {
    for (int32_t b : prevBox_)
      if (b >= 0) return true;
    return false;
  }

  /// Anchors (x from `previous`) for survivors, derived nodes and the dummies of surviving
  /// long edges; every other item gets the mean x of its placed neighbours.
  void estimateKeysFromPrevious() {
    std::vector<uint8_t> known(items_, 0);
    for (uint32_t r = 0; r < r_; ++r) {
      if (prevBox_[r] >= 0) {
        const NodeBox& b = prev_->nodes[size_t(prevBox_[r])];
        anchorX_[r] = double(b.x) + 0.5 * double(b.w);
        anchorW_[r] = kPinWeight;
      } else if (hintLayer_[r] >= 0) {
        anchorX_[r] = hintX_[r];
        anchorW_[r] = kHintWeight;
      } else {
        continue;
      }
      known[r] = 1;
    }
    // Dummies of edges that existed before: the x the edge had in that layer.
    std::unordered_map<uint64_t, uint32_t> prevEdges;
    prevEdges.reserve(prev_->edges.size());
    for (uint32_t i = 0; i < prev_->edges.size(); ++i) {
      const EdgePath& p = prev_->edges[i];
      if (!p.direct) prevEdges.emplace((uint64_t(p.from) << 32) | p.to, i);
    }
    for (uint32_t d = r_; d < items_; ++d) {
      uint32_t e = dummyEdge_[d - r_];
      uint32_t u = edgeFrom_[e], v = edgeTo_[e];
      if (prevBox_[u] < 0 || prevBox_[v] < 0) continue;
      auto it = prevEdges.find((uint64_t(nodeId(u)) << 32) | nodeId(v));
      if (it == prevEdges.end()) continue;
      const EdgePath& p = prev_->edges[it->second];
      int prevSpan = prev_->nodes[size_t(prevBox_[v])].layer - prev_->nodes[size_t(prevBox_[u])].layer;
      int k = itemLayer_[d] - layer_[u];
      if (prevSpan < 1 || k >= prevSpan || p.points.size() != size_t(2 * prevSpan)) continue;
      anchorX_[d] = double(p.points[size_t(2 * k - 1)].x);
      anchorW_[d] = kPinWeight;
      known[d] = 1;
    }
    for (uint32_t v = 0; v < items_; ++v) key_[v] = anchorX_[v];
    if (!incremental_) {
      // Only the order is seeded: anchors do not constrain the placement.
      for (uint32_t v = 0; v < items_; ++v) anchorW_[v] = 0;
    }

    // Two rounds of down/up propagation for the others.
    std::vector<std::vector<uint32_t>> byLayer;  // items per layer in id order (once)
    byLayer.resize(size_t(layerCount_));
    for (uint32_t v = 0; v < items_; ++v) byLayer[size_t(itemLayer_[v])].push_back(v);
    std::vector<uint8_t> anchored(known);
    auto update = [&](uint32_t v) {
      if (anchored[v]) return;
      double sum = 0;
      int cnt = 0;
      for (const uint32_t* s = up_.begin(v); s != up_.end(v); ++s)
        if (known[segUpper_[*s]]) sum += key_[segUpper_[*s]], ++cnt;
      for (const uint32_t* s = down_.begin(v); s != down_.end(v); ++s)
        if (known[segLower_[*s]]) sum += key_[segLower_[*s]], ++cnt;
      if (cnt) {
        key_[v] = sum / cnt;
        known[v] = 1;
      }
    };
    for (int round = 0; round < 2; ++round) {
      for (int l = 0; l < layerCount_; ++l)
        for (uint32_t v : byLayer[size_t(l)]) update(v);
      for (int l = layerCount_; l-- > 0;)
        for (uint32_t v : byLayer[size_t(l)]) update(v);
    }
    // Still unknown (no placed neighbour at all): to the right of the layer.
    for (int l = 0; l < layerCount_; ++l) {
      double right = 0;
      bool any = false;
      for (uint32_t v : byLayer[size_t(l)])
        if (known[v]) right = any ? std::max(right, key_[v]) : key_[v], any = true;
      double step = o_.nodeWidth + o_.nodeGap;
      for (uint32_t v : byLayer[size_t(l)])
        if (!known[v]) right += step, key_[v] = right;
    }
  }

  ir::NodeId nodeId(uint32_t r) const { return g_.at(posOfReal_[r]).id; }

  /// Crossings between adjacent layers of the current order (Barth-Juenger-Mutzel
  /// accumulation with a Fenwick tree: O(E log V)).
  uint64_t countInternalCrossings() {
    uint64_t total = 0;
    std::vector<uint32_t> tree, ranks;
    for (int l = 0; l + 1 < layerCount_; ++l) {
      uint32_t m = layerSize(l + 1);
      tree.assign(size_t(m) + 1, 0);
      uint64_t inserted = 0;
      const uint32_t* b = layerBegin(l);
      for (uint32_t i = 0; i < layerSize(l); ++i) {
        uint32_t a = b[i];
        ranks.clear();
        for (const uint32_t* s = down_.begin(a); s != down_.end(a); ++s) ranks.push_back(rank_[segLower_[*s]]);
        for (uint32_t p : ranks) {
          uint64_t le = 0;  // inserted with rank <= p
          for (uint32_t k = p + 1; k > 0; k -= k & (~k + 1)) le += tree[k];
          total += inserted - le;
        }
        for (uint32_t p : ranks) {
          for (uint32_t k = p + 1; k <= m; k += k & (~k + 1)) ++tree[k];
          ++inserted;
        }
      }
    }
    return total;
  }

  /// Barycenter sweeps (down, then up) keeping the best order seen.
  void reduceCrossings() {
    uint64_t best = stats_.initialCrossings;
    std::vector<uint32_t> bestOrder;
    bool currentIsBest = true;
    std::vector<std::pair<double, uint32_t>> buf;
    for (int it = 0; it < o_.crossingSweeps && best > 0; ++it) {
      for (int dir = 0; dir < 2 && best > 0; ++dir) {
        bool down = dir == 0;
        if (currentIsBest) bestOrder = order_;
        for (int step = 1; step < layerCount_; ++step) {
          int l = down ? step : layerCount_ - 1 - step;
          uint32_t* b = layerBegin(l);
          uint32_t m = layerSize(l);
          buf.resize(m);
          for (uint32_t i = 0; i < m; ++i) {
            uint32_t v = b[i];
            double sum = 0;
            uint32_t cnt = 0;
            if (down) {
              for (const uint32_t* s = up_.begin(v); s != up_.end(v); ++s) sum += rank_[segUpper_[*s]], ++cnt;
            } else {
              for (const uint32_t* s = down_.begin(v); s != down_.end(v); ++s) sum += rank_[segLower_[*s]], ++cnt;
            }
            buf[i] = {cnt ? sum / cnt : double(i), i};
          }
          std::sort(buf.begin(), buf.end());
          scratch_.assign(b, b + m);
          for (uint32_t i = 0; i < m; ++i) {
            b[i] = scratch_[buf[i].second];
            rank_[b[i]] = i;
          }
        }
        uint64_t c = countInternalCrossings();
        currentIsBest = c < best;
        if (currentIsBest) best = c;
      }
    }
    if (!currentIsBest) {
      order_ = std::move(bestOrder);
      for (int l = 0; l < layerCount_; ++l) {
        uint32_t* b = layerBegin(l);
        for (uint32_t i = 0; i < layerSize(l); ++i) rank_[b[i]] = i;
      }
    }
    stats_.crossings = best;
  }

  // ------------------------------------------------------------------ coordinates
  double sep(uint32_t a, uint32_t b) const {
    double gap = (isDummy(a) || isDummy(b)) ? o_.edgeGap : o_.nodeGap;
    return double(rightExt_[a]) + double(leftExt_[b]) + gap;
  }

  void place() {
    x_.assign(items_, 0.0);
    hard_.assign(items_, 0);
    if (incremental_) {
      // Survivors are anchored; the least-squares sweeps place what is new around them.
      for (uint32_t v = 0; v < items_; ++v) x_[v] = key_[v];
      for (int l = 0; l < layerCount_; ++l) pinFeasible(l);
      for (int l = 0; l < layerCount_; ++l) solveLayer(l, Side::Self);  // overlap-free first
      leastSquaresSweeps();
      straightenChains();
      return;  // keep the previous frame: no shift
    }
    if (o_.placement != Placement::BrandesKoepf || !brandesKoepf()) {
      for (int l = 0; l < layerCount_; ++l) {
        uint32_t* b = layerBegin(l);
        uint32_t m = layerSize(l);
        if (!m) continue;
        double x = leftExt_[b[0]];
        x_[b[0]] = x;
        for (uint32_t i = 1; i < m; ++i) x_[b[i]] = x = x + sep(b[i - 1], b[i]);
        double mid = 0.5 * (x + rightExt_[b[m - 1]]);
        for (uint32_t i = 0; i < m; ++i) x_[b[i]] -= mid;
      }
      leastSquaresSweeps();
      straightenChains();
    }
    // Fresh layouts start at x = 0 (shifted here, before anything is rounded to float, so a
    // later incremental layout reproduces every coordinate).
    if (items_ > 0) {
      double minX = kInf;
      for (uint32_t v = 0; v < items_; ++v) minX = std::min(minX, x_[v] - double(leftExt_[v]));
      for (double& x : x_) x -= minX;
    }
  }

  void leastSquaresSweeps() {
    for (int s = 0; s < o_.placementSweeps; ++s) {
      for (int l = 1; l < layerCount_; ++l) solveLayer(l, Side::Up);
      for (int l = layerCount_ - 1; l-- > 0;) solveLayer(l, Side::Down);
    }
    if (o_.placementSweeps > 0) {
      for (int l = 0; l < layerCount_; ++l) solveLayer(l, Side::Both);
      for (int l = layerCount_; l-- > 0;) solveLayer(l, Side::Both);
    }
  }

  // ---- Brandes-Koepf (with the block-graph compaction of dagre) ----

  /// Which neighbours an item may align with: a real node prefers its spine neighbours (not
  /// long edges, not weights and their transposes) so the data path stays straight; a dummy
  /// aligns only with the other dummies of its edge.
  template <typename Fn>
  void alignmentCandidates(uint32_t v, bool upper, Fn&& fn) const {
    const Csr& csr = upper ? up_ : down_;
    const std::vector<uint32_t>& other = upper ? segUpper_ : segLower_;
    if (isDummy(v)) {
      // Only along its edge's other dummies: the real end nodes are left to their spines.
      for (const uint32_t* s = csr.begin(v); s != csr.end(v); ++s)
        if (isDummy(other[*s])) fn(other[*s], *s);
      return;
    }
    bool any = false;
    for (const uint32_t* s = csr.begin(v); s != csr.end(v); ++s)
      if (isSpine(other[*s])) fn(other[*s], *s), any = true;
    if (!any)
      for (const uint32_t* s = csr.begin(v); s != csr.end(v); ++s) fn(other[*s], *s);
  }

  /// Type-1 conflicts: a segment between two dummies (part of a long edge) wins over any
  /// segment crossing it, so long edges stay straight.
  void markConflicts(std::vector<uint8_t>& conflict) {
    conflict.assign(segUpper_.size(), 0);
    for (int l = 1; l < layerCount_; ++l) {
      const uint32_t* layer = layerBegin(l);
      uint32_t m = layerSize(l), prevLen = layerSize(l - 1);
      uint32_t k0 = 0, scanPos = 0;
      for (uint32_t i = 0; i < m; ++i) {
        uint32_t v = layer[i];
        int64_t w = -1;
        if (isDummy(v) && up_.count(v) == 1 && isDummy(segUpper_[*up_.begin(v)])) w = segUpper_[*up_.begin(v)];
        uint32_t k1 = w >= 0 ? rank_[size_t(w)] : prevLen;
        if (w < 0 && i + 1 != m) continue;
        for (uint32_t j = scanPos; j <= i; ++j) {
          uint32_t sv = layer[j];
          for (const uint32_t* s = up_.begin(sv); s != up_.end(sv); ++s) {
            uint32_t u = segUpper_[*s];
            if ((rank_[u] < k0 || k1 < rank_[u]) && !(isDummy(u) && isDummy(sv))) conflict[*s] = 1;
          }
        }
        scanPos = i + 1;
        k0 = k1;
      }
    }
  }

  /// One of the four alignments (vertical: toward upper or lower neighbours; horizontal:
  /// left-to-right or mirrored) and its compaction. Returns false if the block graph has a
  /// cycle (cannot happen for a consistent alignment; a guard, not a path).
  bool alignAndCompact(bool downward, bool leftToRight, const std::vector<uint8_t>& conflict, std::vector<double>& xs) {
    std::vector<uint32_t> root(items_), align(items_);
    for (uint32_t v = 0; v < items_; ++v) root[v] = align[v] = v;
    auto pos = [&](uint32_t v) -> int64_t {
      return leftToRight ? int64_t(rank_[v]) : int64_t(layerSize(itemLayer_[v])) - 1 - int64_t(rank_[v]);
    };
    std::vector<std::pair<int64_t, std::pair<uint32_t, uint32_t>>> ws;  // (pos, (item, segment))
    for (int step = 0; step < layerCount_; ++step) {
      int l = downward ? step : layerCount_ - 1 - step;
      const uint32_t* layer = layerBegin(l);
      uint32_t m = layerSize(l);
      int64_t prevIdx = -1;
      for (uint32_t k = 0; k < m; ++k) {
        uint32_t v = leftToRight ? layer[k] : layer[m - 1 - k];
        ws.clear();
        alignmentCandidates(v, downward, [&](uint32_t w, uint32_t seg) { ws.push_back({pos(w), {w, seg}}); });
        if (ws.empty()) continue;
        std::sort(ws.begin(), ws.end());
        size_t d = ws.size();
        for (size_t i = (d - 1) / 2; i <= d / 2; ++i) {
          auto [pw, ref] = ws[i];
          auto [w, seg] = ref;
          if (align[v] == v && prevIdx < pw && !conflict[seg]) {
            align[w] = v;
            root[v] = root[w];
            align[v] = root[v];
            prevIdx = pw;
          }
        }
      }
    }
    // Block graph: root of the left item -> root of the right item, with their separation.
    std::vector<uint32_t> from, to;
    std::vector<double> wt;
    for (int l = 0; l < layerCount_; ++l) {
      const uint32_t* layer = layerBegin(l);
      uint32_t m = layerSize(l);
      for (uint32_t k = 1; k < m; ++k) {
        uint32_t u = leftToRight ? layer[k - 1] : layer[m - k];
        uint32_t v = leftToRight ? layer[k] : layer[m - 1 - k];
        from.push_back(root[u]);
        to.push_back(root[v]);
        wt.push_back(leftToRight ? sep(u, v) : sep(v, u));
      }
    }
    std::vector<uint32_t> ids(from.size());
    for (uint32_t i = 0; i < ids.size(); ++i) ids[i] = i;
    Csr outE = Csr::build(items_, from, ids), inE = Csr::build(items_, to, ids);
    // Topological order of the roots (Kahn).
    std::vector<uint32_t> indeg(items_, 0), topo;
    topo.reserve(items_);
    uint32_t roots = 0;
    for (uint32_t v = 0; v < items_; ++v) {
      if (root[v] != v) continue;
      ++roots;
      indeg[v] = inE.count(v);
      if (!indeg[v]) topo.push_back(v);
    }
    for (size_t h = 0; h < topo.size(); ++h)
      for (const uint32_t* e = outE.begin(topo[h]); e != outE.end(topo[h]); ++e)
        if (--indeg[to[*e]] == 0) topo.push_back(to[*e]);
    if (topo.size() != roots) return false;
    std::vector<double> bx(items_, 0.0);
    for (uint32_t v : topo)  // smallest coordinates
      for (const uint32_t* e = inE.begin(v); e != inE.end(v); ++e) bx[v] = std::max(bx[v], bx[from[*e]] + wt[*e]);
    for (size_t h = topo.size(); h-- > 0;) {  // then as far right as the right neighbours allow
      uint32_t v = topo[h];
      double mn = kInf;
      for (const uint32_t* e = outE.begin(v); e != outE.end(v); ++e) mn = std::min(mn, bx[to[*e]] - wt[*e]);
      if (mn != kInf) bx[v] = std::max(bx[v], mn);
    }
    xs.resize(items_);
    for (uint32_t v = 0; v < items_; ++v) xs[v] = leftToRight ? bx[root[v]] : -bx[root[v]];
    return true;
  }

  /// Four alignments, aligned to the narrowest, then per item the mean of the two middle
  /// candidates (which keeps every separation: order statistics preserve them).
  bool brandesKoepf() {
    if (!items_) return true;
    std::vector<uint8_t> conflict;
    markConflicts(conflict);
    std::vector<double> xs[4];
    for (int k = 0; k < 4; ++k)
      if (!alignAndCompact(k < 2, k % 2 == 0, conflict, xs[k])) return false;
    double minX[4], maxX[4];
    int narrowest = 0;
    double best = kInf;
    for (int k = 0; k < 4; ++k) {
      double lo = kInf, hi = -kInf, elo = kInf, ehi = -kInf;
      for (uint32_t v = 0; v < items_; ++v) {
        lo = std::min(lo, xs[k][v]);
        hi = std::max(hi, xs[k][v]);
        elo = std::min(elo, xs[k][v] - leftExt_[v]);
        ehi = std::max(ehi, xs[k][v] + rightExt_[v]);
      }
      minX[k] = lo;
      maxX[k] = hi;
      if (ehi - elo < best) best = ehi - elo, narrowest = k;
    }
    for (int k = 0; k < 4; ++k) {
      double delta = k % 2 == 0 ? minX[narrowest] - minX[k] : maxX[narrowest] - maxX[k];
      if (delta != 0)
        for (double& x : xs[k]) x += delta;
    }
    for (uint32_t v = 0; v < items_; ++v) {
      double c[4] = {xs[0][v], xs[1][v], xs[2][v], xs[3][v]};
      std::sort(c, c + 4);
      x_[v] = 0.5 * (c[1] + c[2]);
    }
    return true;
  }

  /// Chains (an item with one lower neighbour whose lower neighbour has one upper neighbour:
  /// runs of single-input single-user nodes, long-edge dummies) are put on one vertical line
  /// when their rows have room for it, longest chains first. Anchored items are left alone.
  void straightenChains() {
    auto linkDown = [&](uint32_t v) -> int64_t {  // the next chain member below v, or -1
      if (down_.count(v) != 1) return -1;
      uint32_t w = segLower_[*down_.begin(v)];
      return up_.count(w) == 1 ? int64_t(w) : -1;
    };
    std::vector<std::pair<uint32_t, uint32_t>> chains;  // (length, head)
    for (uint32_t v = 0; v < items_; ++v) {
      if (up_.count(v) == 1 && linkDown(segUpper_[*up_.begin(v)]) >= 0) continue;  // not a head
      uint32_t len = 1;
      for (int64_t w = linkDown(v); w >= 0; w = linkDown(uint32_t(w))) ++len;
      if (len >= 2) chains.push_back({len, v});
    }
    std::sort(chains.begin(), chains.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    std::vector<uint32_t>& members = scratch_;
    std::vector<double>& xs = neighbours_;
    for (const auto& [len, head] : chains) {
      members.clear();
      bool fixed = false;
      for (int64_t w = head; w >= 0; w = linkDown(uint32_t(w))) {
        members.push_back(uint32_t(w));
        fixed = fixed || hard_[size_t(w)] || anchorW_[size_t(w)] > 0;
      }
      if (fixed) continue;
      double lo = -kInf, hi = kInf;
      xs.clear();
      for (uint32_t v : members) {
        xs.push_back(x_[v]);
        int l = itemLayer_[v];
        const uint32_t* b = layerBegin(l);
        uint32_t i = rank_[v], m = layerSize(l);
        if (i > 0) lo = std::max(lo, x_[b[i - 1]] + sep(b[i - 1], v));
        if (i + 1 < m) hi = std::min(hi, x_[b[i + 1]] - sep(v, b[i + 1]));
      }
      if (lo > hi) continue;
      double t = std::clamp(median(xs), lo, hi);
      for (uint32_t v : members) x_[v] = t;
    }
  }

  /// Survivors (and surviving edge routes) of layer l stay exactly where they were when the
  /// items ordered between them fit; otherwise both ends of a pair that does not fit are
  /// released (they keep a heavy pull toward their old x).
  void pinFeasible(int l) {
    uint32_t* b = layerBegin(l);
    uint32_t m = layerSize(l);
    std::vector<double>& off = offsets_;
    off.resize(m);
    double acc = 0;
    for (uint32_t i = 0; i < m; ++i) {
      if (i) acc += sep(b[i - 1], b[i]);
      off[i] = acc;
    }
    std::vector<uint32_t>& stack = scratch_;
    stack.clear();
    for (uint32_t i = 0; i < m; ++i) {
      uint32_t v = b[i];
      if (anchorW_[v] < kPinWeight) continue;
      if (!stack.empty()) {
        uint32_t j = stack.back();
        // Tolerance: previous coordinates went through float; tight pairs must stay pinned.
        if (x_[v] - x_[b[j]] < off[i] - off[j] - kPinTolerance) {
          hard_[b[j]] = 0;
          stack.pop_back();
          continue;  // v is released too
        }
      }
      hard_[v] = 1;
      stack.push_back(i);
    }
  }

  enum class Side { Self, Up, Down, Both };

  /// Weighted least-squares placement of layer l: each item pulled to the median x of its
  /// neighbours on `side` (anchored items to their anchor), hard-pinned items fixed, no two
  /// items closer than their separation. Exact, O(m) by pool-adjacent-violators.
  void solveLayer(int l, Side side) {
    uint32_t* b = layerBegin(l);
    uint32_t m = layerSize(l);
    if (!m) return;
    std::vector<double>& off = offsets_;
    std::vector<double>& target = target_;
    std::vector<double>& weight = weight_;
    off.resize(m);
    target.resize(m);
    weight.resize(m);
    double acc = 0;
    std::vector<double>& nb = neighbours_;
    for (uint32_t i = 0; i < m; ++i) {
      uint32_t v = b[i];
      if (i) acc += sep(b[i - 1], v);
      off[i] = acc;
      double d = x_[v], w = kLooseWeight;
      if (anchorW_[v] > 0) {
        d = anchorX_[v];
        w = anchorW_[v];
      } else if (side != Side::Self) {
        // A node follows its spine neighbours: not long edges (dummies bend around it) and not
        // weights or what computes them (they follow their user instead). Only when it has no
        // such neighbour on this side does it follow the others. Dummies follow anything.
        nb.clear();
        for (int pass = isDummy(v) ? 1 : 0; pass < 2 && nb.empty(); ++pass) {
          bool all = pass == 1;
          if (side == Side::Up || side == Side::Both)
            for (const uint32_t* s = up_.begin(v); s != up_.end(v); ++s)
              if (all || isSpine(segUpper_[*s])) nb.push_back(x_[segUpper_[*s]]);
          if (side == Side::Down || side == Side::Both)
            for (const uint32_t* s = down_.begin(v); s != down_.end(v); ++s)
              if (all || isSpine(segLower_[*s])) nb.push_back(x_[segLower_[*s]]);
        }
        if (!nb.empty()) {
          d = median(nb);
          w = isDummy(v) ? kDummyWeight : 1.0;
        }
      }
      target[i] = d - off[i];
      weight[i] = w;
    }
    // Segments of free items between hard-pinned ones: isotonic regression, clamped.
    double lo = -kInf;
    uint32_t i = 0;
    while (i < m) {
      if (hard_[b[i]]) {
        lo = x_[b[i]] - off[i];
        ++i;
        continue;
      }
      uint32_t j = i;
      while (j < m && !hard_[b[j]]) ++j;
      double hi = j < m ? x_[b[j]] - off[j] : kInf;
      isotonic(i, j, lo, hi);
      for (uint32_t k = i; k < j; ++k) x_[b[k]] = target[k] + off[k];  // isotonic wrote y into target
      i = j;
    }
  }

  /// Pool-adjacent-violators on target_[i..j) with weights weight_, result clamped to
  /// [lo, hi], written back into target_.
  void isotonic(uint32_t i, uint32_t j, double lo, double hi) {
    std::vector<PavBlock>& st = blocks_;
    st.clear();
    for (uint32_t k = i; k < j; ++k) {
      PavBlock bl{weight_[k], weight_[k] * target_[k], k + 1};
      while (!st.empty() && st.back().wy * bl.w >= bl.wy * st.back().w) {
        bl.w += st.back().w;
        bl.wy += st.back().wy;
        st.pop_back();
      }
      st.push_back(bl);
    }
    uint32_t k = i;
    for (const PavBlock& bl : st) {
      double y = std::clamp(bl.wy / bl.w, lo, hi);
      for (; k < bl.end; ++k) target_[k] = y;
    }
  }

  // ------------------------------------------------------------------ output
  Layout emit() {
    Layout out;
    const float pitch = o_.nodeHeight + o_.layerGap;
    out.layerCount = layerCount_;
    out.layerPitch = pitch;
    out.rowHeight = o_.nodeHeight;
    auto rowTop = [&](int l) { return float(l) * pitch; };
    auto rowBottom = [&](int l) { return float(l) * pitch + o_.nodeHeight; };

    // Boxes, in graph order.
    out.nodes.resize(n_);
    size_t idCount = posById_.size();
    out.indexById.assign(idCount, -1);
    for (uint32_t i = 0; i < n_; ++i) {
      NodeBox& bx = out.nodes[i];
      bx.id = g_.at(i).id;
      bx.w = width_[i];
      bx.h = o_.nodeHeight;
      out.indexById[bx.id] = int32_t(i);
      int32_t r = realOfPos_[i];
      if (r < 0) continue;  // attached: below
      bx.layer = layer_[size_t(r)];
      bx.x = float(x_[size_t(r)] - 0.5 * double(bx.w));
      bx.y = rowTop(bx.layer);
    }
    for (uint32_t i = 0; i < n_; ++i) {
      if (!badge_[i]) continue;
      NodeBox& bx = out.nodes[i];
      const NodeBox& user = out.nodes[size_t(attachUserPos_[i])];
      bx.attachedTo = user.id;
      bx.badge = true;
      bx.layer = user.layer;
      bx.x = user.x;
      bx.y = user.y;
      bx.w = bx.h = 0;
    }
    for (uint32_t r = 0; r < r_; ++r) {
      const NodeBox& user = out.nodes[posOfReal_[r]];
      float cursor = user.x - float(leftExt_[r] - rightExt_[r]);
      for (const uint32_t* c = attached_.begin(r); c != attached_.end(r); ++c) {
        NodeBox& bx = out.nodes[*c];
        bx.attachedTo = user.id;
        bx.layer = user.layer;
        bx.x = cursor;
        bx.y = user.y;
        cursor += bx.w + o_.edgeGap;
      }
    }

    // Ports: out-edges spread over the bottom of a box ordered by where they go, in-edges
    // over the top ordered by where they come from. Dummies: their x.
    std::vector<float> srcPort(segUpper_.size()), dstPort(segUpper_.size());
    std::vector<std::pair<double, uint32_t>> buf;
    auto spread = [&](uint32_t r, const Csr& csr, const std::vector<uint32_t>& other, std::vector<float>& port) {
      const NodeBox& bx = out.nodes[posOfReal_[r]];
      uint32_t cnt = csr.count(r);
      buf.clear();
      for (const uint32_t* s = csr.begin(r); s != csr.end(r); ++s) buf.push_back({x_[other[*s]], *s});
      std::sort(buf.begin(), buf.end());
      for (uint32_t k = 0; k < cnt; ++k) port[buf[k].second] = bx.x + bx.w * float(k + 1) / float(cnt + 1);
    };
    for (uint32_t v = 0; v < items_; ++v) {
      if (isDummy(v)) {
        for (const uint32_t* s = down_.begin(v); s != down_.end(v); ++s) srcPort[*s] = float(x_[v]);
        for (const uint32_t* s = up_.begin(v); s != up_.end(v); ++s) dstPort[*s] = float(x_[v]);
      } else {
        spread(v, down_, segLower_, srcPort);
        spread(v, up_, segUpper_, dstPort);
      }
    }

    // Paths: per target, its attached constants first, then its inputs in argument order.
    out.edges.reserve(e_ + stats_.attachedConstants);
    for (uint32_t r = 0; r < r_; ++r) {
      const NodeBox& user = out.nodes[posOfReal_[r]];
      uint32_t k = attached_.count(r);
      if (k) {
        // Nearest constant: lowest bus, leftmost port, so the routes never cross.
        float dStep = std::min(8.f, 0.45f * o_.layerGap / float(k));
        float portStep = std::min(8.f, 0.25f * user.w / float(k + 1));
        for (uint32_t c = 0; c < k; ++c) {
          const NodeBox& cb = out.nodes[attached_.begin(r)[c]];
          uint32_t nearness = k - 1 - c;  // 0 for the constant next to the user
          float busY = user.y - dStep * float(nearness + 1);
          float px = user.x + portStep * float(nearness + 1);
          EdgePath p;
          p.from = cb.id;
          p.to = user.id;
          p.points = {{cb.centerX(), cb.y}, {cb.centerX(), busY}, {px, busY}, {px, user.y}};
          out.edges.push_back(std::move(p));
        }
      }
      for (const uint32_t* ep = preds_.begin(r); ep != preds_.end(r); ++ep) {
        uint32_t e = *ep, u = edgeFrom_[e];
        const NodeBox& src = out.nodes[posOfReal_[u]];
        EdgePath p;
        p.from = src.id;
        p.to = user.id;
        if (edgeDirect_[e]) {
          p.direct = edgeDirect_[e] == 1;
          p.stub = edgeDirect_[e] == 2;
          p.points = {{src.centerX(), rowBottom(src.layer)}, {user.centerX(), rowTop(user.layer)}};
        } else {
          int span = layer_[r] - layer_[u];
          p.points.reserve(size_t(2 * span));
          uint32_t s0 = edgeFirstSeg_[e];
          p.points.push_back({srcPort[s0], rowBottom(src.layer)});
          for (int k2 = 1; k2 < span; ++k2) {
            float dx = float(x_[segLower_[s0 + uint32_t(k2) - 1]]);
            p.points.push_back({dx, rowTop(src.layer + k2)});
            p.points.push_back({dx, rowBottom(src.layer + k2)});
          }
          p.points.push_back({dstPort[s0 + uint32_t(span) - 1], rowTop(user.layer)});
        }
        out.edges.push_back(std::move(p));
      }
    }

    float minX = std::numeric_limits<float>::max(), maxX = std::numeric_limits<float>::lowest();
    float minY = 0, maxY = 0;
    for (const NodeBox& bx : out.nodes) {
      if (bx.badge) continue;
      minX = std::min(minX, bx.x);
      maxX = std::max(maxX, bx.x + bx.w);
      maxY = std::max(maxY, bx.y + bx.h);
    }
    for (const EdgePath& p : out.edges)
      for (const Point& pt : p.points) {
        minX = std::min(minX, pt.x);
        maxX = std::max(maxX, pt.x);
        minY = std::min(minY, pt.y);
      }
    if (out.nodes.empty()) minX = maxX = 0;
    out.minX = minX;
    out.minY = minY;
    out.width = maxX - minX;
    out.height = maxY - minY;

    if (prev_) {
      for (uint32_t r = 0; r < r_; ++r) {
        if (prevBox_[r] < 0) continue;
        const NodeBox& a = prev_->nodes[size_t(prevBox_[r])];
        const NodeBox& bx = out.nodes[posOfReal_[r]];
        if (a.x == bx.x && a.w == bx.w) {
          if (a.y == bx.y) ++stats_.kept;
          else ++stats_.shifted;
        } else {
          ++stats_.moved;
        }
      }
    }
    out.stats = stats_;
    return out;
  }

  // inputs
  const ir::Graph& g_;
  const LayoutOptions& o_;
  const Layout* prev_;
  LayoutStats stats_;

  // graph (positions are indices into g_.nodes(); "real" nodes take part in layering)
  uint32_t n_ = 0, r_ = 0, e_ = 0;
  std::vector<int32_t> posById_;
  std::vector<uint32_t> predStartAll_, predAll_;
  std::vector<int32_t> attachUserPos_, realOfPos_;
  std::vector<uint8_t> badge_;       // by position: drawn as a badge of its first user
  std::vector<uint8_t> fanoutStub_;  // real -> its edges are stubs (more than maxFanout users)
  std::vector<uint32_t> posOfReal_;
  std::vector<float> width_;  // by position
  Csr attached_;              // real -> attached constants (positions)
  std::vector<uint32_t> edgeFrom_, edgeTo_;  // real edges, by target then argument order
  Csr preds_, succs_;                        // real -> edge ids
  std::vector<uint8_t> dataPath_;            // real -> reachable from a non-constant input

  // previous layout
  bool incremental_ = false;
  std::vector<int32_t> prevBox_;  // real -> index into prev_->nodes, -1 if new
  std::vector<int> hintLayer_;
  std::vector<double> hintX_;

  // layering and the virtual graph (items: real nodes, then dummies)
  std::vector<int> layer_;
  int layerCount_ = 0;
  uint32_t items_ = 0;
  std::vector<int> itemLayer_;
  std::vector<uint32_t> dummyEdge_;  // dummy - r_ -> edge
  std::vector<uint32_t> segUpper_, segLower_, segEdge_;
  std::vector<uint32_t> edgeFirstSeg_;
  std::vector<uint8_t> edgeDirect_;  // 0 routed, 1 direct (span), 2 stub (fan-out)
  Csr down_, up_;  // item -> segment ids
  std::vector<float> leftExt_, rightExt_;

  // order and coordinates
  std::vector<uint32_t> layerStart_, order_, rank_;
  std::vector<double> key_, anchorX_, anchorW_, x_;
  std::vector<uint8_t> hard_;

  // scratch
  std::vector<uint32_t> scratch_;
  std::vector<double> offsets_, target_, weight_, neighbours_;
  std::vector<PavBlock> blocks_;
};

}  // namespace

Layout computeLayout(const ir::Graph& g, const LayoutOptions& options, const Layout* previous) {
  return Builder(g, options, previous).run();
}

}  // namespace ls::graph_layout

namespace ls::graph_layout {

std::vector<uint8_t> occupiedLayers(const Layout& layout) {
  std::vector<uint8_t> occ(size_t(std::max(layout.layerCount, 0)), 0);
  for (const NodeBox& b : layout.nodes)
    if (!b.badge && b.layer >= 0 && size_t(b.layer) < occ.size()) occ[size_t(b.layer)] = 1;
  return occ;
}

Layout compactLayers(const Layout& in, const std::vector<uint8_t>& keep) {
  const int n = in.layerCount;
  if (n <= 0 || in.layerPitch <= 0) return in;
  std::vector<int> newLayer(size_t(n), -1);
  int next = 0;
  for (int l = 0; l < n; ++l)
    if (size_t(l) >= keep.size() || keep[size_t(l)]) newLayer[size_t(l)] = next++;
  if (next == n) return in;
  Layout out = in;
  const float pitch = in.layerPitch, gap = pitch - in.rowHeight;
  auto layerOf = [&](float y) { return std::clamp(int(std::floor((y + gap - 1e-3f * pitch) / pitch)), 0, n - 1); };
  for (NodeBox& b : out.nodes) {
    if (b.layer < 0 || b.layer >= n) continue;
    int nl = newLayer[size_t(b.layer)];
    if (nl < 0) continue;  // only badges can sit in a removed layer; they follow their user below
    b.y += float(nl - b.layer) * pitch;
    b.layer = nl;
  }
  for (NodeBox& b : out.nodes)
    if (b.badge)
      if (const NodeBox* u = out.find(b.attachedTo)) b.x = u->x, b.y = u->y, b.layer = u->layer;
  for (EdgePath& e : out.edges) {
    std::vector<Point> pts;
    pts.reserve(e.points.size());
    for (size_t i = 0; i < e.points.size(); ++i) {
      int l = layerOf(e.points[i].y);
      int nl = newLayer[size_t(l)];
      // The end points always stay (they sit on boxes, which are in kept layers).
      if (nl < 0 && i != 0 && i + 1 != e.points.size()) continue;
      if (nl < 0) nl = l;
      pts.push_back({e.points[i].x, e.points[i].y + float(nl - l) * pitch});
    }
    e.points = std::move(pts);
  }
  out.layerCount = next;
  float minY = std::numeric_limits<float>::max(), maxY = std::numeric_limits<float>::lowest();
  for (const NodeBox& b : out.nodes)
    if (!b.badge) minY = std::min(minY, b.y), maxY = std::max(maxY, b.y + b.h);
  for (const EdgePath& e : out.edges)
    for (const Point& p : e.points) minY = std::min(minY, p.y), maxY = std::max(maxY, p.y);
  if (minY <= maxY) out.minY = minY, out.height = maxY - minY;
  return out;
}

WrapSpec chooseWrap(const Layout& layout, float viewW, float viewH, float maxZoom, float columnGap) {
  WrapSpec best;
  best.columnGap = columnGap;
  if (layout.layerCount <= 1 || layout.layerPitch <= 0 || viewW <= 0 || viewH <= 0) return best;
  const float w = std::max(layout.width, 1.f);
  auto zoomFor = [&](int perColumn) {
    int cols = (layout.layerCount + perColumn - 1) / perColumn;
    float totalW = float(cols) * w + float(cols - 1) * columnGap;
    float totalH = float(std::min(perColumn, layout.layerCount)) * layout.layerPitch;
    return std::min({viewW / totalW, viewH / totalH, maxZoom});
  };
  float bestZoom = zoomFor(layout.layerCount);
  int bestPer = layout.layerCount;
  for (int cols = 2; cols <= 64; ++cols) {
    int per = (layout.layerCount + cols - 1) / cols;
    if (per < 2) break;
    float z = zoomFor(per);
    if (z > bestZoom * 1.05f) bestZoom = z, bestPer = per;
  }
  best.layersPerColumn = bestPer >= layout.layerCount ? 0 : bestPer;
  return best;
}

Layout wrapColumns(const Layout& in, const WrapSpec& spec) {
  if (spec.columns(in) <= 1 || in.layerPitch <= 0) return in;
  Layout out = in;
  const int per = spec.layersPerColumn;
  const float pitch = in.layerPitch, gap = pitch - in.rowHeight;
  const float colW = in.width + spec.columnGap;
  // The layer a y belongs to: its row, or the gap above its row (edge buses of constants).
  auto layerOf = [&](float y) { return int(std::floor((y + gap - 1e-3f * pitch) / pitch)); };
  auto columnOf = [&](int layer) { return std::max(0, layer) / per; };
  auto shift = [&](Point p, int col) { return Point{p.x + float(col) * colW, p.y - float(col * per) * pitch}; };
  for (NodeBox& b : out.nodes) {
    int col = columnOf(b.layer);
    b.x += float(col) * colW;
    b.y -= float(col * per) * pitch;
  }
  const float stub = std::min(0.45f * gap, 16.f);
  for (EdgePath& e : out.edges) {
    std::vector<Point> pts;
    std::vector<uint32_t> breaks;
    pts.reserve(e.points.size() + 4);
    for (size_t i = 0; i < e.points.size(); ++i) {
      const Point& p = e.points[i];
      int col = columnOf(layerOf(p.y));
      if (i > 0) {
        const Point& q = e.points[i - 1];
        int qcol = columnOf(layerOf(q.y));
        if (qcol != col) {
          // Leave the bottom of q's column, re-enter at the top of p's column.
          Point exit = shift(q, qcol);
          pts.push_back({exit.x, exit.y + stub});
          breaks.push_back(uint32_t(pts.size()));
          Point entry = shift(p, col);
          pts.push_back({entry.x, entry.y - stub});
        }
      }
      pts.push_back(shift(p, col));
    }
    e.points = std::move(pts);
    e.breaks = std::move(breaks);
  }
  // The frame: columns side by side, as tall as the tallest column.
  float minX = std::numeric_limits<float>::max(), maxX = std::numeric_limits<float>::lowest();
  float minY = std::numeric_limits<float>::max(), maxY = std::numeric_limits<float>::lowest();
  for (const NodeBox& b : out.nodes) {
    if (b.badge) continue;
    minX = std::min(minX, b.x), maxX = std::max(maxX, b.x + b.w);
    minY = std::min(minY, b.y), maxY = std::max(maxY, b.y + b.h);
  }
  for (const EdgePath& e : out.edges)
    for (const Point& p : e.points) minX = std::min(minX, p.x), maxX = std::max(maxX, p.x), minY = std::min(minY, p.y), maxY = std::max(maxY, p.y);
  if (minX > maxX) return out;
  out.minX = minX, out.minY = minY, out.width = maxX - minX, out.height = maxY - minY;
  return out;
}

uint64_t countCrossings(const Layout& layout) {
  // Segments from the bottom of row l to the top of row l + 1, per gap l.
  std::vector<std::pair<int, std::pair<float, float>>> segs;
  const float pitch = layout.layerPitch, row = layout.rowHeight;
  if (pitch <= 0) return 0;
  for (const EdgePath& p : layout.edges) {
    if (p.direct || p.stub) continue;
    const NodeBox* from = layout.find(p.from);
    if (!from || from->attached()) continue;
    for (size_t i = 0; i + 1 < p.points.size(); ++i) {
      const Point& a = p.points[i];
      const Point& b = p.points[i + 1];
      if (!(b.y > a.y)) continue;
      int l = int(std::lround((a.y - row) / pitch));
      if (std::fabs(a.y - (float(l) * pitch + row)) > 1e-3f * pitch) continue;  // a run inside a row
      segs.push_back({l, {a.x, b.x}});
    }
  }
  std::sort(segs.begin(), segs.end());
  uint64_t total = 0;
  std::vector<float> bottoms;
  std::vector<uint32_t> tree;
  for (size_t s = 0; s < segs.size();) {
    size_t e = s;
    while (e < segs.size() && segs[e].first == segs[s].first) ++e;
    // One gap: count pairs with top_i < top_j and bottom_i > bottom_j (Fenwick over bottoms).
    bottoms.clear();
    for (size_t k = s; k < e; ++k) bottoms.push_back(segs[k].second.second);
    std::sort(bottoms.begin(), bottoms.end());
    bottoms.erase(std::unique(bottoms.begin(), bottoms.end()), bottoms.end());
    tree.assign(bottoms.size() + 1, 0);
    uint64_t inserted = 0;
    for (size_t k = s; k < e;) {
      size_t t = k;
      while (t < e && segs[t].second.first == segs[k].second.first) ++t;
      for (size_t q = k; q < t; ++q) {
        size_t rank = size_t(std::upper_bound(bottoms.begin(), bottoms.end(), segs[q].second.second) - bottoms.begin());
        uint64_t le = 0;  // inserted with bottom <= this bottom
        for (size_t i = rank; i > 0; i -= i & (~i + 1)) le += tree[i];
        total += inserted - le;
      }
      for (size_t q = k; q < t; ++q) {
        size_t rank = size_t(std::lower_bound(bottoms.begin(), bottoms.end(), segs[q].second.second) - bottoms.begin()) + 1;
        for (size_t i = rank; i < tree.size(); i += i & (~i + 1)) ++tree[i];
        ++inserted;
      }
      k = t;
    }
    s = e;
  }
  return total;
}

}  // namespace ls::graph_layout
