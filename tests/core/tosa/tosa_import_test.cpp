// Reading .tosa files as graphs: the importer is the writer's inverse on every bundled model
// (FP and INT; the graph read back writes the same operators and tensors and computes the same outputs bit for
// bit), .tosa opens through the generic loader (by content and by extension), and malformed
// files fail naming the file, the operator and what was expected.
#include "core/backends/arm/tosa/tosa_import.h"

#include <set>

#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <map>

#include "core/backends/arm/tosa/schema/tosa_generated.h"
#include "core/exec/executor.h"
#include "core/exec/synth.h"
#include "core/io/load.h"
#include "core/quant/quantizer.h"
#include "core/session/lowering_session.h"
#include "core/util/atomic_file.h"

namespace ls::arm {
namespace {

namespace fsys = std::filesystem;

/// `model` lowered through `tosa` with materialised weights (quantized first for INT).
ir::Graph lowered(const std::string& model, passes::Profile profile) {
  session::SessionConfig cfg;
  cfg.pipeline = "tosa";
  cfg.profile = profile;
  cfg.materializeConstants = true;
  session::LoweringSession s(cfg);
  auto g = session::LoweringSession::load(std::string(LS_ASSETS_DIR) + "/graphs/" + model + ".fxjson.json");
  EXPECT_TRUE(g.isOk()) << g.message();
  auto out = s.lower(std::move(g).value(), model);
  EXPECT_TRUE(out.isOk()) << out.message();
  EXPECT_LT(out->result.failedIndex, 0) << out->result.failure;
  return std::move(out->finalGraph);
}

/// A file's content as text: operators in order (op, attributes, operands), then every tensor
/// by name (type, shape, data hash). Files that print the same hold the same graph; the writer
/// may order the tensor table differently (block inputs first after a read).
std::string fileText(const std::string& bytes) {
  auto info = io::readTosaBytes(bytes, "x.tosa");
  if (!info) return "unreadable: " + info.message();
  const io::TosaBlockInfo* b = info->mainBlock();
  std::string out;
  for (const io::TosaOperatorInfo& o : b->operators) {
    out += o.op + " " + o.attributeType + " in=";
    for (const std::string& i : o.inputs) out += i + ",";
    out += " out=";
    for (const std::string& i : o.outputs) out += i + ",";
    for (const auto& [k, v] : o.attributes) out += " " + k + "#" + std::to_string(std::hash<std::string>{}(
                                                           std::visit([](const auto& x) { return fmt::format("{}", x); }, v)));
    out += "\n";
  }
  std::map<std::string, std::string> tensors;
  for (const io::TosaTensorInfo& t : b->tensors)
    tensors[t.name] = fmt::format("{} {} data={} {}", t.dtype, fmt::join(t.shape, "x"), t.hasData,
                                  std::hash<std::string>{}(std::string(t.data.begin(), t.data.end())));
  for (const auto& [n, t] : tensors) out += n + ": " + t + "\n";
  out += fmt::format("inputs {} outputs {}\n", fmt::join(b->inputs, ","), fmt::join(b->outputs, ","));
  return out;
}

class TosaImportRealGraph : public ::testing::TestWithParam<std::pair<std::string, passes::Profile>> {};

TEST_P(TosaImportRealGraph, ReadsBackWhatTheWriterWroteAndComputesTheSame) {
  auto [model, profile] = GetParam();
  ir::Graph g = lowered(model, profile);
  auto bytes = io::serializeTosa(g);
  ASSERT_TRUE(bytes.isOk()) << bytes.message();

  // Through the generic loader, from a file whose name does not say TOSA (sniffed by content).
  const fsys::path dir = fsys::temp_directory_path() / ("ls_tosa_import_" + std::to_string(::getpid()));
  fsys::create_directories(dir);
  const std::string path = (dir / (model + ".bin")).string();
  ASSERT_TRUE(writeFileAtomic(path, *bytes).isOk());
  auto back = io::loadGraphFile(path);
  fsys::remove_all(dir);
  ASSERT_TRUE(back.isOk()) << back.message();

  // One node per operator and block input, the same inputs and outputs, and the same bytes
  // when written again: nothing is lost in either direction.
  EXPECT_EQ(back->signature().userInputs.size(), g.signature().userInputs.size());
  EXPECT_EQ(back->signature().outputs.size(), g.signature().outputs.size());
  auto again = io::serializeTosa(*back);
  ASSERT_TRUE(again.isOk()) << again.message();
  EXPECT_EQ(fileText(*again), fileText(*bytes));

  // The same outputs, bit for bit, on the inputs the lowered graph takes (int8 under INT).
  auto src = session::LoweringSession::load(std::string(LS_ASSETS_DIR) + "/graphs/" + model + ".fxjson.json");
  ASSERT_TRUE(src.isOk());
  auto run = runTosaFileAgainst(g, *bytes, model + ".tosa", exec::adaptInputs(g, exec::synthesizeInputs(*src, 7)));
  ASSERT_TRUE(run.isOk()) << run.message();
  EXPECT_TRUE(run->identical) << run->message;
}

// Every bundled model (assets/graphs, not large/) under both profiles.
std::vector<std::pair<std::string, passes::Profile>> everyBundledModel() {
  std::vector<std::pair<std::string, passes::Profile>> out;
  for (const char* m : {"deeplabv3_mobilenet_v3_large", "deit_tiny_vit", "efficientnet_b0", "mobilenet_v2",
                        "mobilenet_v3_small", "resnet18", "squeezenet1_1", "wav2letter"})
    for (passes::Profile p : {passes::Profile::FP, passes::Profile::INT}) out.emplace_back(m, p);
  return out;
}

INSTANTIATE_TEST_SUITE_P(
    Models, TosaImportRealGraph, ::testing::ValuesIn(everyBundledModel()),
    [](const auto& p) { return p.param.first + (p.param.second == passes::Profile::INT ? "_int" : "_fp"); });

TEST(TosaImport, EveryBundledModelIsCovered) {
  std::set<std::string> listed, onDisk;
  for (const auto& [m, p] : everyBundledModel()) listed.insert(m);
  for (const auto& e : fsys::directory_iterator(std::string(LS_ASSETS_DIR) + "/graphs")) {
    std::string f = e.path().filename().string();
    const std::string suffix = ".fxjson.json";
    if (f.size() > suffix.size() && f.compare(f.size() - suffix.size(), suffix.size(), suffix) == 0)
      onDisk.insert(f.substr(0, f.size() - suffix.size()));
  }
  EXPECT_EQ(listed, onDisk);
}

// conv -> F.interpolate(scale_factor=2, mode=...) as make_fx records it: the RESIZE each mode
// lowers to is written, read back (the schema's enum names NEAREST what the specification and
// tosa.RESIZE call NEAREST_NEIGHBOR) and computes the same, FP and INT.
std::string convThenUpsample(const char* target, const char* modeArgs) {
  return fmt::format(R"({{"format": "fxjson", "version": 1, "model": "upsample",
 "nodes": [
  {{"name": "x", "op": "placeholder", "target": "x", "args": [], "kwargs": {{}}, "meta": {{"shape": [1, 3, 5, 4], "dtype": "float32"}}}},
  {{"name": "w", "op": "get_attr", "target": "w", "args": [], "kwargs": {{}}, "meta": {{"shape": [4, 3, 3, 3], "dtype": "float32"}}}},
  {{"name": "conv", "op": "call_function", "target": "aten.convolution.default",
   "args": [{{"node": "x"}}, {{"node": "w"}}, null, [1, 1], [1, 1], [1, 1], false, [0, 0], 1], "kwargs": {{}},
   "meta": {{"shape": [1, 4, 5, 4], "dtype": "float32"}}}},
  {{"name": "up", "op": "call_function", "target": "{}", "args": [{{"node": "conv"}}, null, {}], "kwargs": {{}},
   "meta": {{"shape": [1, 4, 10, 8], "dtype": "float32"}}}},
  {{"name": "output", "op": "output", "target": "output", "args": [[{{"node": "up"}}]], "kwargs": {{}},
   "meta": {{"shapes": [[1, 4, 10, 8]], "dtypes": ["float32"]}}}}
 ],
 "constants": {{"w": {{"shape": [4, 3, 3, 3], "dtype": "float32", "kind": "parameter"}}}},
 "inputs": ["x"], "outputs": ["up"]}})", target, modeArgs);
}

