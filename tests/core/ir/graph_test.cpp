// Graph: name index across copy-on-write and erasure (a stale string_view key read freed
// memory under ASan: issue 19), op index, users, copies sharing nodes.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>
#include <unordered_set>
#include <vector>

#include "core/ir/graph.h"
#include "support/graph_builder.h"

namespace ls {
namespace {

ir::Graph smallGraph() {
  test::GraphBuilder b;
  auto x = b.input("x", {2, 3});
  auto r = b.call("aten.relu.default", {x}, {}, "relu_a_node_with_a_name_longer_than_sso");
  auto n = b.call("aten.neg.default", {r}, {}, "neg_b_node_with_a_name_longer_than_sso");
  b.output({n});
  return std::move(b.g);
}

TEST(GraphNameIndex, SurvivesCopyOnWriteWhenTheOtherOwnerFreesTheNode) {
  ir::Graph g = smallGraph();
  const std::string name = "relu_a_node_with_a_name_longer_than_sso";
  const ir::NodeId id = g.findByName(name);  // builds the index: keys view g's node names
  ASSERT_NE(id, ir::kInvalidNode);
  {
    auto snapshot = std::make_unique<ir::Graph>(g);  // shares every node
    g.mutableNode(id).outputs[0].shape = ir::Shape{2, 3};  // copy-on-write: g gets its own node
    snapshot.reset();  // the shared version is freed here
  }
  // Under ASan the old code read the freed node's name here.
  EXPECT_EQ(g.findByName(name), id);
  EXPECT_EQ(g.findByName("neg_b_node_with_a_name_longer_than_sso"), g.node(g.findByName("neg_b_node_with_a_name_longer_than_sso")).id);
  EXPECT_EQ(g.findByName("no_such_node"), ir::kInvalidNode);
}

TEST(GraphNameIndex, RenameSetOpAndEraseKeepTheIndexInStep) {
  ir::Graph g = smallGraph();
  const ir::NodeId relu = g.findByName("relu_a_node_with_a_name_longer_than_sso");
  ir::Graph copy = g;  // shares nodes, so rename and setOp copy on write
  g.rename(relu, "renamed_relu");
  EXPECT_EQ(g.findByName("renamed_relu"), relu);
  EXPECT_EQ(g.findByName("relu_a_node_with_a_name_longer_than_sso"), ir::kInvalidNode);
  EXPECT_EQ(copy.findByName("relu_a_node_with_a_name_longer_than_sso"), relu) << "the copy keeps its version";
  g.setOp(relu, ir::internOp("aten.sigmoid.default"), "aten.sigmoid.default");
  EXPECT_EQ(g.nodesOfOp(ir::internOp("aten.relu.default")).size(), 0u);
  EXPECT_EQ(g.nodesOfOp(ir::internOp("aten.sigmoid.default")).size(), 1u);
  EXPECT_EQ(copy.nodesOfOp(ir::internOp("aten.relu.default")).size(), 1u);
  const ir::NodeId neg = g.findByName("neg_b_node_with_a_name_longer_than_sso");
  ASSERT_TRUE(g.erase(g.outputNode()->id));
  ASSERT_TRUE(g.erase(neg));
  EXPECT_EQ(g.findByName("neg_b_node_with_a_name_longer_than_sso"), ir::kInvalidNode);
  EXPECT_EQ(copy.findByName("neg_b_node_with_a_name_longer_than_sso"), neg);
}

TEST(GraphUsers, FollowRewiringAndErasure) {
  ir::Graph g = smallGraph();
  const ir::NodeId x = g.findByName("x");
  const ir::NodeId relu = g.findByName("relu_a_node_with_a_name_longer_than_sso");
  ASSERT_EQ(g.users(x).size(), 1u);
  EXPECT_EQ(g.users(x)[0], relu);
  EXPECT_EQ(g.position(x), 0u);
  EXPECT_TRUE(g.contains(relu));
  EXPECT_EQ(g.find(12345), nullptr);
}

/// Users of every node as a graph built afresh from the same nodes computes them.
void expectUsersAsRebuilt(const ir::Graph& g) {
  ir::Graph fresh = g.shellCopy();  // no index yet: its first users() builds one from scratch
  for (const ir::NodePtr& p : g.nodes()) fresh.appendShared(p);
  for (const ir::NodePtr& p : g.nodes()) {
    auto a = g.users(p->id), b = fresh.users(p->id);
    EXPECT_EQ(std::vector<ir::NodeId>(a.begin(), a.end()), std::vector<ir::NodeId>(b.begin(), b.end()))
        << "users of '" << p->name << "'";
  }
}

TEST(GraphUsers, KeptUpToDateThroughRewiringInsertsErasesAndCopies) {
  test::GraphBuilder b;
  auto x = b.input("x", {2, 3});
  auto r = b.call("aten.relu.default", {x}, {}, "r");
  auto n = b.call("aten.neg.default", {r}, {}, "n");
  auto a = b.call("aten.add.Tensor", {r, n}, {}, "a");
  b.output({a});
  ir::Graph g = std::move(b.g);
  ASSERT_EQ(g.users(r.node).size(), 2u);  // builds the index; from here on it is updated
  // Rewire a to read x twice (a pending edit, applied at the next read).
  g.mutableNode(a.node).args = {ir::Arg(x), ir::Arg(x)};
  expectUsersAsRebuilt(g);
  EXPECT_EQ(g.users(r.node).size(), 1u);
  // A node inserted before a, read by a: the users of x come back in graph order.
  ir::Node s;
  s.kind = ir::NodeKind::Call;
  s.name = "s";
  s.op = ir::internOp("aten.sigmoid.default");
  s.target = "aten.sigmoid.default";
  s.args = {ir::Arg(x)};
  s.outputs = g.node(x.node).outputs;
  const ir::NodeId sid = g.insertBefore(a.node, s);
  g.mutableNode(a.node).args[1] = ir::Arg(ir::ValueRef{sid, 0});
  expectUsersAsRebuilt(g);
  ASSERT_EQ(g.users(x.node).size(), 3u);
  EXPECT_EQ(g.users(x.node)[1], sid) << "graph order: r, s, a";
  // A copy shares the index until one side changes: the other keeps its own users.
  ir::Graph copy = g;
  ASSERT_TRUE(g.erase(n.node));
  EXPECT_EQ(g.users(r.node).size(), 0u);
  EXPECT_EQ(copy.users(r.node).size(), 1u);
  expectUsersAsRebuilt(g);
  expectUsersAsRebuilt(copy);
  // Erasing several nodes at once, one of them with an edit still pending.
  copy.mutableNode(n.node).args = {ir::Arg(x)};
  std::unordered_set<ir::NodeId> gone{n.node};
  EXPECT_EQ(copy.eraseNodes(gone), 1u);
  expectUsersAsRebuilt(copy);
  EXPECT_EQ(copy.users(x.node).size(), 3u);
}

/// A graph as plain values (what a deep copy holds): node by node, in order.
std::vector<ir::Node> deepCopy(const ir::Graph& g) {
  std::vector<ir::Node> out;
  for (const ir::NodePtr& p : g.nodes()) out.push_back(*p);
  return out;
}

/// `g` holds exactly the nodes of `model`, and its indices (positions, names, op index,
/// users) agree with them.
void expectGraphIs(const ir::Graph& g, const std::vector<ir::Node>& model) {
  ASSERT_EQ(g.size(), model.size());
  for (size_t i = 0; i < model.size(); ++i) {
    const ir::Node& n = g.at(i);
    const ir::Node& m = model[i];
    EXPECT_EQ(n.id, m.id);
    EXPECT_EQ(n.name, m.name);
    EXPECT_EQ(n.op, m.op);
    EXPECT_EQ(n.args.size(), m.args.size());
    for (size_t a = 0; a < n.args.size() && a < m.args.size(); ++a) EXPECT_TRUE(n.args[a] == m.args[a]) << n.name;
    EXPECT_EQ(n.outputs, m.outputs);
    EXPECT_EQ(g.position(m.id), i);
    EXPECT_EQ(g.findByName(m.name), m.id);
  }
  EXPECT_EQ(g.findByName("no_such_node"), ir::kInvalidNode);
  std::map<ir::OpId, size_t> ops;
  for (const ir::Node& m : model)
    if (m.kind == ir::NodeKind::Call) ++ops[m.op];
  for (const auto& [op, count] : ops) EXPECT_EQ(g.nodesOfOp(op).size(), count) << ir::opName(op);
  EXPECT_EQ(g.opsPresent().size(), ops.size());
  expectUsersAsRebuilt(g);
}

/// Copy-on-write storage (node vector, op index, positions, name index shared between
/// copies): random edits on random copies (insert, rewire, meta change, rename, setOp,
/// erase, batched erase, copy, copy-assign, move) never show in any other copy: after each
/// step every graph equals its own deep copy, edited alike.
TEST(GraphCopyOnWrite, RandomEditsOnCopiesMatchDeepCopies) {
  std::mt19937 rng(11);
  int k = 0;
  const ir::OpId neg = ir::internOp("aten.neg.default"), relu = ir::internOp("aten.relu.default");
  for (int round = 0; round < 30; ++round) {
    std::vector<ir::Graph> graphs(1);
    std::vector<std::vector<ir::Node>> models(1);
    ir::Node in;
    in.kind = ir::NodeKind::Placeholder;
    in.name = in.target = "x";
    in.outputs.push_back(ir::TensorMeta(ir::DType::Float32, ir::Shape{2}));
    graphs[0].append(in);
    auto makeCall = [&](const ir::Graph& g, size_t before) {
      ir::Node n;
      n.kind = ir::NodeKind::Call;
      n.op = rng() % 2 ? neg : relu;
      n.target = std::string(ir::opName(n.op));
      n.name = "node_with_a_name_longer_than_sso_" + std::to_string(k++);
      for (int a = 0; a < 1 + int(rng() % 3); ++a) n.args.push_back(ir::Arg(ir::ValueRef{g.at(rng() % before).id, 0}));
      n.outputs.push_back(ir::TensorMeta(ir::DType::Float32, ir::Shape{2}));
      return n;
    };
    for (int i = 0; i < 12; ++i) graphs[0].append(makeCall(graphs[0], graphs[0].size()));
    models[0] = deepCopy(graphs[0]);
    for (int step = 0; step < 80; ++step) {
      const size_t gi = rng() % graphs.size();
      ir::Graph& g = graphs[gi];
      std::vector<ir::Node>& m = models[gi];
      // Half the time the lazy indices exist before the edit (they are shared then).
      if (rng() % 2) {
        (void)g.findByName("x");
        (void)g.users(0);
        (void)g.position(0);
      }
      switch (rng() % 9) {
        case 0: {
          const size_t at = 1 + rng() % g.size();
          ir::Node n = makeCall(g, at);
          n.id = g.insertAt(at, n);
          m.insert(m.begin() + std::ptrdiff_t(at), n);
          break;
        }
        case 1: {
          ir::Node n = makeCall(g, g.size());
          n.id = g.append(n);
          m.push_back(n);
          break;
        }
        case 2: {  // rewire one argument to an earlier node
          if (g.size() < 2) break;
          const size_t p = 1 + rng() % (g.size() - 1);
          const ir::ValueRef to{g.at(rng() % p).id, 0};
          ir::Node& n = g.mutableNode(g.at(p).id);
          const size_t a = rng() % n.args.size();
          n.args[a] = ir::Arg(to);
          m[p].args[a] = ir::Arg(to);
          break;
        }
        case 3: {  // metadata only
          if (g.size() < 2) break;
          const size_t p = 1 + rng() % (g.size() - 1);
          const ir::Shape shape{int64_t(1 + rng() % 5)};
          g.mutableNode(g.at(p).id).outputs[0].shape = shape;
          m[p].outputs[0].shape = shape;
          break;
        }
        case 4: {
          if (g.size() < 2) break;
          const size_t p = 1 + rng() % (g.size() - 1);
          std::string name = "renamed_node_with_a_long_name_" + std::to_string(k++);
          g.rename(g.at(p).id, name);
          m[p].name = std::move(name);
          break;
        }
        case 5: {
          if (g.size() < 2) break;
          const size_t p = 1 + rng() % (g.size() - 1);
          const ir::OpId op = g.at(p).op == neg ? relu : neg;
          g.setOp(g.at(p).id, op, std::string(ir::opName(op)));
          m[p].op = op;
          m[p].target = std::string(ir::opName(op));
          break;
        }
        case 6: {  // erase one node without users, or a batch of them
          std::unordered_set<ir::NodeId> gone;
          for (size_t p = 1; p < g.size(); ++p)
            if (g.users(g.at(p).id).empty() && rng() % 3 == 0) gone.insert(g.at(p).id);
          if (gone.empty()) break;
          if (rng() % 2) {
            const ir::NodeId one = *gone.begin();
            ASSERT_TRUE(g.erase(one));
            gone = {one};
          } else {
            EXPECT_EQ(g.eraseNodes(gone), gone.size());
          }
          std::erase_if(m, [&](const ir::Node& n) { return gone.count(n.id) > 0; });
          break;
        }
        case 7:
          if (graphs.size() < 6) {
            graphs.reserve(graphs.size() + 1);  // keep `g` valid: no reallocation below
            graphs.push_back(graphs[gi]);
            models.push_back(models[gi]);
          }
          break;
        default: {  // copy-assign over, or move into, another graph
          const size_t other = rng() % graphs.size();
          if (other == gi) break;
          if (rng() % 2) {
            graphs[other] = graphs[gi];
          } else {
            ir::Graph tmp = graphs[gi];
            graphs[other] = std::move(tmp);
            EXPECT_EQ(tmp.size(), 0u);  // a moved-from graph is empty and still usable
            tmp.append(makeCall(graphs[other], 1));
          }
          models[other] = models[gi];
        }
      }
      for (size_t i = 0; i < graphs.size(); ++i) {
        expectGraphIs(graphs[i], models[i]);
        if (HasFailure()) return;
      }
    }
  }
}

/// Random inserts, rewires, erases (single and batched, with an edit pending) and copies on
/// small graphs: after each step the users of every node are what a rebuild computes.
TEST(GraphUsers, RandomEditsMatchARebuild) {
  std::mt19937 rng(7);
  int k = 0;
  auto addCall = [&](ir::Graph& g, size_t at) {
    ir::Node n;
    n.kind = ir::NodeKind::Call;
    n.op = ir::internOp("aten.neg.default");
    n.target = "aten.neg.default";
    n.name = "n" + std::to_string(k++);
    for (int a = 0; a < 1 + int(rng() % 3); ++a) n.args.push_back(ir::Arg(ir::ValueRef{g.at(rng() % at).id, 0}));
    n.outputs.push_back(ir::TensorMeta(ir::DType::Float32, ir::Shape{2}));
    g.insertAt(at, std::move(n));
  };
  for (int round = 0; round < 40; ++round) {
    ir::Graph g;
    ir::Node in;
    in.kind = ir::NodeKind::Placeholder;
    in.name = in.target = "x";
    in.outputs.push_back(ir::TensorMeta(ir::DType::Float32, ir::Shape{2}));
    g.append(in);
    for (int i = 0; i < 20; ++i) addCall(g, g.size());
    ASSERT_TRUE(g.users(0).size() > 0);  // the index exists from here on
    std::vector<std::unique_ptr<ir::Graph>> copies;
    for (int step = 0; step < 60; ++step) {
      switch (rng() % 5) {
        case 0: addCall(g, 1 + rng() % g.size()); break;
        case 1: {  // rewire one argument to an earlier node
          size_t p = 1 + rng() % (g.size() - 1);
          ir::NodeId src = g.at(rng() % p).id;
          ir::Node& n = g.mutableNode(g.at(p).id);
          n.args[rng() % n.args.size()] = ir::Arg(ir::ValueRef{src, 0});
          break;
        }
        case 2: {  // erase a node without users
          ir::NodeId id = g.at(1 + rng() % (g.size() - 1)).id;
          if (g.users(id).empty() && g.size() > 3) g.erase(id);
          break;
        }
        case 3: copies.push_back(std::make_unique<ir::Graph>(g)); break;
        default: {  // batch erase of user-less nodes, the first with an edit pending
          std::unordered_set<ir::NodeId> gone;
          for (size_t p = 1; p < g.size() && g.size() - gone.size() > 3; ++p)
            if (g.users(g.at(p).id).empty() && rng() % 3 == 0) gone.insert(g.at(p).id);
          if (!gone.empty()) {
            g.mutableNode(*gone.begin()).args.push_back(ir::Arg(ir::ValueRef{0, 0}));
            EXPECT_EQ(g.eraseNodes(gone), gone.size());
          }
        }
      }
      expectUsersAsRebuilt(g);
    }
    for (const auto& c : copies) expectUsersAsRebuilt(*c);
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace ls

namespace ls {
namespace {

ir::Constant namedConstant(const std::string& name, int64_t n) {
  ir::Constant c;
  c.name = name;
  c.fqn = "fqn." + name;
  c.shape = ir::Shape{n};
  return c;
}

// The constants table against a std::map model: random sets (new names and replacements),
// single and batch erases on random copies of graphs; every graph must read as its model
// (name order, lookups, sizes) and never see another copy's edits. Names are longer than
// the small-string buffer, so a key viewing a released entry's name is a use after free
// under ASan.
TEST(GraphConstants, RandomEditsOnCopiesMatchAMapInNameOrder) {
  using Model = std::map<std::string, int64_t>;
  std::mt19937 rng(1234);
  auto nameOf = [](int i) { return "constant_with_a_long_name_" + std::to_string(i); };
  std::vector<std::pair<ir::Graph, Model>> graphs(1);
  auto check = [&](const ir::Graph& g, const Model& m) {
    ASSERT_EQ(g.constants().size(), m.size());
    ASSERT_EQ(g.constants().empty(), m.empty());
    auto it = m.begin();
    for (const auto& [name, c] : g.constants()) {
      ASSERT_EQ(name, it->first);
      ASSERT_EQ(c.name, it->first);
      ASSERT_EQ(c.fqn, "fqn." + it->first);
      ASSERT_EQ(c.shape, ir::Shape{it->second});
      ++it;
    }
    for (int i = 0; i < 40; ++i) {
      const ir::Constant* c = g.constant(nameOf(i));
      auto mi = m.find(nameOf(i));
      ASSERT_EQ(c != nullptr, mi != m.end()) << nameOf(i);
      if (c) {
        EXPECT_EQ(c->shape, ir::Shape{mi->second});
      }
    }
  };
  for (int step = 0; step < 3000; ++step) {
    const size_t gi = rng() % graphs.size();
    auto& [g, m] = graphs[gi];
    switch (rng() % 6) {
      case 0:
      case 1: {
        const int i = int(rng() % 40);
        const int64_t n = int64_t(1 + rng() % 1000);
        g.setConstant(namedConstant(nameOf(i), n));
        m[nameOf(i)] = n;
        break;
      }
      case 2: {
        const int i = int(rng() % 40);
        EXPECT_EQ(g.eraseConstant(nameOf(i)), m.erase(nameOf(i)) == 1);
        break;
      }
      case 3: {
        std::vector<std::string> names;
        for (int k = int(rng() % 6); k-- > 0;) names.push_back(nameOf(int(rng() % 40)));
        size_t expected = 0;
        for (const std::string& n : names) expected += m.erase(n);
        EXPECT_EQ(g.eraseConstants(names), expected);
        break;
      }
      case 4:
        if (graphs.size() < 6) {
          ir::Graph copy = g;  // shares the table until one of the two edits it
          Model model = m;
          graphs.emplace_back(std::move(copy), std::move(model));
        }
        break;
      default:
        if (graphs.size() > 1) graphs.erase(graphs.begin() + std::ptrdiff_t(gi));  // frees shared entries
        break;
    }
    for (const auto& [cg, cm] : graphs) ASSERT_NO_FATAL_FAILURE(check(cg, cm)) << "step " << step;
  }
}

TEST(GraphConstants, ReplacingAConstantKeepsItsPlaceAndDropsTheOldValue) {
  ir::Graph g;
  g.setConstant(namedConstant("b_constant_with_a_long_name", 1));
  g.setConstant(namedConstant("a_constant_with_a_long_name", 2));
  ir::Graph copy = g;
  g.setConstant(namedConstant("b_constant_with_a_long_name", 3));
  std::vector<std::string> order;
  for (const auto& [name, c] : g.constants()) order.push_back(name);
  EXPECT_EQ(order, (std::vector<std::string>{"a_constant_with_a_long_name", "b_constant_with_a_long_name"}));
  EXPECT_EQ(g.constant("b_constant_with_a_long_name")->shape, ir::Shape{3});
  EXPECT_EQ(copy.constant("b_constant_with_a_long_name")->shape, ir::Shape{1}) << "the copy keeps its version";
  EXPECT_EQ(g.eraseConstants(std::vector<std::string>{"no_such_constant"}), 0u);
  EXPECT_EQ(g.constants().size(), 2u);
}

TEST(GraphReserveLike, AppendsAfterwardsKeepTheOpIndexRight) {
  const ir::Graph src = smallGraph();
  ir::Graph g = src.shellCopy();
  g.reserveLike(src);
  EXPECT_EQ(g.size(), 0u);
  EXPECT_TRUE(g.nodesOfOp(ir::internOp("aten.relu.default")).empty());
  for (const ir::NodePtr& p : src.nodes()) g.appendShared(p);
  for (ir::OpId op : src.opsPresent()) {
    const auto a = src.nodesOfOp(op), b = g.nodesOfOp(op);
    EXPECT_EQ(std::vector<ir::NodeId>(a.begin(), a.end()), std::vector<ir::NodeId>(b.begin(), b.end()));
  }
  EXPECT_EQ(g.opsPresent(), src.opsPresent());
}

}  // namespace
}  // namespace ls
