// DecorateFp32toInt32CastingPass (core/backends/arm/passes/decorate_fp32_to_int32_casting_pass.cpp),
// house style: a float32 -> int32 cast reads where(x >= 0, floor(x), ceil(x)) (op counts, the
// cast keeps its id), its values are the source graph's (reference executor), other casts and
// nodes are untouched, the pass is skipped without a cast, a malformed cast is refused naming
// the node; through the tosa pipeline the CAST (which rounds to nearest) then computes torch's
// truncation, and without the pass it does not.
#include <gtest/gtest.h>

#include "core/exec/compare.h"
#include "core/exec/executor.h"
#include "core/exec/synth.h"
#include "core/passes/pass_manager.h"
#include "tests/core/arm/pass_cases.h"

namespace ls::arm {
namespace {

using ir::DType;
using test::opCount;
using test::PassCase;

constexpr const char* kCast = "aten._to_copy.default";

ir::Kwarg toDType(DType t) { return {"dtype", ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(t)})}; }

/// (x * 2.5).to(dtype) of a [2, 8] input (seeded inputs in [-1, 1]: fractional values of both signs).
ir::Graph scaledCast(DType to, DType from = DType::Float32) {
  test::GraphBuilder b;
  auto x = b.input("x", from, {2, 8});
  auto m = b.call("aten.mul.Tensor", {x, 2.5});
  b.output({b.call(kCast, {m}, {toDType(to)}, "to_int")});
  return std::move(b.g);
}

passes::PassResult runPass(ir::Graph& g) {
  auto p = passes::PassRegistry::instance().create("DecorateFp32toInt32CastingPass");
  passes::PassContext ctx;
  return p->run(g, ctx);
}

TEST(DecorateFp32toInt32CastingPass, ChangesWhatItShouldKeepsValuesAndVerifies) {
  test::runCase({"DecorateFp32toInt32CastingPass", kCast,
                 [](test::GraphBuilder& b) { return b.call(kCast, {b.input("x", {3, 5})}, {toDType(DType::Int32)}); },
                 [](const ir::Graph& before, const ir::Graph& g) {
                   // The same cast node, now reading where(x >= 0, floor(x), ceil(x)).
                   const ir::NodeId cast = before.nodesOfOp(ir::internOp(kCast))[0];
                   ASSERT_TRUE(g.find(cast));
                   EXPECT_EQ(opCount(g, kCast), 1u);
                   const ir::Node& w = g.node(g.node(cast).args[0].ref()->node);
                   EXPECT_EQ(ir::opName(w.op), "aten.where.self");
                   EXPECT_EQ(ir::opName(g.node(w.args[0].ref()->node).op), "aten.ge.Tensor");
                   EXPECT_EQ(ir::opName(g.node(w.args[1].ref()->node).op), "aten.floor.default");
                   EXPECT_EQ(ir::opName(g.node(w.args[2].ref()->node).op), "aten.ceil.default");
                 }});
  // The integer values: exactly the source's (runCase compares the float outputs only).
  ir::Graph src = scaledCast(DType::Int32);
  ir::Graph g = src;
  ASSERT_EQ(runPass(g).status, passes::PassStatus::Changed);
  exec::CompareResult r = test::sameInputsCompare(src, g, 1);
  EXPECT_TRUE(r.equivalent) << r.message;
  EXPECT_EQ(r.maxSteps, 0);
}

TEST(DecorateFp32toInt32CastingPass, RankZeroCastKeepsItsShape) {
  test::GraphBuilder b;
  b.output({b.call(kCast, {b.constant("x", DType::Float32, {}, {-2.75})}, {toDType(DType::Int32)})});
  ir::Graph g = b.g;
  ASSERT_EQ(runPass(g).status, passes::PassStatus::Changed);
  EXPECT_EQ(g.outputNode()->meta(0).shape, ir::Shape{});
  exec::Executor ex;
  auto out = ex.run(g, {});
  ASSERT_TRUE(out.isOk()) << out.message();
  EXPECT_EQ((*out)[0].getInt(0), -2);
}

