// lowerscope-cli verify: exit codes (0 equivalent, 1 not, 2 usage/input error), per-pass
// report, JSON output and the bisect limit.
#include <gtest/gtest.h>

#include "tests/cli/cli_util.h"
#include "core/io/lstrace.h"
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

using ls::clitest::CliRun;
using ls::clitest::readText;
using ls::clitest::runCli;

std::string graph(const std::string& name) { return std::string(LS_ASSETS_DIR) + "/graphs/" + name + ".fxjson.json"; }

std::filesystem::path scratch(const std::string& name) { return ls::clitest::scratchDir("verify_cli") / name; }

TEST(VerifyCli, GenericPipelineIsEquivalentWithPerPassReport) {
  auto json = scratch("deit.json");
  CliRun r = runCli("verify " + graph("deit_tiny_vit") + " --pipeline generic --each --json " + json.string());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("RemoveNoopClonePass"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("result: EQUIVALENT"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("MISMATCH"), std::string::npos) << r.out;
  std::string j = readText(json);
  EXPECT_NE(j.find("\"equivalent\": true"), std::string::npos) << j;
  EXPECT_NE(j.find("\"name\": \"RemoveNoopClonePass\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"max_rel_error\""), std::string::npos) << j;
  EXPECT_EQ(j.find("first_failure"), std::string::npos) << j;
  // The trace carries the per-pass errors: exported as JSON by `export`.
  auto tr = scratch("deit.lstrace");
  CliRun t = runCli("verify " + graph("deit_tiny_vit") + " --each --trace " + tr.string());
  ASSERT_EQ(t.code, 0) << t.out;
  EXPECT_TRUE(std::filesystem::exists(tr));
  auto chrome = scratch("deit_chrome.json");
  CliRun e = runCli("export " + tr.string() + " --chrome-trace " + chrome.string());
  ASSERT_EQ(e.code, 0) << e.out;
  EXPECT_NE(readText(chrome).find("\"max_rel_error\""), std::string::npos);
}

TEST(VerifyCli, BisectLimitRunsAPrefix) {
  CliRun r = runCli("verify " + graph("resnet18") + " --bisect-limit 2");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("(2 passes of 5)"), std::string::npos) << r.out;
}

TEST(VerifyCli, BisectReproduceLinesCarryTheTolerances) {
  // A verdict reached with tight tolerances: the printed commands repeat them, so they
  // reproduce the same verdict instead of checking the default bounds.
  CliRun r = runCli("verify " + graph("squeezenet1_1") + " --pipeline tosa --rtol 1e-12 --atol 0 --bisect");
  EXPECT_EQ(r.code, 1) << r.out;
  const size_t at = r.out.find("bisect: reproduce with:");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
  EXPECT_NE(line.find("--rtol 1e-12"), std::string::npos) << line;
  EXPECT_NE(line.find("--atol 0"), std::string::npos) << line;
  EXPECT_EQ(line.find("--max-steps"), std::string::npos) << "defaults are not repeated: " << line;
}

TEST(VerifyCli, IntProfileQuantizesAFloatGraphFirst) {
  auto lsg = scratch("r18_int.lsg");
  CliRun lower = runCli("lower " + graph("resnet18") + " --profile int --out " + lsg.string());
  ASSERT_EQ(lower.code, 0) << lower.out;
  EXPECT_NE(lower.out.find("quantized the float graph"), std::string::npos) << lower.out;
  EXPECT_NE(lower.out.find("21 per-channel int8 weights"), std::string::npos) << lower.out;
  // The saved graph holds q/dq ops: used as it is.
  CliRun again = runCli("lower " + lsg.string() + " --profile int");
  ASSERT_EQ(again.code, 0) << again.out;
  EXPECT_NE(again.out.find("already holds quantize/dequantize ops"), std::string::npos) << again.out;
  EXPECT_EQ(again.out.find("quantized the float graph"), std::string::npos) << again.out;
  CliRun off = runCli("lower " + graph("resnet18") + " --profile int -q --no-quantize");
  ASSERT_EQ(off.code, 0) << off.out;
  EXPECT_EQ(off.out.find("quantized"), std::string::npos) << off.out;
  CliRun v = runCli("verify " + graph("squeezenet1_1") + " --profile int --each");
  EXPECT_EQ(v.code, 0) << v.out;
  EXPECT_NE(v.out.find("quantized the float graph"), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("profile int"), std::string::npos) << v.out;
}

