// Kernel tests of the reference executor against values computed by hand (worked out in the
// comments) or from first principles (direct definition loops in double).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/exec/executor.h"
#include "core/exec/synth.h"
#include "support/graph_builder.h"

namespace ls::exec {
namespace {

using ir::Arg;
using ir::DType;
using ir::IntList;
using ir::Kwarg;
using ir::Shape;
using ir::ValueRef;

Tensor F(Shape s, std::vector<float> v) { return Tensor::fromFloats(s, std::move(v)); }
Tensor I(DType t, Shape s, std::vector<int64_t> v) { return Tensor::fromInts(t, s, v); }

std::vector<float> iota(int64_t n, float start = 0.0f) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = start + float(i);
  return v;
}

/// Runs the graph with `inputs` (placeholder order); fails the test on an error.
std::vector<Tensor> runGraph(const ir::Graph& g, const std::vector<Tensor>& inputs) {
  Executor ex;
  auto r = ex.run(g, inputs);
  EXPECT_TRUE(r.isOk()) << r.message();
  return r.isOk() ? std::move(r).value() : std::vector<Tensor>{};
}

void expectValues(const Tensor& t, const std::vector<double>& expected, double tol = 1e-5) {
  ASSERT_TRUE(t.defined());
  ASSERT_EQ(t.numel(), int64_t(expected.size())) << t.toString();
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(t.getDouble(int64_t(i)), expected[i], tol * std::max(1.0, std::abs(expected[i])))
        << "element " << i << " of " << t.toString(32);
}

void expectShape(const Tensor& t, Shape s) { EXPECT_EQ(t.shape(), s) << ir::toString(t.meta()); }

/// One op applied to graph inputs: build with `make(inputs)` and run.
struct OneOp {
  test::GraphBuilder b;
  std::vector<ValueRef> in;
  std::vector<Tensor> values;

