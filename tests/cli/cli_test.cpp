// End-to-end tests of lowerscope-cli: real graphs, exit codes and error messages as a user sees them.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tests/cli/cli_util.h"
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/exec/synth.h"
#include "core/io/fxjson.h"
#include "core/io/lsg.h"
#include "core/io/lstrace.h"

namespace {

using ls::clitest::CliRun;
using ls::clitest::readText;
using ls::clitest::runCli;

std::string asset(const std::string& name) { return std::string(LS_ASSETS_DIR) + "/graphs/" + name; }

std::filesystem::path tmpDir() { return ls::clitest::scratchDir("cli_test"); }

void writeText(const std::filesystem::path& p, const std::string& s) { std::ofstream(p) << s; }

class RealGraph : public ::testing::TestWithParam<std::string> {};

TEST_P(RealGraph, CheckShapesAgreesFully) {
  CliRun r = runCli("info --check-shapes " + asset(GetParam()));
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("(100.0%)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("MISMATCH"), std::string::npos) << r.out;
}

TEST_P(RealGraph, LsgRoundTripPrintsIdentically) {
  auto lsg = tmpDir() / (std::filesystem::path(GetParam()).stem().string() + ".lsg");
  CliRun imp = runCli("import " + asset(GetParam()) + " -o " + lsg.string());
  ASSERT_EQ(imp.code, 0) << imp.out;
  CliRun a = runCli("print " + asset(GetParam()));
  CliRun b = runCli("print " + lsg.string());
  ASSERT_EQ(a.code, 0);
  ASSERT_EQ(b.code, 0);
  EXPECT_EQ(a.out, b.out);
  CliRun c = runCli("info --check-shapes " + lsg.string());
  EXPECT_EQ(c.code, 0) << c.out;
}

INSTANTIATE_TEST_SUITE_P(Models, RealGraph,
                         ::testing::Values("mobilenet_v2.fxjson.json", "mobilenet_v3_small.fxjson.json",
                                           "resnet18.fxjson.json", "squeezenet1_1.fxjson.json",
                                           "efficientnet_b0.fxjson.json", "deeplabv3_mobilenet_v3_large.fxjson.json",
                                           "deit_tiny_vit.fxjson.json", "wav2letter.fxjson.json",
                                           "large/vit_tiny_deep200.fxjson.json"),
                         [](const auto& pinfo) {
                           std::string s = std::filesystem::path(pinfo.param).stem().stem().string();
                           return s;
                         });

TEST(Cli, InfoJsonHasHistogramAndSignature) {
  CliRun r = runCli("info --json " + asset("resnet18.fxjson.json"));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("\"aten.convolution.default\": 20"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"call_function\": 91"), std::string::npos);
  EXPECT_NE(r.out.find("\"meta\": \"f32[1,3,224,224]\""), std::string::npos);
}

TEST(Cli, CheckShapesReportsAWrongRecordedShape) {
  // Take a real graph and corrupt one recorded shape: the check must name the node and exit 1.
  std::ifstream in(asset("wav2letter.fxjson.json"));
  std::string text((std::istreambuf_iterator<char>(in)), {});
  auto pos = text.find("\"name\": \"relu_3\"");
  ASSERT_NE(pos, std::string::npos);
  auto shapePos = text.find("\"shape\"", pos);
  auto close = text.find(']', shapePos);
  text.replace(shapePos, close - shapePos + 1, "\"shape\": [1, 250, 99]");
  auto bad = tmpDir() / "wrong_shape.fxjson.json";
  writeText(bad, text);
  CliRun r = runCli("info --check-shapes " + bad.string());
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("MISMATCH %relu_3 (aten.relu.default): recorded f32[1,250,99], inferred"), std::string::npos)
      << r.out;
}

