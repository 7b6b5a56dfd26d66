// lowerscope-cli run: .npy inputs and outputs, bit for bit what verify evaluates, the .tosa file
// computing what the final snapshot computes, and clear errors for wrong inputs.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/exec/synth.h"
#include "core/io/load.h"
#include "core/io/npy.h"
#include "core/verify/verify.h"
#include "tests/cli/cli_util.h"

namespace {

using ls::clitest::CliRun;
using ls::clitest::runCli;
namespace fs = std::filesystem;

std::string graph(const std::string& name) { return std::string(LS_ASSETS_DIR) + "/graphs/" + name + ".fxjson.json"; }
fs::path scratch(const std::string& name) { return ls::clitest::scratchDir("run_cli") / name; }

/// The single file in `dir` whose name starts with `prefix`.
fs::path only(const fs::path& dir, const std::string& prefix) {
  fs::path found;
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind(prefix, 0) == 0) found = e.path(), ++n;
  EXPECT_EQ(n, 1) << prefix << " in " << dir;
  return found;
}

bool sameBytes(const ls::exec::Tensor& a, const ls::exec::Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && a.nbytes() == b.nbytes() &&
         (a.nbytes() == 0 || std::memcmp(a.bytes(), b.bytes(), a.nbytes()) == 0);
}

TEST(RunCli, SeededRunIsVerifysEvaluationBitForBit) {
  const fs::path out = scratch("seeded");
  fs::remove_all(out);
  CliRun r = runCli("run " + graph("squeezenet1_1") + " --out " + out.string());
  ASSERT_EQ(r.code, 0) << r.out;
  // verify's reference: the same graph with materialised constants on synthesizeInputs(seed 1).
  auto g = ls::io::loadGraphFile(graph("squeezenet1_1"));
  ASSERT_TRUE(g.isOk()) << g.message();
  ls::exec::materializeConstants(*g);
  ls::verify::VerifyOptions vo;
  auto ref = ls::verify::Reference::compute(*g, vo);
  ASSERT_TRUE(ref.isOk()) << ref.message();
  auto in = ls::io::readNpyFile(only(out, "input_x").string());
  ASSERT_TRUE(in.isOk()) << in.message();
  EXPECT_TRUE(sameBytes(*in, ref->inputs()[0]));
  auto o = ls::io::readNpyFile(only(out, "output_0_").string());
  ASSERT_TRUE(o.isOk()) << o.message();
  EXPECT_TRUE(sameBytes(*o, ref->outputs()[0]));
}

TEST(RunCli, TosaFileComputesWhatTheFinalSnapshotComputes) {
  const fs::path dir = scratch("tosa");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string tosa = (dir / "sq.tosa").string();
  ASSERT_EQ(runCli("lower " + graph("squeezenet1_1") + " --pipeline tosa -q --tosa " + tosa).code, 0);
  CliRun snap = runCli("run " + graph("squeezenet1_1") + " --pipeline tosa --out " + (dir / "snap").string());
  ASSERT_EQ(snap.code, 0) << snap.out;
  const std::string x = only(dir / "snap", "input_x").string();
  CliRun file = runCli("run " + tosa + " --input x=" + x + " --out " + (dir / "file").string());
  ASSERT_EQ(file.code, 0) << file.out;
  EXPECT_NE(file.out.find("1 given"), std::string::npos) << file.out;
  auto a = ls::io::readNpyFile(only(dir / "snap", "output_0_").string());
  auto b = ls::io::readNpyFile(only(dir / "file", "output_0_").string());
  ASSERT_TRUE(a.isOk() && b.isOk());
  EXPECT_TRUE(sameBytes(*a, *b));
  // After an early pass the snapshot is still float ATen: it computes the source's values.
  CliRun early = runCli("run " + graph("squeezenet1_1") + " --pipeline tosa --after-pass RemoveNoopClonePass --input x=" +
                        x + " --out " + (dir / "early").string());
  ASSERT_EQ(early.code, 0) << early.out;
  EXPECT_NE(early.out.find("after pass RemoveNoopClonePass"), std::string::npos) << early.out;
}

