// Tests of core/graph_layout: layering invariants, overlap-free rows, crossing reduction,
// determinism, stability between snapshots, hidden constants and the async LayoutCache.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/io/fxjson.h"
#include "core/ir/graph.h"
#include "core/graph_layout/graph_layout.h"
#include "core/graph_layout/layout_cache.h"

namespace ls::graph_layout {
namespace {

// ------------------------------------------------------------------ helpers

/// Adds a node reading output 0 of each of `inputs`. Layout needs no metadata or schemas.
ir::NodeId add(ir::Graph& g, ir::NodeKind kind, const std::string& name, std::vector<ir::NodeId> inputs = {}) {
  ir::Node n;
  n.kind = kind;
  n.name = name;
  n.target = kind == ir::NodeKind::Call ? "aten.add.Tensor" : name;
  if (kind == ir::NodeKind::Call) n.op = ir::internOp("aten.add.Tensor");
  if (kind == ir::NodeKind::Output) {
    ir::RefList refs;
    for (ir::NodeId i : inputs) refs.push_back({i, 0});
    n.args.push_back(ir::Arg(std::move(refs)));
  } else {
    for (ir::NodeId i : inputs) n.args.push_back(ir::Arg(ir::ValueRef{i, 0}));
  }
  n.outputs.push_back(ir::TensorMeta(ir::DType::Float32, {1}));
  return g.append(std::move(n));
}
ir::NodeId input(ir::Graph& g, const std::string& name) { return add(g, ir::NodeKind::Placeholder, name); }
ir::NodeId call(ir::Graph& g, const std::string& name, std::vector<ir::NodeId> in) {
  return add(g, ir::NodeKind::Call, name, std::move(in));
}
ir::NodeId weight(ir::Graph& g, const std::string& name) { return add(g, ir::NodeKind::GetAttr, name); }

const std::vector<std::string>& realGraphNames() {
  static const std::vector<std::string> names = {
      "wav2letter",     "squeezenet1_1",   "resnet18",      "mobilenet_v3_small",
      "mobilenet_v2",   "deeplabv3_mobilenet_v3_large",     "efficientnet_b0", "deit_tiny_vit",
      "large/vit_tiny_deep200"};
  return names;
}

const ir::Graph& realGraph(const std::string& name) {
  static std::map<std::string, ir::Graph> cache;
  auto it = cache.find(name);
  if (it == cache.end()) {
    std::string path = std::string(LS_ASSETS_DIR) + "/graphs/" + name + ".fxjson.json";
    auto g = io::importFxJsonFile(path);
    EXPECT_TRUE(g.isOk()) << g.message();
    if (!g) return cache.emplace(name, ir::Graph()).first->second;
    it = cache.emplace(name, std::move(g).value()).first;
  }
  return it->second;
}

/// Distinct producers of `n` (node ids), in argument order.
std::vector<ir::NodeId> producers(const ir::Node& n) {
  std::vector<ir::NodeId> out;
  n.forEachInput([&](const ir::ValueRef& r) {
    if (std::find(out.begin(), out.end(), r.node) == out.end()) out.push_back(r.node);
  });
  return out;
}

/// Crossings between adjacent rows, brute force over segment pairs (independent of
/// graph_layout::countCrossings): a segment is a polyline piece from the bottom of row l to the
/// top of row l + 1.
uint64_t bruteCrossings(const Layout& lay) {
  std::map<int, std::vector<std::pair<float, float>>> gaps;
  for (const EdgePath& p : lay.edges) {
    if (p.direct) continue;
    const NodeBox* from = lay.find(p.from);
    if (from->attached()) continue;
    for (size_t i = 0; i + 1 < p.points.size(); ++i) {
      const Point& a = p.points[i];
      const Point& b = p.points[i + 1];
      if (b.y <= a.y) continue;
      int l = int(std::lround((a.y - lay.rowHeight) / lay.layerPitch));
      if (std::abs(a.y - (float(l) * lay.layerPitch + lay.rowHeight)) > 1e-3f) continue;  // inside a row
      gaps[l].push_back({a.x, b.x});
    }
  }
  uint64_t c = 0;
  for (auto& [l, segs] : gaps)
    for (size_t i = 0; i < segs.size(); ++i)
      for (size_t j = i + 1; j < segs.size(); ++j) {
        float d0 = segs[i].first - segs[j].first, d1 = segs[i].second - segs[j].second;
        if ((d0 < 0 && d1 > 0) || (d0 > 0 && d1 < 0)) ++c;
      }
  return c;
}

/// Checks every structural invariant of a layout of `g`.
void expectValidLayout(const ir::Graph& g, const Layout& lay, const LayoutOptions& o) {
  ASSERT_EQ(lay.nodes.size(), g.size());
  // Every node has a box, found by id.
  for (size_t i = 0; i < g.size(); ++i) {
    const NodeBox* b = lay.find(g.at(i).id);
    ASSERT_NE(b, nullptr) << g.at(i).name;
    EXPECT_EQ(b->id, g.at(i).id);
    EXPECT_FLOAT_EQ(b->y, float(b->layer) * lay.layerPitch) << g.at(i).name;
    EXPECT_GE(b->layer, 0);
    EXPECT_LT(b->layer, lay.layerCount);
  }
  // Every edge goes from a lower layer to a higher one (attached constants: same row, left).
  size_t edges = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    const ir::Node& n = g.at(i);
    const NodeBox* to = lay.find(n.id);
    for (ir::NodeId p : producers(n)) {
      const NodeBox* from = lay.find(p);
      ASSERT_NE(from, nullptr);
      if (from->badge) {  // drawn inside its users: no edge, empty box on its first user
        EXPECT_TRUE(o.constantBadges);
        const NodeBox* first = lay.find(from->attachedTo);
        ASSERT_NE(first, nullptr);
        EXPECT_EQ(from->w, 0.f);
        EXPECT_EQ(from->x, first->x);
        EXPECT_EQ(from->y, first->y);
        continue;
      }
      ++edges;
      if (from->attached()) {
        EXPECT_EQ(from->attachedTo, n.id);
        EXPECT_EQ(from->layer, to->layer);
        EXPECT_LT(from->x + from->w, to->x + 1e-3f);
      } else {
        EXPECT_LT(from->layer, to->layer) << g.at(g.position(p)).name << " -> " << n.name;
      }
    }
  }
  EXPECT_EQ(lay.edges.size(), edges);
  // Layer order is a topological order: sorting by (layer, x) never puts a user first.
  std::vector<size_t> idx(g.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    const NodeBox &ba = lay.nodes[a], &bb = lay.nodes[b];
    return ba.layer != bb.layer ? ba.layer < bb.layer : ba.x < bb.x;
  });
  std::set<ir::NodeId> seen;
  for (size_t i : idx) {
    const ir::Node& n = g.at(i);
    const NodeBox& b = lay.nodes[i];
    for (ir::NodeId p : producers(n))
      if (!lay.find(p)->attached()) {
        EXPECT_TRUE(seen.count(p)) << n.name << " before its input";
      }
    if (!b.attached()) seen.insert(n.id);
    for (ir::NodeId p : producers(n)) seen.insert(p);  // attached constants come with their user
  }
  // No two boxes of a layer overlap (they keep at least the smaller gap apart).
  std::map<int, std::vector<const NodeBox*>> rows;
  for (const NodeBox& b : lay.nodes)
    if (!b.badge) rows[b.layer].push_back(&b);
  for (auto& [l, row] : rows) {
    std::sort(row.begin(), row.end(), [](const NodeBox* a, const NodeBox* b) { return a->x < b->x; });
    for (size_t i = 1; i < row.size(); ++i)
      EXPECT_GE(row[i]->x, row[i - 1]->x + row[i - 1]->w + std::min(o.edgeGap, o.nodeGap) - 1e-2f)
          << "layer " << l << ": boxes of ids " << row[i - 1]->id << " and " << row[i]->id << " overlap";
  }
  // Paths: start at the source's bottom, end at the target's top, 2 * span points, and the
  // vertical runs through intermediate rows never cut a box of that row.
  for (const EdgePath& p : lay.edges) {
    const NodeBox* from = lay.find(p.from);
    const NodeBox* to = lay.find(p.to);
    ASSERT_TRUE(from && to);
    ASSERT_GE(p.points.size(), 2u);
    EXPECT_EQ(p.points.back().y, to->y);
    EXPECT_GE(p.points.back().x, to->x - 1e-3f);
    EXPECT_LE(p.points.back().x, to->x + to->w + 1e-3f);
    if (from->attached()) {
      EXPECT_EQ(p.points.size(), 4u);
      continue;
    }
    EXPECT_EQ(p.points.front().y, from->y + from->h);
    EXPECT_GE(p.points.front().x, from->x - 1e-3f);
    EXPECT_LE(p.points.front().x, from->x + from->w + 1e-3f);
    if (p.direct) {
      EXPECT_GT(to->layer - from->layer, o.maxEdgeSpan);
      continue;
    }
    if (p.stub) {
      EXPECT_GT(o.maxFanout, 0);
      EXPECT_GT(to->layer - from->layer, 1);
      EXPECT_EQ(p.points.size(), 2u);
      continue;
    }
    int span = to->layer - from->layer;
    ASSERT_EQ(p.points.size(), size_t(2 * span));
    for (size_t i = 1; i < p.points.size(); ++i) EXPECT_GE(p.points[i].y, p.points[i - 1].y);
    for (int k = 1; k < span; ++k) {
      float x = p.points[size_t(2 * k - 1)].x;
      EXPECT_EQ(p.points[size_t(2 * k)].x, x);
      for (const NodeBox* b : rows[from->layer + k])
        EXPECT_FALSE(x > b->x - 1e-3f && x < b->x + b->w + 1e-3f)
            << "edge " << p.from << "->" << p.to << " cuts box " << b->id << " in layer " << from->layer + k;
    }
  }
  // The bounding box holds everything.
  for (const NodeBox& b : lay.nodes) {
    if (b.badge) continue;
    EXPECT_GE(b.x, lay.minX - 1e-2f);
    EXPECT_LE(b.x + b.w, lay.minX + lay.width + 1e-2f);
    EXPECT_LE(b.y + b.h, lay.minY + lay.height + 1e-2f);
  }
}