TEST(VerifyCli, AgainstFloatSeparatesQuantisationFromLoweringError) {
  auto json = scratch("sq_against.json");
  CliRun v = runCli("verify " + graph("squeezenet1_1") + " --pipeline tosa --profile int --against-float --json " +
                    json.string());
  EXPECT_EQ(v.code, 0) << v.out;
  EXPECT_NE(v.out.find("against float: quantized source max abs"), std::string::npos) << v.out;
  std::string j = readText(json);
  auto field = [&](const std::string& k) {
    auto at = j.find("\"" + k + "\": ");
    EXPECT_NE(at, std::string::npos) << k << " in " << j;
    return at == std::string::npos ? -1.0 : std::stod(j.substr(at + k.size() + 4));
  };
  const double maxFloat = field("max_abs_float"), src = field("quantized_source_max_abs"), low = field("lowered_max_abs");
  // int8 quantisation costs something, and the integer lowering stays close to that cost.
  EXPECT_GT(maxFloat, 0.0);
  EXPECT_GT(src, 0.0);
  EXPECT_LT(src, 0.1 * maxFloat);
  EXPECT_LT(low, 0.1 * maxFloat);
  // Nothing to compare with when the float graph is not quantized by the command.
  CliRun off = runCli("verify " + graph("squeezenet1_1") + " --pipeline tosa --profile int --no-quantize --against-float");
  EXPECT_NE(off.out.find("against float: not available"), std::string::npos) << off.out;
}