  ValueRef add(const std::string& name, const Tensor& t) {
    in.push_back(b.input(name, t.dtype(), t.shape()));
    values.push_back(t);
    return in.back();
  }
  std::vector<Tensor> run(const std::string& op, std::vector<Arg> args, std::vector<Kwarg> kwargs = {},
                          int getitems = 0) {
    ValueRef y = b.call(op, std::move(args), std::move(kwargs), "y");
    std::vector<ValueRef> outs;
    if (getitems == 0) outs.push_back(y);
    for (int i = 0; i < getitems; ++i) outs.push_back(b.call("operator.getitem", {y, int64_t(i)}));
    b.output(outs);
    return runGraph(b.g, values);
  }
};

Arg none() { return Arg(); }

// ---------------------------------------------------------------- convolution

std::vector<Arg> convArgs(ValueRef x, ValueRef w, Arg bias, IntList stride, IntList pad, IntList dil, bool transposed,
                          IntList outPad, int64_t groups) {
  return {x, w, bias, stride, pad, dil, transposed, outPad, groups};
}

TEST(ConvKernel, Plain2x2WithBias) {
  // x = [[1,2,3],[4,5,6],[7,8,9]], w = [[1,2],[3,4]], bias 1:
  // y00 = 1*1+2*2+3*4+4*5 = 37 (+1), y01 = 2+6+15+24 = 47, y10 = 4+10+21+32 = 67, y11 = 5+12+24+36 = 77.
  OneOp t;
  auto x = t.add("x", F({1, 1, 3, 3}, iota(9, 1)));
  auto w = t.add("w", F({1, 1, 2, 2}, {1, 2, 3, 4}));
  auto b = t.add("b", F({1}, {1}));
  auto out = t.run("aten.convolution.default", convArgs(x, w, b, {1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 1));
  ASSERT_EQ(out.size(), 1u);
  expectShape(out[0], {1, 1, 2, 2});
  expectValues(out[0], {38, 48, 68, 78});
}

TEST(ConvKernel, PaddedAndStrided) {
  // 3x3 ones kernel, padding 1 on x = 1..9: each output is the sum of the 3x3 neighbourhood.
  OneOp t;
  auto x = t.add("x", F({1, 1, 3, 3}, iota(9, 1)));
  auto w = t.add("w", F({1, 1, 3, 3}, std::vector<float>(9, 1.0f)));
  auto out = t.run("aten.convolution.default", convArgs(x, w, none(), {1, 1}, {1, 1}, {1, 1}, false, {0, 0}, 1));
  expectValues(out[0], {12, 21, 16, 27, 45, 33, 24, 39, 28});

  // Stride 2: the four corners of the above.
  OneOp s;
  x = s.add("x", F({1, 1, 3, 3}, iota(9, 1)));
  w = s.add("w", F({1, 1, 3, 3}, std::vector<float>(9, 1.0f)));
  out = s.run("aten.convolution.default", convArgs(x, w, none(), {2, 2}, {1, 1}, {1, 1}, false, {0, 0}, 1));
  expectShape(out[0], {1, 1, 2, 2});
  expectValues(out[0], {12, 16, 24, 28});
}

TEST(ConvKernel, Dilated) {
  // x[i][j] = 5i + j (5x5), 2x2 ones kernel with dilation 2:
  // y[i][j] = x[i][j] + x[i][j+2] + x[i+2][j] + x[i+2][j+2] = 4(5i + j) + 24.
  OneOp t;
  auto x = t.add("x", F({1, 1, 5, 5}, iota(25)));
  auto w = t.add("w", F({1, 1, 2, 2}, {1, 1, 1, 1}));
  auto out = t.run("aten.convolution.default", convArgs(x, w, none(), {1, 1}, {0, 0}, {2, 2}, false, {0, 0}, 1));
  expectShape(out[0], {1, 1, 3, 3});
  expectValues(out[0], {24, 28, 32, 44, 48, 52, 64, 68, 72});
}

TEST(ConvKernel, DepthwiseAndGrouped) {
  // Depthwise (groups = channels): ch0 [1,2,3,4] * ones = 10; ch1 [5,6,7,8] * [1,0,0,1] = 13.
  OneOp d;
  auto x = d.add("x", F({1, 2, 2, 2}, iota(8, 1)));
  auto w = d.add("w", F({2, 1, 2, 2}, {1, 1, 1, 1, 1, 0, 0, 1}));
  auto out = d.run("aten.convolution.default", convArgs(x, w, none(), {1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 2));
  expectValues(out[0], {10, 13});

  // Grouped 1x1, 2 groups of 2 channels: out0 = 1 + 2 = 3, out1 = 3 - 4 = -1.
  OneOp g;
  x = g.add("x", F({1, 4, 1, 1}, {1, 2, 3, 4}));
  w = g.add("w", F({2, 2, 1, 1}, {1, 1, 1, -1}));
  out = g.run("aten.convolution.default", convArgs(x, w, none(), {1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 2));
  expectValues(out[0], {3, -1});
}

TEST(ConvKernel, Transposed) {
  // x = [[1,2],[3,4]], w = ones(2x2), stride 1: y = full correlation sums
  // [[1, 1+2, 2], [1+3, 1+2+3+4, 2+4], [3, 3+4, 4]].
  OneOp t;
  auto x = t.add("x", F({1, 1, 2, 2}, {1, 2, 3, 4}));
  auto w = t.add("w", F({1, 1, 2, 2}, {1, 1, 1, 1}));
  auto out = t.run("aten.convolution.default", convArgs(x, w, none(), {1, 1}, {0, 0}, {1, 1}, true, {0, 0}, 1));
  expectShape(out[0], {1, 1, 3, 3});
  expectValues(out[0], {1, 3, 2, 4, 10, 6, 3, 7, 4});

  // Stride 2: every input value becomes a 2x2 block; padding 1 crops one ring.
  OneOp s;
  x = s.add("x", F({1, 1, 2, 2}, {1, 2, 3, 4}));
  w = s.add("w", F({1, 1, 2, 2}, {1, 1, 1, 1}));
  out = s.run("aten.convolution.default", convArgs(x, w, none(), {2, 2}, {0, 0}, {1, 1}, true, {0, 0}, 1));
  expectValues(out[0], {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
  OneOp p;
  x = p.add("x", F({1, 1, 2, 2}, {1, 2, 3, 4}));
  w = p.add("w", F({1, 1, 2, 2}, {1, 1, 1, 1}));
  out = p.run("aten.convolution.default", convArgs(x, w, none(), {2, 2}, {1, 1}, {1, 1}, true, {0, 0}, 1));
  expectShape(out[0], {1, 1, 2, 2});
  expectValues(out[0], {1, 2, 3, 4});
}

TEST(ConvKernel, Conv3dByHandAndAgainst2d) {
  // x = 1..8 in a 2x2x2 cube, w = ones(2x2x2): one output, the sum 36 (+ bias 0.5).
  OneOp t;
  auto x = t.add("x", F({1, 1, 2, 2, 2}, iota(8, 1)));
  auto w = t.add("w", F({1, 1, 2, 2, 2}, std::vector<float>(8, 1.0f)));
  auto b = t.add("b", F({1}, {0.5f}));
  auto out = t.run("aten.convolution.default", convArgs(x, w, b, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, false, {0, 0, 0}, 1));
  expectShape(out[0], {1, 1, 1, 1, 1});
  expectValues(out[0], {36.5});
  // Transposed, stride 2: the single input value 2 fills a 2x2x2 block.
  OneOp tr;
  x = tr.add("x", F({1, 1, 1, 1, 1}, {2}));
  w = tr.add("w", F({1, 1, 2, 2, 2}, iota(8, 1)));
  out = tr.run("aten.convolution.default", convArgs(x, w, none(), {2, 2, 2}, {0, 0, 0}, {1, 1, 1}, true, {0, 0, 0}, 1));
  expectShape(out[0], {1, 1, 2, 2, 2});
  expectValues(out[0], {2, 4, 6, 8, 10, 12, 14, 16});
  // Depth 1 with a depth-1 kernel is the 2-D convolution: grouped, strided, padded, dilated,
  // and transposed with output padding.
  for (bool transposed : {false, true}) {
    SCOPED_TRACE(transposed);
    std::vector<float> xv(1 * 4 * 6 * 5), wv(4 * 2 * 3 * 2);
    for (size_t i = 0; i < xv.size(); ++i) xv[i] = float((i * 7) % 11) * 0.25f - 1.0f;
    for (size_t i = 0; i < wv.size(); ++i) wv[i] = float((i * 5) % 9) * 0.5f - 2.0f;
    const Shape w2 = transposed ? Shape{4, 2, 3, 2} : Shape{4, 2, 3, 2};
    const Shape w3 = Shape{4, 2, 1, 3, 2};
    OneOp a, c;
    auto a0 = a.add("x", F({1, 4, 6, 5}, xv));
    auto a1 = a.add("w", F(w2, wv));
    auto two = a.run("aten.convolution.default",
                     convArgs(a0, a1, none(), {2, 1}, {1, 1}, {transposed ? int64_t(1) : 2, 1}, transposed,
                              {transposed ? int64_t(1) : 0, 0}, 2));
    auto c0 = c.add("x", F({1, 4, 1, 6, 5}, xv));
    auto c1 = c.add("w", F(w3, wv));
    auto three = c.run("aten.convolution.default",
                       convArgs(c0, c1, none(), {1, 2, 1}, {0, 1, 1}, {1, transposed ? int64_t(1) : 2, 1}, transposed,
                                {0, transposed ? int64_t(1) : 0, 0}, 2));
    ASSERT_EQ(two.size(), 1u);
    ASSERT_EQ(three.size(), 1u);
    Shape s = two[0].shape();
    expectShape(three[0], {s[0], s[1], 1, s[2], s[3]});
    std::vector<double> want;
    for (int64_t i = 0; i < two[0].numel(); ++i) want.push_back(two[0].getDouble(i));
    expectValues(three[0], want);
  }
}

TEST(LogicalKernel, XorOfTruthValuesWithBroadcast) {
  // Non-zero is true: [0, 1, 2, 0] xor [[0], [3]] -> [[F, T, T, F], [T, F, F, T]].
  OneOp t;
  auto x = t.add("x", F({4}, {0, 1, 2, 0}));
  auto y = t.add("y", F({2, 1}, {0, 3}));
  auto out = t.run("aten.logical_xor.default", {x, y});
  expectShape(out[0], {2, 4});
  EXPECT_EQ(out[0].dtype(), DType::Bool);
  expectValues(out[0], {0, 1, 1, 0, 1, 0, 0, 1});
}

TEST(ReduceKernel, AnyOverDimsAllAndNaN) {
  // [[0, 0, 2], [0, NaN, 0]]: any over dim 1 -> [T, T] (NaN is non-zero), over dim 0 keepdim ->
  // [[F, T, T]], over everything -> T.
  OneOp t;
  auto x = t.add("x", F({2, 3}, {0, 0, 2, 0, NAN, 0}));
  auto out = t.run("aten.any.dim", {x, int64_t(1)});
  EXPECT_EQ(out[0].dtype(), DType::Bool);
  expectValues(out[0], {1, 1});
  OneOp k;
  x = k.add("x", F({2, 3}, {0, 0, 2, 0, NAN, 0}));
  out = k.run("aten.any.dims", {x, IntList{0}, true});
  expectShape(out[0], {1, 3});
  expectValues(out[0], {0, 1, 1});
  OneOp a;
  x = a.add("x", I(DType::Int64, {3}, {0, 0, 0}));
  out = a.run("aten.any.default", {x});
  expectShape(out[0], {});
  expectValues(out[0], {0});
}

TEST(PoolKernel, Pool3dByHandAndAgainst2d) {
  // x = 1..8 in a 2x2x2 cube: the 2x2x2 max is 8 (index 7), the average 4.5.
  OneOp m;
  auto x = m.add("x", F({1, 1, 2, 2, 2}, iota(8, 1)));
  auto out = m.run("aten.max_pool3d_with_indices.default", {x, IntList{2, 2, 2}}, {}, 2);
  expectValues(out[0], {8});
  expectValues(out[1], {7});
  OneOp a;
  x = a.add("x", F({1, 1, 2, 2, 2}, iota(8, 1)));
  out = a.run("aten.avg_pool3d.default", {x, IntList{2, 2, 2}});
  expectValues(out[0], {4.5});
  // Depth 1 with a depth-1 window is the 2-D pool (padding, stride, ceil mode, both divisors).
  std::vector<float> xv(2 * 3 * 7 * 6);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = float((i * 13) % 17) - 8.0f;
  for (int variant = 0; variant < 3; ++variant) {
    SCOPED_TRACE(variant);
    OneOp two, three;
    auto a2 = two.add("x", F({2, 3, 7, 6}, xv));
    auto a3 = three.add("x", F({2, 3, 1, 7, 6}, xv));
    std::vector<Tensor> o2, o3;
    if (variant == 0) {
      o2 = two.run("aten.max_pool2d.default", {a2, IntList{3, 2}, IntList{2, 2}, IntList{1, 1}, IntList{1, 1}, true});
      o3 = three.run("aten.max_pool3d.default", {a3, IntList{1, 3, 2}, IntList{1, 2, 2}, IntList{0, 1, 1}, IntList{1, 1, 1}, true});
    } else {
      const bool cip = variant == 1;
      o2 = two.run("aten.avg_pool2d.default", {a2, IntList{3, 3}, IntList{2, 2}, IntList{1, 1}, true, cip});
      o3 = three.run("aten.avg_pool3d.default", {a3, IntList{1, 3, 3}, IntList{1, 2, 2}, IntList{0, 1, 1}, true, cip});
    }
    ASSERT_EQ(o2.size(), 1u);
    ASSERT_EQ(o3.size(), 1u);
    std::vector<double> want;
    for (int64_t i = 0; i < o2[0].numel(); ++i) want.push_back(o2[0].getDouble(i));
    expectValues(o3[0], want);
  }
}

TEST(BitwiseKernel, IntegerAndBoolOperandsAndScalars) {
  OneOp t;
  auto x = t.add("x", I(DType::Int32, {4}, {12, -1, 5, 0}));
  auto y = t.add("y", I(DType::Int32, {4}, {10, 7, 3, 9}));
  auto out = t.run("aten.bitwise_xor.Tensor", {x, y});
  EXPECT_EQ(out[0].dtype(), DType::Int32);
  expectValues(out[0], {6, -8, 6, 9});
  OneOp sc;
  x = sc.add("x", I(DType::Int64, {3}, {12, -1, 5}));
  out = sc.run("aten.bitwise_and.Scalar", {x, int64_t(6)});
  expectValues(out[0], {4, 6, 4});
  OneOp sh;
  x = sh.add("x", I(DType::Int32, {3}, {1, -3, 5}));
  out = sh.run("aten.__lshift__.Scalar", {x, int64_t(2)});
  expectValues(out[0], {4, -12, 20});
  OneOp n;
  x = n.add("x", I(DType::Bool, {2}, {0, 1}));
  out = n.run("aten.bitwise_not.default", {x});
  EXPECT_EQ(out[0].dtype(), DType::Bool);
  expectValues(out[0], {1, 0});
}

TEST(ReduceKernel, VarDimUnbiasedAndBiased) {
  // [1, 2, 3, 6]: mean 3, squared deviations 4 + 1 + 0 + 9 = 14 -> 14/3 unbiased, 14/4 biased.
  for (bool unbiased : {true, false}) {
    OneOp t;
    auto x = t.add("x", F({1, 4}, {1, 2, 3, 6}));
    auto out = t.run("aten.var.dim", {x, IntList{1}, unbiased, false});
    expectShape(out[0], {1});
    expectValues(out[0], {unbiased ? 14.0 / 3.0 : 3.5});
  }
}

TEST(FactoryKernel, LinspaceEndsExactly) {
  OneOp t;
  auto out = t.run("aten.linspace.default", {-1.0, 1.0, int64_t(5)});
  expectShape(out[0], {5});
  expectValues(out[0], {-1, -0.5, 0, 0.5, 1}, 0.0);
  OneOp one;
  out = one.run("aten.linspace.default", {3.0, 9.0, int64_t(1)});
  expectValues(out[0], {3});
}

TEST(ConvKernel, Conv1d) {
  // x = [1,2,3,4,5], w = [2,1], padding 1, stride 2: windows (0,1), (2,3), (4,5) of
  // [0,1,2,3,4,5] -> 0*2+1 = 1, 2*2+3 = 7, 4*2+5 = 13.
  OneOp t;
  auto x = t.add("x", F({1, 1, 5}, {1, 2, 3, 4, 5}));
  auto w = t.add("w", F({1, 1, 2}, {2, 1}));
  auto out = t.run("aten.convolution.default", convArgs(x, w, none(), {2}, {1}, {1}, false, {0}, 1));
  expectShape(out[0], {1, 1, 3});
  expectValues(out[0], {1, 7, 13});
}

/// Direct definition of a 2-D convolution (double accumulation).
std::vector<double> naiveConv(const Tensor& x, const Tensor& w, int64_t stride, int64_t pad, int64_t dil,
                              int64_t groups, Shape outShape) {
  const int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3);
  const int64_t O = w.dim(0), KH = w.dim(2), KW = w.dim(3), OH = outShape[2], OW = outShape[3];
  const int64_t cinG = C / groups, coutG = O / groups;
  std::vector<double> y(size_t(N * O * OH * OW), 0.0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          double s = 0;
          for (int64_t ci = 0; ci < cinG; ++ci)
            for (int64_t kh = 0; kh < KH; ++kh)
              for (int64_t kw = 0; kw < KW; ++kw) {
                int64_t ih = oh * stride - pad + kh * dil, iw = ow * stride - pad + kw * dil;
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                int64_t c = (o / coutG) * cinG + ci;
                s += x.getDouble(((n * C + c) * H + ih) * W + iw) * w.getDouble(((o * cinG + ci) * KH + kh) * KW + kw);
              }
          y[size_t(((n * O + o) * OH + oh) * OW + ow)] = s;
        }
  return y;
}

TEST(ConvKernel, MatchesDirectDefinitionAcrossConfigs) {
  struct Cfg {
    int64_t n, c, h, w, o, k, stride, pad, dil, groups;
  };
  // Depthwise (incl. channel multiplier), grouped, 1x1 GEMM path, im2col with odd sizes,
  // output channels not a multiple of the 4x8 GEMM tile.
  const Cfg cfgs[] = {
      {1, 8, 9, 11, 8, 3, 1, 1, 1, 8},  {1, 8, 10, 10, 8, 3, 2, 1, 1, 8}, {2, 6, 7, 9, 12, 3, 2, 2, 2, 6},
      {1, 6, 8, 8, 9, 3, 1, 1, 1, 3},   {1, 5, 6, 7, 13, 1, 1, 0, 1, 1},  {1, 3, 13, 17, 10, 5, 2, 2, 1, 1},
      {1, 16, 5, 5, 37, 3, 1, 1, 1, 1}, {2, 4, 6, 6, 6, 2, 3, 0, 1, 2},
  };
  SplitMix64 rng(42);
  for (const Cfg& c : cfgs) {
    OneOp t;
    std::vector<float> xv(size_t(c.n * c.c * c.h * c.w)), wv(size_t(c.o * (c.c / c.groups) * c.k * c.k));
    for (float& v : xv) v = float(rng.uniform(-1, 1));
    for (float& v : wv) v = float(rng.uniform(-1, 1));
    Tensor X = F({c.n, c.c, c.h, c.w}, xv), W = F({c.o, c.c / c.groups, c.k, c.k}, wv);
    auto x = t.add("x", X);
    auto w = t.add("w", W);
    auto out = t.run("aten.convolution.default",
                     convArgs(x, w, none(), {c.stride, c.stride}, {c.pad, c.pad}, {c.dil, c.dil}, false, {0, 0}, c.groups));
    ASSERT_EQ(out.size(), 1u);
    expectValues(out[0], naiveConv(X, W, c.stride, c.pad, c.dil, c.groups, out[0].shape()), 1e-4);
  }
}

TEST(ConvKernel, RandomConfigsFloatWithinBoundExactBitExactOnIntegers) {
  // Random geometry (groups, stride, padding, dilation, 1x1 and K = 1 included) through the
  // executor: float mode within 1e-5 of the sum of |x w| (float32 summation error over at most a
  // few hundred terms), and with exact accumulation on integer-valued (quantised) operands the
  // integer result exactly.
  SplitMix64 rng(7);
  for (int t = 0; t < 40; ++t) {
    const int64_t groups = 1 + int64_t(rng.next() % 3), cinG = 1 + int64_t(rng.next() % 4);
    const int64_t coutG = 1 + int64_t(rng.next() % 5), k = 1 + int64_t(rng.next() % 3);
    const int64_t stride = 1 + int64_t(rng.next() % 2), pad = int64_t(rng.next() % 2), dil = 1 + int64_t(rng.next() % 2);
    const int64_t n = 1 + int64_t(rng.next() % 2), h = 5 + int64_t(rng.next() % 6), w = 5 + int64_t(rng.next() % 6);
    const int64_t c = cinG * groups, o = coutG * groups;
    for (bool integers : {false, true}) {
      std::vector<float> xv(size_t(n * c * h * w)), wv(size_t(o * cinG * k * k));
      auto draw = [&] { return integers ? float(std::floor(rng.uniform(-128, 128))) : float(rng.uniform(-1, 1)); };
      for (float& v : xv) v = draw();
      for (float& v : wv) v = draw();
      Tensor X = F({n, c, h, w}, xv), W = F({o, cinG, k, k}, wv);
      test::GraphBuilder b;
      auto x = b.input("x", DType::Float32, X.shape());
      auto wr = b.input("w", DType::Float32, W.shape());
      b.output({b.call("aten.convolution.default",
                       convArgs(x, wr, none(), {stride, stride}, {pad, pad}, {dil, dil}, false, {0, 0}, groups))});
      Executor ex(ExecOptions{.exactAccumulation = integers});
      auto out = ex.run(b.g, {X, W});
      ASSERT_TRUE(out.isOk()) << out.message();
      const Tensor& y = (*out)[0];
      const std::vector<double> ref = naiveConv(X, W, stride, pad, dil, groups, y.shape());
      Tensor absX = X, absW = W;
      for (int64_t i = 0; i < absX.numel(); ++i) absX.setDouble(i, std::abs(absX.getDouble(i)));
      for (int64_t i = 0; i < absW.numel(); ++i) absW.setDouble(i, std::abs(absW.getDouble(i)));
      const std::vector<double> mag = naiveConv(absX, absW, stride, pad, dil, groups, y.shape());
      for (int64_t i = 0; i < y.numel(); ++i) {
        if (integers) ASSERT_EQ(y.getDouble(i), ref[size_t(i)]) << "config " << t << " element " << i;
        else ASSERT_LE(std::abs(y.getDouble(i) - ref[size_t(i)]), 1e-5 * mag[size_t(i)] + 1e-30) << "config " << t;
      }
    }
  }
}

// ---------------------------------------------------------------- batch norm, matmuls

TEST(BatchNormKernel, EvalUsesRunningStats) {
  // ch0: (x - 1) / sqrt(4) * 1 + 0 -> [0, 0.5]; ch1: (x - 3) / sqrt(1) * 2 + 1 -> [1, 3].
  OneOp t;
  auto x = t.add("x", F({1, 2, 1, 2}, {1, 2, 3, 4}));
  auto w = t.add("w", F({2}, {1, 2}));
  auto b = t.add("b", F({2}, {0, 1}));
  auto m = t.add("m", F({2}, {1, 3}));
  auto v = t.add("v", F({2}, {4, 1}));
  auto out = t.run("aten.native_batch_norm.default", {x, w, b, m, v, false, 0.1, 0.0}, {}, 3);
  ASSERT_EQ(out.size(), 3u);
  expectValues(out[0], {0, 0.5, 1, 3});
  expectShape(out[1], {0});  // eval: empty save_mean / save_invstd
  expectShape(out[2], {0});
}

TEST(BatchNormKernel, TrainingUsesBatchStats) {
  // One channel [1, 3]: mean 2, biased var 1 -> [-1, 1]; save_invstd = 1.
  OneOp t;
  auto x = t.add("x", F({1, 1, 1, 2}, {1, 3}));
  auto out = t.run("aten.native_batch_norm.default", {x, none(), none(), none(), none(), true, 0.1, 0.0}, {}, 3);
  expectValues(out[0], {-1, 1});
  expectValues(out[1], {2});
  expectValues(out[2], {1});
}

TEST(MatmulKernels, AddmmMmBmmLinear) {
  // [[1,2],[3,4]] @ [[1,2],[3,4]] = [[7,10],[15,22]].
  {
    OneOp t;
    auto bias = t.add("bias", F({2}, {1, -1}));
    auto a = t.add("a", F({2, 2}, {1, 2, 3, 4}));
    auto b = t.add("b", F({2, 2}, {1, 2, 3, 4}));
    expectValues(t.run("aten.addmm.default", {bias, a, b})[0], {8, 9, 16, 21});
  }
  {  // beta 2, alpha 0.5: 0.5 * prod + 2 * bias.
    OneOp t;
    auto bias = t.add("bias", F({2}, {1, -1}));
    auto a = t.add("a", F({2, 2}, {1, 2, 3, 4}));
    auto b = t.add("b", F({2, 2}, {1, 2, 3, 4}));
    expectValues(t.run("aten.addmm.default", {bias, a, b}, {Kwarg{"beta", 2.0}, Kwarg{"alpha", 0.5}})[0],
                 {5.5, 3, 9.5, 9});
  }
  {
    OneOp t;
    auto a = t.add("a", F({1, 3}, {1, 2, 3}));
    auto b = t.add("b", F({3, 2}, {1, 0, 0, 1, 1, 1}));
    expectValues(t.run("aten.mm.default", {a, b})[0], {4, 5});
  }
  {  // Two batches: identity and 2 * identity.
    OneOp t;
    auto a = t.add("a", F({2, 2, 2}, {1, 2, 3, 4, 1, 2, 3, 4}));
    auto b = t.add("b", F({2, 2, 2}, {1, 0, 0, 1, 2, 0, 0, 2}));
    expectValues(t.run("aten.bmm.default", {a, b})[0], {1, 2, 3, 4, 2, 4, 6, 8});
  }
  {  // linear: x [1,2] with W [[1,0],[1,1],[0,2]], b [0,0,1] -> [1, 3, 5].
    OneOp t;
    auto x = t.add("x", F({1, 2}, {1, 2}));
    auto w = t.add("w", F({3, 2}, {1, 0, 1, 1, 0, 2}));
    auto b = t.add("b", F({3}, {0, 0, 1}));
    expectValues(t.run("aten.linear.default", {x, w, b})[0], {1, 3, 5});
  }
}

TEST(MatmulKernels, BlockedGemmMatchesDirectDefinition) {
  // Sizes straddle the GEMM's 4x8 register tile and 256-deep K blocks.
  SplitMix64 rng(3);
  const std::vector<std::tuple<int64_t, int64_t, int64_t>> sizes = {{37, 300, 70}, {1, 1280, 19}, {4, 8, 8}, {9, 513, 3}};
  for (auto [M, K, N] : sizes) {
    std::vector<float> av(size_t(M * K)), bv(size_t(K * N));
    for (float& v : av) v = float(rng.uniform(-1, 1));
    for (float& v : bv) v = float(rng.uniform(-1, 1));
    OneOp t;
    auto a = t.add("a", F({M, K}, av));
    auto b = t.add("b", F({K, N}, bv));
    auto out = t.run("aten.mm.default", {a, b});
    std::vector<double> ref(size_t(M * N), 0.0);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j)
        for (int64_t k = 0; k < K; ++k) ref[size_t(i * N + j)] += double(av[size_t(i * K + k)]) * bv[size_t(k * N + j)];
    expectValues(out[0], ref, 1e-4);
  }
}

TEST(MatmulKernels, ExactAccumulationSumsInDouble) {
  // 1e8 + 1 - 1e8 is 0 in float32 summation and 1 exactly; a conv over the same values too.
  const std::vector<float> row = {1e8f, 1.0f, -1e8f, 0.5f};
  for (bool exact : {false, true}) {
    for (const char* op : {"aten.mm.default", "aten.linear.default", "aten.convolution.default"}) {
      test::GraphBuilder b;
      const bool conv = std::string(op) == "aten.convolution.default";
      const bool linear = std::string(op) == "aten.linear.default";
      auto a = b.input("a", DType::Float32, conv ? Shape{1, 4, 1, 1} : Shape{1, 4});
      auto w = b.input("w", DType::Float32, conv ? Shape{1, 4, 1, 1} : (linear ? Shape{1, 4} : Shape{4, 1}));
      ValueRef y = conv ? b.call(op, {a, w, Arg(), IntList{1, 1}, IntList{0, 0}, IntList{1, 1}, false, IntList{0, 0}, int64_t(1)})
                        : b.call(op, {a, w});
      b.output({y});
      Executor ex(ExecOptions{.exactAccumulation = exact});
      Tensor av = F(conv ? Shape{1, 4, 1, 1} : Shape{1, 4}, row);
      Tensor wv = F(conv ? Shape{1, 4, 1, 1} : (linear ? Shape{1, 4} : Shape{4, 1}), {1, 1, 1, 1});
      auto r = ex.run(b.g, {av, wv});
      ASSERT_TRUE(r.isOk()) << r.message();
      EXPECT_EQ(r.value()[0].getDouble(0), exact ? 1.5 : 0.5) << op << (exact ? " exact" : " float32");
    }
  }
}

// ---------------------------------------------------------------- softmax, layer norm, gelu

TEST(SoftmaxKernel, ValuesAlongEitherDim) {
  // softmax([0, ln 2, ln 3]) = [1, 2, 3] / 6; log_softmax = log of that.
  const float l2 = std::log(2.0f), l3 = std::log(3.0f);
  OneOp t;
  auto x = t.add("x", F({2, 3}, {0, l2, l3, 0, 0, 0}));
  expectValues(t.run("aten._softmax.default", {x, int64_t(-1), false})[0],
               {1.0 / 6, 2.0 / 6, 3.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 3});
  OneOp l;
  x = l.add("x", F({2, 3}, {0, l2, l3, 0, 0, 0}));
  expectValues(l.run("aten._log_softmax.default", {x, int64_t(1), false})[0],
               {std::log(1.0 / 6), std::log(2.0 / 6), std::log(3.0 / 6), std::log(1.0 / 3), std::log(1.0 / 3),
                std::log(1.0 / 3)});
  // Along dim 0 of [[0, 0], [ln 3, 0]]: columns [1/4, 3/4] and [1/2, 1/2].
  OneOp d;
  x = d.add("x", F({2, 2}, {0, 0, l3, 0}));
  expectValues(d.run("aten._softmax.default", {x, int64_t(0), false})[0], {0.25, 0.5, 0.75, 0.5});
}

TEST(LayerNormKernel, OutputMeanRstd) {
  // x = [1,2,3,4]: mean 2.5, biased var 1.25, rstd = 1/sqrt(1.25) = 0.894427;
  // normalised [-1.5, -0.5, 0.5, 1.5] * rstd, then * [1,1,2,2] + [0,0,0,1].
  OneOp t;
  auto x = t.add("x", F({1, 4}, {1, 2, 3, 4}));
  auto w = t.add("w", F({4}, {1, 1, 2, 2}));
  auto b = t.add("b", F({4}, {0, 0, 0, 1}));
  auto out = t.run("aten.native_layer_norm.default", {x, IntList{4}, w, b, 0.0}, {}, 3);
  const double r = 1.0 / std::sqrt(1.25);
  expectValues(out[0], {-1.5 * r, -0.5 * r, 2 * 0.5 * r, 2 * 1.5 * r + 1});
  expectShape(out[1], {1, 1});
  expectValues(out[1], {2.5});
  expectValues(out[2], {r});
}

TEST(GeluKernel, BothFormsMatchClosedForm) {
  const std::vector<float> xs = {-3, -1, -0.5, 0, 0.5, 1, 2};
  OneOp e;
  auto x = e.add("x", F({7}, xs));
  auto erfOut = e.run("aten.gelu.default", {x});
  OneOp t;
  x = t.add("x", F({7}, xs));
  auto tanhOut = t.run("aten.gelu.default", {x}, {Kwarg{"approximate", "tanh"}});
  std::vector<double> exact, approx;
  for (float v : xs) {
    exact.push_back(0.5 * v * (1 + std::erf(v / std::sqrt(2.0))));
    approx.push_back(0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))));
  }
  expectValues(erfOut[0], exact);
  expectValues(tanhOut[0], approx);
  // Known values: gelu(1) = Phi(1) = 0.8413447; tanh form 0.8411920.
  EXPECT_NEAR(erfOut[0].getDouble(5), 0.8413447460685429, 1e-6);
  EXPECT_NEAR(tanhOut[0].getDouble(5), 0.8411919906082768, 1e-6);
}

TEST(ActivationKernels, HandValues) {
  const std::vector<float> xs = {-4, -1, 0, 1, 4, 7};
  auto run = [&](const std::string& op, std::vector<Arg> extra = {}) {
    OneOp t;
    auto x = t.add("x", F({6}, xs));
    std::vector<Arg> args{x};
    for (Arg& a : extra) args.push_back(a);
    return t.run(op, args)[0];
  };
  expectValues(run("aten.relu.default"), {0, 0, 0, 1, 4, 7});
  expectValues(run("aten.hardtanh.default", {0.0, 6.0}), {0, 0, 0, 1, 4, 6});
  // hardswish = x * relu6(x + 3) / 6; hardsigmoid = relu6(x + 3) / 6.
  expectValues(run("aten.hardswish.default"), {0, -1.0 / 3, 0, 2.0 / 3, 4, 7});
  expectValues(run("aten.hardsigmoid.default"), {0, 1.0 / 3, 0.5, 2.0 / 3, 1, 1});
  std::vector<double> sig, silu;
  for (float v : xs) {
    sig.push_back(1 / (1 + std::exp(-double(v))));
    silu.push_back(v / (1 + std::exp(-double(v))));
  }
  expectValues(run("aten.sigmoid.default"), sig);
  expectValues(run("aten.silu.default"), silu);
  expectValues(run("aten.clamp.default", {-1.0, 2.0}), {-1, -1, 0, 1, 2, 2});
  expectValues(run("aten.leaky_relu.default", {0.5}), {-2, -0.5, 0, 1, 4, 7});
}

// ---------------------------------------------------------------- pooling

TEST(PoolKernels, MaxPoolValuesAndIndices) {
  // 4x4 of 0..15, 2x2 stride 2: maxima are the bottom-right of each window.
  OneOp t;
  auto x = t.add("x", F({1, 1, 4, 4}, iota(16)));
  auto out = t.run("aten.max_pool2d_with_indices.default", {x, IntList{2, 2}, IntList{2, 2}}, {}, 2);
  expectValues(out[0], {5, 7, 13, 15});
  EXPECT_EQ(out[1].dtype(), DType::Int64);
  expectValues(out[1], {5, 7, 13, 15});
}

TEST(PoolKernels, MaxPoolCeilModeAndNegativePadding) {
  // 3x3 of 1..9, kernel 2 stride 2 ceil_mode: 2x2 output; the last windows are partial.
  OneOp t;
  auto x = t.add("x", F({1, 1, 3, 3}, iota(9, 1)));
  auto out = t.run("aten.max_pool2d_with_indices.default",
                   {x, IntList{2, 2}, IntList{2, 2}, IntList{0, 0}, IntList{1, 1}, true}, {}, 2);
  expectShape(out[0], {1, 1, 2, 2});
  expectValues(out[0], {5, 6, 8, 9});
  expectValues(out[1], {4, 5, 7, 8});
  // Padding counts as -inf: all-negative input, 3x3 window, pad 1 -> max -1 (not 0) at index 0.
  OneOp p;
  x = p.add("x", F({1, 1, 2, 2}, {-1, -2, -3, -4}));
  out = p.run("aten.max_pool2d_with_indices.default", {x, IntList{3, 3}, IntList{1, 1}, IntList{1, 1}}, {}, 2);
  expectValues(out[0], {-1, -1, -1, -1});
  expectValues(out[1], {0, 0, 0, 0});
}

TEST(PoolKernels, AvgPoolCeilModeCountIncludePadDivisor) {
  // 3x3 of 1..9, kernel 2 stride 2 ceil_mode, no padding: windows clipped to the input:
  // (1+2+4+5)/4 = 3, (3+6)/2 = 4.5, (7+8)/2 = 7.5, 9/1 = 9.
  {
    OneOp t;
    auto x = t.add("x", F({1, 1, 3, 3}, iota(9, 1)));
    auto out = t.run("aten.avg_pool2d.default", {x, IntList{2, 2}, IntList{2, 2}, IntList{0, 0}, true, true});
    expectValues(out[0], {3, 4.5, 7.5, 9});
  }
  // Padding 1, kernel 2 stride 2: windows {1}, {2,3}, {4,7}, {5,6,8,9}; each window spans
  // 4 positions including padding.
  auto run = [](bool includePad, Arg divisor) {
    OneOp t;
    auto x = t.add("x", F({1, 1, 3, 3}, iota(9, 1)));
    return t.run("aten.avg_pool2d.default", {x, IntList{2, 2}, IntList{2, 2}, IntList{1, 1}, false, includePad, divisor})[0];
  };
  expectValues(run(true, none()), {0.25, 1.25, 2.75, 7});
  expectValues(run(false, none()), {1, 2.5, 5.5, 7});
  expectValues(run(true, int64_t(2)), {0.5, 2.5, 5.5, 14});
}

// ---------------------------------------------------------------- upsampling

TEST(UpsampleKernel, Bilinear2x2To4x4AlignCornersTrue) {
  // Source index = dst * (2-1)/(4-1): 0, 1/3, 2/3, 1 in both dims. Rows [1,2] and [3,4]:
  // row 0 = [1, 4/3, 5/3, 2]; each row below adds 2/3 (the rows differ by 2).
  OneOp t;
  auto x = t.add("x", F({1, 1, 2, 2}, {1, 2, 3, 4}));
  auto out = t.run("aten.upsample_bilinear2d.vec", {x, IntList{4, 4}, true, none()});
  expectShape(out[0], {1, 1, 4, 4});
  expectValues(out[0], {1, 4.0 / 3, 5.0 / 3, 2, 5.0 / 3, 2, 7.0 / 3, 8.0 / 3, 7.0 / 3, 8.0 / 3, 3, 10.0 / 3, 3,
                        10.0 / 3, 11.0 / 3, 4});
}

TEST(UpsampleKernel, Bilinear2x2To4x4AlignCornersFalse) {
  // Source index = max(0.5 * (dst + 0.5) - 0.5, 0): 0, 0.25, 0.75, 1.25 (-> clamps to 1).
  // Row 0 = [1, 1.25, 1.75, 2]; rows 1..3 add 2 * [0.25, 0.75, 1].
  const std::vector<double> expected = {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4};
  OneOp t;
  auto x = t.add("x", F({1, 1, 2, 2}, {1, 2, 3, 4}));
  expectValues(t.run("aten.upsample_bilinear2d.vec", {x, IntList{4, 4}, false, none()})[0], expected);
  // Same through scale_factors (output size from the scale, source index from 1/scale).
  OneOp s;
  x = s.add("x", F({1, 1, 2, 2}, {1, 2, 3, 4}));
  auto out = s.run("aten.upsample_bilinear2d.vec", {x, none(), false, ir::FloatList{2.0, 2.0}});
  expectShape(out[0], {1, 1, 4, 4});
  expectValues(out[0], expected);
}

// ---------------------------------------------------------------- quantisation

TEST(QuantKernels, QuantizeRoundsHalfToEvenAndClamps) {
  // scale 0.5 -> x * 2 = [0.5, 1.5, 2.5, -0.5, -1.5, 200, -200, 2]; half to even:
  // [0, 2, 2, 0, -2, 200, -200, 2]; + zero point 3, clamp to [-128, 127].
  const std::vector<float> xs = {0.25, 0.75, 1.25, -0.25, -0.75, 100, -100, 1};
  OneOp t;
  auto x = t.add("x", F({8}, xs));
  auto q = t.b.call("quantized_decomposed.quantize_per_tensor.default",
                    {x, 0.5, int64_t(3), int64_t(-128), int64_t(127), ir::EnumArg{ir::EnumKind::DType, int32_t(DType::Int8)}});
  auto dq = t.b.call("quantized_decomposed.dequantize_per_tensor.default",
                     {q, 0.5, int64_t(3), int64_t(-128), int64_t(127), ir::EnumArg{ir::EnumKind::DType, int32_t(DType::Int8)}});
  t.b.output({q, dq});
  auto out = runGraph(t.b.g, t.values);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].dtype(), DType::Int8);
  EXPECT_EQ(out[0].toInts(), (std::vector<int64_t>{3, 5, 5, 3, 1, 127, -128, 5}));
  // (q - 3) * 0.5
  expectValues(out[1], {0, 1, 1, 0, -1, 62, -65.5, 1});
}