bool sameLayout(const Layout& a, const Layout& b) {
  if (a.nodes.size() != b.nodes.size() || a.edges.size() != b.edges.size()) return false;
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const NodeBox &x = a.nodes[i], &y = b.nodes[i];
    if (x.id != y.id || x.x != y.x || x.y != y.y || x.w != y.w || x.h != y.h || x.layer != y.layer ||
        x.attachedTo != y.attachedTo)
      return false;
  }
  for (size_t i = 0; i < a.edges.size(); ++i)
    if (a.edges[i].from != b.edges[i].from || a.edges[i].to != b.edges[i].to || a.edges[i].points != b.edges[i].points)
      return false;
  return a.width == b.width && a.height == b.height && a.layerCount == b.layerCount;
}

/// Rewires every use of `from` (any output) to `to`.
void rewireUsers(ir::Graph& g, ir::NodeId from, ir::NodeId to) {
  std::vector<ir::NodeId> users(g.users(from).begin(), g.users(from).end());
  for (ir::NodeId u : users) {
    if (u == to) continue;
    g.mutableNode(u).forEachInputMutable([&](ir::ValueRef& r) {
      if (r.node == from) r = {to, 0};
    });
  }
}

/// A call node in the middle of `g` with exactly one producer and one user, both calls.
ir::NodeId middleChainNode(const ir::Graph& g, size_t skip = 0) {
  for (size_t i = g.size() / 2; i < g.size(); ++i) {
    const ir::Node& n = g.at(i);
    if (!n.isCall()) continue;
    std::vector<ir::NodeId> in = producers(n);
    if (in.size() != 1 || !g.node(in[0]).isCall() || g.users(n.id).size() != 1) continue;
    if (!g.node(g.users(n.id)[0]).isCall()) continue;
    if (skip-- == 0) return n.id;
  }
  return ir::kInvalidNode;
}

