// DecomposeQuantizeDequantizePass (core/backends/arm/passes/decompose_quant_nodes.cpp) on
// values a quantize saturates: -inf (an attention mask built with masked_fill(-inf)), +inf and
// values far outside the int8 range quantise to qmin / qmax as torch's quantize_per_tensor does,
// per tensor and per channel, with no integer CAST or ADD out of range on the way (UNPREDICTABLE
// in TOSA 1.0: the lowered graph used to compute 89 for the -inf a source quantised to -128).
#include <gtest/gtest.h>

#include <cmath>

#include "core/backends/arm/arm_util.h"
#include "tests/core/arm/pass_cases.h"

namespace ls::arm {
namespace {

using ir::DType;

ir::Arg i8() { return ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(DType::Int8)}); }

TEST(DecomposeQuantizeDequantizePass, SaturatingValuesQuantiseToTheBoundsLikeTorch) {
  // x + c, where c holds -inf, +inf and large finite values: quantize -> dequantize.
  const std::vector<double> c = {-INFINITY, INFINITY, -1e30, 1e30, 0.0, 0.5, -0.5, 3.0};
  for (const int64_t zp : {int64_t(-100), int64_t(0), int64_t(90)}) {
    SCOPED_TRACE(zp);
    test::GraphBuilder b;
    auto x = b.input("x", {8});
    auto k = b.constant("c", DType::Float32, {8}, c);
    auto y = b.call("aten.add.Tensor", {x, k});
    auto q = b.call(kQ, {y, 0.05, zp, int64_t(-128), int64_t(127), i8()});
    b.output({b.call(kDq, {q, 0.05, zp, int64_t(-128), int64_t(127), i8()})});
    const ir::Graph before = b.g;
    ir::Graph g = b.g;
    auto p = passes::PassRegistry::instance().create("DecomposeQuantizeDequantizePass");
    ASSERT_TRUE(p);
    passes::PassContext ctx;
    ctx.profile = passes::Profile::INT;
    const passes::PassResult r = p->run(g, ctx);
    ASSERT_EQ(r.status, passes::PassStatus::Changed) << r.message;
    EXPECT_EQ(test::opCount(g, kQ), 0u);
    exec::Executor ex({}, std::make_shared<exec::ConstantCache>());
    auto in = exec::synthesizeInputs(before, 3);
    auto want = ex.run(before, in);
    auto got = ex.run(g, in);
    ASSERT_TRUE(want.isOk()) << want.message();
    ASSERT_TRUE(got.isOk()) << got.message();
    const exec::Tensor& w = (*want)[0];
    const exec::Tensor& o = (*got)[0];
    for (int64_t i = 0; i < w.numel(); ++i) EXPECT_EQ(o.getDouble(i), w.getDouble(i)) << "element " << i;
    // -inf and +inf: the bounds.
    EXPECT_NEAR(w.getDouble(0), double(-128 - zp) * 0.05, 1e-5);
    EXPECT_NEAR(w.getDouble(1), double(127 - zp) * 0.05, 1e-5);
  }
}

}  // namespace
}  // namespace ls::arm