TEST(TosaImport, ResizeInEveryModeRoundTrips) {
  const std::pair<const char*, const char*> modes[] = {{"aten.upsample_nearest2d.vec", "[2.0, 2.0]"},
                                                        {"aten.upsample_bilinear2d.vec", "false, [2.0, 2.0]"}};
  for (const auto& [target, args] : modes) {
    for (passes::Profile profile : {passes::Profile::FP, passes::Profile::INT}) {
      SCOPED_TRACE(fmt::format("{} {}", target, passes::profileName(profile)));
      auto src = io::importFxJson(convThenUpsample(target, args), "upsample.fxjson.json");
      ASSERT_TRUE(src.isOk()) << src.message();
      session::SessionConfig cfg;
      cfg.pipeline = "tosa";
      cfg.profile = profile;
      cfg.materializeConstants = true;
      session::LoweringSession s(cfg);
      auto out = s.lower(*src, "upsample");
      ASSERT_TRUE(out.isOk()) << out.message();
      ASSERT_LT(out->result.failedIndex, 0) << out->result.failure;
      const ir::Graph& g = out->finalGraph;
      bool hasResize = false;
      for (const ir::NodePtr& n : g.nodes()) hasResize |= n && ir::opName(n->op) == "tosa.RESIZE";
      ASSERT_TRUE(hasResize);
      auto bytes = io::serializeTosa(g);
      ASSERT_TRUE(bytes.isOk()) << bytes.message();
      auto back = loadTosaGraphBytes(*bytes, "upsample.tosa");
      ASSERT_TRUE(back.isOk()) << back.message();
      auto again = io::serializeTosa(*back);
      ASSERT_TRUE(again.isOk()) << again.message();
      EXPECT_EQ(fileText(*again), fileText(*bytes));
      auto run = runTosaFileAgainst(g, *bytes, "upsample.tosa", exec::adaptInputs(g, exec::synthesizeInputs(*src, 7)));
      ASSERT_TRUE(run.isOk()) << run.message();
      EXPECT_TRUE(run->identical) << run->message;
    }
  }
}

