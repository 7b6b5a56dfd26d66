// lowerscope-cli over recorder bundles (tools/lowerscope_record.py): import-trace, and the trace
// commands (export, compare) opening a bundle directly. The bundles are the fuzz seeds, recorded
// from a small torch model by the recorder itself.
#include <gtest/gtest.h>

#include <fstream>

#include "core/io/lstrace.h"
#include "tests/cli/cli_util.h"

namespace {

using ls::clitest::CliRun;
using ls::clitest::readText;
using ls::clitest::runCli;

std::string seed(const std::string& name) { return std::string(LS_TESTS_DIR) + "/fuzz/corpus/bundle/" + name; }

TEST(CliBundle, ImportTraceWritesAnLstraceWithTheRecordedPasses) {
  auto d = ls::clitest::scratchDir("bundle_import");
  auto out = d / "py.lstrace";
  CliRun r = runCli("import-trace " + seed("tiny_pm.lsbundle") + " -o " + out.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("5 passes (3 changed, 1 unchanged, 0 skipped, 1 failed), 3 snapshots"), std::string::npos)
      << r.out;
  auto t = ls::io::loadTrace(out.string());
  ASSERT_TRUE(t.isOk()) << t.message();
  ASSERT_EQ(t->records.size(), 5u);
  EXPECT_EQ(t->records[0].name, "DecomposeAddmmPass");
  EXPECT_EQ(t->records[4].status, ls::passes::PassStatus::Failed);
  EXPECT_NE(t->records[4].message.find("not supported"), std::string::npos);
}

TEST(CliBundle, UnknownOpsWarnButImport) {
  auto d = ls::clitest::scratchDir("bundle_unknown");
  CliRun r = runCli("import-trace " + seed("unknown_op.lsbundle") + " -o " + (d / "u.lstrace").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("warning: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("mylib.custom_op.default"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 opaque nodes"), std::string::npos) << r.out;
}

TEST(CliBundle, BrokenBundleIsAnErrorNamingTheFileAndWritesNothing) {
  auto d = ls::clitest::scratchDir("bundle_broken");
  std::string text = readText(seed("tiny_pm.lsbundle"));
  auto bad = d / "cut.lsbundle";
  std::ofstream(bad) << text.substr(0, text.size() / 2);
  auto out = d / "never.lstrace";
  CliRun r = runCli("import-trace " + bad.string() + " -o " + out.string());
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("cut.lsbundle: invalid JSON"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(CliBundle, ExportAndCompareOpenBundlesDirectly) {
  auto d = ls::clitest::scratchDir("bundle_trace_cmds");
  auto chrome = d / "c.json";
  CliRun e = runCli("export " + seed("tiny_pm.lsbundle") + " --chrome-trace " + chrome.string() + " --dot 0 " +
                    (d / "p0.dot").string());
  ASSERT_EQ(e.code, 0) << e.out;
  EXPECT_NE(readText(chrome).find("DecomposeGeluPass"), std::string::npos);
  EXPECT_NE(readText(d / "p0.dot").find("aten.mm.default"), std::string::npos);
  auto lst = d / "py.lstrace";
  ASSERT_EQ(runCli("import-trace " + seed("tiny_pm.lsbundle") + " -o " + lst.string()).code, 0);
  CliRun c = runCli("compare " + seed("tiny_pm.lsbundle") + " " + lst.string() + " --format json");
  ASSERT_EQ(c.code, 0) << c.out;
  EXPECT_NE(c.out.find("\"only_in_a\": []"), std::string::npos) << c.out;
  CliRun other = runCli("compare " + seed("tiny_pm.lsbundle") + " " + seed("list_unchanged.lsbundle"));
  ASSERT_EQ(other.code, 0) << other.out;
  EXPECT_NE(other.out.find("Only in A: DecomposeGeluPass, DecomposeMeanDimPass"), std::string::npos) << other.out;
}

TEST(CliBundle, SymbolicTraceWarningsAreGroupedPerOpKind) {
  // resnet18 traced with torch.fx.symbolic_trace (tests/tools/make_symbolic_bundle.py): 60
  // call_module nodes (one target per module path), 8 operator.add, 1 flatten. One line
  // per kind with its count and the first nodes, not one per node.
  auto d = ls::clitest::scratchDir("bundle_symbolic");
  const std::string bundle = std::string(LS_TEST_DATA_DIR) + "/bundles/resnet18_symbolic.lsbundle";
  CliRun r = runCli("import-trace " + bundle + " -o " + (d / "s.lstrace").string());
  ASSERT_EQ(r.code, 0) << r.out;
  size_t warnings = 0;
  for (size_t at = r.out.find("warning: "); at != std::string::npos; at = r.out.find("warning: ", at + 1)) ++warnings;
  EXPECT_EQ(warnings, 3u) << r.out;
  EXPECT_NE(r.out.find("unknown op 'operator.add' imported as opaque: 8 nodes, e.g. 'add', 'add_1', 'add_2'"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("unknown op 'call_module.*' imported as opaque: 60 nodes, e.g. 'conv1' (call_module.conv1)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("unknown op 'torch._VariableFunctionsClass.flatten' imported as opaque: 1 node ('flatten')"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("69 opaque nodes"), std::string::npos) << r.out;
  // -q: neither the warnings nor the summary.
  CliRun q = runCli("import-trace " + bundle + " -q -o " + (d / "q.lstrace").string());
  ASSERT_EQ(q.code, 0) << q.out;
  EXPECT_EQ(q.out, "");
}

}  // namespace