/// Ids reachable downstream from `id` (excluding it).
std::set<ir::NodeId> downstream(const ir::Graph& g, ir::NodeId id) {
  std::set<ir::NodeId> out;
  std::vector<ir::NodeId> stack = {id};
  while (!stack.empty()) {
    ir::NodeId v = stack.back();
    stack.pop_back();
    for (ir::NodeId u : g.users(v))
      if (out.insert(u).second) stack.push_back(u);
  }
  return out;
}

// ------------------------------------------------------------------ hand-made graphs

TEST(Layout, EmptyAndSingleNode) {
  ir::Graph g;
  Layout lay = computeLayout(g, {});
  EXPECT_TRUE(lay.nodes.empty());
  EXPECT_EQ(lay.layerCount, 0);
  input(g, "x");
  lay = computeLayout(g, {});
  ASSERT_EQ(lay.nodes.size(), 1u);
  EXPECT_EQ(lay.nodes[0].x, 0.f);
  EXPECT_EQ(lay.nodes[0].y, 0.f);
  EXPECT_EQ(lay.layerCount, 1);
  // And incremental on a graph with nothing in common.
  ir::Graph h;
  input(h, "y");
  h.reserveIds(10);
  Layout lay2 = computeLayout(h, {}, &lay);
  expectValidLayout(h, lay2, {});
}

TEST(Layout, DiamondAndLongEdge) {
  ir::Graph g;
  auto x = input(g, "x");
  auto a = call(g, "a", {x});
  auto b = call(g, "b", {a});
  auto c = call(g, "c", {b});
  auto d = call(g, "d", {x, c});  // x -> d spans 4 layers
  add(g, ir::NodeKind::Output, "output", {d});
  LayoutOptions o;
  Layout lay = computeLayout(g, o);
  expectValidLayout(g, lay, o);
  EXPECT_EQ(lay.layerCount, 6);
  EXPECT_EQ(lay.find(d)->layer, 4);
  EXPECT_EQ(lay.stats.dummies, 3u);
  // The chain is straight: a, b, c share x.
  EXPECT_EQ(lay.find(a)->x, lay.find(b)->x);
  EXPECT_EQ(lay.find(b)->x, lay.find(c)->x);
  // The long edge goes around the chain, not through it.
  const EdgePath* e = nullptr;
  for (const EdgePath& p : lay.edges)
    if (p.from == x && p.to == d) e = &p;
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->points.size(), 8u);
}

TEST(Layout, SourcesSitRightAboveTheirFirstUser) {
  ir::Graph g;
  auto x = input(g, "x");
  ir::NodeId cur = x;
  std::vector<ir::NodeId> ws;
  for (int i = 0; i < 10; ++i) {
    ws.push_back(weight(g, "w" + std::to_string(i)));
    cur = call(g, "mm" + std::to_string(i), {cur, ws.back()});
  }
  add(g, ir::NodeKind::Output, "output", {cur});
  LayoutOptions o;
  Layout lay = computeLayout(g, o);
  expectValidLayout(g, lay, o);
  EXPECT_EQ(lay.stats.dummies, 0u);  // no weight is laid out at the top with a long edge
  for (int i = 0; i < 10; ++i) EXPECT_EQ(lay.find(ws[size_t(i)])->layer + 1, lay.find(g.users(ws[size_t(i)])[0])->layer);
}