// ---------------------------------------------------------------- hand-made files

io::TosaTensorInfo tensor(const std::string& name, const std::string& dtype, std::vector<int64_t> shape) {
  io::TosaTensorInfo t;
  t.name = name;
  t.dtype = dtype;
  t.shape = std::move(shape);
  return t;
}

/// x -> ABS -> y, with y declared as `outShape`.
io::TosaFileInfo absFile(std::vector<int64_t> outShape) {
  io::TosaFileInfo f;
  f.regions.emplace_back();
  f.regions[0].blocks.emplace_back();
  io::TosaBlockInfo& b = f.regions[0].blocks[0];
  b.name = "main";
  b.tensors = {tensor("x", "FP32", {2, 3}), tensor("y", "FP32", std::move(outShape))};
  io::TosaOperatorInfo op;
  op.op = "ABS";
  op.inputs = {"x"};
  op.outputs = {"y"};
  b.operators.push_back(op);
  b.inputs = {"x"};
  b.outputs = {"y"};
  return f;
}

TEST(TosaImport, HandMadeFileOpensAsGraph) {
  auto g = tosaFileToGraph(absFile({2, 3}), "abs.tosa");
  ASSERT_TRUE(g.isOk()) << g.message();
  ir::NodeId y = g->findByName("y");
  ASSERT_NE(y, ir::kInvalidNode);
  EXPECT_EQ(ir::opName(g->node(y).op), "tosa.ABS");
  exec::Tensor x = exec::synthesizeInput(ir::TensorMeta(ir::DType::Float32, ir::Shape({2, 3})), 3);
  exec::Executor ex;
  auto out = ex.run(*g, {x});
  ASSERT_TRUE(out.isOk()) << out.message();
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ((*out)[0].getDouble(i), std::abs(x.getDouble(i)));
}