TEST(Cli, BadInputsExitOneWithClearMessage) {
  auto d = tmpDir();
  struct Case {
    std::string file, content, expect;
  };
  std::vector<Case> cases = {
      {"truncated.fxjson.json", "{\"format\": \"fxjson\", \"nodes\": [", "truncated.fxjson.json"},
      {"garbage.fxjson.json", "\x01\x02 not json at all", "garbage.fxjson.json"},
      {"dangling.fxjson.json",
       R"({"format":"fxjson","version":1,"nodes":[{"name":"r","op":"call_function","target":"aten.relu.default","args":[{"node":"nope"}],"kwargs":{},"meta":{"shape":[1],"dtype":"float32"}},{"name":"output","op":"output","target":"output","args":[[{"node":"r"}]],"kwargs":{},"meta":{}}],"constants":{},"inputs":[],"outputs":["r"]})",
       "'nope'"},
      {"corrupt.lsg", std::string("\x10\x00\x00\x00LSG1", 8) + std::string(40, '\x7f'), "corrupt.lsg"},
  };
  for (const Case& c : cases) {
    writeText(d / c.file, c.content);
    for (const char* cmd : {"info ", "print ", "info --check-shapes "}) {
      CliRun r = runCli(std::string(cmd) + (d / c.file).string());
      EXPECT_EQ(r.code, 1) << cmd << c.file << "\n" << r.out;
      EXPECT_NE(r.out.find("error: "), std::string::npos) << r.out;
      EXPECT_NE(r.out.find(c.expect), std::string::npos) << c.file << ": " << r.out;
    }
  }
  CliRun missing = runCli("info " + (d / "does_not_exist.lsg").string());
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.out.find("does_not_exist.lsg"), std::string::npos) << missing.out;
}

TEST(Cli, ImportIntoMissingDirectoryFailsAndLeavesNothing) {
  auto d = tmpDir() / "no" / "such" / "dir";
  CliRun r = runCli("import " + asset("resnet18.fxjson.json") + " -o " + (d / "x.lsg").string());
  EXPECT_EQ(r.code, 1);
  EXPECT_FALSE(std::filesystem::exists(d));
}


// ---------------------------------------------------------------- -q/--quiet (issue 41)

/// The non-empty lines of a CLI run's output.
std::vector<std::string> lines(const std::string& out) {
  std::vector<std::string> v;
  size_t at = 0;
  while (at < out.size()) {
    size_t nl = out.find('\n', at);
    if (nl == std::string::npos) nl = out.size();
    if (nl > at) v.push_back(out.substr(at, nl - at));
    at = nl + 1;
  }
  return v;
}

TEST(Cli, QuietLowerPrintsOnlyTheTotalsLine) {
  // --profile int quantizes first: neither the quantizer's pass table nor its summary, nor the
  // quantized I/O line, only the totals.
  CliRun r = runCli("lower " + asset("squeezenet1_1.fxjson.json") + " --pipeline tosa --profile int -q");
  ASSERT_EQ(r.code, 0) << r.out;
  std::vector<std::string> l = lines(r.out);
  ASSERT_EQ(l.size(), 1u) << r.out;
  EXPECT_EQ(l[0].rfind("total: ", 0), 0u) << r.out;
  // Without -q the quantizer's table is there.
  CliRun loud = runCli("lower " + asset("squeezenet1_1.fxjson.json") + " --pipeline tosa --profile int");
  ASSERT_EQ(loud.code, 0) << loud.out;
  EXPECT_NE(loud.out.find("quantizer passes (pipeline quantize-pt2e"), std::string::npos) << loud.out;
}

TEST(Cli, QuietMeansTheSameForEveryCommand) {
  // Every command that reports more than its result takes -q/--quiet: what is left is the one
  // result line (lower: totals, verify: result), or nothing for commands that write files.
  auto d = tmpDir();
  const std::string sq = asset("squeezenet1_1.fxjson.json");
  CliRun imp = runCli("import " + sq + " -q -o " + (d / "q.lsg").string());
  ASSERT_EQ(imp.code, 0) << imp.out;
  EXPECT_EQ(imp.out, "");
  CliRun v = runCli("verify " + sq + " --pipeline tosa --profile int --quiet");
  ASSERT_EQ(v.code, 0) << v.out;
  std::vector<std::string> vl = lines(v.out);
  ASSERT_EQ(vl.size(), 1u) << v.out;
  EXPECT_EQ(vl[0].rfind("result: EQUIVALENT", 0), 0u) << v.out;
  CliRun tr = runCli("lower " + sq + " -q --trace " + (d / "q.lstrace").string());
  ASSERT_EQ(tr.code, 0) << tr.out;
  CliRun exp = runCli("export " + (d / "q.lstrace").string() + " -q --csv " + (d / "q.csv").string());
  ASSERT_EQ(exp.code, 0) << exp.out;
  EXPECT_EQ(exp.out, "");
  EXPECT_FALSE(readText(d / "q.csv").empty());
  CliRun run = runCli("run " + sq + " -q --out " + (d / "qrun").string());
  ASSERT_EQ(run.code, 0) << run.out;
  EXPECT_EQ(run.out, "");
  CliRun bench = runCli("bench " + sq + " --pipeline tosa --profile int --repeat 1 --warmup 0 -q --out " +
                        (d / "q.md").string());
  ASSERT_EQ(bench.code, 0) << bench.out;
  EXPECT_EQ(bench.out, "");
}