TEST(DecorateFp32toInt32CastingPass, OtherCastsAndNodesAreUntouched) {
  // Upstream decorates float32 -> int32 only: int8/int16 targets, float16 sources, int ->
  // float and float -> float casts keep their node and input.
  for (auto [from, to] : {std::pair{DType::Float32, DType::Int8}, std::pair{DType::Float32, DType::Int16},
                          std::pair{DType::Float16, DType::Int32}, std::pair{DType::Int32, DType::Float32},
                          std::pair{DType::Float32, DType::Float16}}) {
    ir::Graph src = scaledCast(to, from);
    ir::Graph g = src;
    EXPECT_EQ(runPass(g).status, passes::PassStatus::Unchanged) << ir::dtypeName(from) << " -> " << ir::dtypeName(to);
    ASSERT_EQ(g.size(), src.size());
    for (size_t i = 0; i < g.size(); ++i) {
      EXPECT_EQ(g.at(i).id, src.at(i).id);
      EXPECT_EQ(g.at(i).args, src.at(i).args);
    }
  }
  // Beside a decorated cast, the multiply feeding it keeps its id and args.
  ir::Graph src = scaledCast(DType::Int32);
  ir::Graph g = src;
  ASSERT_EQ(runPass(g).status, passes::PassStatus::Changed);
  const ir::NodeId mul = src.nodesOfOp(ir::internOp("aten.mul.Tensor"))[0];
  ASSERT_TRUE(g.find(mul));
  EXPECT_EQ(g.node(mul).args, src.node(mul).args);
}

TEST(DecorateFp32toInt32CastingPass, SkippedWithoutACast) {
  test::expectSkippedWithoutTarget({{"DecorateFp32toInt32CastingPass", kCast, nullptr}});
}

TEST(DecorateFp32toInt32CastingPass, MalformedCastIsRefusedNamingTheNode) {
  // A cast whose input is a number, not a tensor (a graph no exporter writes).
  test::GraphBuilder b;
  ir::Node n = b.makeCall(kCast, {ir::Arg(1.5)}, {toDType(DType::Int32)}, "bad_cast");
  n.outputs.push_back(ir::TensorMeta(DType::Int32, {}));
  ir::ValueRef v{b.g.append(std::move(n)), 0};
  b.output({v});
  passes::PassResult r = runPass(b.g);
  ASSERT_EQ(r.status, passes::PassStatus::Failed);
  EXPECT_NE(r.message.find("'bad_cast'"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("must be a tensor"), std::string::npos) << r.message;
}

/// (x * 2.5).int() through the tosa pipeline (FP), run against the source on seeded inputs.
exec::CompareResult lowerAndCompare(const std::vector<std::string>& disabled) {
  ir::Graph src = scaledCast(DType::Int32);
  auto pm = passes::PassManager::fromPipeline("tosa");
  EXPECT_TRUE(pm.isOk()) << pm.message();
  if (!pm.isOk()) return {};
  for (const std::string& d : disabled) pm->disable(d);
  ir::Graph g = src;
  ops::InferenceCache cache;
  passes::PassContext ctx;
  ctx.cache = &cache;
  auto run = pm->run(g, ctx);
  EXPECT_EQ(run.failedIndex, -1) << run.failure;
  EXPECT_EQ(opCount(g, "tosa.CAST"), 1u);
  return test::sameInputsCompare(src, g, 1);
}

TEST(DecorateFp32toInt32CastingPass, TosaCastTruncatesLikeTorch) {
  exec::CompareResult with = lowerAndCompare({});
  EXPECT_TRUE(with.equivalent) << with.message;
  EXPECT_EQ(with.maxSteps, 0);
  // The bare CAST rounds to nearest: off by one wherever |frac(x * 2.5)| >= 0.5.
  exec::CompareResult without = lowerAndCompare({"DecorateFp32toInt32CastingPass"});
  EXPECT_FALSE(without.equivalent);
  EXPECT_EQ(without.maxSteps, 1);
}

}  // namespace
}  // namespace ls::arm