TEST(TosaImport, MalformedFilesNameTheFileOperatorAndWhatWasExpected) {
  auto wrongShape = tosaFileToGraph(absFile({3, 2}), "abs.tosa");
  ASSERT_FALSE(wrongShape.isOk());
  EXPECT_NE(wrongShape.message().find("abs.tosa: operator #0 (ABS)"), std::string::npos) << wrongShape.message();
  EXPECT_NE(wrongShape.message().find("shape rule"), std::string::npos) << wrongShape.message();

  // An operator this build does not know is shown, not run: opaque, with a warning.
  io::TosaFileInfo unknown = absFile({2, 3});
  unknown.regions[0].blocks[0].operators[0].op = "NOT_AN_OP";
  io::ImportReport rep;
  auto u = tosaFileToGraph(unknown, "u.tosa", &rep);
  ASSERT_TRUE(u.isOk()) << u.message();
  EXPECT_EQ(rep.opaqueNodes, 1u);
  ASSERT_EQ(rep.warnings.size(), 1u);
  EXPECT_NE(rep.warnings[0].find("u.tosa: operator #0 (NOT_AN_OP)"), std::string::npos) << rep.warnings[0];
  EXPECT_TRUE(u->node(u->findByName("y")).flags & ir::kFlagOpaque);

  io::TosaFileInfo dangling = absFile({2, 3});
  dangling.regions[0].blocks[0].operators[0].inputs = {"nowhere"};
  auto d = tosaFileToGraph(dangling, "d.tosa");
  ASSERT_FALSE(d.isOk());
  EXPECT_NE(d.message().find("input 'nowhere' is not produced before it"), std::string::npos) << d.message();

  io::TosaFileInfo badOut = absFile({2, 3});
  badOut.regions[0].blocks[0].outputs = {"z"};
  auto o = tosaFileToGraph(badOut, "o.tosa");
  ASSERT_FALSE(o.isOk());
  EXPECT_NE(o.message().find("block output 'z' is never produced"), std::string::npos) << o.message();

  io::TosaFileInfo arity = absFile({2, 3});
  arity.regions[0].blocks[0].operators[0].inputs = {"x", "x"};
  auto a = tosaFileToGraph(arity, "a.tosa");
  ASSERT_FALSE(a.isOk());
  EXPECT_NE(a.message().find("2 input(s), expected 1"), std::string::npos) << a.message();
}

/// x -> ABS -> y -> (op number `unknownOp`) -> z, written as TOSA 1.`minor` by hand, with a
/// field after the 1.0 schema's last one in tensor y's table and in the version table.
std::string newerFile(int minor, int unknownOp) {
  namespace fb = flatbuffers;
  fb::FlatBufferBuilder b;
  std::vector<int32_t> shape{2, 3};
  std::vector<fb::Offset<tosa::TosaTensor>> ts;
  ts.push_back(tosa::CreateTosaTensorDirect(b, "x", &shape, tosa::DType::FP32));
  {
    auto name = b.CreateString("y");
    auto sh = b.CreateVector(shape);
    tosa::TosaTensorBuilder tb(b);
    tb.add_name(name);
    tb.add_shape(sh);
    tb.add_type(tosa::DType::FP32);
    tb.fbb_.AddElement<int32_t>(fb::voffset_t(4 + 2 * 12), 42, 0);  // a 13th field (1.0 has 9)
    ts.push_back(tb.Finish());
  }
  ts.push_back(tosa::CreateTosaTensorDirect(b, "z", &shape, tosa::DType::FP32));
  std::vector<fb::Offset<tosa::TosaOperator>> os;
  std::vector<fb::Offset<fb::String>> x{b.CreateString("x")}, y{b.CreateString("y")}, z{b.CreateString("z")};
  os.push_back(tosa::CreateTosaOperatorDirect(b, tosa::Op::ABS, tosa::Attribute::NONE, 0, &x, &y));
  os.push_back(tosa::CreateTosaOperatorDirect(b, tosa::Op(unknownOp), tosa::Attribute::NONE, 0, &y, &z));
  auto blk = tosa::CreateTosaBasicBlockDirect(b, "main", &os, &ts, &x, &z);
  std::vector<fb::Offset<tosa::TosaBasicBlock>> blocks{blk};
  auto reg = tosa::CreateTosaRegionDirect(b, "main", &blocks);
  std::vector<fb::Offset<tosa::TosaRegion>> regs{reg};
  tosa::VersionBuilder vb(b);
  vb.add__major(1);
  vb.add__minor(minor);
  vb.add__patch(0);
  vb.add__draft(false);
  vb.fbb_.AddElement<int32_t>(fb::voffset_t(4 + 2 * 4), 7, 0);  // a 5th field
  auto version = vb.Finish();
  tosa::FinishTosaGraphBuffer(b, tosa::CreateTosaGraphDirect(b, version, &regs));
  return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
}