TEST(Layout, HiddenConstantsAttachToTheirUser) {
  ir::Graph g;
  auto x = input(g, "x");
  auto shared = weight(g, "shared");  // two users: stays a node of its own
  ir::NodeId cur = x;
  for (int i = 0; i < 6; ++i) {
    auto w = weight(g, "w" + std::to_string(i));
    auto bias = weight(g, "b" + std::to_string(i));
    cur = call(g, "conv" + std::to_string(i), {cur, w, bias, shared});
  }
  add(g, ir::NodeKind::Output, "output", {cur});
  LayoutOptions o;
  o.hideConstants = true;
  Layout lay = computeLayout(g, o);
  expectValidLayout(g, lay, o);
  EXPECT_EQ(lay.stats.attachedConstants, 12u);
  EXPECT_FALSE(lay.find(shared)->attached());
  EXPECT_EQ(lay.layerCount, 8);  // x, conv0..5, output: constants take no layers
  for (const NodeBox& b : lay.nodes)
    if (b.attached()) {
      EXPECT_EQ(lay.find(b.attachedTo)->y, b.y);
    }
  // Weight left of bias left of the user (argument order reads left to right).
  const NodeBox* w0 = lay.find(g.findByName("w0"));
  const NodeBox* b0 = lay.find(g.findByName("b0"));
  EXPECT_LT(w0->x, b0->x);

  o.hideConstants = false;
  Layout plain = computeLayout(g, o);
  expectValidLayout(g, plain, o);
  EXPECT_EQ(plain.stats.attachedConstants, 0u);
  for (const NodeBox& b : plain.nodes) EXPECT_FALSE(b.attached());
  EXPECT_LT(plain.find(w0->id)->layer, plain.find(g.findByName("conv0"))->layer);
}

TEST(Layout, ConstantBadgesTakeNoLayersAndDrawNoEdges) {
  // The final TOSA graph case: one zero point shared by every conv, per-conv weights, and a
  // nullary CONST_SHAPE call.
  ir::Graph g;
  auto x = input(g, "x");
  auto zp = weight(g, "zp");
  auto shape = call(g, "shape", {});
  ir::NodeId cur = x;
  for (int i = 0; i < 6; ++i) cur = call(g, "conv" + std::to_string(i), {cur, weight(g, "w" + std::to_string(i)), zp, zp});
  cur = call(g, "reshape", {cur, shape});
  add(g, ir::NodeKind::Output, "output", {cur});
  LayoutOptions o;
  o.constantBadges = true;
  o.hideConstants = true;
  Layout lay = computeLayout(g, o);
  expectValidLayout(g, lay, o);
  EXPECT_EQ(lay.stats.badges, 8u);  // zp, shape, w0..w5
  EXPECT_EQ(lay.stats.attachedConstants, 0u);
  EXPECT_EQ(lay.layerCount, 9);  // x, conv0..5, reshape, output
  EXPECT_EQ(lay.edges.size(), 8u);  // the data chain only
  EXPECT_TRUE(lay.find(zp)->badge);
  EXPECT_EQ(lay.find(zp)->attachedTo, g.findByName("conv0"));
  EXPECT_TRUE(lay.find(shape)->badge);
  EXPECT_TRUE(isParameterNode(g, g.node(shape)));
  EXPECT_FALSE(isParameterNode(g, g.node(cur)));
  // Without badges the shared zero point is a node with six edges.
  o.constantBadges = false;
  Layout plain = computeLayout(g, o);
  expectValidLayout(g, plain, o);
  EXPECT_EQ(plain.stats.badges, 0u);
  EXPECT_GT(plain.edges.size(), 8u + 6u);
}

TEST(Layout, ProducersWithManyUsersGetStubEdges) {
  // x feeds a chain of 10 nodes and every one of them: 11 users, far apart.
  ir::Graph g;
  auto x = input(g, "x");
  ir::NodeId cur = call(g, "first", {x});
  for (int i = 0; i < 10; ++i) cur = call(g, "n" + std::to_string(i), {cur, x});
  add(g, ir::NodeKind::Output, "output", {cur});
  LayoutOptions o;
  o.maxFanout = 4;
  Layout lay = computeLayout(g, o);
  expectValidLayout(g, lay, o);
  size_t stubs = 0;
  for (const EdgePath& e : lay.edges) {
    if (e.from == x && lay.find(e.to)->layer - lay.find(x)->layer > 1) {
      EXPECT_TRUE(e.stub);
    }
    stubs += e.stub;
  }
  EXPECT_EQ(stubs, lay.stats.stubEdges);
  EXPECT_GE(stubs, 9u);
  EXPECT_EQ(lay.stats.dummies, 0u);  // no long routes for x's edges
  o.maxFanout = 0;
  Layout routed = computeLayout(g, o);
  EXPECT_EQ(routed.stats.stubEdges, 0u);
  EXPECT_GT(routed.stats.dummies, 0u);
}