TEST(QuantKernels, TensorOverloadsAndPerChannel) {
  // .tensor overloads with 1-element scale / zero-point tensors, uint8 storage.
  OneOp t;
  auto x = t.add("x", F({4}, {-1, 0, 0.3f, 10}));
  auto s = t.add("s", Tensor::fromDoubles(DType::Float64, {1}, {0.1}));
  auto z = t.add("z", I(DType::Int64, {1}, {10}));
  const Arg u8 = ir::EnumArg{ir::EnumKind::DType, int32_t(DType::UInt8)};
  auto q = t.b.call("quantized_decomposed.quantize_per_tensor.tensor", {x, s, z, int64_t(0), int64_t(255), u8});
  auto dq = t.b.call("quantized_decomposed.dequantize_per_tensor.tensor", {q, s, z, int64_t(0), int64_t(255), u8});
  t.b.output({q, dq});
  auto out = runGraph(t.b.g, t.values);
  // x / 0.1 = [-10, 0, 3, 100] + 10 = [0, 10, 13, 110].
  EXPECT_EQ(out[0].toInts(), (std::vector<int64_t>{0, 10, 13, 110}));
  expectValues(out[1], {-1, 0, 0.3, 10});

  // Per channel along axis 1 of [2, 2]: scales [1, 0.25], zero points [0, -1].
  OneOp c;
  x = c.add("x", F({2, 2}, {1.5, 1.5, -2.5, 0.125}));
  auto scales = c.add("scales", F({2}, {1, 0.25}));
  auto zps = c.add("zps", I(DType::Int64, {2}, {0, -1}));
  const Arg i8 = ir::EnumArg{ir::EnumKind::DType, int32_t(DType::Int8)};
  q = c.b.call("quantized_decomposed.quantize_per_channel.default",
               {x, scales, zps, int64_t(1), int64_t(-128), int64_t(127), i8});
  dq = c.b.call("quantized_decomposed.dequantize_per_channel.default",
                {q, scales, zps, int64_t(1), int64_t(-128), int64_t(127), i8});
  c.b.output({q, dq});
  out = runGraph(c.b.g, c.values);
  // col 0: round(1.5) = 2, round(-2.5) = -2; col 1: round(6) - 1 = 5, round(0.5) - 1 = -1.
  EXPECT_EQ(out[0].toInts(), (std::vector<int64_t>{2, 5, -2, -1}));
  expectValues(out[1], {2, 1.5, -2, 0});
}

