// Generic pipeline passes, upstream test style: op counts before/after, untargeted nodes
// untouched (same ids and node versions), skipped when absent, semantics-preserving shapes.
#include <gtest/gtest.h>

#include "core/io/fxjson.h"
#include "core/ir/printer.h"
#include "core/transforms/generic_passes.h"
#include "core/passes/pass_manager.h"
#include "core/transforms/constant_folding.h"
#include "support/graph_builder.h"

namespace ls {
namespace {

using namespace passes;
using namespace transforms;
using ir::IntList;

size_t count(const ir::Graph& g, const char* op) { return g.nodesOfOp(ir::internOp(op)).size(); }

PassResult runPass(Pass& p, ir::Graph& g) {
  static ops::InferenceCache cache;
  PassContext ctx;
  ctx.cache = &cache;
  if (!p.shouldRun(g, ctx).run) return {PassStatus::Skipped, ""};
  return p.run(g, ctx);
}

TEST(RemoveNoopClone, RemovesDeitClonesAndKeepsOthersShared) {
  auto g = io::importFxJsonFile(std::string(LS_ASSETS_DIR) + "/graphs/deit_tiny_vit.fxjson.json").value();
  ir::Graph before = g;
  EXPECT_EQ(count(g, "aten.clone.default"), 12u);
  RemoveNoopClonePass p;
  ASSERT_EQ(runPass(p, g).status, PassStatus::Changed);
  EXPECT_EQ(count(g, "aten.clone.default"), 0u);
  EXPECT_EQ(g.size(), before.size() - 12);
  EXPECT_EQ(p.statistics()[0].value, 12);
  for (const ir::NodePtr& n : g.nodes()) {
    const ir::NodePtr* old = before.findPtr(n->id);
    ASSERT_NE(old, nullptr);  // no new nodes
  }
  EXPECT_TRUE(VerifierInstrumentation::verifyGraph(g).isOk());
  auto r18 = io::importFxJsonFile(std::string(LS_ASSETS_DIR) + "/graphs/resnet18.fxjson.json").value();
  EXPECT_EQ(runPass(p, r18).status, PassStatus::Skipped);
}

TEST(RemoveNoopClone, KeepsACloneThatChangesDimOrder) {
  test::GraphBuilder b;
  auto x = b.input("x", {1, 3, 4, 4});
  auto c = b.call("aten.clone.default", {x}, {{"memory_format", ir::Arg(ir::EnumArg{ir::EnumKind::MemoryFormat, 2})}});
  b.output({c});
  RemoveNoopClonePass p;
  EXPECT_EQ(runPass(p, b.g).status, PassStatus::Unchanged);
  EXPECT_EQ(count(b.g, "aten.clone.default"), 1u);
}

TEST(RemoveNoopClone, RemovesASameTypeToCopyAndKeepsACast) {
  // Found by the pipeline fuzzer: a same-type _to_copy became an fp32 -> fp32 TOSA CAST, which
  // TOSA 1.0 does not define.
  test::GraphBuilder b;
  auto x = b.input("x", {2, 3});
  auto same = b.call("aten._to_copy.default", {x}, {}, "same");
  auto cast = b.call("aten._to_copy.default", {same}, {{"dtype", ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(ir::DType::Int32)})}}, "cast");
  b.output({same, cast});
  RemoveNoopClonePass p;
  ASSERT_EQ(runPass(p, b.g).status, PassStatus::Changed);
  EXPECT_EQ(b.g.findByName("same"), ir::kInvalidNode);
  EXPECT_NE(b.g.findByName("cast"), ir::kInvalidNode);
  EXPECT_EQ(count(b.g, "aten._to_copy.default"), 1u);
}

