// lowerscope-cli lower --tosa: pure TOSA graphs are written; anything else exits 1 listing
// the offending nodes and writes nothing.
#include <gtest/gtest.h>

#include "tests/cli/cli_util.h"
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "core/io/lsg.h"
#include "core/backends/arm/tosa/tosa_writer.h"

namespace {

namespace fsys = std::filesystem;
using ls::clitest::CliRun;
using ls::clitest::runCli;

fsys::path tmpDir() { return ls::clitest::scratchDir("tosa_cli_test"); }

ls::ir::NodeId add(ls::ir::Graph& g, ls::ir::NodeKind kind, const std::string& name, const std::string& target,
                   std::vector<ls::ir::Arg> args, std::vector<ls::ir::Kwarg> kwargs, ls::ir::TensorMeta out) {
  ls::ir::Node n;
  n.kind = kind;
  n.name = name;
  n.target = target;
  if (kind == ls::ir::NodeKind::Call) {
    n.op = ls::ir::internOp(target);
    n.flags |= ls::ir::kFlagOpaque;
  }
  n.args = std::move(args);
  n.kwargs = std::move(kwargs);
  n.outputs.push_back(out);
  return g.append(std::move(n));
}

TEST(CliTosa, PureTosaGraphIsWritten) {
  using namespace ls;
  ir::Graph g;
  ir::TensorMeta m(ir::DType::Float32, {1, 4});
  ir::NodeId x = add(g, ir::NodeKind::Placeholder, "x", "x", {}, {}, m);
  ir::NodeId s = add(g, ir::NodeKind::Call, "sig", "tosa.SIGMOID", {ir::ValueRef{x, 0}}, {}, m);
  ir::NodeId shape =
      add(g, ir::NodeKind::Call, "shape", "tosa.CONST_SHAPE", {}, {{"values", ir::IntList{4}}}, {ir::DType::Int64, {1}});
  ir::NodeId r = add(g, ir::NodeKind::Call, "flat", "tosa.RESHAPE", {ir::ValueRef{s, 0}, ir::ValueRef{shape, 0}}, {},
                     ir::TensorMeta(ir::DType::Float32, {4}));
  ir::Node out;
  out.kind = ir::NodeKind::Output;
  out.name = "output";
  out.target = "output";
  out.args.push_back(ir::Arg(ir::RefList{{r, 0}}));
  out.outputs.push_back(g.meta({r, 0}));
  g.append(std::move(out));

  fsys::path dir = tmpDir();
  fsys::path lsg = dir / "pure.lsg", tosa = dir / "pure.tosa";
  ASSERT_TRUE(io::saveLsg(g, lsg.string()).isOk());
  CliRun c = runCli("lower " + lsg.string() + " -q --pipeline generic --tosa " + tosa.string());
  ASSERT_EQ(c.code, 0) << c.out;
  auto info = io::readTosa(tosa.string());
  ASSERT_TRUE(info.isOk()) << info.message();
  const io::TosaBlockInfo* b = info->mainBlock();
  ASSERT_NE(b, nullptr);
  std::vector<std::string> ops;
  for (auto& o : b->operators) ops.push_back(o.op);
  EXPECT_EQ(ops, (std::vector<std::string>{"SIGMOID", "CONST_SHAPE", "RESHAPE"}));
  EXPECT_EQ(b->outputs, std::vector<std::string>{"flat"});

  CliRun loud = runCli("lower " + lsg.string() + " --pipeline generic --tosa " + tosa.string());
  EXPECT_EQ(loud.code, 0) << loud.out;
  EXPECT_NE(loud.out.find("tosa: wrote " + tosa.string() + " (3 operators, 4 tensors, 8 bytes of constant data)"),
            std::string::npos)
      << loud.out;
  fsys::remove_all(dir);
}

TEST(CliTosa, NonTosaPipelineOutputExitsOneListingNodes) {
  fsys::path dir = tmpDir();
  fsys::path tosa = dir / "mnv2.tosa";
  // The generic pipeline leaves ATen ops: nothing may be written.
  CliRun c = runCli("lower " + std::string(LS_ASSETS_DIR) + "/graphs/mobilenet_v2.fxjson.json -q --pipeline generic --tosa " +
                    tosa.string());
  EXPECT_EQ(c.code, 1) << c.out;
  EXPECT_NE(c.out.find("error: --tosa " + tosa.string() + ": the lowered graph is not pure TOSA"), std::string::npos)
      << c.out;
  EXPECT_NE(c.out.find("(aten.convolution.default)"), std::string::npos) << c.out;
  EXPECT_FALSE(fsys::exists(tosa));
  fsys::remove_all(dir);
}

TEST(CliTosaCheck, OurFilesAreLegalAndBadFilesAreClearErrors) {
  fsys::path dir = tmpDir();
  const std::string model = std::string(LS_ASSETS_DIR) + "/graphs/mobilenet_v3_small.fxjson.json";
  for (const char* profile : {"fp", "int"}) {
    fsys::path tosa = dir / (std::string("m_") + profile + ".tosa");
    CliRun w = runCli("lower " + model + " -q --pipeline tosa --profile " + profile + " --tosa " + tosa.string());
    ASSERT_EQ(w.code, 0) << w.out;
    CliRun c = runCli("tosa-check " + tosa.string() + " --profile " + profile);
    EXPECT_EQ(c.code, 0) << c.out;
    EXPECT_NE(c.out.find("legal TOSA 1.0"), std::string::npos) << c.out;
    CliRun j = runCli("tosa-check " + tosa.string() + " --profile " + profile + " --json");
    EXPECT_EQ(j.code, 0) << j.out;
    EXPECT_NE(j.out.find("\"legal\": true"), std::string::npos) << j.out;
  }
  // The FP file under the integer-only profile: every float operator is a violation, exit 1.
  CliRun fpAsInt = runCli("tosa-check " + (dir / "m_fp.tosa").string() + " --profile int");
  EXPECT_EQ(fpAsInt.code, 1) << fpAsInt.out;
  EXPECT_NE(fpAsInt.out.find("for PRO-INT"), std::string::npos) << fpAsInt.out;
  EXPECT_NE(fpAsInt.out.find("fp32_t"), std::string::npos) << fpAsInt.out;

  // Truncated, garbled and non-TOSA files: a clear error naming the file, exit 1, no crash.
  std::string good;
  {
    std::ifstream in(dir / "m_int.tosa", std::ios::binary);
    good.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto write = [&](const std::string& name, const std::string& bytes) {
    fsys::path p = dir / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p.string();
  };
  std::string garbled = good;
  for (size_t i = 64; i < garbled.size(); i += 97) garbled[i] = char(garbled[i] ^ 0x5a);
  for (const std::string& p : {write("trunc.tosa", good.substr(0, good.size() / 3)), write("garbled.tosa", garbled),
                               write("text.tosa", "this is not a flatbuffer at all"), write("empty.tosa", ""),
                               (dir / "missing.tosa").string()}) {
    CliRun c = runCli("tosa-check " + p);
    EXPECT_EQ(c.code, 1) << p << ": " << c.out;
    EXPECT_NE(c.out.find(fsys::path(p).filename().string()), std::string::npos) << c.out;
  }
  CliRun badOpt = runCli("tosa-check " + (dir / "m_fp.tosa").string() + " --level 16k");
  EXPECT_NE(badOpt.code, 0);
  EXPECT_NE(badOpt.out.find("--level"), std::string::npos) << badOpt.out;
  fsys::remove_all(dir);
}

}  // namespace
