// NodeBuilder: the one node builder of every pass, over a retrace Rewriter and over an in-place
// GraphEditor (before / after an anchor, in emission order): metadata inferred, provenance
// recorded, errors naming the op.
#include "core/passes/node_builder.h"

#include <gtest/gtest.h>

#include "core/exec/tensor.h"
#include "core/passes/pass_manager.h"
#include "support/graph_builder.h"

namespace ls::passes {
namespace {

ir::Constant scalarConstant(ir::ConstantStore& store, float v) {
  exec::Tensor t = exec::Tensor::fromFloats(ir::Shape{1}, {v});
  ir::Constant c;
  c.kind = ir::ConstantKind::Constant;
  c.dtype = t.dtype();
  c.shape = t.shape();
  c.data = store.intern(std::vector<uint8_t>(t.bytes(), t.bytes() + t.nbytes()));
  c.contentHash = ir::constantContentHash(c);
  return c;
}

/// relu(x) -> max(x * 1, 0) style: x * c -> relu, built with NodeBuilder in a retrace.
class RetraceBuild : public RetracePass {
 public:
  std::string badOp;  ///< when set, emit this op instead and fail
  RetraceBuild() : RetracePass("RetraceBuildTestPass", "test") { targets({"aten.relu.default"}); }
  Status rewrite(Rewriter& rw) override {
    NodeBuilder b(rw);
    EXPECT_TRUE(b.inRetrace());
    const ir::ValueRef x = *rw.node().args[0].ref();
    if (!badOp.empty()) return b.op(badOp, {x}).status();
    ir::ValueRef c = b.constant(scalarConstant(b.store(), 1.0f), "one");
    LS_ASSIGN_OR_RETURN(m, b.op("aten.mul.Tensor", {x, c}, {}, "scaled"));
    EXPECT_EQ(b.meta(m).shape, b.meta(x).shape);  // inferred at once
    LS_ASSIGN_OR_RETURN(r, b.op("aten.relu.default", {m}, {}, "relu_again"));
    rw.replaceWith(r);
    return Status::ok();
  }
};

/// Two nodes after the anchor `x` (in emission order): x -> neg -> neg, feeding the relu.
class InPlaceBuild : public InPlacePass {
 public:
  NodeBuilder::Placement where = NodeBuilder::Placement::After;
  InPlaceBuild() : InPlacePass("InPlaceBuildTestPass", "test") { targets({"aten.relu.default"}); }
  Status transform(GraphEditor& ed) override {
    ir::Graph& g = ed.graph();
    const ir::NodeId relu = g.nodesOfOp(ir::internOp("aten.relu.default"))[0];
    const ir::ValueRef x = *g.node(relu).args[0].ref();
    NodeBuilder b(ed, where == NodeBuilder::Placement::After ? x.node : relu, where);
    b.setDerivedFrom({relu});
    LS_ASSIGN_OR_RETURN(n1, b.op("aten.neg.default", {x}, {}, "neg1"));
    LS_ASSIGN_OR_RETURN(n2, b.op("aten.neg.default", {n1}, {}, "neg2"));
    ed.replaceUse(relu, x, n2);
    return Status::ok();
  }
};

ir::Graph reluGraph() {
  test::GraphBuilder b;
  auto x = b.input("x", {2, 5});
  b.output({b.call("aten.relu.default", {x})});
  return std::move(b.g);
}

TEST(NodeBuilder, RetraceBuildsInferredNodesDerivedFromTheHotNode) {
  ir::Graph g = reluGraph();
  const ir::NodeId hot = g.nodesOfOp(ir::internOp("aten.relu.default"))[0];
  RetraceBuild p;
  PassContext ctx;
  ASSERT_EQ(p.run(g, ctx).status, PassStatus::Changed);
  const auto muls = g.nodesOfOp(ir::internOp("aten.mul.Tensor"));
  ASSERT_EQ(muls.size(), 1u);
  const ir::Node& m = g.node(muls[0]);
  EXPECT_EQ(m.provenance.createdBy, "RetraceBuildTestPass");
  EXPECT_EQ(m.provenance.derivedFrom, std::vector<ir::NodeId>{hot});
  EXPECT_EQ(m.meta(0).shape, (ir::Shape{2, 5}));
  EXPECT_TRUE(VerifierInstrumentation::verifyGraph(g).isOk());
}

TEST(NodeBuilder, InPlaceAfterAnchorKeepsEmissionOrderAndRecordsDerivedFrom) {
  for (auto where : {NodeBuilder::Placement::After, NodeBuilder::Placement::Before}) {
    ir::Graph g = reluGraph();
    const ir::NodeId relu = g.nodesOfOp(ir::internOp("aten.relu.default"))[0];
    InPlaceBuild p;
    p.where = where;
    PassContext ctx;
    ASSERT_EQ(p.run(g, ctx).status, PassStatus::Changed);
    const ir::NodeId n1 = g.findByName("neg1"), n2 = g.findByName("neg2");
    ASSERT_NE(n1, ir::kInvalidNode);
    ASSERT_NE(n2, ir::kInvalidNode);
    EXPECT_LT(g.position(n1), g.position(n2));    // emission order
    EXPECT_LT(g.position(n2), g.position(relu));  // before their user
    EXPECT_EQ(g.node(n2).provenance.derivedFrom, std::vector<ir::NodeId>{relu});
    EXPECT_EQ(g.node(n2).provenance.createdBy, "InPlaceBuildTestPass");
    EXPECT_TRUE(VerifierInstrumentation::verifyGraph(g).isOk());
  }
}

TEST(NodeBuilder, BuiltNodesAndConstantsTakeTheModuleOfTheirOrigin) {
  // What a pass builds belongs to the module of the node it rewrites (the app folds by module).
  for (bool retrace : {true, false}) {
    ir::Graph g = reluGraph();
    const ir::NodeId relu = g.nodesOfOp(ir::internOp("aten.relu.default"))[0];
    g.mutableNode(relu).module = "block.act";
    PassContext ctx;
    if (retrace) {
      RetraceBuild p;
      ASSERT_EQ(p.run(g, ctx).status, PassStatus::Changed);
      for (const char* name : {"scaled", "relu_again", "one"}) {
        const ir::NodeId id = g.findByName(name);
        ASSERT_NE(id, ir::kInvalidNode) << name;
        EXPECT_EQ(g.node(id).module, "block.act") << name;
      }
    } else {
      InPlaceBuild p;
      ASSERT_EQ(p.run(g, ctx).status, PassStatus::Changed);
      for (const char* name : {"neg1", "neg2"}) EXPECT_EQ(g.node(g.findByName(name)).module, "block.act") << name;
    }
  }
}

TEST(NodeBuilder, UnknownOpOrBadArgsAreErrorsNamingTheOp) {
  for (std::string op : {"aten.no_such_op.default", "aten.mul.Tensor"}) {  // mul: one arg short
    ir::Graph g = reluGraph();
    const ir::Graph before = g;
    RetraceBuild p;
    p.badOp = op;
    PassContext ctx;
    PassResult r = p.run(g, ctx);
    ASSERT_EQ(r.status, PassStatus::Failed) << op << ": " << r.message << " " << g.size();
    EXPECT_NE(r.message.find(op), std::string::npos) << r.message;
  }
}

}  // namespace
}  // namespace ls::passes