// ---------------------------------------------------------------- indexing and data movement

TEST(IndexKernel, IntegerIndicesNoneAndBroadcasting) {
  const Tensor x = F({3, 4}, iota(12));  // x[i][j] = 4i + j
  auto run = [&](std::vector<Tensor> idx, std::vector<bool> present) {
    OneOp t;
    auto xr = t.add("x", x);
    ir::RefList list;
    size_t k = 0;
    for (bool p : present) {
      if (!p) {
        list.push_back(ValueRef{});
        continue;
      }
      list.push_back(t.add("i" + std::to_string(k), idx[k]));
      ++k;
    }
    return t.run("aten.index.Tensor", {xr, list})[0];
  };
  // Rows [2, 0].
  expectValues(run({I(DType::Int64, {2}, {2, 0})}, {true}), {8, 9, 10, 11, 0, 1, 2, 3});
  // [:, [1, 3]] through a None entry.
  expectValues(run({I(DType::Int64, {2}, {1, 3})}, {false, true}), {1, 3, 5, 7, 9, 11});
  // Paired indices: x[0][1], x[2][3]; negative index -1 = last row.
  expectValues(run({I(DType::Int64, {2}, {0, -1}), I(DType::Int32, {2}, {1, 3})}, {true, true}), {1, 11});
  // Broadcast [[0], [2]] with [1, 3] -> [[x01, x03], [x21, x23]].
  Tensor r = run({I(DType::Int64, {2, 1}, {0, 2}), I(DType::Int64, {2}, {1, 3})}, {true, true});
  expectShape(r, {2, 2});
  expectValues(r, {1, 3, 9, 11});

  // Non-adjacent indexed dims move the broadcast dims first: y[k][j] = x3[a[k]][j][b[k]].
  OneOp t;
  auto x3 = t.add("x", F({2, 3, 4}, iota(24)));
  auto a = t.add("a", I(DType::Int64, {2}, {0, 1}));
  auto b = t.add("b", I(DType::Int64, {2}, {3, 0}));
  Tensor y = t.run("aten.index.Tensor", {x3, ir::RefList{a, ValueRef{}, b}})[0];
  expectShape(y, {2, 3});
  expectValues(y, {3, 7, 11, 12, 16, 20});
}