TEST(Layout, CompactLayersDropsEmptyRowsAndWrapColumnsFillsAView) {
  ir::Graph g;
  auto x = input(g, "x");
  ir::NodeId cur = x;
  std::vector<ir::NodeId> chain;
  for (int i = 0; i < 40; ++i) chain.push_back(cur = call(g, "n" + std::to_string(i), {cur}));
  // A skip edge over many layers: it crosses column boundaries once wrapped.
  call(g, "join", {chain[2], chain[35]});
  add(g, ir::NodeKind::Output, "output", {cur});
  LayoutOptions o;
  Layout lay = computeLayout(g, o);
  expectValidLayout(g, lay, o);

  // A pass removes n5 and n6: the incremental layout leaves their rows empty; compacting
  // drops exactly those rows and moves what is below up.
  ir::Graph h = g;
  for (ir::NodeId gone : {chain[5], chain[6]}) {
    rewireUsers(h, gone, producers(h.node(gone))[0]);
    ASSERT_TRUE(h.erase(gone));
  }
  Layout gap = computeLayout(h, o, &lay);
  ASSERT_TRUE(gap.stats.incremental);
  ASSERT_EQ(gap.layerCount, lay.layerCount);
  std::vector<uint8_t> keep = occupiedLayers(gap);
  ASSERT_EQ(keep.size(), size_t(gap.layerCount));
  EXPECT_EQ(std::count(keep.begin(), keep.end(), 0), 2);
  Layout c = compactLayers(gap, keep);
  expectValidLayout(h, c, o);
  EXPECT_EQ(c.layerCount, gap.layerCount - 2);
  EXPECT_EQ(c.find(chain[30])->layer, gap.find(chain[30])->layer - 2);
  EXPECT_EQ(c.find(chain[1])->y, gap.find(chain[1])->y);  // above the gap: unchanged
  EXPECT_LT(c.height, gap.height);
  EXPECT_EQ(compactLayers(lay, occupiedLayers(lay)).layerCount, lay.layerCount);

  // Wrapping: a tall view keeps one column, a wide one wraps; every box stays in its column's
  // rows and edges that change column get a break.
  EXPECT_EQ(chooseWrap(lay, 300, 100000).layersPerColumn, 0);
  WrapSpec spec = chooseWrap(lay, 1600, 500);
  ASSERT_GT(spec.layersPerColumn, 0);
  int cols = spec.columns(lay);
  EXPECT_GT(cols, 1);
  Layout w = wrapColumns(lay, spec);
  ASSERT_EQ(w.nodes.size(), lay.nodes.size());
  for (const NodeBox& b : w.nodes) {
    int col = b.layer / spec.layersPerColumn;
    EXPECT_FLOAT_EQ(b.y, float(b.layer - col * spec.layersPerColumn) * lay.layerPitch);
    EXPECT_NEAR(b.x, lay.find(b.id)->x + float(col) * (lay.width + spec.columnGap), 1e-3f);
  }
  EXPECT_LT(w.height, lay.height / float(cols - 1));
  size_t broken = 0;
  for (const EdgePath& e : w.edges) {
    int c0 = w.find(e.from)->layer / spec.layersPerColumn, c1 = w.find(e.to)->layer / spec.layersPerColumn;
    EXPECT_EQ(e.breaks.size(), size_t(c1 - c0)) << e.from << "->" << e.to;
    broken += !e.breaks.empty();
    EXPECT_EQ(e.points.front().y, w.find(e.from)->y + w.find(e.from)->h);
    EXPECT_EQ(e.points.back().y, w.find(e.to)->y);
  }
  EXPECT_GE(broken, size_t(cols - 1));  // the chain continues in every next column
}

TEST(Layout, MeasuredWidthsAreUsedAndClamped) {
  ir::Graph g;
  auto x = input(g, "x");
  auto a = call(g, "a_node_with_a_long_name", {x});
  call(g, "b", {x});
  add(g, ir::NodeKind::Output, "output", {a});
  LayoutOptions o;
  o.minNodeWidth = 30;
  o.measureWidth = [](const ir::Graph&, const ir::Node& n) { return 8.f * float(n.name.size()); };
  Layout lay = computeLayout(g, o);
  expectValidLayout(g, lay, o);
  EXPECT_EQ(lay.find(a)->w, 8.f * 23);
  EXPECT_EQ(lay.find(x)->w, 30.f);  // 8 < 30
}

TEST(Layout, LongEdgesBeyondMaxSpanAreDirect) {
  ir::Graph g;
  auto x = input(g, "x");
  ir::NodeId cur = x;
  for (int i = 0; i < 20; ++i) cur = call(g, "c" + std::to_string(i), {cur});
  auto y = call(g, "y", {x, cur});
  add(g, ir::NodeKind::Output, "output", {y});
  LayoutOptions o;
  o.maxEdgeSpan = 8;
  Layout lay = computeLayout(g, o);
  expectValidLayout(g, lay, o);
  EXPECT_EQ(lay.stats.directEdges, 1u);
  EXPECT_EQ(lay.stats.dummies, 0u);
}

TEST(Layout, IgnoresReferencesToMissingOrLaterNodes) {
  ir::Graph g;
  auto x = input(g, "x");
  ir::Node n;
  n.kind = ir::NodeKind::Call;
  n.name = "bad";
  n.args.push_back(ir::Arg(ir::ValueRef{x, 0}));
  n.args.push_back(ir::Arg(ir::ValueRef{12345, 0}));  // dangling
  n.args.push_back(ir::Arg(ir::ValueRef{2, 0}));      // the node after it
  g.append(std::move(n));
  call(g, "later", {x});
  Layout lay = computeLayout(g, {});
  ASSERT_EQ(lay.nodes.size(), 3u);
  EXPECT_EQ(lay.edges.size(), 2u);
}

// ------------------------------------------------------------------ crossing reduction

