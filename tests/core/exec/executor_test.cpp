// Executor behaviour: constants (data, synthesis, shared cache), errors that name the node,
// stale metadata, delegate subgraphs, the kernel registry extension point, output comparison.
#include "core/exec/executor.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <set>
#include <thread>

#include "core/exec/compare.h"
#include "core/exec/kernel.h"
#include "core/exec/materialize.h"
#include "core/exec/parallel.h"
#include "core/exec/synth.h"
#include "support/constants.h"
#include "support/graph_builder.h"

namespace ls::exec {
namespace {

using ir::DType;
using ir::Shape;
using ir::ValueRef;

using test::shapeOnlyConstant;

ValueRef getAttr(test::GraphBuilder& b, const ir::Constant& c) {
  b.g.setConstant(c);
  ir::Node n;
  n.kind = ir::NodeKind::GetAttr;
  n.name = c.name;
  n.target = c.name;
  n.outputs.push_back(ir::TensorMeta(c.dtype, c.shape));
  return {b.g.append(std::move(n)), 0};
}

// ---------------------------------------------------------------- synthesis

TEST(Synth, DeterministicBySeedNameAndRoleRanges) {
  ir::Constant w = shapeOnlyConstant("layer1_0_conv1_weight", "layer1.0.conv1.weight", {64, 64, 3, 3});
  Tensor a = synthesizeConstant(w), b = synthesizeConstant(w);
  ASSERT_EQ(a.numel(), 64 * 64 * 9);
  EXPECT_EQ(std::memcmp(a.bytes(), b.bytes(), a.nbytes()), 0);  // same name -> same values
  ir::Constant w2 = w;
  w2.name = "layer1_0_conv2_weight";
  Tensor c = synthesizeConstant(w2);
  EXPECT_NE(std::memcmp(a.bytes(), c.bytes(), a.nbytes()), 0);  // another name -> other values

  auto range = [](const Tensor& t) {
    double lo = INFINITY, hi = -INFINITY;
    for (int64_t i = 0; i < t.numel(); ++i) lo = std::min(lo, t.getDouble(i)), hi = std::max(hi, t.getDouble(i));
    return std::pair(lo, hi);
  };
  const double bound = std::sqrt(6.0 / (64 * 9));  // He-uniform, fan_in = 64 * 3 * 3
  auto [wlo, whi] = range(a);
  EXPECT_GE(wlo, -bound);
  EXPECT_LE(whi, bound);
  EXPECT_GT(whi, 0.9 * bound);  // uses the range
  auto check = [&](const std::string& fqn, Shape s, double lo, double hi) {
    ir::Constant k = shapeOnlyConstant(fqn, fqn, s);
    auto [l, h] = range(synthesizeConstant(k));
    EXPECT_GE(l, lo) << fqn;
    EXPECT_LE(h, hi) << fqn;
  };
  check("bn.running_var", {256}, 0.5, 1.5);
  check("bn.running_mean", {256}, -0.1, 0.1);
  check("bn.weight", {256}, 0.8, 1.2);
  check("fc.bias", {256}, -0.1, 0.1);
  check("pos_embedding", {1, 197, 192}, -1, 1);
  EXPECT_EQ(constantRole(shapeOnlyConstant("x", "ln.weight", {192})), ConstantRole::NormWeight);
  EXPECT_EQ(constantRole(shapeOnlyConstant("x", "fc.weight", {10, 20})), ConstantRole::Weight);
  // Integer constants get small non-negative integers (index-like), bools 0/1.
  Tensor idx = synthesizeConstant(shapeOnlyConstant("rel_index", "rel_index", {100}, DType::Int64));
  for (int64_t v : idx.toInts()) EXPECT_TRUE(v >= 0 && v <= 3);

  Tensor in1 = synthesizeInput(ir::TensorMeta(DType::Float32, {1000}), 5);
  Tensor in2 = synthesizeInput(ir::TensorMeta(DType::Float32, {1000}), 5);
  EXPECT_EQ(std::memcmp(in1.bytes(), in2.bytes(), in1.nbytes()), 0);
  auto [ilo, ihi] = range(in1);
  EXPECT_GE(ilo, -1.0);
  EXPECT_LT(ihi, 1.0);
}

// ---------------------------------------------------------------- constants

TEST(Executor, ConstantsUseDataElseSynthesisAndAreCachedAcrossGraphVersions) {
  test::GraphBuilder b;
  auto x = b.input("x", {2});
  ir::Constant withData = shapeOnlyConstant("w", "w", {2});
  std::vector<float> wv = {10, 20};
  withData.data = b.g.store().intern(std::vector<uint8_t>(reinterpret_cast<uint8_t*>(wv.data()),
                                                          reinterpret_cast<uint8_t*>(wv.data()) + 8));
  withData.contentHash = ir::constantContentHash(withData);
  auto w = getAttr(b, withData);
  auto v = getAttr(b, shapeOnlyConstant("v", "block.bias", {2}));
  auto s = b.call("aten.add.Tensor", {x, w});
  auto t = b.call("aten.add.Tensor", {s, v});
  b.output({t});

  auto cache = std::make_shared<ConstantCache>();
  Executor ex({}, cache);
  auto out = ex.run(b.g, {Tensor::fromFloats({2}, {1, 2})});
  ASSERT_TRUE(out.isOk()) << out.message();
  Tensor bias = synthesizeConstant(*b.g.constant("v"));
  EXPECT_FLOAT_EQ(float((*out)[0].getDouble(0)), 11 + float(bias.getDouble(0)));
  EXPECT_FLOAT_EQ(float((*out)[0].getDouble(1)), 22 + float(bias.getDouble(1)));
  EXPECT_EQ(cache->size(), 2u);

  // A copy of the graph (a later snapshot) run by another executor sharing the cache sees the
  // same weights without materialising them again.
  ir::Graph copy = b.g;
  Executor ex2({}, cache);
  auto out2 = ex2.run(copy, {Tensor::fromFloats({2}, {1, 2})});
  ASSERT_TRUE(out2.isOk());
  EXPECT_EQ(cache->size(), 2u);
  EXPECT_EQ(cache->hits(), 2u);
  EXPECT_TRUE(compareOutputs(*out2, *out, CompareOptions{.rtol = 0, .atol = 0}).equivalent);

  // materializeConstants writes the synthesised values as data: same results.
  ir::Graph mat = b.g;
  materializeConstants(mat);
  EXPECT_TRUE(mat.constant("v")->hasData());
  Executor ex3;
  auto out3 = ex3.run(mat, {Tensor::fromFloats({2}, {1, 2})});
  ASSERT_TRUE(out3.isOk());
  EXPECT_TRUE(compareOutputs(*out3, *out, CompareOptions{.rtol = 0, .atol = 0}).equivalent);
}

TEST(Executor, ProgressCountsEveryNodeOfTheRun) {
  test::GraphBuilder b;
  auto x = b.input("x", {2});
  auto s = b.call("aten.add.Tensor", {x, x});
  auto t = b.call("aten.mul.Tensor", {s, x});
  b.output({t});
  Executor ex;
  std::vector<std::pair<size_t, size_t>> seen;
  ex.setProgress([&](size_t done, size_t total) { seen.emplace_back(done, total); });
  ASSERT_TRUE(ex.run(b.g, {Tensor::fromFloats({2}, {1, 2})}).isOk());
  ASSERT_EQ(seen.size(), b.g.size());  // placeholder, add, mul, output
  for (size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], std::make_pair(i + 1, b.g.size()));
  // Values taken from a reuse callback count too.
  auto all = ex.runAll(b.g, {Tensor::fromFloats({2}, {1, 2})});
  ASSERT_TRUE(all.isOk());
  seen.clear();
  Executor::ReuseFn reuse = [&](const ir::Node& n, const std::vector<std::vector<Tensor>>&) {
    return n.kind == ir::NodeKind::Call ? &all->of(n.id) : nullptr;
  };
  ASSERT_TRUE(ex.runAll(b.g, {Tensor::fromFloats({2}, {1, 2})}, reuse).isOk());
  ASSERT_EQ(seen.size(), b.g.size());
  EXPECT_EQ(seen.back(), std::make_pair(b.g.size(), b.g.size()));
}

// ---------------------------------------------------------------- errors

TEST(Executor, UnknownOpNamesNodeAndOp) {
  test::GraphBuilder b;
  auto x = b.input("x", {2});
  ir::Node n = b.makeCall("mystery.frobnicate.default", {x}, {}, "frob_3");
  n.outputs.push_back(ir::TensorMeta(DType::Float32, {2}));
  n.flags |= ir::kFlagOpaque;
  ValueRef y{b.g.append(std::move(n)), 0};
  b.output({y});
  Executor ex;
  auto r = ex.run(b.g, {Tensor::fromFloats({2}, {1, 2})});
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.message().find("frob_3"), std::string::npos) << r.message();
  EXPECT_NE(r.message().find("mystery.frobnicate.default"), std::string::npos) << r.message();
}