// ---------------------------------------------------------------- traces: export, compare gate, bench

TEST(Cli, LowerTraceThenExportEveryFormat) {
  auto d = tmpDir();
  auto tr = d / "deit.lstrace";
  CliRun r = runCli("lower " + asset("deit_tiny_vit.fxjson.json") + " --pipeline generic -q --trace " + tr.string());
  ASSERT_EQ(r.code, 0) << r.out;
  CliRun e = runCli("export " + tr.string() + " --chrome-trace " + (d / "t.json").string() + " --csv " +
                 (d / "t.csv").string() + " --md " + (d / "t.md").string() + " --dot 0 " + (d / "t.dot").string());
  ASSERT_EQ(e.code, 0) << e.out;
  EXPECT_NE(readText(d / "t.json").find("\"traceEvents\""), std::string::npos);
  EXPECT_EQ(readText(d / "t.csv").rfind("index,name,status,reason,", 0), 0u);
  EXPECT_NE(readText(d / "t.md").find("| RemoveNoopClonePass | changed |"), std::string::npos) << readText(d / "t.md");
  EXPECT_EQ(readText(d / "t.dot").rfind("digraph", 0), 0u);
  // A snapshot index out of range and a file that is not a trace are clear errors.
  CliRun bad = runCli("export " + tr.string() + " --dot 99 " + (d / "x.dot").string());
  EXPECT_EQ(bad.code, 1) << bad.out;
  EXPECT_NE(bad.out.find("99"), std::string::npos) << bad.out;
  EXPECT_FALSE(std::filesystem::exists(d / "x.dot"));
  CliRun notTrace = runCli("export " + asset("resnet18.fxjson.json") + " --csv " + (d / "y.csv").string());
  EXPECT_EQ(notTrace.code, 1) << notTrace.out;
  EXPECT_NE(notTrace.out.find("resnet18.fxjson.json"), std::string::npos) << notTrace.out;
}

