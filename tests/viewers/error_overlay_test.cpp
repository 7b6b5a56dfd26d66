// Error overlay of a localised pass: heat scale, activation only at the localised pass of the
// top graph, per-node lookups and the inspector's lines.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/support/graph_builder.h"
#include "viewers/model/error_overlay.h"

namespace ls::viewmodel {
namespace {

TEST(ErrorOverlay, HeatScaleIsLogarithmicFromYellowToRed) {
  EXPECT_EQ(heatPosition(0.5), 0.f);
  EXPECT_EQ(heatPosition(1.0), 0.f);
  EXPECT_NEAR(heatPosition(10.0), 1.0 / 3.0, 1e-6);
  EXPECT_NEAR(heatPosition(100.0), 2.0 / 3.0, 1e-6);
  EXPECT_EQ(heatPosition(1e6), 1.f);
  EXPECT_EQ(heatPosition(std::numeric_limits<double>::infinity()), 1.f);
  EXPECT_EQ(heatPosition(std::nan("")), 0.f);
  const Rgba yellow = heatColour(0.f), red = heatColour(1.f);
  EXPECT_GT(yellow.g, 200);
  EXPECT_LT(red.g, 60);
  EXPECT_GT(red.r, 200);
  for (int k = 1; k <= 10; ++k) EXPECT_LE(heatColour(float(k) / 10.f).g, heatColour(float(k - 1) / 10.f).g) << k;
  trace::NodeError within;
  within.error = 0.9;
  EXPECT_EQ(errorColour(within), kWithinTolerance);
  trace::NodeError above;
  above.error = 50;
  above.exceeds = true;
  EXPECT_EQ(errorColour(above), heatColour(heatPosition(50)));
}

struct Fixture {
  TracePtr trace;
  ir::NodeId x, a, b, c;
};

/// x -> a = tanh(x) -> b = mul(a, a) -> c = add(b, x); localised at pass 1: b is the culprit,
/// c inherits, a is within tolerance.
Fixture localisedTrace() {
  test::GraphBuilder gb;
  Fixture f;
  auto x = gb.input("x", {2, 2});
  auto a = gb.call("aten.tanh.default", {x}, {}, "a");
  auto b = gb.call("aten.mul.Tensor", {a, a}, {}, "b");
  auto c = gb.call("aten.add.Tensor", {b, x}, {}, "c");
  gb.output({c});
  f.x = x.node, f.a = a.node, f.b = b.node, f.c = c.node;
  auto t = std::make_shared<trace::Trace>();
  t->source = std::make_shared<const ir::Graph>(gb.g);
  for (int i = 0; i < 3; ++i) {
    trace::PassRecord r;
    r.index = i;
    r.name = "Pass" + std::to_string(i);
    t->records.push_back(r);
  }
  trace::Localization l;
  l.passIndex = 1;
  l.pass = "Pass1";
  l.nodes = {{f.a, f.a, trace::NodeMatch::SameId, 0.0, 0.0, 0.0, false, false},
             {f.b, f.b, trace::NodeMatch::SameId, 0.5, 40.0, 0.0, true, true},
             {f.c, f.c, trace::NodeMatch::SameId, 0.5, 30.0, 40.0, true, false}};
  l.culprit = f.b;
  t->localization = std::make_shared<const trace::Localization>(l);
  f.trace = t;
  return f;
}

TEST(ErrorOverlay, ActiveOnlyAtTheLocalisedPassOfTheTopGraph) {
  Fixture f = localisedTrace();
  EXPECT_TRUE(ErrorOverlay::build(f.trace, 1, false).active());
  EXPECT_FALSE(ErrorOverlay::build(f.trace, 0, false).active());
  EXPECT_FALSE(ErrorOverlay::build(f.trace, 2, false).active());
  EXPECT_FALSE(ErrorOverlay::build(f.trace, 1, true).active());
  EXPECT_FALSE(ErrorOverlay::build(nullptr, 1, false).active());
  auto plain = std::make_shared<trace::Trace>(*f.trace);
  plain->localization.reset();
  EXPECT_FALSE(ErrorOverlay::build(plain, 1, false).active());
}

TEST(ErrorOverlay, LooksUpNodesAndDescribesThemForTheInspector) {
  Fixture f = localisedTrace();
  ErrorOverlay o = ErrorOverlay::build(f.trace, 1, false);
  ASSERT_TRUE(o.active());
  EXPECT_EQ(o.error(f.x), nullptr);
  ASSERT_NE(o.error(f.b), nullptr);
  EXPECT_EQ(o.error(f.b)->error, 40.0);
  EXPECT_TRUE(o.isCulprit(f.b));
  EXPECT_FALSE(o.isCulprit(f.c));
  EXPECT_EQ(o.error(999), nullptr);
  const ir::Graph& g = *f.trace->source;
  std::vector<std::string> b = o.describe(g, g.node(f.b));
  ASSERT_GE(b.size(), 4u);  // own error, culprit, two inputs (a twice)
  EXPECT_NE(b[0].find("error 40 tolerances"), std::string::npos) << b[0];
  EXPECT_NE(b[0].find("ABOVE"), std::string::npos) << b[0];
  EXPECT_EQ(b[1].rfind("CULPRIT", 0), 0u) << b[1];
  EXPECT_NE(b[2].find("input %a: error 0 (within tolerance)"), std::string::npos) << b[2];
  std::vector<std::string> c = o.describe(g, g.node(f.c));
  EXPECT_NE(c[1].find("inherited"), std::string::npos) << c[1];
  EXPECT_NE(c[2].find("input %b: error 40 (above tolerance)"), std::string::npos) << c[2];
  EXPECT_NE(c[3].find("input %x: placeholder (not compared)"), std::string::npos) << c[3];
  // An input that was not compared says why.
  auto sk = std::make_shared<trace::Trace>(*f.trace);
  trace::Localization ls = *sk->localization;
  ls.nodes.erase(ls.nodes.begin());  // a
  ls.skipped.push_back({f.a, "inside the rewrite of 'z'"});
  sk->localization = std::make_shared<const trace::Localization>(ls);
  std::vector<std::string> viaSkipped = ErrorOverlay::build(sk, 1, false).describe(g, g.node(f.b));
  ASSERT_GE(viaSkipped.size(), 3u);
  EXPECT_NE(viaSkipped[2].find("input %a: not compared (inside the rewrite of 'z')"), std::string::npos) << viaSkipped[2];
  // A node matched through provenance names the node it was compared with before the pass.
  auto t = std::make_shared<trace::Trace>(*f.trace);
  trace::Localization l = *t->localization;
  l.nodes[2].match = trace::NodeMatch::Provenance;
  l.nodes[2].matched = f.a;
  t->localization = std::make_shared<const trace::Localization>(l);
  std::vector<std::string> p = ErrorOverlay::build(t, 1, false).describe(g, g.node(f.c));
  ASSERT_GE(p.size(), 2u);
  EXPECT_NE(p[1].find("compared with %a before the pass"), std::string::npos) << p[1];
}

}  // namespace
}  // namespace ls::viewmodel
