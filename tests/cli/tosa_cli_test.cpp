// lowerscope-cli lower --tosa: pure TOSA graphs are written; anything else exits 1 listing
// the offending nodes and writes nothing.
#include <gtest/gtest.h>

#include "tests/cli/cli_util.h"
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
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

}  // namespace