TEST(Executor, WrongInputsAndStaleMetadataAreErrors) {
  test::GraphBuilder b;
  auto x = b.input("x", {2});
  auto y = b.call("aten.relu.default", {x}, {}, "r");
  b.output({y});
  Executor ex;
  auto none = ex.run(b.g, {});
  ASSERT_FALSE(none.isOk());
  EXPECT_NE(none.message().find("input"), std::string::npos) << none.message();
  auto badShape = ex.run(b.g, {Tensor::fromFloats({3}, {1, 2, 3})});
  ASSERT_FALSE(badShape.isOk());
  EXPECT_NE(badShape.message().find("metadata"), std::string::npos) << badShape.message();

  // A pass that changed a node without refreshing its metadata: reported, naming the node.
  ir::Graph stale = b.g;
  stale.mutableNode(y.node).outputs[0] = ir::TensorMeta(DType::Float32, {5});
  auto r = ex.run(stale, {Tensor::fromFloats({2}, {1, 2})});
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.message().find("'r'"), std::string::npos) << r.message();
  EXPECT_NE(r.message().find("stale"), std::string::npos) << r.message();
}

TEST(Executor, RunEachErrorsNameTheRunAndTheNode) {
  test::GraphBuilder b;
  auto x = b.input("x", {2});
  auto y = b.call("aten.relu.default", {x}, {}, "r");
  b.output({y});
  Executor ex;
  auto ok = ex.runEach(b.g, {{Tensor::fromFloats({2}, {-1, 2})}, {Tensor::fromFloats({2}, {3, -4})}});
  ASSERT_TRUE(ok.isOk()) << ok.message();
  EXPECT_EQ((*ok)[0][0].toFloats(), (std::vector<float>{0, 2}));
  EXPECT_EQ((*ok)[1][0].toFloats(), (std::vector<float>{3, 0}));
  auto missing = ex.runEach(b.g, {{Tensor::fromFloats({2}, {1, 2})}, {}});
  ASSERT_FALSE(missing.isOk());
  EXPECT_NE(missing.message().find("run 1"), std::string::npos) << missing.message();
  ir::Graph stale = b.g;
  stale.mutableNode(y.node).outputs[0] = ir::TensorMeta(DType::Float32, {5});
  auto r = ex.runEach(stale, {{Tensor::fromFloats({2}, {1, 2})}, {Tensor::fromFloats({2}, {1, 2})}});
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.message().find("run 0"), std::string::npos) << r.message();
  EXPECT_NE(r.message().find("'r'"), std::string::npos) << r.message();
  EXPECT_TRUE(ex.runEach(b.g, {})->empty());
}