TEST(SplitKernel, SplitAndGetitem) {
  OneOp t;
  auto x = t.add("x", F({2, 5}, iota(10)));
  auto out = t.run("aten.split_copy.Tensor", {x, int64_t(2), int64_t(-1)}, {}, 3);
  ASSERT_EQ(out.size(), 3u);
  expectShape(out[0], {2, 2});
  expectValues(out[0], {0, 1, 5, 6});
  expectValues(out[1], {2, 3, 7, 8});
  expectShape(out[2], {2, 1});
  expectValues(out[2], {4, 9});
}

TEST(CatKernel, ConcatenatesAndPromotes) {
  // [[1],[2]] ++ [[3,4],[5,6]] along dim 1.
  OneOp t;
  auto a = t.add("a", F({2, 1}, {1, 2}));
  auto b = t.add("b", F({2, 2}, {3, 4, 5, 6}));
  expectValues(t.run("aten.cat.default", {ir::RefList{a, b}, int64_t(1)})[0], {1, 3, 4, 2, 5, 6});
  // int64 ++ float32 along dim 0 -> float32.
  OneOp p;
  a = p.add("a", I(DType::Int64, {2}, {1, 2}));
  b = p.add("b", F({1}, {0.5}));
  Tensor y = p.run("aten.cat.default", {ir::RefList{a, b}})[0];
  EXPECT_EQ(y.dtype(), DType::Float32);
  expectValues(y, {1, 2, 0.5});
}

