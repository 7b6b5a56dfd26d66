// The `xnnpack` pipeline end to end: every real graph lowers, partitions and verifies against
// its source with the reference executor (delegates run through their nested graphs); the
// acceptance checks of LiftConstantScalarOperandsPass and its SDPA guard on deit_tiny and on
// a graph with scalar multiplies outside attention.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "core/backends/xnnpack/xnnpack_ops.h"
#include "xnnpack_test_util.h"

namespace ls {
namespace {

using test::countOp;
using test::countOpDeep;

/// Undelegated ops that are there only because of a Python-scalar operand or a .Scalar op.
int64_t undelegatedScalarOps(const ir::Graph& g) {
  int64_t n = 0;
  for (const ir::NodePtr& p : g.nodes()) {
    if (!p->isCall()) continue;
    auto why = xnnpack::unsupportedReason(g, *p);
    if (why && (why->find("Python-scalar") != std::string::npos || why->find(".Scalar") != std::string::npos)) ++n;
  }
  return n;
}

/// The `scale` kwarg of every sdpa node in `g` and its nested graphs, in graph order.
void collectSdpaScales(const ir::Graph& g, std::vector<double>& out) {
  for (const ir::NodePtr& p : g.nodes()) {
    if (p->isCall() && ir::opName(p->op) == xnnpack::kSdpaOp) {
      const ir::Arg* s = p->kwarg("scale");
      out.push_back(s && s->number() ? *s->number() : std::nan(""));
    }
  }
  for (const auto& [name, sg] : g.subgraphs()) collectSdpaScales(*sg, out);
}

// ---------------------------------------------------------------- every real graph

class XnnpackRealGraph : public ::testing::TestWithParam<const char*> {};

TEST_P(XnnpackRealGraph, LowersPartitionsAndMatchesSourceOutputs) {
  ir::Graph source = test::loadGraph(test::realGraphPath(GetParam()));
  ASSERT_GT(source.size(), 0u);
  ir::Graph g = source;
  auto out = test::runXnnpack(g);
  ASSERT_EQ(out.run.failedIndex, -1);
  const auto& r = out.report;
  EXPECT_GE(r.delegates, 1);
  EXPECT_EQ(r.delegates, int64_t(countOp(g, "lowerscope.call_delegate.default")));
  EXPECT_EQ(int64_t(g.subgraphs().size()), r.delegates);
  // Nothing XNNPACK supports is left outside a delegate.
  for (const ir::NodePtr& p : g.nodes()) {
    if (p->isCall() && ir::opName(p->op) != "lowerscope.call_delegate.default") {
      EXPECT_TRUE(xnnpack::unsupportedReason(g, *p).has_value()) << p->name << " " << ir::opName(p->op);
    }
  }
  // CNNs and the speech model end in one delegate (only log_softmax stays outside
  // wav2letter's); deit_tiny is split by its layer norms and splits.
  if (std::string(GetParam()) != "deit_tiny_vit") {
    EXPECT_EQ(r.delegates, 1);
  }
  auto v = test::verifyLowering(source, g);
  ASSERT_TRUE(v.ok);
  EXPECT_EQ(v.delegateRuns, r.delegates);
  EXPECT_TRUE(v.diff.equivalent) << v.diff.message;
  EXPECT_LT(v.diff.maxRelToMax, 1e-4);
  std::string undel;
  for (auto& [op, n] : r.undelegated) undel += " " + op + "=" + std::to_string(n);
  std::cout << "[ xnnpack  ] " << GetParam() << ": delegates " << r.delegates << ", delegated nodes "
            << r.delegatedNodes << ", undelegated {" << undel << " }, max abs err " << v.diff.maxAbsError
            << ", max rel-to-max err " << v.diff.maxRelToMax << "\n";
}

INSTANTIATE_TEST_SUITE_P(Graphs, XnnpackRealGraph,
                         ::testing::Values("mobilenet_v2", "mobilenet_v3_small", "resnet18", "squeezenet1_1",
                                           "efficientnet_b0", "deeplabv3_mobilenet_v3_large", "deit_tiny_vit",
                                           "wav2letter"));

TEST(XnnpackPipeline, LargeVitLowersWithoutFailure) {
  ir::Graph g = test::loadGraph(std::string(LS_ASSETS_DIR) + "/graphs/large/vit_tiny_deep200.fxjson.json");
  ASSERT_GT(g.size(), 10000u);
  auto out = test::runXnnpack(g);
  ASSERT_EQ(out.run.failedIndex, -1);
  EXPECT_EQ(countOpDeep(g, "aten.scaled_dot_product_attention.default"), 200u);
  EXPECT_EQ(countOpDeep(g, "aten.bmm.default"), 0u);
  EXPECT_EQ(undelegatedScalarOps(g), 0);
  std::cout << "[ xnnpack  ] vit_tiny_deep200: delegates " << out.report.delegates << ", delegated nodes "
            << out.report.delegatedNodes << "\n";
}

// ---------------------------------------------------------------- deit_tiny acceptance

TEST(XnnpackAcceptance, DeitTinyLiftKeepsAttentionScalesAndSdpaReadsOneEighth) {
  const ir::Graph source = test::loadGraph(test::realGraphPath("deit_tiny_vit"));
  // deit_tiny's only scalar ops are the attention scales q / 8 (torch 1.13: div.Tensor(q, 8.0)).
  ASSERT_EQ(countOp(source, "aten.div.Tensor"), 12u);

  ir::Graph with = source, without = source;
  auto a = test::runXnnpack(with);
  auto b = test::runXnnpack(without, {"LiftConstantScalarOperandsPass"});
  // The guard kept every scale: the pass lifted nothing, and ConvertToSDPA folded all 12.
  for (const auto& rec : a.run.records)
    if (rec.name == "LiftConstantScalarOperandsPass") {
      ASSERT_EQ(rec.status, passes::PassStatus::Unchanged);
      for (const auto& st : rec.stats) {
        if (st.name == "lifted") {
          EXPECT_EQ(st.value, 0);
        }
        if (st.name == "kept_sdpa_scale") {
          EXPECT_EQ(st.value, 12);
        }
      }
    }
  std::vector<double> scales;
  collectSdpaScales(with, scales);
  ASSERT_EQ(scales.size(), 12u);
  for (double s : scales) EXPECT_DOUBLE_EQ(s, 0.125);
  EXPECT_EQ(countOpDeep(with, "aten.div.Tensor"), 0u);
  EXPECT_EQ(countOpDeep(with, "aten.bmm.default"), 0u);

  EXPECT_EQ(undelegatedScalarOps(with), 0);
  EXPECT_LE(a.report.delegates, b.report.delegates);
  std::cout << "[ xnnpack  ] deit_tiny delegates: with LiftConstantScalarOperandsPass " << a.report.delegates
            << ", without " << b.report.delegates << "; undelegated scalar ops with " << undelegatedScalarOps(with)
            << ", without " << undelegatedScalarOps(without) << "\n";
  auto v = test::verifyLowering(source, with);
  EXPECT_TRUE(v.diff.equivalent) << v.diff.message;
}

TEST(XnnpackAcceptance, DeitTinyWithoutTheGuardSdpaLosesTheScale) {
  // The reason the guard exists: lifting the scale turns it into a tensor-tensor div that
  // ConvertToSDPA cannot read, so the sdpa gets scale 1 and the division stays as an op.
  ir::Graph source = test::loadGraph(test::realGraphPath("deit_tiny_vit"));
  ir::Graph g = source;
  xnnpack::LiftConstantScalarOperandsPass unguarded(false);
  ASSERT_EQ(test::runOne(unguarded, g).status, passes::PassStatus::Changed);
  EXPECT_EQ(unguarded.statistics()[0].value, 12);
  xnnpack::ConvertToSDPAPass sdpa;
  ASSERT_EQ(test::runOne(sdpa, g).status, passes::PassStatus::Changed);
  ASSERT_EQ(sdpa.scalesRead().size(), 12u);
  for (double s : sdpa.scalesRead()) EXPECT_DOUBLE_EQ(s, 1.0);
  EXPECT_EQ(countOp(g, "aten.div.Tensor"), 12u);
  auto v = test::verifyLowering(source, g);  // still correct, only slower
  EXPECT_TRUE(v.diff.equivalent) << v.diff.message;
}

// ---------------------------------------------------------------- scalar ops outside attention

TEST(XnnpackAcceptance, ScalarMultipliesOutsideAttentionAreLiftedAndDelegated) {
  const ir::Graph source = test::loadGraph(test::xnnDataPath("scalar_ops_attention.fxjson.json"));
  ASSERT_EQ(countOp(source, "aten.mul.Tensor"), 2u);
  ASSERT_EQ(countOp(source, "aten.div.Tensor"), 2u);
  ir::Graph with = source, without = source;
  auto a = test::runXnnpack(with);
  auto b = test::runXnnpack(without, {"LiftConstantScalarOperandsPass"});
  // Without the pass, x * 0.5 and y / 3 stay outside the delegate.
  EXPECT_EQ(undelegatedScalarOps(without), 2);
  EXPECT_EQ(b.report.undelegated.at("aten.mul.Tensor"), 1);
  EXPECT_EQ(b.report.undelegated.at("aten.div.Tensor"), 1);
  // With it, nothing is left outside and the delegate count does not rise (here it drops:
  // relu(y) / 3 no longer cuts relu off from the rest).
  EXPECT_EQ(undelegatedScalarOps(with), 0);
  EXPECT_TRUE(a.report.undelegated.empty());
  EXPECT_EQ(a.report.delegates, 1);
  EXPECT_EQ(b.report.delegates, 2);
  EXPECT_GT(a.report.delegatedNodes, b.report.delegatedNodes);
  // The attention scale q / 2 reached the bmm through two transposes: kept, then read.
  std::vector<double> scales;
  collectSdpaScales(with, scales);
  ASSERT_EQ(scales.size(), 1u);
  EXPECT_DOUBLE_EQ(scales[0], 0.5);
  std::cout << "[ xnnpack  ] scalar_ops_attention: delegates with " << a.report.delegates << " / without "
            << b.report.delegates << ", undelegated scalar ops with " << undelegatedScalarOps(with) << " / without "
            << undelegatedScalarOps(without) << "\n";
  for (const ir::Graph* g : {&with, &without}) {
    auto v = test::verifyLowering(source, *g);
    EXPECT_EQ(v.delegateRuns, g == &with ? 1 : 2);
    EXPECT_TRUE(v.diff.equivalent) << v.diff.message;
  }
}

TEST(XnnpackAcceptance, TorchExportedModelWithScalarOpsAndMultiheadAttention) {
  // Exported with torch 1.13 by tools/export_fxjson.py (source: scalar_ops_torch_model.py):
  // proj(x) * 0.5 feeds nn.MultiheadAttention (whose q / sqrt(head_dim) is an attention
  // scale), relu(conv(img)) / 3 and attn + 1.0 are scalar ops outside attention.
  const ir::Graph source = test::loadGraph(test::xnnDataPath("scalar_ops_torch.fxjson.json"));
  ir::Graph with = source, without = source;
  auto a = test::runXnnpack(with);
  auto b = test::runXnnpack(without, {"LiftConstantScalarOperandsPass"});
  EXPECT_EQ(undelegatedScalarOps(without), 3);
  EXPECT_EQ(undelegatedScalarOps(with), 0);
  EXPECT_LE(a.report.delegates, b.report.delegates);
  EXPECT_GT(a.report.delegatedNodes, b.report.delegatedNodes);
  std::vector<double> scales;
  collectSdpaScales(with, scales);
  ASSERT_EQ(scales.size(), 1u);
  EXPECT_NEAR(scales[0], 1.0 / std::sqrt(8.0), 1e-12);  // embed 16 / 2 heads
  std::cout << "[ xnnpack  ] scalar_ops_torch: delegates with " << a.report.delegates << " / without "
            << b.report.delegates << ", undelegated scalar ops with " << undelegatedScalarOps(with) << " / without "
            << undelegatedScalarOps(without) << "\n";
  for (const ir::Graph* g : {&with, &without}) {
    auto v = test::verifyLowering(source, *g);
    EXPECT_TRUE(v.diff.equivalent) << v.diff.message;
  }
}

// ---------------------------------------------------------------- CLI

TEST(XnnpackCli, LowerJsonReportsDelegates) {
  const std::string json = ::testing::TempDir() + "xnn_lower_summary.json";
  const std::string cmd = std::string(LS_CLI_PATH) + " lower " + test::xnnDataPath("scalar_ops_attention.fxjson.json") +
                          " --pipeline xnnpack -q --json " + json + " > /dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(json);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string s = ss.str();
  EXPECT_NE(s.find("\"delegates\": 1"), std::string::npos) << s;
  EXPECT_NE(s.find("\"delegated_nodes\": 8"), std::string::npos) << s;
  EXPECT_NE(s.find("\"undelegated\": {}"), std::string::npos) << s;
  const std::string cmd2 = std::string(LS_CLI_PATH) + " lower " +
                           test::xnnDataPath("scalar_ops_attention.fxjson.json") +
                           " --pipeline xnnpack --disable-pass LiftConstantScalarOperandsPass -q --json " + json +
                           " > /dev/null";
  ASSERT_EQ(std::system(cmd2.c_str()), 0) << cmd2;
  std::ifstream in2(json);
  std::stringstream ss2;
  ss2 << in2.rdbuf();
  EXPECT_NE(ss2.str().find("\"aten.mul.Tensor\": 1"), std::string::npos) << ss2.str();
}

}  // namespace
}  // namespace ls