TEST(Executor, RunEachMakesEachConstantBeforeItsFirstReaderAndKeepsNoneWhenAskedTo) {
  // Weights listed first, as exported graphs list their get_attr nodes; frozen synthesised
  // values (the quantizer's calibration) and one with data.
  test::GraphBuilder b;
  std::vector<ValueRef> ws;
  for (int i = 0; i < 3; ++i) ws.push_back(b.parameter("l" + std::to_string(i) + "_weight", {4, 4}, "l" + std::to_string(i) + ".weight"));
  auto bias = b.constant("bias", DType::Float32, {4}, {0.5, -0.5, 0.25, 1});
  auto x = b.input("x", {2, 4});
  ValueRef h = x;
  for (int i = 0; i < 3; ++i) h = b.call("aten.linear.default", {h, ws[size_t(i)], bias});
  b.output({h});
  freezeConstants(b.g);
  const std::vector<std::vector<Tensor>> inputs = {{synthesizeInput(b.g.node(x.node).meta(0), 1)},
                                                    {synthesizeInput(b.g.node(x.node).meta(0), 2)}};
  MaterializeCache::instance().clear();
  Executor keep;
  auto kept = keep.runEach(b.g, inputs);
  ASSERT_TRUE(kept.isOk()) << kept.message();
  EXPECT_EQ(keep.constants().size(), 4u);

  MaterializeCache::instance().clear();
  Executor lean(ExecOptions{.keepConstants = false});
  std::vector<ir::NodeId> order;  // run 0's observations, in order
  auto out = lean.runEach(b.g, inputs, [&](size_t run, const ir::Node& n, const std::vector<Tensor>&) {
    if (run == 0) order.push_back(n.id);
  });
  ASSERT_TRUE(out.isOk()) << out.message();
  for (size_t r = 0; r < inputs.size(); ++r)
    EXPECT_TRUE(compareOutputs((*out)[r], (*kept)[r], CompareOptions{.rtol = 0, .atol = 0}).equivalent) << r;
  EXPECT_EQ(lean.constants().size(), 0u);
  EXPECT_EQ(MaterializeCache::instance().stats().entries, 0u);
  // Each weight is made right before the linear that reads it (its first reader): observed
  // after the previous linear, not at the top of the graph where it is listed. The bias,
  // read by every linear, is made before the first.
  auto at = [&](ir::NodeId id) { return std::find(order.begin(), order.end(), id) - order.begin(); };
  const ir::NodeId lin0 = b.g.users(ws[0].node)[0], lin1 = b.g.users(ws[1].node)[0],
                   lin2 = b.g.users(ws[2].node)[0];
  EXPECT_LT(at(x.node), at(ws[0].node));
  EXPECT_EQ(at(ws[0].node) + 2, at(lin0));  // weight, bias, linear
  EXPECT_EQ(at(bias.node) + 1, at(lin0));
  EXPECT_EQ(at(ws[1].node) + 1, at(lin1));
  EXPECT_EQ(at(ws[2].node) + 1, at(lin2));
  EXPECT_GT(at(ws[1].node), at(lin0));
}