TEST(PadKernel, NegativePadsCrop) {
  // [1,2,3,4] with pad (-1, 2): drop the first element, append two fill values.
  OneOp t;
  auto x = t.add("x", F({1, 4}, {1, 2, 3, 4}));
  expectValues(t.run("aten.constant_pad_nd.default", {x, IntList{-1, 2}, 9.0})[0], {2, 3, 4, 9, 9});
  // 3x3 of 1..9, pad (1, -1, -1, 1): columns [pad, c0, c1], rows [r1, r2, pad].
  OneOp s;
  x = s.add("x", F({3, 3}, iota(9, 1)));
  Tensor y = s.run("aten.constant_pad_nd.default", {x, IntList{1, -1, -1, 1}})[0];
  expectShape(y, {3, 3});
  expectValues(y, {0, 4, 5, 0, 7, 8, 0, 0, 0});
}

TEST(BinaryKernels, BroadcastingAndPythonScalars) {
  {  // int64 tensor + 2.5 -> float32 (a float scalar promotes an integer tensor).
    OneOp t;
    auto x = t.add("x", I(DType::Int64, {2}, {1, 2}));
    Tensor y = t.run("aten.add.Tensor", {x, 2.5})[0];
    EXPECT_EQ(y.dtype(), DType::Float32);
    expectValues(y, {3.5, 4.5});
  }
  {  // int64 tensor + 2 stays int64; alpha scales the second operand.
    OneOp t;
    auto x = t.add("x", I(DType::Int64, {2}, {1, 2}));
    Tensor y = t.run("aten.add.Tensor", {x, int64_t(2)}, {Kwarg{"alpha", int64_t(3)}})[0];
    EXPECT_EQ(y.dtype(), DType::Int64);
    EXPECT_EQ(y.toInts(), (std::vector<int64_t>{7, 8}));
  }
  {  // [2,1] + [3] broadcasts to [2,3]; sub with alpha 2.
    OneOp t;
    auto x = t.add("x", F({2, 1}, {1, 2}));
    auto y = t.add("y", F({3}, {10, 20, 30}));
    Tensor s = t.run("aten.sub.Tensor", {x, y}, {Kwarg{"alpha", 2.0}})[0];
    expectShape(s, {2, 3});
    expectValues(s, {-19, -39, -59, -18, -38, -58});
  }
  {  // div.Tensor(x, 8.0) as torch 1.13 traces `x / 8`; integer true division -> float.
    OneOp t;
    auto x = t.add("x", I(DType::Int32, {2}, {1, 4}));
    Tensor y = t.run("aten.div.Tensor", {x, 8.0})[0];
    EXPECT_EQ(y.dtype(), DType::Float32);
    expectValues(y, {0.125, 0.5});
  }
  {  // Python scalar on the left: mul.Tensor(3, x) and a 0-d tensor operand.
    OneOp t;
    auto x = t.add("x", F({3}, {1, 2, 3}));
    auto s = t.add("s", F({}, {2}));
    expectValues(t.run("aten.mul.Tensor", {x, s})[0], {2, 4, 6});
  }
}

