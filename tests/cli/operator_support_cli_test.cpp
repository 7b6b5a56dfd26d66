// lowerscope-cli lower and upstream's operator support checks: with --target u55 a node the
// checks refuse is printed with upstream's reason ("Rejected by <Check>: <reason>"), the run exits
// 1 naming it, --tosa writes no file and --json lists it under support.rejected; u85 (which
// has no such limit) writes the same model's file.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/cli/cli_util.h"

namespace {

namespace fsys = std::filesystem;
using ls::clitest::CliRun;
using ls::clitest::readText;
using ls::clitest::runCli;

const std::string kWav2letter = std::string(LS_ASSETS_DIR) + "/graphs/wav2letter.fxjson.json";
const std::string kReason =
    "convolution (aten.convolution.default): Rejected by ConvolutionSupported: Failed condition on stride, pad and "
    "dilation combination.";

TEST(OperatorSupportCli, U55RefusesTheNodeWithUpstreamsReasonAndWritesNoTosa) {
  fsys::path dir = ls::clitest::scratchDir("operator_support_cli");
  fsys::path tosa = dir / "w2l_u55.tosa", json = dir / "w2l_u55.json";
  fsys::remove(tosa);
  CliRun r = runCli("lower " + kWav2letter + " --pipeline tosa --profile int --target u55 --tosa " + tosa.string() +
                    " --json " + json.string());
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("operator support (u55): 1 node(s) refused by upstream's checks ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" ms)\n  " + kReason), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("error: pass 'CheckTosaOperatorSupportPass'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 node(s) refused for Ethos-U55 by upstream's operator support checks"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--tosa " + tosa.string() + " not written"), std::string::npos) << r.out;
  EXPECT_FALSE(fsys::exists(tosa));
  const std::string j = readText(json);
  // Pretty-printed: "support": {"enforced": true, "rejected": [{"node": ..., "op": ..., "check": ..., "reason": ...}]}
  const size_t support = j.find("\"support\": {");
  ASSERT_NE(support, std::string::npos) << j;
  EXPECT_NE(j.find("\"enforced\": true", support), std::string::npos) << j;
  EXPECT_NE(j.find("\"node\": \"convolution\"", support), std::string::npos) << j;
  EXPECT_NE(j.find("\"check\": \"ConvolutionSupported\"", support), std::string::npos) << j;
  EXPECT_NE(j.find("\"reason\": \"Failed condition on stride, pad and dilation combination.\"", support), std::string::npos)
      << j;
}

TEST(OperatorSupportCli, U85TakesTheConvolutionAndWritesTheFile) {
  fsys::path dir = ls::clitest::scratchDir("operator_support_cli");
  fsys::path tosa = dir / "w2l_u85.tosa";
  CliRun r = runCli("lower " + kWav2letter + " --pipeline tosa --profile int --target u85 --tosa " + tosa.string());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out.find("Rejected by"), std::string::npos) << r.out;
  EXPECT_TRUE(fsys::exists(tosa));
}

}  // namespace