bool anyContains(const std::vector<std::string>& v, const std::string& s) {
  for (const std::string& x : v)
    if (x.find(s) != std::string::npos) return true;
  return false;
}

TEST(TosaImport, NewerVersionsFieldsAndOpsAreWarningsNotFailures) {
  const int op = int(tosa::Op::MAX) + 7;
  std::string bytes = newerFile(1, op);
  auto info = io::readTosaBytes(bytes, "newer.tosa");
  ASSERT_TRUE(info.isOk()) << info.message();
  const std::vector<std::string>& w = info->warnings;
  EXPECT_TRUE(anyContains(w, "written for TOSA 1.1.0")) << fmt::format("{}", fmt::join(w, "\n"));
  EXPECT_TRUE(anyContains(w, "1 tensor table(s) carry 1 field(s)")) << fmt::format("{}", fmt::join(w, "\n"));
  EXPECT_TRUE(anyContains(w, "1 version table(s) carry 1 field(s)")) << fmt::format("{}", fmt::join(w, "\n"));
  EXPECT_TRUE(anyContains(w, fmt::format("op number {}", op))) << fmt::format("{}", fmt::join(w, "\n"));
  EXPECT_EQ(w.size(), 4u) << fmt::format("{}", fmt::join(w, "\n"));

  // Through the generic loader: the graph opens, the unknown operator is opaque and says so
  // when run; the known part is intact.
  io::ImportReport rep;
  auto g = io::loadGraphBytes(bytes, "newer.tosa", &rep);
  ASSERT_TRUE(g.isOk()) << g.message();
  EXPECT_EQ(rep.opaqueNodes, 1u);
  EXPECT_EQ(rep.warnings.size(), 5u) << fmt::format("{}", fmt::join(rep.warnings, "\n"));
  const ir::Node& zn = g->node(g->findByName("z"));
  EXPECT_TRUE(zn.flags & ir::kFlagOpaque);
  EXPECT_EQ(ir::opName(zn.op), fmt::format("tosa.UNKNOWN_OP_{}", op));
  EXPECT_EQ(ir::opName(g->node(g->findByName("y")).op), "tosa.ABS");
  exec::Executor ex;
  auto ran = ex.run(*g, {exec::synthesizeInput(ir::TensorMeta(ir::DType::Float32, ir::Shape({2, 3})), 1)});
  ASSERT_FALSE(ran.isOk());
  EXPECT_NE(ran.message().find(fmt::format("UNKNOWN_OP_{}", op)), std::string::npos) << ran.message();

  // A 1.0 file as our writer writes it carries no warning.
  auto abs = tosaFileToGraph(absFile({2, 3}), "abs.tosa");
  ASSERT_TRUE(abs.isOk()) << abs.message();
  auto ours = io::serializeTosa(abs.value());
  ASSERT_TRUE(ours.isOk()) << ours.message();
  auto back = io::readTosaBytes(*ours, "abs.tosa");
  ASSERT_TRUE(back.isOk()) << back.message();
  EXPECT_TRUE(back->warnings.empty()) << fmt::format("{}", fmt::join(back->warnings, "\n"));
}

TEST(TosaImport, ATruncatedTosaFileGetsTheTosaReadersError) {
  ir::Graph g = lowered("squeezenet1_1", passes::Profile::FP);
  auto bytes = io::serializeTosa(g);
  ASSERT_TRUE(bytes.isOk());
  const fsys::path dir = fsys::temp_directory_path() / ("ls_tosa_trunc_" + std::to_string(::getpid()));
  fsys::create_directories(dir);
  const std::string path = (dir / "cut.tosa").string();
  ASSERT_TRUE(writeFileAtomic(path, bytes->substr(0, bytes->size() / 2)).isOk());
  auto r = io::loadGraphFile(path);
  fsys::remove_all(dir);
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.message().find("cut.tosa"), std::string::npos) << r.message();
  EXPECT_EQ(r.message().find("JSON"), std::string::npos) << "read as fxjson: " << r.message();
}

}  // namespace
}  // namespace ls::arm