TEST(CompareKernels, EqNeScalarInCommonDtype) {
  // float32(0.1) == 0.1 compares in float32 (the scalar is cast), so it is true.
  OneOp t;
  auto x = t.add("x", F({3}, {0.1f, 0.2f, 1}));
  Tensor eq = t.run("aten.eq.Scalar", {x, 0.1})[0];
  EXPECT_EQ(eq.dtype(), DType::Bool);
  EXPECT_EQ(eq.toInts(), (std::vector<int64_t>{1, 0, 0}));
  OneOp n;
  x = n.add("x", I(DType::Int64, {3}, {0, 1, 2}));
  EXPECT_EQ(n.run("aten.ne.Scalar", {x, int64_t(1)})[0].toInts(), (std::vector<int64_t>{1, 0, 1}));
}

TEST(MiscKernels, MaskedFillRollFillNewZerosSliceScatter) {
  {  // masked_fill with a broadcast mask.
    OneOp t;
    auto x = t.add("x", F({2, 2}, {1, 2, 3, 4}));
    auto m = t.add("m", I(DType::Bool, {2}, {1, 0}));
    expectValues(t.run("aten.masked_fill.Scalar", {x, m, -100.0})[0], {-100, 2, -100, 4});
  }
  {  // roll by 1 along dim 1 and by -1 along dim 0 of [[0,1,2],[3,4,5]].
    OneOp t;
    auto x = t.add("x", F({2, 3}, iota(6)));
    expectValues(t.run("aten.roll.default", {x, IntList{1, -1}, IntList{1, 0}})[0], {5, 3, 4, 2, 0, 1});
    OneOp f;
    x = f.add("x", F({2, 3}, iota(6)));
    expectValues(f.run("aten.roll.default", {x, IntList{2}})[0], {4, 5, 0, 1, 2, 3});  // flattened
  }
  {  // fill.Tensor with a 0-d value; new_zeros with a dtype; lift_fresh_copy is identity.
    OneOp t;
    auto x = t.add("x", F({2}, {1, 2}));
    auto v = t.add("v", F({}, {7}));
    expectValues(t.run("aten.fill.Tensor", {x, v})[0], {7, 7});
    OneOp z;
    x = z.add("x", F({2}, {1, 2}));
    Tensor y = z.run("aten.new_zeros.default", {x, IntList{2, 3}},
                     {Kwarg{"dtype", ir::EnumArg{ir::EnumKind::DType, int32_t(DType::Int64)}}})[0];
    EXPECT_EQ(y.dtype(), DType::Int64);
    EXPECT_EQ(y.toInts(), std::vector<int64_t>(6, 0));
    OneOp l;
    x = l.add("x", F({2}, {1, 2}));
    expectValues(l.run("aten.lift_fresh_copy.default", {x})[0], {1, 2});
  }
  {  // slice_scatter src into columns 1 and 3 (step 2) of zeros(2, 4).
    OneOp t;
    auto x = t.add("x", F({2, 4}, std::vector<float>(8, 0)));
    auto s = t.add("s", F({2, 2}, {1, 2, 3, 4}));
    expectValues(t.run("aten.slice_scatter.default", {x, s, int64_t(1), int64_t(1), none(), int64_t(2)})[0],
                 {0, 1, 0, 2, 0, 3, 0, 4});
  }
}

TEST(ViewKernels, PermuteTransposeExpandSliceSelectAsStrided) {
  const Tensor x = F({2, 3}, iota(6));  // [[0,1,2],[3,4,5]]
  auto run = [&](const std::string& op, std::vector<Arg> extra) {
    OneOp t;
    auto xr = t.add("x", x);
    std::vector<Arg> args{xr};
    for (Arg& a : extra) args.push_back(a);
    return t.run(op, args)[0];
  };
  expectValues(run("aten.permute_copy.default", {IntList{1, 0}}), {0, 3, 1, 4, 2, 5});
  expectValues(run("aten.transpose_copy.int", {int64_t(0), int64_t(-1)}), {0, 3, 1, 4, 2, 5});
  expectValues(run("aten.t_copy.default", {}), {0, 3, 1, 4, 2, 5});
  expectValues(run("aten.slice_copy.Tensor", {int64_t(1), int64_t(-2), none()}), {1, 2, 4, 5});
  expectValues(run("aten.slice_copy.Tensor", {int64_t(1), int64_t(0), int64_t(100), int64_t(2)}), {0, 2, 3, 5});
  expectValues(run("aten.select_copy.int", {int64_t(1), int64_t(-1)}), {2, 5});
  expectValues(run("aten.view_copy.default", {IntList{3, -1}}), {0, 1, 2, 3, 4, 5});
  expectValues(run("aten.unsqueeze_copy.default", {int64_t(0)}), {0, 1, 2, 3, 4, 5});
  // as_strided over the contiguous storage: transposed view [3, 2] with strides [1, 3].
  expectValues(run("aten.as_strided_copy.default", {IntList{3, 2}, IntList{1, 3}}), {0, 3, 1, 4, 2, 5});
  OneOp e;
  auto r = e.add("r", F({1, 3}, {1, 2, 3}));
  Tensor y = e.run("aten.expand_copy.default", {r, IntList{2, -1}})[0];
  expectShape(y, {2, 3});
  expectValues(y, {1, 2, 3, 1, 2, 3});
}

TEST(ViewKernels, TransposesLargerThanATileMatchTheDefinition) {
  // The last two axes swapped (copied in 32x32 tiles): sizes not multiples of the tile, a
  // batch axis in front, 4- and 1-byte elements.
  const int64_t B = 2, R = 67, C = 45;
  std::vector<float> xv = iota(B * R * C);
  std::vector<int64_t> iv(size_t(B * R * C));
  for (size_t i = 0; i < iv.size(); ++i) iv[i] = int64_t(i % 251) - 125;
  for (DType dt : {DType::Float32, DType::Int8}) {
    OneOp t;
    auto x = t.add("x", dt == DType::Float32 ? F({B, R, C}, xv) : I(DType::Int8, {B, R, C}, iv));
    Tensor y = t.run("aten.permute_copy.default", {x, IntList{0, 2, 1}})[0];
    expectShape(y, {B, C, R});
    for (int64_t b = 0; b < B; ++b)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t r = 0; r < R; ++r) {
          const int64_t src = (b * R + r) * C + c;
          ASSERT_EQ(y.getDouble((b * C + c) * R + r), dt == DType::Float32 ? double(xv[size_t(src)]) : double(iv[size_t(src)]))
              << b << "," << c << "," << r;
        }
  }
  OneOp t;
  auto x = t.add("x", F({R, C}, std::vector<float>(xv.begin(), xv.begin() + R * C)));
  Tensor y = t.run("aten.t_copy.default", {x})[0];
  for (int64_t c = 0; c < C; ++c)
    for (int64_t r = 0; r < R; ++r) ASSERT_EQ(y.getDouble(c * R + r), double(xv[size_t(r * C + c)]));
}