TEST(RemoveNoopView, OnlyTrueNoops) {
  test::GraphBuilder b;
  auto x = b.input("x", {1, 4, 4});
  auto v1 = b.call("aten.view_copy.default", {x, IntList{1, 4, 4}}, {}, "v_same");
  auto v2 = b.call("aten.view_copy.default", {v1, IntList{1, 16}}, {}, "v_real");
  auto p1 = b.call("aten.permute_copy.default", {x, IntList{0, 2, 1}}, {}, "p_swap_same_shape");
  auto p2 = b.call("aten.permute_copy.default", {x, IntList{0, 1, 2}}, {}, "p_identity");
  auto s1 = b.call("aten.slice_copy.Tensor", {x, int64_t(1), int64_t(0), int64_t(100)}, {}, "s_full");
  auto s2 = b.call("aten.slice_copy.Tensor", {x, int64_t(1), int64_t(1), int64_t(100)}, {}, "s_part");
  auto e1 = b.call("aten.expand_copy.default", {x, IntList{1, -1, -1}}, {}, "e_same");
  b.output({v2, p1, p2, s1, s2, e1});
  RemoveNoopViewPass p;
  ASSERT_EQ(runPass(p, b.g).status, PassStatus::Changed);
  for (const char* gone : {"v_same", "p_identity", "s_full", "e_same"})
    EXPECT_EQ(b.g.findByName(gone), ir::kInvalidNode) << gone;
  for (const char* kept : {"v_real", "p_swap_same_shape", "s_part"})
    EXPECT_NE(b.g.findByName(kept), ir::kInvalidNode) << kept;
  EXPECT_EQ(ir::printNode(b.g, b.g.node(b.g.findByName("v_real"))), "%v_real = aten.view_copy.default(%x, [1, 16]) : f32[1,16]");
  EXPECT_EQ(ir::printNode(b.g, *b.g.outputNode()), "return (%v_real, %p_swap_same_shape, %x, %x, %s_part, %x)");
}

TEST(CleanupGetItem, MergesDuplicatesAndRemovesSingleOutput) {
  test::GraphBuilder b;
  auto x = b.input("x", {1, 4, 8, 8});
  auto mp = b.call("aten.max_pool2d_with_indices.default", {x, IntList{2, 2}}, {}, "mp");
  auto g0 = b.call("operator.getitem", {mp, int64_t(0)}, {}, "g0");
  auto g0b = b.call("operator.getitem", {mp, int64_t(0)}, {}, "g0b");
  auto a = b.call("aten.add.Tensor", {g0, g0b}, {}, "a");
  b.output({a});
  CleanupGetItemPass p;
  ASSERT_EQ(runPass(p, b.g).status, PassStatus::Changed);
  EXPECT_EQ(ir::printNode(b.g, b.g.node(b.g.findByName("a"))), "%a = aten.add.Tensor(%g0, %g0) : f32[1,4,4,4]");
  EXPECT_EQ(p.statistics()[1].value, 1);
}

TEST(FoldConstantViews, FoldsConstantsWithDataOnly) {
  test::GraphBuilder b;
  auto x = b.input("x", {2, 3});
  ir::Constant c;
  c.name = "w";
  c.dtype = ir::DType::Float32;
  c.shape = {3, 2};
  std::vector<float> vals = {1, 2, 3, 4, 5, 6};
  std::vector<uint8_t> bytes(24);
  std::memcpy(bytes.data(), vals.data(), 24);
  c.data = b.g.store().intern(bytes);
  b.g.setConstant(c);
  ir::Node ga;
  ga.kind = ir::NodeKind::GetAttr;
  ga.name = "w";
  ga.target = "w";
  ga.outputs.push_back(ir::TensorMeta(ir::DType::Float32, {3, 2}));
  ir::ValueRef w{b.g.append(ga), 0};
  ir::Constant big = c;
  big.name = "wbig";
  big.data = nullptr;
  b.g.setConstant(big);
  ga.name = "wbig";
  ga.target = "wbig";
  ga.id = ir::kInvalidNode;
  ir::ValueRef wb{b.g.append(ga), 0};
  auto t = b.call("aten.t_copy.default", {w}, {}, "t");
  auto t2 = b.call("aten.t_copy.default", {wb}, {}, "t2");
  auto a = b.call("aten.add.Tensor", {x, t});
  auto a2 = b.call("aten.add.Tensor", {a, t2});
  b.output({a2});
  transforms::FoldConstantViewsPass p;
  ASSERT_EQ(runPass(p, b.g).status, PassStatus::Changed);
  EXPECT_EQ(b.g.findByName("t"), ir::kInvalidNode);
  EXPECT_NE(b.g.findByName("t2"), ir::kInvalidNode);  // no data: left alone
  const ir::Constant* folded = b.g.constant("t_folded");
  ASSERT_NE(folded, nullptr);
  ASSERT_TRUE(folded->valuesKnown());  // a lazy constant over data: its bytes are made on demand
  auto made = exec::materialize(*folded);
  ASSERT_TRUE(made.isOk()) << made.message();
  std::vector<float> out(6);
  std::memcpy(out.data(), made->bytes(), 24);
  EXPECT_EQ(out, (std::vector<float>{1, 3, 5, 2, 4, 6}));  // transpose of [[1,2],[3,4],[5,6]]
  EXPECT_EQ(b.g.constant("w"), nullptr);                    // the source constant became dead
  EXPECT_TRUE(VerifierInstrumentation::verifyGraph(b.g).isOk());
}

