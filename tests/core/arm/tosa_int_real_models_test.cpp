// INT profile on real graphs: the float graph is quantised (PT2E-style q/dq, calibrated on
// seeded inputs), lowered through `tosa` with --profile int to pure integer TOSA (float only in
// the input quantize and output dequantize) with the verifier clean after every pass, and the
// reference executor's outputs agree with the quantised source graph within a number of
// quantisation steps of the output's dequantize scale (the figures `lowerscope-cli verify ...
// --profile int` reports). The integer ops are exact (int32 accumulation, RESCALE); the
// reference evaluates the quantised source in float64 (ExecOptions::float64), so it rounds the
// exact values too and near-ties no longer flip (with float32 q/dq arithmetic they did, and
// each flip propagated, more through deep or attention-heavy networks: the bounds below were
// observed then; with seed 1 every model now measures 0 steps but squeezenet1_1, 1). deeplabv3's quantised
// graph is so sensitive that only its distance from the float model is bounded: for every
// model the lowered graph must be about as close to the float model as the quantised source is
// (`verify --against-float`; the quantised source evaluated in float64 as well).
#include <gtest/gtest.h>

#include <iostream>

#include "core/backends/arm/tosa/tosa_import.h"
#include "core/backends/arm/tosa/tosa_validate.h"
#include "core/backends/arm/arm_util.h"
#include "core/backends/arm/tosa/tosa_ops.h"
#include "core/exec/synth.h"
#include "core/verify/verify.h"
#include "core/io/fxjson.h"
#include "core/passes/pass_manager.h"
#include "core/quant/quantizer.h"