TEST(ReduceKernels, MeanDimKeepdim) {
  // Mean over H, W of [1, 2, 2, 2]: channel means 2.5 and 6.5.
  OneOp t;
  auto x = t.add("x", F({1, 2, 2, 2}, iota(8, 1)));
  Tensor y = t.run("aten.mean.dim", {x, IntList{-1, -2}, true})[0];
  expectShape(y, {1, 2, 1, 1});
  expectValues(y, {2.5, 6.5});
  // Non-trailing reduction (dim 1) of [[0,1,2],[3,4,5]] -> [1.5, 2.5, 3.5].
  OneOp s;
  x = s.add("x", F({2, 3}, iota(6)));
  expectValues(s.run("aten.mean.dim", {x, IntList{0}})[0], {1.5, 2.5, 3.5});
}

}  // namespace

// ---------------------------------------------------------------- op-coverage kernels
// Expected values are torch's (1.13) for the same inputs.

TEST(CoverageKernels, LinearWithABiasOfTheOutputsShape) {
  // A pipeline-fuzzer finding: a 2-D bias broadcasting to the output was read as [out_features].
  OneOp t;
  auto x = t.add("x", F({2, 3}, iota(6)));
  auto w = t.add("w", F({4, 3}, {0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5}));
  auto b = t.add("b", F({2, 4}, iota(8, -3)));
  expectValues(t.run("aten.linear.default", {x, w, b})[0], {-0.5, 5.0, 10.5, 16.0, 8.0, 27.0, 46.0, 65.0});
}

TEST(CoverageKernels, PixelShuffleAndUnshuffle) {
  OneOp t;
  auto x = t.add("x", F({1, 4, 2, 2}, iota(16)));
  Tensor y = t.run("aten.pixel_shuffle.default", {x, int64_t(2)})[0];
  expectShape(y, {1, 1, 4, 4});
  expectValues(y, {0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15});
  OneOp u;
  x = u.add("x", F({1, 1, 4, 4}, iota(16)));
  y = u.run("aten.pixel_unshuffle.default", {x, int64_t(2)})[0];
  expectShape(y, {1, 4, 2, 2});
  expectValues(y, {0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15});
}

TEST(CoverageKernels, PreluGluLogitClampMin) {
  OneOp p;
  auto x = p.add("x", F({1, 2, 2, 1}, {-2, 3, 0.5, -1}));
  auto w = p.add("w", F({2}, {0.25, -0.5}));
  expectValues(p.run("aten.prelu.default", {x, w})[0], {-0.5, 3.0, 0.5, 0.5});
  OneOp g;
  x = g.add("x", F({2, 4}, {1, 2, 0, -1, -3, 4, 2, 0.5}));
  expectValues(g.run("aten.glu.default", {x, int64_t(-1)})[0], {0.5, 0.5378829, -2.6423912, 2.4898374});
  OneOp gd;  // dim omitted: the schema default -1
  x = gd.add("x", F({2, 4}, {1, 2, 0, -1, -3, 4, 2, 0.5}));
  expectValues(gd.run("aten.glu.default", {x})[0], {0.5, 0.5378829, -2.6423912, 2.4898374});
  OneOp g0;
  x = g0.add("x", F({2, 4}, {1, 2, 0, -1, -3, 4, 2, 0.5}));
  expectValues(g0.run("aten.glu.default", {x, int64_t(0)})[0], {0.0474259, 1.9640275, 0.0, -0.6224594});
  OneOp l;
  x = l.add("x", F({5}, {0.1, 0.5, 0.9, 0.0, 1.0}));
  expectValues(l.run("aten.logit.default", {x, 1e-3})[0], {-2.1972246, 0.0, 2.1972244, -6.906755, 6.9067678}, 1e-4);
  OneOp c;
  x = c.add("x", F({3}, {-1, 0.5, 2}));
  expectValues(c.run("aten.clamp_min.default", {x, 0.25})[0], {0.25, 0.5, 2});
}

TEST(CoverageKernels, FloorDivideAndRemainderTakeTheDivisorsSign) {
  OneOp f;
  auto a = f.add("a", F({5}, {7, -7, 7, -7, 5.5}));
  auto b = f.add("b", F({5}, {2, 2, -2, -2, 1.5}));
  expectValues(f.run("aten.floor_divide.default", {a, b})[0], {3, -4, -4, 3, 3});
  OneOp r;
  a = r.add("a", F({5}, {7, -7, 7, -7, 5.5}));
  b = r.add("b", F({5}, {2, 2, -2, -2, 1.5}));
  expectValues(r.run("aten.remainder.Tensor", {a, b})[0], {1, 1, -1, -1, 1});
  OneOp i;
  auto ia = i.add("a", I(DType::Int64, {4}, {7, -7, 7, -7}));
  auto ib = i.add("b", I(DType::Int64, {4}, {2, 2, -2, -2}));
  Tensor q = i.run("aten.remainder.Tensor", {ia, ib})[0];
  EXPECT_EQ(q.dtype(), DType::Int64);
  expectValues(q, {1, 1, -1, -1});
  OneOp fs;
  a = fs.add("a", F({3}, {7, -7, 5.5}));
  expectValues(fs.run("aten.floor_divide.Scalar", {a, 2.0})[0], {3, -4, 2});
}

TEST(CoverageKernels, StdAndVectorNorms) {
  auto s = [] { return F({2, 3}, {1, 2, 4, 3, -1, 0}); };
  OneOp a;
  auto x = a.add("x", s());
  expectValues(a.run("aten.std.correction", {x, IntList{1}})[0], {1.5275252, 2.081666});
  OneOp b;
  x = b.add("x", s());
  expectValues(b.run("aten.std.correction", {x, IntList{1}}, {{"correction", int64_t(0)}})[0], {1.2472191, 1.6996732});
  OneOp nd;  // ord omitted: the schema default 2
  x = nd.add("x", s());
  expectValues(nd.run("aten.linalg_vector_norm.default", {x}, {{"dim", IntList{1}}})[0], {4.5825758, 3.1622777});
  OneOp n2;
  x = n2.add("x", s());
  expectValues(n2.run("aten.linalg_vector_norm.default", {x, 2.0, IntList{1}})[0], {4.5825758, 3.1622777});
  OneOp n1;
  x = n1.add("x", s());
  expectValues(n1.run("aten.linalg_vector_norm.default", {x, 1.0, IntList{1}})[0], {7, 4});
  OneOp ni;
  x = ni.add("x", s());
  Tensor inf = ni.run("aten.linalg_vector_norm.default", {x, INFINITY})[0];
  expectShape(inf, {});
  expectValues(inf, {4});
  OneOp n3;
  x = n3.add("x", s());
  expectValues(n3.run("aten.linalg_vector_norm.default", {x, 3.0, IntList{0}})[0], {3.0365891, 2.0800838, 4.0});
  OneOp n0;
  x = n0.add("x", s());
  expectValues(n0.run("aten.linalg_vector_norm.default", {x, 0.0})[0], {5});
}

TEST(CoverageKernels, CumsumTrilEye) {
  OneOp c;
  auto x = c.add("x", F({2, 3}, {1, 2, 4, 3, -1, 0}));
  expectValues(c.run("aten.cumsum.default", {x, int64_t(1)})[0], {1, 3, 7, 3, 2, 2});
  OneOp c0;
  x = c0.add("x", F({2, 3}, {1, 2, 4, 3, -1, 0}));
  expectValues(c0.run("aten.cumsum.default", {x, int64_t(0)})[0], {1, 2, 4, 4, 1, 4});
  OneOp ci;
  auto xi = ci.add("x", I(DType::Int32, {3}, {1, 2, 3}));
  Tensor yi = ci.run("aten.cumsum.default", {xi, int64_t(0)})[0];
  EXPECT_EQ(yi.dtype(), DType::Int64);  // torch accumulates integers in int64
  expectValues(yi, {1, 3, 6});
  for (auto [k, expected] : std::vector<std::pair<int64_t, std::vector<double>>>{
           {0, {1, 0, 0, 0, 5, 6, 0, 0, 9, 10, 11, 0}},
           {1, {1, 2, 0, 0, 5, 6, 7, 0, 9, 10, 11, 12}},
           {-1, {0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0}}}) {
    OneOp t;
    x = t.add("x", F({3, 4}, iota(12, 1)));
    expectValues(t.run("aten.tril.default", {x, k})[0], expected);
  }
  OneOp td;  // diagonal omitted: the schema default 0
  x = td.add("x", F({3, 4}, iota(12, 1)));
  expectValues(td.run("aten.tril.default", {x})[0], {1, 0, 0, 0, 5, 6, 0, 0, 9, 10, 11, 0});
  OneOp e;
  e.add("unused", F({1}, {0}));
  Tensor eye = e.run("aten.eye.m", {int64_t(2), int64_t(3)})[0];
  expectShape(eye, {2, 3});
  expectValues(eye, {1, 0, 0, 0, 1, 0});
}

}  // namespace ls::exec
