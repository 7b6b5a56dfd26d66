// The op coverage table (core/session/op_coverage.h) read from the registries.
#include "core/session/op_coverage.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/session/builtin.h"

namespace ls::session {
namespace {

const OpCoverage* row(const std::vector<OpCoverage>& rows, const std::string& op) {
  for (const OpCoverage& r : rows)
    if (r.op == op) return &r;
  return nullptr;
}

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

TEST(OpCoverage, ReadsLoweringFromThePassAndPipelineRegistries) {
  ASSERT_TRUE(registerBuiltins().isOk());
  auto rows = opCoverage("tosa");
  ASSERT_TRUE(rows.isOk()) << rows.message();
  // Convolution: rewritten to TOSA in FP, folded to int8 under INT (the fold documents the ops
  // it lowers through the quantize nodes it targets).
  const OpCoverage* conv = row(*rows, "aten.convolution.default");
  ASSERT_TRUE(conv);
  EXPECT_TRUE(conv->shapeInference && conv->referenceKernel);
  EXPECT_TRUE(has(conv->fpPasses, "RewriteConv2dPass"));
  EXPECT_TRUE(has(conv->intPasses, "FoldAndAnnotateQParamsPass"));
  EXPECT_FALSE(has(conv->fpPasses, "FoldAndAnnotateQParamsPass")) << "INT-only passes stay out of FP";
  // A unary function: a TABLE under INT; upstream lists it for both profiles.
  const OpCoverage* sig = row(*rows, "aten.sigmoid.default");
  ASSERT_TRUE(sig);
  EXPECT_TRUE(has(sig->intPasses, "InsertTableOpsPass"));
  EXPECT_TRUE(sig->upstreamFp && sig->upstreamInt);
  // The pipeline's annotation passes count for INT (var is decomposed before quantisation).
  const OpCoverage* var = row(*rows, "aten.var.correction");
  ASSERT_TRUE(var);
  EXPECT_TRUE(has(var->intPasses, "DecomposeVarPass"));
  EXPECT_FALSE(var->intFloatIsland());
  // Rows are sorted and unique; clean-up passes are not named as lowering anything.
  for (size_t i = 1; i < rows->size(); ++i) EXPECT_LT((*rows)[i - 1].op, (*rows)[i].op);
  for (const OpCoverage& r : *rows) EXPECT_FALSE(has(r.fpPasses, "FuseConstantArgsPass")) << r.op;
  EXPECT_FALSE(opCoverage("no-such-pipeline").isOk());
  // The Markdown has one row per op.
  std::string md = opCoverageMarkdown(*rows, "tosa");
  EXPECT_EQ(size_t(std::count(md.begin(), md.end(), '\n')), rows->size() + 14) << md.substr(0, 2000);
  EXPECT_NE(md.find("| `aten.convolution.default` | yes | yes |"), std::string::npos);
}

}  // namespace
}  // namespace ls::session