TEST(Layout, CrossingReductionUntanglesReversedPairs) {
  // Inputs i0..i9 in order, their consumers in reverse order, then a second reversed layer:
  // the graph order has 45 + 45 crossings, the barycenter sweeps untangle all of them.
  ir::Graph g;
  std::vector<ir::NodeId> in, mid, outs;
  const int k = 10;
  for (int i = 0; i < k; ++i) in.push_back(input(g, "i" + std::to_string(i)));
  for (int i = 0; i < k; ++i) mid.push_back(call(g, "m" + std::to_string(i), {in[size_t(k - 1 - i)]}));
  for (int i = 0; i < k; ++i) outs.push_back(call(g, "o" + std::to_string(i), {mid[size_t(k - 1 - i)]}));
  add(g, ir::NodeKind::Output, "output", outs);
  LayoutOptions o;
  o.crossingSweeps = 0;
  Layout before = computeLayout(g, o);
  expectValidLayout(g, before, o);
  o.crossingSweeps = 4;
  Layout after = computeLayout(g, o);
  expectValidLayout(g, after, o);
  EXPECT_EQ(bruteCrossings(before), 90u);  // the fan-in into output adds none
  EXPECT_EQ(before.stats.initialCrossings, bruteCrossings(before));
  EXPECT_EQ(bruteCrossings(after), 0u);
  EXPECT_EQ(after.stats.crossings, 0u);
  EXPECT_EQ(countCrossings(before), bruteCrossings(before));
}

TEST(Layout, CrossingReductionNeverWorsensRealGraphs) {
  for (const std::string& name : realGraphNames()) {
    const ir::Graph& g = realGraph(name);
    LayoutOptions o;
    o.crossingSweeps = 0;
    Layout before = computeLayout(g, o);
    o.crossingSweeps = 4;
    Layout after = computeLayout(g, o);
    uint64_t cb = bruteCrossings(before), ca = bruteCrossings(after);
    EXPECT_LE(ca, cb) << name;
    // The count of the final order is the count of the drawn paths.
    EXPECT_EQ(after.stats.crossings, ca) << name;
    EXPECT_EQ(countCrossings(after), ca) << name;
    EXPECT_EQ(after.stats.initialCrossings, cb) << name;
  }
}

// ------------------------------------------------------------------ real graphs

TEST(Layout, RealGraphsAreValid) {
  for (const std::string& name : realGraphNames()) {
    SCOPED_TRACE(name);
    const ir::Graph& g = realGraph(name);
    ASSERT_GT(g.size(), 10u);
    for (int variant = 0; variant < 3; ++variant) {
      bool hide = variant == 1;
      LayoutOptions o;
      o.hideConstants = hide;
      if (variant == 2) o.placement = Placement::LeastSquares;
      o.measureWidth = [](const ir::Graph&, const ir::Node& n) { return 7.f * float(n.name.size()) + 16.f; };
      Layout lay = computeLayout(g, o);
      expectValidLayout(g, lay, o);
      EXPECT_FALSE(lay.stats.incremental);
      if (hide) {
        EXPECT_GT(lay.stats.attachedConstants, 0u);
      }
    }
  }
}

TEST(Layout, DeterministicOnRealGraphs) {
  for (std::string name : {"deit_tiny_vit", "efficientnet_b0"}) {
    const ir::Graph& g = realGraph(name);
    LayoutOptions o;
    Layout a = computeLayout(g, o);
    Layout b = computeLayout(g, o);
    EXPECT_TRUE(sameLayout(a, b)) << name;
    // A copy of the graph (different node storage, same content) lays out identically.
    ir::Graph copy = g;
    Layout c = computeLayout(copy, o);
    EXPECT_TRUE(sameLayout(a, c)) << name;
    // Incremental from itself keeps everything.
    Layout d = computeLayout(g, o, &a);
    EXPECT_TRUE(d.stats.incremental);
    EXPECT_EQ(d.stats.moved, 0u) << name;
    EXPECT_EQ(d.stats.shifted, 0u) << name;
    EXPECT_TRUE(sameLayout(a, d)) << name;
  }
}

// ------------------------------------------------------------------ stability

class LayoutStability : public ::testing::TestWithParam<const char*> {};

TEST_P(LayoutStability, ReplacedNodeTakesTheOldPlaceAndNothingElseMoves) {
  ir::Graph g = realGraph(GetParam());
  LayoutOptions o;
  Layout before = computeLayout(g, o);
  ir::NodeId old = middleChainNode(g);
  ASSERT_NE(old, ir::kInvalidNode);
  ir::Node repl = g.node(old);
  repl.id = ir::kInvalidNode;
  repl.name = g.uniqueName(repl.name + "_tosa");
  repl.provenance.createdBy = "ReplacePass";
  repl.provenance.derivedFrom = {old};
  ir::NodeId nid = g.insertAfter(old, std::move(repl));
  rewireUsers(g, old, nid);
  ASSERT_TRUE(g.erase(old));
  ASSERT_TRUE(g.validate().isOk());

  Layout after = computeLayout(g, o, &before);
  expectValidLayout(g, after, o);
  EXPECT_TRUE(after.stats.incremental);
  EXPECT_EQ(after.stats.moved, 0u);
  EXPECT_EQ(after.stats.shifted, 0u);
  EXPECT_EQ(after.stats.kept, g.size() - 1);
  for (const NodeBox& b : after.nodes) {
    if (b.id == nid) continue;
    const NodeBox* p = before.find(b.id);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->x, b.x);
    EXPECT_EQ(p->y, b.y);
  }
  EXPECT_EQ(after.find(nid)->x, before.find(old)->x);
  EXPECT_EQ(after.find(nid)->y, before.find(old)->y);
  EXPECT_EQ(after.height, before.height);
}