TEST(RunCli, WrongInputsAreUsageErrorsNamingWhatWasExpected) {
  const fs::path dir = scratch("bad");
  fs::create_directories(dir);
  ls::exec::Tensor f64(ls::ir::DType::Float64, ls::ir::Shape{1, 3, 224, 224});
  ASSERT_TRUE(ls::io::writeNpyFile((dir / "f64.npy").string(), f64).isOk());
  CliRun wrongType = runCli("run " + graph("squeezenet1_1") + " --input x=" + (dir / "f64.npy").string());
  EXPECT_EQ(wrongType.code, 2);
  EXPECT_NE(wrongType.out.find("input 'x' expects f32[1,3,224,224]"), std::string::npos) << wrongType.out;
  CliRun wrongName = runCli("run " + graph("squeezenet1_1") + " --input y=" + (dir / "f64.npy").string());
  EXPECT_EQ(wrongName.code, 2);
  EXPECT_NE(wrongName.out.find("no input 'y' (its inputs: x f32[1,3,224,224])"), std::string::npos) << wrongName.out;
  CliRun missing = runCli("run " + graph("squeezenet1_1") + " --input x=" + (dir / "absent.npy").string());
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.out.find("cannot open"), std::string::npos) << missing.out;
  CliRun pass = runCli("run " + graph("squeezenet1_1") + " --pipeline tosa --after-pass NoSuchPass");
  EXPECT_EQ(pass.code, 2);
  EXPECT_NE(pass.out.find("no pass of that name"), std::string::npos) << pass.out;
}

TEST(RunCli, BarePathBindsToTheOnlyInput) {
  const fs::path dir = scratch("bare");
  fs::remove_all(dir);
  ASSERT_EQ(runCli("run " + graph("squeezenet1_1") + " -q --out " + (dir / "seeded").string()).code, 0);
  const std::string x = only(dir / "seeded", "input_x").string();
  // `--input x.npy` on a one-input graph: the file is that input (no NAME= needed).
  CliRun r = runCli("run " + graph("squeezenet1_1") + " --input " + x + " --out " + (dir / "bare").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("1 given"), std::string::npos) << r.out;
  auto a = ls::io::readNpyFile(only(dir / "seeded", "output_0_").string());
  auto b = ls::io::readNpyFile(only(dir / "bare", "output_0_").string());
  ASSERT_TRUE(a.isOk() && b.isOk());
  EXPECT_TRUE(sameBytes(*a, *b));
  // The same input given twice is a mistake, not a silent override.
  CliRun twice = runCli("run " + graph("squeezenet1_1") + " --input " + x + " --input x=" + x);
  EXPECT_EQ(twice.code, 2) << twice.out;
  EXPECT_NE(twice.out.find("input 'x' is given twice"), std::string::npos) << twice.out;
}

TEST(RunCli, BarePathWithSeveralInputsNamesThemAndTheForm) {
  const fs::path dir = scratch("two_inputs");
  fs::create_directories(dir);
  const std::string two = (dir / "two.fxjson.json").string();
  std::ofstream(two) << R"({"format": "fxjson", "version": 1, "model": "two",
 "nodes": [
  {"name": "a", "op": "placeholder", "target": "a", "args": [], "kwargs": {}, "meta": {"shape": [2, 3], "dtype": "float32"}},
  {"name": "b", "op": "placeholder", "target": "b", "args": [], "kwargs": {}, "meta": {"shape": [3], "dtype": "float32"}},
  {"name": "add", "op": "call_function", "target": "aten.add.Tensor", "args": [{"node": "a"}, {"node": "b"}], "kwargs": {}, "meta": {"shape": [2, 3], "dtype": "float32"}},
  {"name": "output", "op": "output", "target": "output", "args": [[{"node": "add"}]], "kwargs": {}, "meta": {}}
 ],
 "constants": {}, "inputs": ["a", "b"], "outputs": ["add"]})";
  ASSERT_EQ(runCli("run " + two + " -q --out " + (dir / "seeded").string()).code, 0);
  const std::string a = only(dir / "seeded", "input_a").string();
  CliRun r = runCli("run " + two + " --input " + a);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--input " + a + ": the graph has 2 inputs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("a f32[2,3], b f32[3]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NAME=path.npy"), std::string::npos) << r.out;
  // Named, both work as before.
  CliRun named = runCli("run " + two + " --input a=" + a + " --out " + (dir / "named").string());
  EXPECT_EQ(named.code, 0) << named.out;
}

}  // namespace