TEST(Cli, CompareGateFailsOnASlowedPassAndPassesOnIdenticalTraces) {
  auto d = tmpDir();
  auto a = d / "a.lstrace", slow = d / "slow.lstrace";
  ASSERT_EQ(runCli("lower " + asset("deit_tiny_vit.fxjson.json") + " -q --trace " + a.string()).code, 0);
  // The same run with one pass made 20x slower (and above the noise floor).
  auto t = ls::io::loadTrace(a.string());
  ASSERT_TRUE(t.isOk()) << t.message();
  auto& rec = t->records.at(1);
  ASSERT_TRUE(rec.ran());
  rec.runNs = std::max<int64_t>(rec.runNs, 100'000) * 20;
  t->totalNs += rec.runNs;
  ASSERT_TRUE(ls::io::saveTrace(*t, slow.string()).isOk());

  CliRun same = runCli("compare " + a.string() + " " + a.string() + " --fail-above 1.5 --noise-floor-ms 0.05");
  EXPECT_EQ(same.code, 0) << same.out;
  CliRun gate = runCli("compare " + a.string() + " " + slow.string() + " --fail-above 1.5 --noise-floor-ms 0.05");
  EXPECT_EQ(gate.code, 2) << gate.out;
  EXPECT_NE(gate.out.find(rec.name), std::string::npos) << gate.out;
  // Without a gate the comparison is only a report.
  EXPECT_EQ(runCli("compare " + a.string() + " " + slow.string()).code, 0);
  CliRun json = runCli("compare " + a.string() + " " + slow.string() + " --format json --out " + (d / "c.json").string());
  EXPECT_EQ(json.code, 0) << json.out;
  EXPECT_NE(readText(d / "c.json").find(rec.name), std::string::npos);
}

TEST(Cli, BenchPrintsTheUpstreamStyleTable) {
  auto d = tmpDir();
  CliRun r = runCli("bench " + asset("squeezenet1_1.fxjson.json") + " " + asset("wav2letter.fxjson.json") +
                 " --config 'baseline=--no-skip --no-fast-copy' --config optimized= --repeat 2 --warmup 0 --out " +
                 (d / "b.md").string());
  ASSERT_EQ(r.code, 0) << r.out;
  std::string md = readText(d / "b.md");
  EXPECT_NE(md.find("| model | E2E | pass-manager |"), std::string::npos) << md;
  EXPECT_NE(md.find("| squeezenet1_1 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| wav2letter |"), std::string::npos) << md;
  EXPECT_NE(md.find("**average (unweighted)**"), std::string::npos) << md;
  // The baseline runs every pass; the optimized config skips on wav2letter.
  EXPECT_NE(md.find("| wav2letter | baseline |"), std::string::npos);
  EXPECT_NE(md.find("| 5/0 |"), std::string::npos) << md;
  // --profile int benchmarks the quantized program: quantized once, outside the timed runs.
  CliRun q = runCli("bench " + asset("squeezenet1_1.fxjson.json") + " --pipeline tosa --profile int --repeat 1 --warmup 0");
  ASSERT_EQ(q.code, 0) << q.out;
  EXPECT_NE(q.out.find("squeezenet1_1: quantized once before timing"), std::string::npos) << q.out;
  EXPECT_NE(q.out.find("Float graphs were quantized once before timing"), std::string::npos) << q.out;
  CliRun csv = runCli("bench " + asset("wav2letter.fxjson.json") + " --repeat 1 --format csv");
  EXPECT_EQ(csv.code, 0) << csv.out;
  CliRun bad = runCli("bench " + asset("wav2letter.fxjson.json") + " --config 'x=--no-such-flag'");
  EXPECT_NE(bad.code, 0) << bad.out;
  EXPECT_NE(bad.out.find("--no-such-flag"), std::string::npos) << bad.out;
}

TEST(Cli, BenchComparesE2EWritingTosaWithOneMemoryPassOverTheWeights) {
  auto d = tmpDir();
  // A graph with real weights: the bundled squeezenet with every constant given its bytes.
  auto g = ls::io::importFxJsonFile(asset("squeezenet1_1.fxjson.json"));
  ASSERT_TRUE(g.isOk()) << g.message();
  ls::exec::materializeConstants(*g);
  size_t weightBytes = 0;
  for (const auto& [name, c] : g->constants())
    if (c.hasData()) weightBytes += c.data->bytes.size();
  ASSERT_GT(weightBytes, 4u << 20);
  const std::string lsg = (d / "sq_weights.lsg").string();
  ASSERT_TRUE(ls::io::saveLsg(*g, lsg).isOk());

  CliRun md = runCli("bench " + lsg + " --pipeline tosa --serialize tosa --repeat 2 --warmup 0 --out " +
                     (d / "e2e.md").string());
  ASSERT_EQ(md.code, 0) << md.out;
  std::string text = readText(d / "e2e.md");
  EXPECT_NE(text.find("E2E (load + lower + serialize tosa) against one memory pass over the weights"), std::string::npos)
      << text;
  EXPECT_NE(text.find(fmt::format("| squeezenet1_1 | {:.1f} |", double(weightBytes) / 1e6)), std::string::npos) << text;

  CliRun json = runCli("bench " + lsg + " --pipeline tosa --serialize tosa --repeat 2 --warmup 0 --format json");
  ASSERT_EQ(json.code, 0) << json.out;
  EXPECT_NE(json.out.find(fmt::format("\"weight_bytes\": {}", weightBytes)), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"serialize\": \"tosa\""), std::string::npos) << json.out;
  EXPECT_EQ(json.out.find("\"memory_pass_ms_median\": 0,"), std::string::npos) << json.out;
  // A zero prints as `0,` (more fields follow); a ratio under 1 (E2E faster than the fresh-memory
  // pass, which mimalloc's reused pages allow) prints as `0.98...,`.
  EXPECT_EQ(json.out.find("\"e2e_over_memory_pass\": 0,"), std::string::npos) << json.out;

  // Shape-only weights: no memory-pass table. A pipeline that does not lower to TOSA cannot be
  // serialised as TOSA, and the error names the offending nodes.
  CliRun shapeOnly = runCli("bench " + asset("squeezenet1_1.fxjson.json") + " --pipeline tosa --repeat 1 --warmup 0");
  ASSERT_EQ(shapeOnly.code, 0) << shapeOnly.out;
  EXPECT_EQ(shapeOnly.out.find("memory pass"), std::string::npos) << shapeOnly.out;
  CliRun notTosa = runCli("bench " + asset("squeezenet1_1.fxjson.json") + " --serialize tosa --repeat 1 --warmup 0");
  EXPECT_NE(notTosa.code, 0) << notTosa.out;
  EXPECT_NE(notTosa.out.find("not pure TOSA"), std::string::npos) << notTosa.out;
}

}  // namespace