TEST_P(LayoutStability, RemovedNodeLeavesAGapAndNothingMoves) {
  ir::Graph g = realGraph(GetParam());
  LayoutOptions o;
  Layout before = computeLayout(g, o);
  ir::NodeId gone = middleChainNode(g, 3);
  ASSERT_NE(gone, ir::kInvalidNode);
  rewireUsers(g, gone, producers(g.node(gone))[0]);
  ASSERT_TRUE(g.erase(gone));
  Layout after = computeLayout(g, o, &before);
  expectValidLayout(g, after, o);
  EXPECT_TRUE(after.stats.incremental);
  EXPECT_EQ(after.stats.moved, 0u);
  EXPECT_EQ(after.stats.shifted, 0u);
  EXPECT_EQ(after.layerCount, before.layerCount);
}

TEST_P(LayoutStability, InsertedNodeMovesOnlyItsDownstreamAndOnlyVertically) {
  ir::Graph g = realGraph(GetParam());
  LayoutOptions o;
  Layout before = computeLayout(g, o);
  ir::NodeId at = middleChainNode(g, 1);
  ASSERT_NE(at, ir::kInvalidNode);
  // What may move down: the downstream cone and the nodes feeding only into it (weights).
  std::set<ir::NodeId> below = downstream(g, at);
  for (size_t i = g.size(); i-- > 0;) {
    ir::NodeId id = g.at(i).id;
    auto users = g.users(id);
    if (!users.empty() && std::all_of(users.begin(), users.end(), [&](ir::NodeId u) { return below.count(u) > 0; }))
      below.insert(id);
  }
  below.erase(at);
  ir::Node n;
  n.kind = ir::NodeKind::Call;
  n.op = ir::internOp("tosa.TRANSPOSE.default");
  n.target = "tosa.TRANSPOSE.default";
  n.name = g.uniqueName("transpose_inserted");
  n.args.push_back(ir::Arg(ir::ValueRef{at, 0}));
  n.outputs = g.node(at).outputs;
  ir::NodeId nid = g.insertAfter(at, std::move(n));
  rewireUsers(g, at, nid);

  Layout after = computeLayout(g, o, &before);
  expectValidLayout(g, after, o);
  EXPECT_TRUE(after.stats.incremental);
  size_t xMoved = 0, down = 0;
  for (const NodeBox& b : after.nodes) {
    if (b.id == nid) continue;
    const NodeBox* p = before.find(b.id);
    if (b.y != p->y) {
      // Only pushed down, by the one new row, and only below the insertion.
      EXPECT_TRUE(below.count(b.id)) << g.node(b.id).name;
      EXPECT_EQ(b.y, p->y + after.layerPitch) << g.node(b.id).name;
      ++down;
    }
    if (b.x != p->x) ++xMoved;
  }
  EXPECT_GT(down, 0u);
  // Horizontally only the few that had to make room in a row move.
  EXPECT_LE(xMoved, 6u) << "of " << g.size();
  EXPECT_EQ(after.stats.moved, xMoved);
  EXPECT_EQ(after.stats.kept + after.stats.shifted + after.stats.moved, g.size() - 1);
  // The new node sits right below the node it follows, between it and its user.
  EXPECT_EQ(after.find(nid)->layer, after.find(at)->layer + 1);
  float x0 = after.find(at)->centerX(), x1 = after.find(g.users(nid)[0])->centerX();
  EXPECT_GE(after.find(nid)->centerX(), std::min(x0, x1) - 1.f);
  EXPECT_LE(after.find(nid)->centerX(), std::max(x0, x1) + 1.f);
  // Nothing above the insertion moved at all.
  for (const NodeBox& b : after.nodes)
    if (b.layer < after.find(at)->layer) {
      EXPECT_EQ(b.x, before.find(b.id)->x);
    }
}

TEST_P(LayoutStability, ReplacementWithoutProvenanceMovesAtMostNeighbours) {
  ir::Graph g = realGraph(GetParam());
  LayoutOptions o;
  o.hideConstants = true;
  Layout before = computeLayout(g, o);
  ir::NodeId old = middleChainNode(g, 2);
  ir::Node repl = g.node(old);
  repl.id = ir::kInvalidNode;
  repl.name = g.uniqueName(repl.name + "_new");
  ir::NodeId nid = g.insertAfter(old, std::move(repl));
  rewireUsers(g, old, nid);
  ASSERT_TRUE(g.erase(old));
  Layout after = computeLayout(g, o, &before);
  expectValidLayout(g, after, o);
  EXPECT_LE(after.stats.moved, 4u);
  EXPECT_EQ(after.find(nid)->layer, before.find(old)->layer);
}

INSTANTIATE_TEST_SUITE_P(RealGraphs, LayoutStability,
                         ::testing::Values("mobilenet_v2", "deeplabv3_mobilenet_v3_large", "efficientnet_b0",
                                           "deit_tiny_vit"));