TEST(WorkerPool, EveryIndexOnceInEveryRoundOnSeveralThreads) {
  for (int threads : {1, 2, 3}) {
    WorkerPool pool(threads);
    EXPECT_EQ(pool.threads(), threads);
    for (int64_t n : {0, 1, 2, 7, 100}) {
      for (int round = 0; round < 20; ++round) {
        std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
        std::mutex mu;
        std::set<std::thread::id> ids;
        pool.forEach(n, [&](int64_t i) {
          hits[size_t(i)]++;
          std::this_thread::sleep_for(std::chrono::microseconds(50));
          std::lock_guard lock(mu);
          ids.insert(std::this_thread::get_id());
        });
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[size_t(i)].load(), 1) << threads << " threads, n " << n;
        EXPECT_LE(ids.size(), size_t(threads));
      }
    }
  }
}

TEST(Parallel, ForEachLargestFirstVisitsEveryItemOnceLargestFirstWhenInline) {
  const std::vector<size_t> sizes = {3, 90, 0, 17, 90, 5};
  std::vector<size_t> seen;
  forEachLargestFirst(sizes, /*parallelFrom=*/1000, [&](size_t i) { seen.push_back(i); });  // 205 bytes: inline
  EXPECT_EQ(seen, (std::vector<size_t>{1, 4, 3, 5, 0, 2}));  // ties keep their order
  std::vector<std::atomic<int>> hits(sizes.size());
  forEachLargestFirst(sizes, /*parallelFrom=*/0, [&](size_t i) { hits[i]++; });  // over the threads
  for (size_t i = 0; i < sizes.size(); ++i) EXPECT_EQ(hits[i].load(), 1) << i;
  forEachLargestFirst({}, 0, [&](size_t) { ADD_FAILURE() << "no items"; });
}