TEST(DeadCode, RemovesUnusedChainsAndSkipsCleanGraphs) {
  test::GraphBuilder b;
  auto x = b.input("x", {4});
  auto r = b.call("aten.relu.default", {x});
  auto dead1 = b.call("aten.sigmoid.default", {x});
  b.call("aten.relu.default", {dead1});
  b.output({r});
  DeadCodeEliminationPass p;
  ASSERT_EQ(runPass(p, b.g).status, PassStatus::Changed);
  EXPECT_EQ(b.g.size(), 3u);
  EXPECT_EQ(p.statistics()[0].value, 2);
  EXPECT_EQ(runPass(p, b.g).status, PassStatus::Skipped);
}

TEST(DeadCode, ADeadChainGoesWholeInOneRunAndAConstantStaysWhileALiveGetAttrReadsIt) {
  test::GraphBuilder b;
  auto x = b.input("x", {4});
  auto w = b.constant("w", ir::DType::Float32, {4}, {1, 2, 3, 4});  // also read by a dead get_attr
  auto v = b.constant("v", ir::DType::Float32, {4}, {5, 6, 7, 8});  // read by the dead chain only
  ir::Node again;
  again.kind = ir::NodeKind::GetAttr;
  again.name = "w_again";
  again.target = "w";
  again.outputs.push_back(ir::TensorMeta(ir::DType::Float32, ir::Shape{4}));
  const ir::ValueRef w2{b.g.append(std::move(again)), 0};
  auto live = b.call("aten.add.Tensor", {x, w});
  // Dead, three levels deep, with a node reading its producer twice.
  auto m = b.call("aten.mul.Tensor", {x, v});
  auto twice = b.call("aten.add.Tensor", {m, m});
  b.call("aten.sigmoid.default", {twice});
  b.call("aten.neg.default", {w2});
  b.output({live});
  DeadCodeEliminationPass p;
  ASSERT_EQ(runPass(p, b.g).status, PassStatus::Changed);
  EXPECT_EQ(p.statistics()[0].value, 6);  // v, w_again, mul, add, sigmoid, neg
  std::vector<std::string> left;
  for (const ir::NodePtr& n : b.g.nodes()) left.push_back(n->name);
  EXPECT_EQ(left.size(), 4u);  // x, w, the live add, output
  EXPECT_NE(b.g.findByName("w"), ir::kInvalidNode);
  EXPECT_NE(b.g.constant("w"), nullptr);
  EXPECT_EQ(b.g.constant("v"), nullptr);
  EXPECT_TRUE(VerifierInstrumentation::verifyGraph(b.g).isOk());
  EXPECT_EQ(runPass(p, b.g).status, PassStatus::Skipped);
}

}  // namespace
}  // namespace ls
