// Upstream's operator support checks (core/backends/arm/operator_support/): per check, a small
// graph it refuses with upstream's reason ("Rejected by <Check>: <reason>") and one it accepts;
// the checks are keyed by target (the Ethos-U55 ones only for u55); through a lowering session
// the tosa pipeline's last pass fails naming the refused nodes on u55 / u85 and only reports them
// on the generic target; on the bundled models, what upstream's U55 checks refuse.
#include <gtest/gtest.h>

#include "core/backends/arm/operator_support/operator_support.h"
#include "core/io/fxjson.h"
#include "core/session/lowering_session.h"
#include "tests/support/graph_builder.h"

namespace ls::arm {
namespace {

using ir::DType;
using ir::IntList;
using passes::Profile;
using passes::Target;

std::vector<passes::SupportRejection> rejected(const ir::Graph& g, Target t, Profile p = Profile::INT) {
  return support::evaluate(g, {p, t});
}

/// The one rejection of node `name` ("" when the node was accepted).
std::string rejectionOf(const ir::Graph& g, const std::string& name, Target t, Profile p = Profile::INT) {
  for (const passes::SupportRejection& r : rejected(g, t, p))
    if (r.name == name) return r.text();
  return "";
}

ir::Kwarg toDType(DType t) { return {"dtype", ir::Arg(ir::EnumArg{ir::EnumKind::DType, int32_t(t)})}; }

// ---- EthosU55NotSupported

TEST(EthosU55NotSupported, RefusesOpsTheU55CannotRunOnU55Only) {
  test::GraphBuilder b;
  auto x = b.input("x", {1, 4, 8, 8});
  auto y = b.input("y", {1, 4, 8, 8});
  auto c = b.call("aten.gt.Tensor", {x, y}, {}, "cmp");
  auto w = b.call("aten.where.self", {c, x, y}, {}, "sel");
  auto a = b.call("aten.add.Tensor", {w, y}, {}, "add");
  auto u = b.call("aten.upsample_bilinear2d.vec", {a, IntList{16, 16}, false, ir::Arg()}, {}, "up");
  auto i = b.input("i", DType::Int32, {1, 4, 8, 8});
  auto band = b.call("aten.bitwise_and.Tensor", {i, i}, {}, "band");
  b.output({u, band});
  EXPECT_EQ(rejectionOf(b.g, "band", Target::U55), "Rejected by EthosU55NotSupported: Op is not supported on U55.");
  EXPECT_EQ(rejectionOf(b.g, "up", Target::U55), "Rejected by EthosU55NotSupported: Op is not supported on U55.");
  // Upstream's chain checks dtypes before the U55 op list: no bool on the U55.
  EXPECT_EQ(rejectionOf(b.g, "cmp", Target::U55),
            "Rejected by CheckDtypeInputsAndOutputs: Had torch.bool output that is not supported by TOSA-1.0+INT+u55.");
  EXPECT_EQ(rejectionOf(b.g, "sel", Target::U55),
            "Rejected by CheckDtypeInputsAndOutputs: Had torch.bool input cmp that is not supported by TOSA-1.0+INT+u55.");
  EXPECT_EQ(rejectionOf(b.g, "add", Target::U55), "");
  EXPECT_TRUE(rejected(b.g, Target::U85).empty());
  EXPECT_TRUE(rejected(b.g, Target::Generic).empty());
}

// ---- EthosU55ResizeCheck

TEST(EthosU55ResizeCheck, NearestNeedsA2x4xOr8xUpscaleOfBatch1) {
  test::GraphBuilder b;
  auto x = b.input("x", {1, 4, 8, 8});
  auto ok = b.call("aten.upsample_nearest2d.vec", {x, IntList{16, 16}, ir::Arg()}, {}, "up2");
  auto bad = b.call("aten.upsample_nearest2d.vec", {x, IntList{24, 24}, ir::Arg()}, {}, "up3");
  b.output({ok, bad});
  EXPECT_EQ(rejectionOf(b.g, "up2", Target::U55), "");
  EXPECT_EQ(rejectionOf(b.g, "up3", Target::U55),
            "Rejected by EthosU55ResizeCheck: U55 nearest-neighbor resize requires a 2x, 4x, or 8x upscale.");
  EXPECT_EQ(rejectionOf(b.g, "up3", Target::U85), "");
}

// ---- EthosU55ReverseCheck

TEST(EthosU55ReverseCheck, FlipOnlyAlongChannelOrHeightOfRank4) {
  test::GraphBuilder b;
  auto x = b.input("x", {1, 4, 8, 8});
  auto h = b.call("aten.flip.default", {x, IntList{2}}, {}, "flip_h");
  auto w = b.call("aten.flip.default", {x, IntList{-1}}, {}, "flip_w");
  b.output({h, w});
  EXPECT_EQ(rejectionOf(b.g, "flip_h", Target::U55), "");
  EXPECT_EQ(rejectionOf(b.g, "flip_w", Target::U55),
            "Rejected by EthosU55ReverseCheck: U55 flip support is limited to rank-4 channel or height reversal.");
}

// ---- EthosU55DtypeSupport

TEST(EthosU55DtypeSupport, DataMovementTakesI8I16I32Only) {
  test::GraphBuilder b;
  auto x = b.input("x", DType::Int64, {2, 3});
  auto y = b.input("y", DType::Int32, {2, 3});
  auto c64 = b.call("aten.cat.default", {ir::Arg(ir::RefList{x, x}), 0}, {}, "cat64");
  auto c32 = b.call("aten.cat.default", {ir::Arg(ir::RefList{y, y}), 0}, {}, "cat32");
  b.output({c64, c32});
  EXPECT_EQ(rejectionOf(b.g, "cat64", Target::U55),
            "Rejected by EthosU55DtypeSupport: Unsupported dtype torch.int64 (Supports i8, i16, i32).");
  EXPECT_EQ(rejectionOf(b.g, "cat32", Target::U55), "");
}

TEST(EthosU55DtypeSupport, MatmulInputsMustBeInt8AndFloatIsUndetermined) {
  test::GraphBuilder b;
  auto x = b.input("x", DType::Int16, {1, 2, 3});
  auto y = b.input("y", DType::Int16, {1, 3, 2});
  auto f = b.input("f", {1, 2, 3});
  auto f2 = b.input("f2", {1, 3, 2});
  auto bad = b.call("aten.bmm.default", {x, y}, {}, "bmm16");
  auto flt = b.call("aten.bmm.default", {f, f2}, {}, "bmm_float");
  b.output({bad, flt});
  EXPECT_EQ(rejectionOf(b.g, "bmm16", Target::U55),
            "Rejected by EthosU55DtypeSupport: Input x has unsupported dtype torch.int16 (Supports int8).");
  // A float matmul without quantize users: upstream cannot determine the dtype and accepts.
  EXPECT_EQ(rejectionOf(b.g, "bmm_float", Target::U55), "");
}

// ---- EthosU55CastCheck

TEST(EthosU55CastCheck, NoCastFromInt32OrToBool) {
  test::GraphBuilder b;
  auto x = b.input("x", DType::Int32, {4});
  auto f = b.input("f", {4});
  auto from32 = b.call("aten._to_copy.default", {x}, {toDType(DType::Int8)}, "from_i32");
  auto toi8 = b.call("aten._to_copy.default", {f}, {toDType(DType::Int8)}, "to_i8");
  auto same = b.call("aten._to_copy.default", {x}, {toDType(DType::Int32)}, "same");
  b.output({from32, toi8, same});
  EXPECT_EQ(rejectionOf(b.g, "from_i32", Target::U55),
            "Rejected by EthosU55CastCheck: Casting from torch.int32 is not supported on U55.");
  EXPECT_EQ(rejectionOf(b.g, "to_i8", Target::U55), "");
  EXPECT_EQ(rejectionOf(b.g, "same", Target::U55), "");
}

// ---- ConvolutionSupported

/// wav2letter's first layer: a 1-D convolution of stride 160 with padding 45.
ir::Graph conv1d(int64_t stride, int64_t pad) {
  test::GraphBuilder b;
  auto x = b.input("x", {1, 1, 16000});
  auto w = b.parameter("w", {8, 1, 400});
  b.output({b.call("aten.convolution.default", {x, w, ir::Arg(), IntList{stride}, IntList{pad}, IntList{1}, false, IntList{0}, 1},
                   {}, "conv")});
  return std::move(b.g);
}

TEST(ConvolutionSupported, U55StrideAbove3OnlyWithoutPadding) {
  EXPECT_EQ(rejectionOf(conv1d(160, 45), "conv", Target::U55),
            "Rejected by ConvolutionSupported: Failed condition on stride, pad and dilation combination.");
  // Without padding (deit's patch embedding: stride 16) and on other targets it is accepted.
  EXPECT_EQ(rejectionOf(conv1d(160, 0), "conv", Target::U55), "");
  EXPECT_EQ(rejectionOf(conv1d(2, 45), "conv", Target::U55), "");
  EXPECT_EQ(rejectionOf(conv1d(160, 45), "conv", Target::U85), "");
}

TEST(ConvolutionSupported, U55KernelLimitsAndOutputPaddingEverywhere) {
  test::GraphBuilder b;
  auto x = b.input("x", {1, 2, 80, 80});
  // Upstream names the weight's dim 2 kernel_x and dim 3 kernel_y (the limit of 64 is on dim 3).
  auto big = b.parameter("big", {4, 2, 3, 65});
  auto k = b.call("aten.convolution.default", {x, big, ir::Arg(), IntList{1, 1}, IntList{0, 0}, IntList{1, 1}, false, IntList{0, 0}, 1},
                  {}, "tall");
  b.output({k});
  EXPECT_EQ(rejectionOf(b.g, "tall", Target::U55),
            "Rejected by ConvolutionSupported: Convolution needs to have kernel_y<=64, kernel_x*kernel_y<=4096, got "
            "kernel (3, 65)");
  EXPECT_EQ(rejectionOf(b.g, "tall", Target::U85), "");
}

// ---- AvgPool2dSupported / MaxPool2dSupported

TEST(Pool2dSupported, U55StrideAndKernelLimits) {
  test::GraphBuilder b;
  auto x = b.input("x", {1, 4, 32, 32});
  auto s4 = b.call("aten.avg_pool2d.default", {x, IntList{4, 4}, IntList{4, 4}}, {}, "avg_s4");
  auto s2 = b.call("aten.avg_pool2d.default", {x, IntList{2, 2}, IntList{2, 2}}, {}, "avg_s2");
  auto m4 = b.call("aten.max_pool2d.default", {x, IntList{4, 4}, IntList{4, 4}}, {}, "max_s4");
  auto md = b.call("aten.max_pool2d.default", {x, IntList{3, 3}, IntList{2, 2}, IntList{0, 0}, IntList{2, 2}}, {}, "max_dil");
  b.output({s4, s2, m4, md});
  EXPECT_EQ(rejectionOf(b.g, "avg_s4", Target::U55), "Rejected by AvgPool2dSupported: Avgpool2d needs stride <= 3, got [4, 4]");
  EXPECT_EQ(rejectionOf(b.g, "avg_s2", Target::U55), "");
  EXPECT_EQ(rejectionOf(b.g, "max_s4", Target::U55), "Rejected by MaxPool2dSupported: Maxpool2d needs stride <= 3, got [4, 4]");
  EXPECT_EQ(rejectionOf(b.g, "avg_s4", Target::U85), "");
  // Dilation with a stride: refused for every target (upstream's check applies to all specs).
  const std::string dil = "Rejected by MaxPool2dSupported: Maxpool2d with dilation [2, 2] needs stride = 1, got stride [2, 2]";
  EXPECT_EQ(rejectionOf(b.g, "max_dil", Target::U85), dil);
  EXPECT_EQ(rejectionOf(b.g, "max_dil", Target::Generic, Profile::FP), dil);
}

// ---- SumSupported

TEST(SumSupported, U55ReducedDimAndTheProductsAroundItWithin65536) {
  test::GraphBuilder b;
  auto x = b.input("x", {1, 70000, 2});
  auto y = b.input("y", {300, 300, 4});
  auto big = b.call("aten.sum.dim_IntList", {x, IntList{1}, true}, {}, "sum_big");
  auto pre = b.call("aten.sum.dim_IntList", {y, IntList{-1}, true}, {}, "sum_pre");
  auto ok = b.call("aten.sum.dim_IntList", {y, IntList{0}, true}, {}, "sum_ok");
  b.output({big, pre, ok});
  EXPECT_EQ(rejectionOf(b.g, "sum_big", Target::U55),
            "Rejected by SumSupported: sum needs dims < 65536, got shape torch.Size([1, 70000, 2])");
  // Reducing the last dim: the dims before it multiply to 90000.
  EXPECT_EQ(rejectionOf(b.g, "sum_pre", Target::U55), "Rejected by SumSupported: Failed dim check");
  EXPECT_EQ(rejectionOf(b.g, "sum_ok", Target::U55), "");
  EXPECT_EQ(rejectionOf(b.g, "sum_big", Target::U85), "");
}

// ---- RankCheck / CheckDtypeInputsAndOutputs

TEST(RankCheck, RefusesRankAbove6) {
  test::GraphBuilder b;
  auto x = b.input("x", {1, 2, 1, 2, 1, 2, 2});
  auto y = b.input("y", {1, 2, 1, 2, 1, 2});
  auto r7 = b.call("aten.relu.default", {x}, {}, "relu7");
  auto r6 = b.call("aten.relu.default", {y}, {}, "relu6");
  b.output({r7, r6});
  EXPECT_EQ(rejectionOf(b.g, "relu7", Target::U85),
            "Rejected by RankCheck: relu7 has input_node x with shape [1, 2, 1, 2, 1, 2, 2], rank 7 which is "
            "unsupported. Max supported rank is 6.");
  EXPECT_EQ(rejectionOf(b.g, "relu6", Target::U85), "");
}

TEST(CheckDtypeInputsAndOutputs, Float64EverywhereBoolOnU55) {
  test::GraphBuilder b;
  auto d = b.input("d", DType::Float64, {4});
  auto m = b.input("m", DType::Bool, {4});
  auto n64 = b.call("aten.neg.default", {d}, {}, "neg64");
  auto nb = b.call("aten.logical_not.default", {m}, {}, "notb");
  b.output({n64, nb});
  EXPECT_EQ(rejectionOf(b.g, "neg64", Target::Generic, Profile::FP),
            "Rejected by CheckDtypeInputsAndOutputs: Had torch.float64 input d that is not supported by TOSA-1.0+FP.");
  EXPECT_EQ(rejectionOf(b.g, "notb", Target::U55),
            "Rejected by CheckDtypeInputsAndOutputs: Had torch.bool input m that is not supported by TOSA-1.0+INT+u55.");
  EXPECT_EQ(rejectionOf(b.g, "notb", Target::U85), "");
}

// ---- through a lowering session

session::Outcome lower(ir::Graph g, Profile p, Target t) {
  session::SessionConfig c;
  c.pipeline = "tosa";
  c.profile = p;
  c.target = t;
  c.recordTrace = false;
  session::LoweringSession s(c);
  auto o = s.lower(std::move(g), "test");
  EXPECT_TRUE(o.isOk()) << o.message();
  return o.isOk() ? std::move(o).value() : session::Outcome{};
}

TEST(OperatorSupportSession, U55FailsNamingTheRefusedNodeGenericOnlyReports) {
  session::Outcome u55 = lower(conv1d(160, 45), Profile::INT, Target::U55);
  ASSERT_TRUE(u55.failed());
  ASSERT_EQ(u55.rejected.size(), 1u);
  EXPECT_EQ(u55.rejected[0].check, "ConvolutionSupported");
  EXPECT_NE(u55.result.failure.find("CheckTosaOperatorSupportPass"), std::string::npos) << u55.result.failure;
  EXPECT_NE(u55.result.failure.find("1 node(s) refused for Ethos-U55 by upstream's operator support checks"),
            std::string::npos)
      << u55.result.failure;
  EXPECT_NE(u55.result.failure.find("conv (aten.convolution.default): Rejected by ConvolutionSupported: Failed "
                                    "condition on stride, pad and dilation combination."),
            std::string::npos)
      << u55.result.failure;
  // u85 takes it; the generic target lowers as before.
  session::Outcome u85 = lower(conv1d(160, 45), Profile::INT, Target::U85);
  EXPECT_FALSE(u85.failed()) << u85.result.failure;
  EXPECT_TRUE(u85.rejected.empty());
  EXPECT_TRUE(u85.supportChecked);
  ir::Graph dil;
  {
    test::GraphBuilder b;
    auto x = b.input("x", {1, 4, 32, 32});
    b.output({b.call("aten.max_pool2d.default", {x, IntList{3, 3}, IntList{2, 2}, IntList{0, 0}, IntList{2, 2}}, {}, "mp")});
    dil = std::move(b.g);
  }
  // Generic: reported, not enforced (the pipeline behaves as before: here our own max pool
  // rewrite refuses the dilation, the support hook of the last pass does not run).
  session::Outcome generic = lower(dil, Profile::FP, Target::Generic);
  ASSERT_EQ(generic.rejected.size(), 1u);
  EXPECT_EQ(generic.rejected[0].check, "MaxPool2dSupported");
  EXPECT_NE(generic.result.failure.find("RewriteMaxPool2dPass"), std::string::npos) << generic.result.failure;
  session::Outcome genericConv = lower(conv1d(160, 45), Profile::INT, Target::Generic);
  EXPECT_FALSE(genericConv.failed()) << genericConv.result.failure;
  EXPECT_TRUE(genericConv.rejected.empty());
}

/// What upstream's U55 checks refuse on the bundled models (INT): wav2letter's first convolution
/// (stride 160 with padding 45) and deeplabv3's two bilinear upsamplings; every other model is
/// accepted whole. Their U55 lowering now fails instead of writing a TOSA graph that holds them.
TEST(OperatorSupportSession, BundledModelsOnU55) {
  const std::map<std::string, std::vector<std::string>> expected = {
      {"wav2letter", {"convolution (ConvolutionSupported)"}},
      {"deeplabv3_mobilenet_v3_large",
       {"upsample_bilinear2d (EthosU55NotSupported)", "upsample_bilinear2d_1 (EthosU55NotSupported)"}},
      {"mobilenet_v2", {}},
      {"resnet18", {}},
      {"deit_tiny_vit", {}},
      {"squeezenet1_1", {}},
      {"mobilenet_v3_small", {}},
      {"efficientnet_b0", {}},
  };
  for (const auto& [model, want] : expected) {
    auto g = io::importFxJsonFile(std::string(LS_ASSETS_DIR) + "/graphs/" + model + ".fxjson.json");
    ASSERT_TRUE(g.isOk()) << g.message();
    session::Outcome o = lower(std::move(g).value(), Profile::INT, Target::U55);
    std::vector<std::string> got;
    for (const passes::SupportRejection& r : o.rejected) got.push_back(r.name + " (" + r.check + ")");
    EXPECT_EQ(got, want) << model;
    EXPECT_EQ(o.failed(), !want.empty()) << model << ": " << o.result.failure;
  }
}

}  // namespace
}  // namespace ls::arm