TEST(Executor, Float64ModeEvaluatesInDoubleAndReturnsTheGraphsFloat32) {
  // (x + 2^-30) - x: float32 rounds the sum to x (0), float64 keeps it (2^-30, a float32 too).
  test::GraphBuilder b;
  auto x = b.input("x", {2});
  auto c = b.constant("tiny", DType::Float32, {2}, {std::ldexp(1.0, -30), -std::ldexp(1.0, -30)});
  auto s = b.call("aten.add.Tensor", {x, c}, {}, "s");
  auto d = b.call("aten.sub.Tensor", {s, x}, {}, "d");
  b.output({d, s});
  const std::vector<Tensor> in = {Tensor::fromFloats({2}, {1, 1})};
  auto f32 = Executor(ExecOptions{}).run(b.g, in);
  ASSERT_TRUE(f32.isOk()) << f32.message();
  EXPECT_EQ((*f32)[0].toFloats(), (std::vector<float>{0.0f, 0.0f}));
  Executor ex(ExecOptions{.float64 = true});
  auto all = ex.runAll(b.g, in);
  ASSERT_TRUE(all.isOk()) << all.message();
  // Outputs and every kept value come back as the graph's float32.
  ASSERT_EQ(all->outputs[0].dtype(), DType::Float32);
  EXPECT_EQ(all->outputs[0].toFloats(), (std::vector<float>{std::ldexp(1.0f, -30), -std::ldexp(1.0f, -30)}));
  EXPECT_EQ(all->outputs[1].toFloats(), (std::vector<float>{1.0f, 1.0f}));
  EXPECT_EQ(all->at(s).dtype(), DType::Float32);
  EXPECT_EQ(all->at(x).dtype(), DType::Float32);
}

TEST(Executor, Float64ModeKernelWithoutTheDtypeNamesNodeAndOp) {
  // A float kernel gets float32 or float64; any other input dtype is an error naming the arg,
  // the node and the op (also with float64 on).
  test::GraphBuilder b;
  auto x = b.input("x", DType::Int32, {1, 1, 4, 4});
  auto w = b.constant("w", DType::Int32, {1, 1, 1, 1}, {1});
  auto y = b.call("aten.convolution.default",
                  {x, w, ir::Arg(), std::vector<int64_t>{1, 1}, std::vector<int64_t>{0, 0},
                   std::vector<int64_t>{1, 1}, false, std::vector<int64_t>{0, 0}, int64_t(1)},
                  {}, "conv_int");
  b.output({y});
  for (bool f64 : {false, true}) {
    Executor ex(ExecOptions{.float64 = f64});
    auto r = ex.run(b.g, {Tensor::fromInts(DType::Int32, {1, 1, 4, 4}, std::vector<int64_t>(16, 1))});
    ASSERT_FALSE(r.isOk());
    EXPECT_NE(r.message().find("conv_int"), std::string::npos) << r.message();
    EXPECT_NE(r.message().find("aten.convolution.default"), std::string::npos) << r.message();
    EXPECT_NE(r.message().find("float32 or float64"), std::string::npos) << r.message();
  }
}

TEST(Executor, KernelErrorsNameTheNode) {
  test::GraphBuilder b;
  auto x = b.input("x", {3});
  auto i = b.input("i", DType::Int64, {1});
  auto y = b.call("aten.index.Tensor", {x, ir::RefList{i}}, {}, "gather_it");
  b.output({y});
  Executor ex;
  auto r = ex.run(b.g, {Tensor::fromFloats({3}, {1, 2, 3}), Tensor::fromInts(DType::Int64, {1}, {7})});
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.message().find("gather_it"), std::string::npos) << r.message();
  EXPECT_NE(r.message().find("out of bounds"), std::string::npos) << r.message();
}

// ---------------------------------------------------------------- delegates and registry

TEST(Executor, CallDelegateRunsTheNamedSubgraph) {
  // Subgraph: (a, b) -> (a * b, a + b).
  auto sub = std::make_shared<ir::Graph>();
  {
    test::GraphBuilder sb;
    auto a = sb.input("a", {2});
    auto c = sb.input("b", {2});
    auto m = sb.call("aten.mul.Tensor", {a, c});
    auto s = sb.call("aten.add.Tensor", {a, c});
    sb.output({m, s});
    *sub = sb.g;
  }
  test::GraphBuilder b;
  auto x = b.input("x", {2});
  auto y = b.input("y", {2});
  b.g.subgraphs()["delegate_0"] = sub;
  ir::Node call = b.makeCall(std::string(kCallDelegateOp), {std::string("delegate_0"), ir::RefList{x, y}}, {}, "call_0");
  call.outputs = {ir::TensorMeta(DType::Float32, {2}), ir::TensorMeta(DType::Float32, {2})};
  ValueRef c{b.g.append(std::move(call)), 0};
  auto g1 = b.call("operator.getitem", {c, int64_t(1)});
  b.output({g1});
  Executor ex;
  auto out = ex.run(b.g, {Tensor::fromFloats({2}, {2, 3}), Tensor::fromFloats({2}, {4, 5})});
  ASSERT_TRUE(out.isOk()) << out.message();
  EXPECT_EQ((*out)[0].toFloats(), (std::vector<float>{6, 8}));

  // A custom DelegateRunner replaces how nested graphs run (e.g. an XNNPACK emulation).
  int calls = 0;
  ex.setDelegateRunner([&](Executor& e, const ir::Node&, const ir::Graph& g, const std::vector<Tensor>& in) {
    ++calls;
    return e.run(g, in);
  });
  ASSERT_TRUE(ex.run(b.g, {Tensor::fromFloats({2}, {2, 3}), Tensor::fromFloats({2}, {4, 5})}).isOk());
  EXPECT_EQ(calls, 1);

  // Missing subgraph: the error names the call node and the subgraph.
  ir::Graph broken = b.g;
  broken.subgraphs().clear();
  auto r = ex.run(broken, {Tensor::fromFloats({2}, {2, 3}), Tensor::fromFloats({2}, {4, 5})});
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.message().find("delegate_0"), std::string::npos) << r.message();
}

