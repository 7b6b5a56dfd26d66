// Benchmarks of core/graph_layout: fresh layouts of every real graph and of the 10.8k-node ViT
// (target < 500 ms), with hidden constants, and incremental layouts from a previous snapshot.
// Medians: run with --benchmark_filter=Layout (5 repetitions, aggregates only).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "core/io/fxjson.h"
#include "core/graph_layout/graph_layout.h"

namespace {

using namespace ls;

const ir::Graph& graphAt(const std::string& rel) {
  static std::map<std::string, ir::Graph> cache;
  auto it = cache.find(rel);
  if (it == cache.end()) {
    auto g = io::importFxJsonFile(std::string(LS_ASSETS_DIR) + "/graphs/" + rel + ".fxjson.json");
    if (!g) {
      fprintf(stderr, "%s\n", g.message().c_str());
      std::abort();
    }
    it = cache.emplace(rel, std::move(g).value()).first;
  }
  return it->second;
}

/// Options as the graph view uses them: width from the label length.
graph_layout::LayoutOptions viewOptions(bool hideConstants) {
  graph_layout::LayoutOptions o;
  o.hideConstants = hideConstants;
  o.measureWidth = [](const ir::Graph&, const ir::Node& n) { return 7.f * float(n.name.size()) + 16.f; };
  return o;
}

void report(benchmark::State& st, const ir::Graph& g, const graph_layout::Layout& lay) {
  st.counters["nodes"] = double(g.size());
  st.counters["layers"] = double(lay.layerCount);
  st.counters["dummies"] = double(lay.stats.dummies);
  st.counters["crossings"] = double(lay.stats.crossings);
}

void BM_LayoutFresh(benchmark::State& st, const std::string& rel, bool hide) {
  const ir::Graph& g = graphAt(rel);
  graph_layout::LayoutOptions o = viewOptions(hide);
  graph_layout::Layout lay;
  for (auto _ : st) {
    lay = graph_layout::computeLayout(g, o);
    benchmark::DoNotOptimize(lay.nodes.data());
  }
  report(st, g, lay);
}

/// A pass-like local edit of `g`: every 50th chain node replaced by a new node (1:1, with
/// provenance), a node inserted after every 97th, and every 89th single-input node removed.
ir::Graph editedCopy(const ir::Graph& g) {
  ir::Graph h = g;
  h.buildIndices();
  auto rewire = [&](ir::NodeId from, ir::NodeId to) {
    std::vector<ir::NodeId> users(h.users(from).begin(), h.users(from).end());
    for (ir::NodeId u : users)
      if (u != to)
        h.mutableNode(u).forEachInputMutable([&](ir::ValueRef& r) {
          if (r.node == from) r = {to, 0};
        });
  };
  std::vector<ir::NodeId> calls;
  for (size_t i = 0; i < g.size(); ++i) {
    const ir::Node& n = g.at(i);
    size_t inputs = 0;
    n.forEachInput([&](const ir::ValueRef&) { ++inputs; });
    if (n.isCall() && inputs == 1 && !g.users(n.id).empty()) calls.push_back(n.id);
  }
  for (size_t k = 0; k < calls.size(); ++k) {
    ir::NodeId id = calls[k];
    if (!h.contains(id)) continue;
    if (k % 50 == 0) {
      ir::Node n = h.node(id);
      n.id = ir::kInvalidNode;
      n.name = h.uniqueName(n.name + "_r");
      n.provenance.createdBy = "bench";
      n.provenance.derivedFrom = {id};
      ir::NodeId nid = h.insertAfter(id, std::move(n));
      rewire(id, nid);
      h.erase(id);
    } else if (k % 97 == 0) {
      ir::Node n = h.node(id);
      n.id = ir::kInvalidNode;
      n.name = h.uniqueName(n.name + "_i");
      n.args = {ir::Arg(ir::ValueRef{id, 0})};
      n.kwargs.clear();
      ir::NodeId nid = h.insertAfter(id, std::move(n));
      rewire(id, nid);
    } else if (k % 89 == 0) {
      ir::NodeId in = ir::kInvalidNode;
      h.node(id).forEachInput([&](const ir::ValueRef& r) { in = r.node; });
      rewire(id, in);
      h.erase(id);
    }
  }
  return h;
}

/// Layout of an edited snapshot given the layout of the snapshot before it.
void BM_LayoutIncremental(benchmark::State& st, const std::string& rel, bool hide) {
  const ir::Graph& g = graphAt(rel);
  static std::map<std::string, ir::Graph> edited;
  auto it = edited.find(rel);
  if (it == edited.end()) it = edited.emplace(rel, editedCopy(g)).first;
  const ir::Graph& h = it->second;
  graph_layout::LayoutOptions o = viewOptions(hide);
  graph_layout::Layout before = graph_layout::computeLayout(g, o);
  graph_layout::Layout lay;
  for (auto _ : st) {
    lay = graph_layout::computeLayout(h, o, &before);
    benchmark::DoNotOptimize(lay.nodes.data());
  }
  report(st, h, lay);
  st.counters["incremental"] = lay.stats.incremental ? 1 : 0;
  st.counters["kept"] = double(lay.stats.kept);
  st.counters["shifted"] = double(lay.stats.shifted);
  st.counters["moved"] = double(lay.stats.moved);
}

/// Same graph again (a pass that changed metadata only): everything is kept.
void BM_LayoutIncrementalUnchanged(benchmark::State& st, const std::string& rel) {
  const ir::Graph& g = graphAt(rel);
  graph_layout::LayoutOptions o = viewOptions(false);
  graph_layout::Layout before = graph_layout::computeLayout(g, o);
  graph_layout::Layout lay;
  for (auto _ : st) {
    lay = graph_layout::computeLayout(g, o, &before);
    benchmark::DoNotOptimize(lay.nodes.data());
  }
  report(st, g, lay);
  st.counters["moved"] = double(lay.stats.moved);
}

#define LS_LAYOUT_BENCH(fn, name, ...)                                   \
  BENCHMARK_CAPTURE(fn, name, __VA_ARGS__)                               \
      ->Unit(benchmark::kMillisecond)                                    \
      ->Repetitions(5)                                                   \
      ->ReportAggregatesOnly(true)

LS_LAYOUT_BENCH(BM_LayoutFresh, wav2letter, std::string("wav2letter"), false);
LS_LAYOUT_BENCH(BM_LayoutFresh, squeezenet1_1, std::string("squeezenet1_1"), false);
LS_LAYOUT_BENCH(BM_LayoutFresh, resnet18, std::string("resnet18"), false);
LS_LAYOUT_BENCH(BM_LayoutFresh, mobilenet_v3_small, std::string("mobilenet_v3_small"), false);
LS_LAYOUT_BENCH(BM_LayoutFresh, mobilenet_v2, std::string("mobilenet_v2"), false);
LS_LAYOUT_BENCH(BM_LayoutFresh, deeplabv3_mobilenet_v3_large, std::string("deeplabv3_mobilenet_v3_large"), false);
LS_LAYOUT_BENCH(BM_LayoutFresh, efficientnet_b0, std::string("efficientnet_b0"), false);
LS_LAYOUT_BENCH(BM_LayoutFresh, deit_tiny_vit, std::string("deit_tiny_vit"), false);
LS_LAYOUT_BENCH(BM_LayoutFresh, vit_tiny_deep200, std::string("large/vit_tiny_deep200"), false);
LS_LAYOUT_BENCH(BM_LayoutFresh, deit_tiny_vit_hideConstants, std::string("deit_tiny_vit"), true);
LS_LAYOUT_BENCH(BM_LayoutFresh, vit_tiny_deep200_hideConstants, std::string("large/vit_tiny_deep200"), true);
LS_LAYOUT_BENCH(BM_LayoutIncremental, deit_tiny_vit, std::string("deit_tiny_vit"), false);
LS_LAYOUT_BENCH(BM_LayoutIncremental, vit_tiny_deep200, std::string("large/vit_tiny_deep200"), false);
LS_LAYOUT_BENCH(BM_LayoutIncremental, vit_tiny_deep200_hideConstants, std::string("large/vit_tiny_deep200"), true);
LS_LAYOUT_BENCH(BM_LayoutIncrementalUnchanged, deit_tiny_vit, std::string("deit_tiny_vit"));
LS_LAYOUT_BENCH(BM_LayoutIncrementalUnchanged, vit_tiny_deep200, std::string("large/vit_tiny_deep200"));

}  // namespace