TEST(Layout, ChainOfSnapshotsStaysValid) {
  // Many local edits in a row, each laid out from the previous layout.
  ir::Graph g = realGraph("resnet18");
  LayoutOptions o;
  Layout lay = computeLayout(g, o);
  for (int step = 0; step < 12; ++step) {
    ir::NodeId at = middleChainNode(g, size_t(step % 3));
    if (at == ir::kInvalidNode) break;
    if (step % 2 == 0) {
      ir::Node n = g.node(at);
      n.id = ir::kInvalidNode;
      n.name = g.uniqueName("ins");
      n.args = {ir::Arg(ir::ValueRef{at, 0})};
      n.kwargs.clear();
      ir::NodeId nid = g.insertAfter(at, std::move(n));
      rewireUsers(g, at, nid);
    } else {
      rewireUsers(g, at, producers(g.node(at))[0]);
      ASSERT_TRUE(g.erase(at));
    }
    Layout next = computeLayout(g, o, &lay);
    expectValidLayout(g, next, o);
    EXPECT_TRUE(next.stats.incremental);
    lay = std::move(next);
  }
}

TEST(Layout, FewSurvivorsOnlySeedTheOrder) {
  // The previous snapshot covers less than half of the graph: a fresh layout (crossing
  // reduction runs), seeded with the previous order.
  ir::Graph g = realGraph("squeezenet1_1");
  Layout before = computeLayout(g, {});
  ir::NodeId cur = g.at(0).id;
  const int extra = int(g.size()) + 10;
  for (int i = 0; i < extra; ++i) cur = g.insertAfter(cur, [&] {
    ir::Node n;
    n.kind = ir::NodeKind::Call;
    n.name = g.uniqueName("extra");
    n.args.push_back(ir::Arg(ir::ValueRef{cur, 0}));
    n.outputs.push_back(ir::TensorMeta(ir::DType::Float32, {1}));
    return n;
  }());
  Layout after = computeLayout(g, {}, &before);
  expectValidLayout(g, after, {});
  EXPECT_FALSE(after.stats.incremental);
  EXPECT_EQ(after.minX, 0.f);
  EXPECT_EQ(after.stats.crossings, bruteCrossings(after));
}

// ------------------------------------------------------------------ cache

TEST(LayoutCache, DeliversAsynchronously) {
  auto g0 = std::make_shared<const ir::Graph>(realGraph("mobilenet_v2"));
  ir::Graph edited = *g0;
  ir::NodeId gone = middleChainNode(edited);
  rewireUsers(edited, gone, producers(edited.node(gone))[0]);
  ASSERT_TRUE(edited.erase(gone));
  auto g1 = std::make_shared<const ir::Graph>(std::move(edited));

  LayoutCache cache;
  std::atomic<int> ready{0};
  cache.setOnReady([&](const ir::Graph*) { ++ready; });
  EXPECT_EQ(cache.tryGet(g0.get()), nullptr);
  EXPECT_EQ(cache.state(g0.get()), LayoutCache::State::Absent);
  cache.request(g0);
  cache.request(g1, g0);  // newest first, but its predecessor is computed before it
  // tryGet never blocks: poll like a frame loop would.
  const Layout* l1 = nullptr;
  auto start = std::chrono::steady_clock::now();
  while (!(l1 = cache.tryGet(g1.get())) && std::chrono::steady_clock::now() - start < std::chrono::seconds(20))
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ASSERT_NE(l1, nullptr);
  const Layout* l0 = cache.tryGet(g0.get());
  ASSERT_NE(l0, nullptr);
  EXPECT_EQ(cache.computedCount(), 2u);
  EXPECT_EQ(ready.load(), 2);
  EXPECT_TRUE(l1->stats.incremental);
  EXPECT_EQ(l1->stats.moved, 0u);
  EXPECT_TRUE(sameLayout(*l0, computeLayout(*g0, cache.options())));
  EXPECT_TRUE(sameLayout(*l1, computeLayout(*g1, cache.options(), l0)));

  // Asking again is free.
  cache.request(g1, g0);
  EXPECT_EQ(cache.state(g1.get()), LayoutCache::State::Ready);
  EXPECT_EQ(cache.computedCount(), 2u);

  // A shared handle survives clear().
  std::shared_ptr<const Layout> held = cache.get(g0.get());
  cache.clear();
  EXPECT_EQ(cache.tryGet(g0.get()), nullptr);
  ASSERT_NE(held, nullptr);
  EXPECT_EQ(held->nodes.size(), g0->size());
}

TEST(LayoutCache, EvictsLeastRecentlyUsedAndWaits) {
  LayoutCache cache({}, 2);
  std::vector<std::shared_ptr<const ir::Graph>> gs;
  for (const char* name : {"wav2letter", "squeezenet1_1", "resnet18"})
    gs.push_back(std::make_shared<const ir::Graph>(realGraph(name)));
  for (auto& g : gs) {
    cache.request(g);
    ASSERT_TRUE(cache.wait(g.get(), std::chrono::seconds(20)));
  }
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.state(gs[0].get()), LayoutCache::State::Absent);
  EXPECT_NE(cache.tryGet(gs[2].get()), nullptr);
  EXPECT_FALSE(cache.wait(gs[0].get(), std::chrono::milliseconds(1)));
}

TEST(LayoutCache, DestructionWithQueuedWorkDoesNotHang) {
  auto g = std::make_shared<const ir::Graph>(realGraph("deit_tiny_vit"));
  for (int i = 0; i < 3; ++i) {
    LayoutCache cache;
    for (int k = 0; k < 8; ++k) cache.request(std::make_shared<const ir::Graph>(*g));
  }
  SUCCEED();
}

}  // namespace
}  // namespace ls::graph_layout