Status doubleKernel(KernelCtx& c) {
  auto x = c.tensor(0);
  if (!x) return x.status();
  Tensor& out = c.newOutput(0);
  for (int64_t i = 0; i < out.numel(); ++i) out.setDouble(i, 2 * x.value()->getDouble(i));
  return Status::ok();
}

TEST(KernelRegistry, OtherFilesCanAddKernels) {
  EXPECT_NE(KernelRegistry::instance().find("aten.convolution.default"), nullptr);
  KernelRegistry::instance().registerKernel("test.double.default", doubleKernel);
  test::GraphBuilder b;
  auto x = b.input("x", {2});
  ir::Node n = b.makeCall("test.double.default", {x}, {}, "dbl");
  n.outputs.push_back(ir::TensorMeta(DType::Float32, {2}));
  ValueRef y{b.g.append(std::move(n)), 0};
  b.output({y});
  Executor ex;
  auto out = ex.run(b.g, {Tensor::fromFloats({2}, {1.5, -2})});
  ASSERT_TRUE(out.isOk()) << out.message();
  EXPECT_EQ((*out)[0].toFloats(), (std::vector<float>{3, -4}));
}

TEST(KernelRegistry, EveryRealModelOpHasAKernel) {
  // FXJSON.md's 46 ops + operator.getitem + the q/dq ops.
  const char* ops[] = {"aten.convolution.default", "aten.native_batch_norm.default", "aten.relu.default",
                       "aten.hardtanh.default", "aten.hardswish.default", "aten.hardsigmoid.default",
                       "aten.sigmoid.default", "aten.silu.default", "aten.gelu.default", "aten.add.Tensor",
                       "aten.sub.Tensor", "aten.mul.Tensor", "aten.div.Tensor", "aten.mean.dim",
                       "aten.addmm.default", "aten.mm.default", "aten.bmm.default", "aten.t_copy.default",
                       "aten.view_copy.default", "aten.permute_copy.default", "aten.transpose_copy.int",
                       "aten.expand_copy.default", "aten.unsqueeze_copy.default", "aten.slice_copy.Tensor",
                       "aten.select_copy.int", "aten.split_copy.Tensor", "aten.as_strided_copy.default",
                       "aten.clone.default", "aten.cat.default", "aten.max_pool2d_with_indices.default",
                       "aten.avg_pool2d.default", "aten.upsample_bilinear2d.vec", "aten.constant_pad_nd.default",
                       "aten.native_layer_norm.default", "aten._softmax.default", "aten._log_softmax.default",
                       "aten.index.Tensor", "aten.masked_fill.Scalar", "aten.roll.default", "aten.eq.Scalar",
                       "aten.ne.Scalar", "aten.new_zeros.default", "aten.fill.Tensor", "aten.lift_fresh_copy.default",
                       "aten.slice_scatter.default", "operator.getitem",
                       "quantized_decomposed.quantize_per_tensor.default",
                       "quantized_decomposed.dequantize_per_tensor.default",
                       "quantized_decomposed.quantize_per_tensor.tensor",
                       "quantized_decomposed.dequantize_per_tensor.tensor",
                       "quantized_decomposed.quantize_per_channel.default",
                       "quantized_decomposed.dequantize_per_channel.default"};
  for (const char* op : ops) EXPECT_NE(KernelRegistry::instance().find(op), nullptr) << op;
  // Every kernel op name is a registered schema (catches typos in kernel registration),
  // except the generic delegate call and test-only kernels.
  for (const std::string& op : KernelRegistry::instance().ops()) {
    if (op == kCallDelegateOp || op.rfind("test.", 0) == 0) continue;
    EXPECT_NE(ops::OpRegistry::instance().find(op), nullptr) << op;
  }
}