TEST(VerifyCli, IntAgreementExplainsTheStepsOfARealModel) {
  // deeplabv3_mobilenet_v3_large's INT lowering is one step off where a bilinear upsample
  // lands values of one scale on k + 0.5: with no step allowed, verify fails and says why
  // (teacher forcing finds the differences at that one quantize, all at rounding ties).
  auto json = scratch("deeplab_int.json");
  CliRun r = runCli("verify " + graph("deeplabv3_mobilenet_v3_large") +
                    " --pipeline tosa --profile int --max-steps 0 --json " + json.string());
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("result: NOT EQUIVALENT"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("int agreement (each quantize of the source fed the lowered graph's int8 values"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("every difference is one step at a rounding tie"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("after upsample_bilinear2d_1 (aten.upsample_bilinear2d.vec): "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" elements differ, 0 not at a tie, 0 not near one, up to 1 step"), std::string::npos) << r.out;
  // One element shown, with its value in steps: a tie is k + .5.
  EXPECT_NE(r.out.find(".5 quantises to "), std::string::npos) << r.out;
  const std::string j = readText(json);
  EXPECT_NE(j.find("\"int_agreement\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"only_ties\": true"), std::string::npos) << j;
  EXPECT_NE(j.find("\"producer_op\": \"aten.upsample_bilinear2d.vec\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"example\": {"), std::string::npos) << j;
  EXPECT_NE(j.find("\"steps\": "), std::string::npos) << j;
  // Within the default tolerance nothing needs explaining.
  CliRun ok = runCli("verify " + graph("squeezenet1_1") + " --pipeline tosa --profile int");
  EXPECT_EQ(ok.code, 0) << ok.out;
  EXPECT_EQ(ok.out.find("int agreement"), std::string::npos) << ok.out;
}

TEST(VerifyCli, UsageAndInputErrorsExitTwo) {
  CliRun missing = runCli("verify /nonexistent/graph.fxjson.json");
  EXPECT_EQ(missing.code, 2) << missing.out;
  EXPECT_NE(missing.out.find("error:"), std::string::npos);
  CliRun pipe = runCli("verify " + graph("resnet18") + " --pipeline no-such-pipeline");
  EXPECT_EQ(pipe.code, 2) << pipe.out;
  EXPECT_NE(pipe.out.find("no-such-pipeline"), std::string::npos) << pipe.out;
  CliRun pass = runCli("verify " + graph("resnet18") + " --disable-pass NoSuchPass");
  EXPECT_EQ(pass.code, 2) << pass.out;
  EXPECT_NE(pass.out.find("NoSuchPass"), std::string::npos) << pass.out;
  CliRun limit = runCli("verify " + graph("resnet18") + " --bisect-limit 99");
  EXPECT_EQ(limit.code, 2) << limit.out;
  CliRun tol = runCli("verify " + graph("resnet18") + " --rtol -1");
  EXPECT_EQ(tol.code, 2) << tol.out;
  auto bad = scratch("broken.fxjson.json");
  std::ofstream(bad) << "{\"nodes\": [";
  CliRun broken = runCli("verify " + bad.string());
  EXPECT_EQ(broken.code, 2) << broken.out;
}

}  // namespace

namespace {

TEST(VerifyCli, LocalizeRanksNodesNamesTheCulpritAndSavesIt) {
  // Tolerances tighter than float rounding: the first pass that changes any bit is bad, and
  // localisation names the first node whose value moves.
  auto tr = scratch("sq_loc.lstrace");
  auto json = scratch("sq_loc.json");
  CliRun r = runCli("verify " + graph("squeezenet1_1") + " --pipeline tosa --rtol 1e-12 --atol 0 --each --localize -o " +
                    tr.string() + " --json " + json.string());
  EXPECT_EQ(r.code, 1) << r.out;
  const size_t first = r.out.find("first pass that breaks equivalence: #");
  ASSERT_NE(first, std::string::npos) << r.out;
  const size_t head = r.out.find("localize: pass #");
  ASSERT_NE(head, std::string::npos) << r.out;
  EXPECT_GT(head, first);
  EXPECT_NE(r.out.find("rank  node"), std::string::npos) << r.out;
  const size_t at = r.out.find("culprit: node ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string culprit = r.out.substr(at + 14, r.out.find(' ', at + 14) - at - 14);
  EXPECT_NE(r.out.find("<- culprit"), std::string::npos) << r.out;
  // The same culprit in the JSON and in the saved trace.
  const std::string j = readText(json);
  EXPECT_NE(j.find("\"localization\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"node\": \"" + culprit + "\""), std::string::npos) << culprit << "\n" << j;
  auto t = ls::io::loadTrace(tr.string());
  ASSERT_TRUE(t.isOk()) << t.message();
  ASSERT_TRUE(t->localization);
  const ls::trace::Localization& l = *t->localization;
  ASSERT_NE(l.culprit, ls::ir::kInvalidNode);
  EXPECT_EQ(t->graphAfter(l.passIndex).node(l.culprit).name, culprit);
  EXPECT_FALSE(t->records[size_t(l.passIndex)].semantic.equivalent);
}

TEST(VerifyCli, LocalizeImpliesEachAndReportsWhenNothingIsBad) {
  // --localize localises the first bad pass of --each: given alone, it turns --each on.
  CliRun alone = runCli("verify " + graph("squeezenet1_1") + " --localize");
  EXPECT_EQ(alone.code, 0) << alone.out;
  EXPECT_NE(alone.out.find("checked "), std::string::npos) << alone.out;
  EXPECT_NE(alone.out.find("nothing to localise"), std::string::npos) << alone.out;
  CliRun stop = runCli("verify " + graph("squeezenet1_1") + " --each --localize --stop-on-failure");
  EXPECT_EQ(stop.code, 2) << stop.out;
  EXPECT_NE(stop.out.find("--stop-on-failure rolls back"), std::string::npos) << stop.out;
  CliRun ok = runCli("verify " + graph("squeezenet1_1") + " --pipeline generic --each --localize");
  EXPECT_EQ(ok.code, 0) << ok.out;
  EXPECT_NE(ok.out.find("nothing to localise"), std::string::npos) << ok.out;
}

}  // namespace