namespace ls::arm {
namespace {

struct IntCase {
  const char* model;
  int64_t maxSteps;       ///< observed with seed 1 (see the file comment); -1: not bounded (see there)
  bool integerOnly;       ///< float only in the input quantize and the output dequantize
};


class TosaIntRealGraph : public ::testing::TestWithParam<IntCase> {};

TEST_P(TosaIntRealGraph, LowersToIntegerTosaWithinQuantisationSteps) {
  const IntCase& c = GetParam();
  auto loaded = io::importFxJsonFile(std::string(LS_ASSETS_DIR) + "/graphs/" + c.model + ".fxjson.json");
  ASSERT_TRUE(loaded.isOk()) << loaded.message();
  ir::Graph src = std::move(loaded).value();
  ir::Graph floatModel = src;
  exec::materializeConstants(floatModel);
  auto rep = quant::quantizeGraph(src, {});
  ASSERT_TRUE(rep.isOk()) << rep.message();
  exec::materializeConstants(src);

  ir::Graph low = src;
  auto pm = passes::PassManager::fromPipeline("tosa");
  ASSERT_TRUE(pm.isOk()) << pm.message();
  passes::VerifierInstrumentation verifier;
  pm->addInstrumentation(&verifier);
  ops::InferenceCache cache;
  passes::PassContext ctx;
  ctx.profile = passes::Profile::INT;
  ctx.cache = &cache;
  auto run = pm->run(low, ctx);
  ASSERT_EQ(run.failedIndex, -1) << run.failure;
  std::string nonTosa;
  for (const ir::NodePtr& p : low.nodes())
    if (p->isCall() && !isTosaOp(p->op)) nonTosa += p->name + " (" + ir::opName(p->op) + ") ";
  EXPECT_EQ(nonTosa, "");
  // Legal TOSA 1.0 at level 8K, in memory and as written: PRO-INT alone for the models with no
  // float island (every bundled one), with int8 graph inputs and outputs.
  {
    TosaCheckOptions check;
    check.profile = c.integerOnly ? TosaCheckOptions::Profile::Int : TosaCheckOptions::Profile::Fp;
    std::vector<TosaViolation> v = validateTosaGraph(low, check);
    EXPECT_TRUE(v.empty()) << formatViolations(v, check);
    auto bytes = io::serializeTosa(low);
    ASSERT_TRUE(bytes.isOk()) << bytes.message();
    auto info = io::readTosaBytes(*bytes, std::string(c.model) + ".tosa");
    ASSERT_TRUE(info.isOk()) << info.message();
    std::vector<TosaViolation> fv = validateTosaFile(*info, check);
    EXPECT_TRUE(fv.empty()) << formatViolations(fv, check);
    for (const std::string& in : info->mainBlock()->inputs) EXPECT_EQ(info->mainBlock()->tensor(in)->dtype, "INT8") << in;
    for (const std::string& out : info->mainBlock()->outputs)
      EXPECT_EQ(info->mainBlock()->tensor(out)->dtype, "INT8") << out;
    // The file, read back as any .tosa, computes the lowered graph's int8 outputs bit for bit
    // from the int8 inputs the source's boundary quantize produces.
    auto fileRun = runTosaFileAgainst(low, *bytes, std::string(c.model) + ".tosa",
                                  exec::adaptInputs(low, exec::synthesizeInputs(src, 1)));
    ASSERT_TRUE(fileRun.isOk()) << fileRun.message();
    EXPECT_TRUE(fileRun->identical) << fileRun->message;
  }
  // Integer convolutions: int8 operands, int32 accumulators.
  size_t convs = 0;
  std::string floatConvs;
  for (const char* op : {"tosa.CONV2D", "tosa.DEPTHWISE_CONV2D"})
    for (ir::NodeId id : low.nodesOfOp(ir::internOp(op))) {
      const ir::Node& n = low.node(id);
      if (low.meta(*n.args[0].ref()).dtype != ir::DType::Int8) {
        floatConvs += n.name + " ";
        continue;
      }
      ++convs;
      EXPECT_EQ(n.meta().dtype, ir::DType::Int32) << n.name;
    }
  // Every convolution whose output (directly or after relu/hardtanh/clamp) the quantizer
  // quantised runs in int8; the others (output left float by the quantizer) stay float.
  static const ir::OpId q = ir::internOp("quantized_decomposed.quantize_per_tensor.default");
  size_t quantisedConvs = 0;
  for (ir::NodeId id : src.nodesOfOp(ir::internOp("aten.convolution.default"))) {
    auto users = src.users(id);
    if (users.size() != 1) continue;
    const ir::Node* u = &src.node(users[0]);
    const std::string op = ir::opName(u->op);
    if (op == "aten.relu.default" || op == "aten.hardtanh.default" || op == "aten.clamp.default") {
      auto uu = src.users(u->id);
      if (uu.size() != 1) continue;
      u = &src.node(uu[0]);
    }
    if (u->op == q) ++quantisedConvs;
  }
  EXPECT_EQ(convs, quantisedConvs) << "float convolutions: " << floatConvs;

  // Linear layers and matmuls run as int8 MATMUL with int32 accumulation.
  for (ir::NodeId id : low.nodesOfOp(ir::internOp("tosa.MATMUL")))
    if (c.integerOnly) {
      EXPECT_EQ(low.meta(*low.node(id).args[0].ref()).dtype, ir::DType::Int8) << low.node(id).name;
    }
  // Every int8 activation carries its qparams (recorded by FoldAndAnnotateQParamsPass, kept
  // through the layout, transpose and q/dq passes that rewrite the nodes holding them).
  size_t int8Values = 0;
  std::string unannotated;
  for (const ir::NodePtr& p : low.nodes())
    if (p->isCall() && p->outputs.size() == 1 && p->meta().dtype == ir::DType::Int8) {
      ++int8Values;
      if (!p->meta().quant) unannotated += p->name + " ";
    }
  EXPECT_GT(int8Values, 0u);
  if (c.integerOnly) {
    EXPECT_EQ(unannotated, "");
  }
  if (c.integerOnly) {
    std::vector<ir::NodeId> islands = floatIslands(low);
    std::string list;
    for (size_t i = 0; i < islands.size() && i < 20; ++i) list += low.node(islands[i]).name + " ";
    EXPECT_TRUE(islands.empty()) << islands.size() << " float islands: " << list;
  }

  verify::VerifyOptions vo;
  vo.seed = 1;
  vo.quantSteps = true;
  vo.compare.maxSteps = c.maxSteps;
  auto ref = verify::Reference::compute(src, vo);
  ASSERT_TRUE(ref.isOk()) << ref.message();
  verify::CheckResult r = ref->check(low);
  // Against the float model: the integer lowering adds little to what quantisation costs.
  verify::VerifyOptions fo;
  fo.seed = 1;
  auto fref = verify::Reference::compute(floatModel, fo);
  ASSERT_TRUE(fref.isOk()) << fref.message();
  const double quantErr = fref->check(src).semantic.maxAbsError, lowErr = fref->check(low).semantic.maxAbsError;
  std::cout << "[ tosa-int ] " << c.model << ": " << convs << " integer convolutions, " << r.message
            << "; vs float: quantized source max abs " << quantErr << ", lowered " << lowErr << "\n";
  EXPECT_GT(quantErr, 0.0);
  EXPECT_LE(lowErr, 1.25 * quantErr);
  if (c.maxSteps >= 0) {
    EXPECT_TRUE(r.semantic.equivalent) << r.message;
    EXPECT_LE(r.semantic.maxSteps, double(c.maxSteps) + 1e-3) << r.message;
  }
}

INSTANTIATE_TEST_SUITE_P(Int, TosaIntRealGraph,
                         ::testing::Values(IntCase{"squeezenet1_1", 1, true}, IntCase{"resnet18", 1, true},
                                           IntCase{"mobilenet_v2", 4, true}, IntCase{"wav2letter", 1, true},
                                           IntCase{"deit_tiny_vit", 6, true},
                                           IntCase{"deeplabv3_mobilenet_v3_large", -1, true},
                                           IntCase{"efficientnet_b0", 2, true}, IntCase{"mobilenet_v3_small", 1, true}),
                         [](const auto& p) { return std::string(p.param.model); });

}  // namespace
}  // namespace ls::arm