// ---------------------------------------------------------------- compare

TEST(Compare, FloatToleranceAndFirstFailure) {
  Tensor e = Tensor::fromFloats({4}, {1, 2, 0, 100});
  Tensor a = Tensor::fromFloats({4}, {1, 2.00001f, 1e-7f, 100.5f});
  CompareResult r = compareOutputs({a}, {e}, CompareOptions{.rtol = 1e-4, .atol = 1e-5});
  EXPECT_FALSE(r.equivalent);
  EXPECT_EQ(r.firstFailingOutput, 0);
  EXPECT_EQ(r.firstFailingElement, 3);  // |0.5| > 1e-5 + 1e-4 * 100
  EXPECT_NEAR(r.maxAbsError, 0.5, 1e-6);
  EXPECT_NE(r.message.find("element 3"), std::string::npos) << r.message;
  CompareResult loose = compareOutputs({a}, {e}, CompareOptions{.rtol = 1e-2, .atol = 1e-5});
  EXPECT_TRUE(loose.equivalent) << loose.message;
  EXPECT_NEAR(loose.maxRelToMax, 0.005, 1e-6);

  // NaN at the same position is equal; shape and count mismatches fail.
  Tensor n1 = Tensor::fromFloats({2}, {NAN, 1}), n2 = Tensor::fromFloats({2}, {NAN, 1});
  EXPECT_TRUE(compareOutputs({n1}, {n2}).equivalent);
  EXPECT_FALSE(compareOutputs({Tensor::fromFloats({1}, {1})}, {Tensor::fromFloats({1, 1}, {1})}).equivalent);
  EXPECT_FALSE(compareOutputs({a}, {a, a}).equivalent);
}

TEST(Compare, ScaleRelativeRuleToleratesRoundingNearZeroButNotRealErrors) {
  // Reassociated float arithmetic (BN folded into conv weights) leaves an absolute rounding
  // error of the size of the tensor's large values on every element, also on small ones.
  Tensor e = Tensor::fromFloats({3}, {1000.0f, 0.01f, -500.0f});
  Tensor rounding = Tensor::fromFloats({3}, {1000.0f, 0.0105f, -500.0f});  // 5e-4 abs, 5e-7 of max
  CompareOptions elementwise{.rtol = 1e-4, .atol = 1e-5};
  CompareOptions normwise = elementwise;
  normwise.scaleRelative = true;
  CompareResult strict = compareOutputs({rounding}, {e}, elementwise);
  EXPECT_FALSE(strict.equivalent);
  EXPECT_EQ(strict.firstFailingElement, 1);
  CompareResult scaled = compareOutputs({rounding}, {e}, normwise);
  EXPECT_TRUE(scaled.equivalent) << scaled.message;
  EXPECT_NE(scaled.message.find("of max|expected|"), std::string::npos) << scaled.message;
  // An error of 1% of the output's scale fails both rules, and the message says which rule.
  Tensor wrong = Tensor::fromFloats({3}, {1000.0f, 10.01f, -500.0f});
  CompareResult bad = compareOutputs({wrong}, {e}, normwise);
  EXPECT_FALSE(bad.equivalent);
  EXPECT_EQ(bad.firstFailingElement, 1);
  EXPECT_NE(bad.message.find("rtol 0.0001 * max|expected|"), std::string::npos) << bad.message;
  EXPECT_NEAR(bad.maxRelToMax, 0.01, 1e-6);
}

TEST(Compare, QuantisedIntegerOutputsInQuantisationSteps) {
  Tensor e = Tensor::fromInts(DType::Int8, {3}, {10, -5, 127});
  Tensor a = Tensor::fromInts(DType::Int8, {3}, {11, -5, 125});
  CompareResult one = compareOutputs({a}, {e}, CompareOptions{.maxSteps = 1}, {true});
  EXPECT_FALSE(one.equivalent);
  EXPECT_EQ(one.maxSteps, 2);
  EXPECT_EQ(one.firstFailingElement, 2);
  EXPECT_NE(one.message.find("2 steps > 1"), std::string::npos) << one.message;
  CompareResult two = compareOutputs({a}, {e}, CompareOptions{.maxSteps = 2}, {true});
  EXPECT_TRUE(two.equivalent) << two.message;
}

TEST(Compare, OtherIntegerOutputsMustBeEqual) {
  // A truncation/rounding difference of a cast (int32 2 vs 3) is a wrong value, whatever
  // --max-steps allows quantised values; so is any bool difference.
  Tensor e = Tensor::fromInts(DType::Int32, {4}, {2, -2, 0, 7});
  Tensor a = Tensor::fromInts(DType::Int32, {4}, {2, -3, 0, 7});
  for (int64_t steps : {0, 1, 5}) {
    CompareResult r = compareOutputs({a}, {e}, CompareOptions{.maxSteps = steps});
    EXPECT_FALSE(r.equivalent) << steps;
    EXPECT_EQ(r.firstFailingElement, 1);
    EXPECT_EQ(r.maxSteps, 1);
    EXPECT_NE(r.message.find("-3 vs expected -2 (int32 values must be equal; 1 of 4 elements differ)"),
              std::string::npos)
        << r.message;
    EXPECT_TRUE(std::isinf(compareTensors(a, e, CompareOptions{.maxSteps = steps}).tolerances));
  }
  EXPECT_TRUE(compareOutputs({e}, {e}).equivalent);
  // Marked quantised, the same pair is one step.
  EXPECT_TRUE(compareOutputs({a}, {e}, CompareOptions{.maxSteps = 1}, {true}).equivalent);
  Tensor b1 = Tensor::fromInts(DType::Bool, {2}, {1, 0}), b2 = Tensor::fromInts(DType::Bool, {2}, {1, 1});
  EXPECT_FALSE(compareOutputs({b2}, {b1}, CompareOptions{.maxSteps = 1}, {true}).equivalent);
}

TEST(Compare, ErrorInTolerancesIsAtMostOneExactlyWhenTheRulePasses) {
  // Float, normwise: tolerance 1e-5 + 1e-4 * 100 = 0.01001 for every element.
  Tensor e = Tensor::fromFloats({3}, {100, 1, -2});
  CompareOptions normwise{.rtol = 1e-4, .scaleRelative = true, .atol = 1e-5};
  Tensor small = Tensor::fromFloats({3}, {100, 1.005f, -2});
  OutputDiff ok = compareTensors(small, e, normwise);
  EXPECT_TRUE(ok.equivalent);
  EXPECT_NEAR(ok.tolerances, 0.005 / 0.01001, 1e-3);
  Tensor big = Tensor::fromFloats({3}, {100, 1.5f, -2});
  OutputDiff bad = compareTensors(big, e, normwise);
  EXPECT_FALSE(bad.equivalent);
  EXPECT_NEAR(bad.tolerances, 0.5 / 0.01001, 1e-2);
  EXPECT_EQ(compareTensors(e, e, normwise).tolerances, 0.0);
  // Elementwise: the element near zero has the tightest tolerance.
  OutputDiff elem = compareTensors(small, e, CompareOptions{.rtol = 1e-4, .atol = 1e-5});
  EXPECT_NEAR(elem.tolerances, 0.005 / (1e-5 + 1e-4 * 1.0), 1.0);
  // A NaN where a number is expected: infinitely many tolerances.
  EXPECT_TRUE(std::isinf(compareTensors(Tensor::fromFloats({1}, {NAN}), Tensor::fromFloats({1}, {1})).tolerances));
  // Quantised integers: units over maxSteps; nothing allowed makes any difference infinite.
  Tensor qa = Tensor::fromInts(DType::Int8, {2}, {10, 3}), qe = Tensor::fromInts(DType::Int8, {2}, {13, 3});
  EXPECT_DOUBLE_EQ(compareTensors(qa, qe, CompareOptions{.maxSteps = 2}, /*quantised=*/true).tolerances, 1.5);
  EXPECT_TRUE(std::isinf(compareTensors(qa, qe, CompareOptions{.maxSteps = 0}, /*quantised=*/true).tolerances));
}

}  // namespace
}  // namespace ls::exec
