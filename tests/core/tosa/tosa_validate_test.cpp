// TOSA 1.0 legality validator: for every operator of the specification one legal and one illegal
// type combination (the illegal one named with op and types), the hand-made CLAMP-on-int32 graph
// failing the pipeline's last pass and writing no file, the level limits, ERROR_IF rules, and a
// decoded file from the writer checked the same way as the graph it came from.
#include "core/backends/arm/tosa/tosa_validate.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "core/backends/arm/tosa/tosa_writer.h"
#include "core/exec/executor.h"
#include "core/passes/pass_manager.h"
#include "support/graph_builder.h"

namespace ls::arm {
namespace {

using ir::DType;
using ir::IntList;

std::string fbName(const std::string& specType) {
  static const std::map<std::string, std::string> m = {
      {"bool_t", "BOOL"}, {"i4_t", "INT4"},   {"i8_t", "INT8"},   {"i16_t", "INT16"},     {"i32_t", "INT32"},
      {"i48_t", "INT48"}, {"fp16_t", "FP16"}, {"bf16_t", "BF16"}, {"fp32_t", "FP32"},     {"shape_t", "SHAPE"},
      {"fp8e4m3_t", "FP8E4M3"}, {"fp8e5m2_t", "FP8E5M2"}};
  auto it = m.find(specType);
  return it == m.end() ? "" : it->second;
}

/// A one-operator file whose operands have the types of `ts` (a tensor list gets two tensors).
std::optional<io::TosaFileInfo> fileFor(const TosaSpecOp& op, const TosaSpecSupport& ts) {
  io::TosaBlockInfo b;
  b.name = "main";
  io::TosaOperatorInfo o;
  o.op = op.name;
  int n = 0;
  for (const TosaSpecArg& a : op.args) {
    if (a.category == 'a') continue;
    std::string type;
    if (a.type == "shape_t") type = "shape_t";
    else {
      type = a.elem;
      for (const auto& [var, t] : ts.types)
        if (var == a.elem) type = t;
    }
    if (type == "mul_t") type = "i16_t";  // RESCALE without scale32
    std::string fb = fbName(type);
    if (fb.empty()) return std::nullopt;  // an operand type the test cannot spell
    const int copies = a.type == "tensor_list_t" ? 2 : 1;
    for (int k = 0; k < copies; ++k) {
      io::TosaTensorInfo t;
      t.name = fmt::format("t{}", n++);
      t.dtype = fb;
      int rank = a.rankMin == "-" ? 1 : std::max(1, std::atoi(a.rankMin.c_str()));
      if (a.type == "shape_t") rank = 1;
      t.shape = std::vector<int64_t>(size_t(rank), 1);
      (a.category == 'i' ? o.inputs : o.outputs).push_back(t.name);
      if (a.category == 'i') b.inputs.push_back(t.name);
      b.tensors.push_back(t);
    }
  }
  b.operators.push_back(o);
  io::TosaFileInfo f;
  f.major = 1;
  f.regions.push_back({"main", {b}});
  return f;
}

std::vector<TosaViolation> typeViolations(const std::vector<TosaViolation>& v) {
  std::vector<TosaViolation> out;
  for (const TosaViolation& x : v)
    if (x.message.find("operand types") != std::string::npos) out.push_back(x);
  return out;
}

TEST(TosaValidate, EverySpecOperatorHasALegalAndAnIllegalTypeCombination) {
  size_t checked = 0;
  for (const TosaSpecOp& op : tosaSpecOps()) {
    if (op.group == "control-flow" || op.group == "custom" || op.group == "variable") continue;
    const TosaSpecSupport* legal = nullptr;
    for (const TosaSpecSupport& ts : op.support)
      if ((ts.profile == "PRO-FP" || ts.profile == "PRO-INT") && ts.andProfile.empty()) {
        legal = &ts;
        break;
      }
    if (!legal) continue;
    auto good = fileFor(op, *legal);
    if (!good) continue;
    SCOPED_TRACE(op.name + " " + legal->mode);
    std::vector<TosaViolation> v = typeViolations(validateTosaFile(*good));
    EXPECT_TRUE(v.empty()) << formatViolations(v, {});
    // The same operator with every typed operand made fp8 (EXT-FP8 only, or not at all).
    TosaSpecSupport bad = *legal;
    for (auto& [var, t] : bad.types) t = "fp8e4m3_t";
    auto illegal = fileFor(op, bad);
    ASSERT_TRUE(illegal);
    bool anyTyped = false;
    for (const TosaSpecArg& a : op.args) anyTyped |= a.category != 'a' && a.type != "shape_t" && a.elem != "-";
    std::vector<TosaViolation> w = typeViolations(validateTosaFile(*illegal));
    if (!anyTyped || bad.types.empty()) continue;
    ASSERT_FALSE(w.empty()) << "fp8 operands accepted";
    EXPECT_EQ(w[0].op, op.name);
    EXPECT_NE(w[0].message.find("fp8e4m3_t"), std::string::npos) << w[0].message;
    EXPECT_NE(w[0].message.find("allowed:"), std::string::npos) << w[0].message;
    ++checked;
  }
  EXPECT_GE(checked, 50u);
}

TEST(TosaValidate, ExtensionsAndProfilesSelectTheCombinations) {
  // CLAMP int16 is EXT-INT16: illegal for plain PRO-INT, legal with the extension.
  const TosaSpecOp* clamp = nullptr;
  for (const TosaSpecOp& op : tosaSpecOps())
    if (op.name == "CLAMP") clamp = &op;
  ASSERT_TRUE(clamp);
  TosaSpecSupport i16{"", "EXT-INT16", "", {{"in_out_t", "i16_t"}}};
  auto f = fileFor(*clamp, i16);
  ASSERT_TRUE(f);
  TosaCheckOptions intOnly;
  intOnly.profile = TosaCheckOptions::Profile::Int;
  EXPECT_FALSE(validateTosaFile(*f, intOnly).empty());
  intOnly.extensions = {"EXT-INT16"};
  EXPECT_TRUE(validateTosaFile(*f, intOnly).empty());
  // fp32 CLAMP: legal for fp, not for the integer-only profile.
  TosaSpecSupport f32{"", "PRO-FP", "", {{"in_out_t", "fp32_t"}}};
  auto g = fileFor(*clamp, f32);
  EXPECT_TRUE(validateTosaFile(*g).empty());
  intOnly.extensions.clear();
  auto v = validateTosaFile(*g, intOnly);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].message.find("for PRO-INT"), std::string::npos) << v[0].message;
}

/// x (int32) -> CLAMP -> output: TOSA 1.0 defines CLAMP for int8, int16 and floats only.
ir::Graph clampOnInt32() {
  test::GraphBuilder b;
  auto x = b.input("x", DType::Int32, {1, 8});
  b.output({b.call("tosa.CLAMP", {x}, {{"min_val", int64_t(-128)}, {"max_val", int64_t(127)}}, "clamp_i32")});
  return std::move(b.g);
}

TEST(TosaValidate, ClampOnInt32FailsThePipelinesLastPassAndTheWriterWritesNoFile) {
  ir::Graph g = clampOnInt32();
  std::vector<TosaViolation> v = validateTosaGraph(g);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].op, "CLAMP");
  EXPECT_NE(v[0].where.find("clamp_i32"), std::string::npos);
  EXPECT_NE(v[0].message.find("input=i32_t"), std::string::npos) << v[0].message;
  EXPECT_NE(v[0].message.find("in_out_t=i8_t (PRO-INT)"), std::string::npos) << v[0].message;

  auto p = passes::PassRegistry::instance().create("CheckTosaOperatorSupportPass");
  ASSERT_TRUE(p);
  passes::PassContext ctx;
  passes::PassResult r = p->run(g, ctx);
  ASSERT_EQ(r.status, passes::PassStatus::Failed);
  EXPECT_NE(r.message.find("clamp_i32"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("CLAMP"), std::string::npos) << r.message;

  const std::string path = (std::filesystem::temp_directory_path() / "ls_clamp_i32.tosa").string();
  std::filesystem::remove(path);
  Status st = io::saveTosa(g, path);
  ASSERT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("clamp_i32"), std::string::npos) << st.message();
  EXPECT_FALSE(std::filesystem::exists(path)) << "no file for an illegal graph";
}

TEST(TosaValidate, LevelLimitsAndErrorIfRules) {
  // Rank 7 is above level 8K's MAX_RANK 6 and fine without a level.
  test::GraphBuilder b;
  auto x = b.input("x", {1, 1, 1, 1, 1, 1, 2});
  b.output({b.call("tosa.SIGMOID", {x})});
  EXPECT_FALSE(validateTosaGraph(b.g).empty());
  TosaCheckOptions none;
  none.level8k = false;
  EXPECT_TRUE(validateTosaGraph(b.g, none).empty()) << formatViolations(validateTosaGraph(b.g, none), none);
  auto msg = validateTosaGraph(b.g)[0].message;
  EXPECT_NE(msg.find("rank 7"), std::string::npos) << msg;

  // A pool kernel above MAX_KERNEL.
  io::TosaFileInfo f;
  io::TosaBlockInfo blk;
  blk.name = "main";
  blk.tensors = {{"in", {1, 9000, 4, 1}, "FP32"}, {"izp", {1}, "FP32"}, {"ozp", {1}, "FP32"}, {"out", {1, 1, 4, 1}, "FP32"}};
  io::TosaOperatorInfo pool;
  pool.op = "AVG_POOL2D";
  pool.inputs = {"in", "izp", "ozp"};
  pool.outputs = {"out"};
  pool.attributes["kernel"] = std::vector<int64_t>{9000, 1};
  pool.attributes["stride"] = std::vector<int64_t>{1, 1};
  pool.attributes["pad"] = std::vector<int64_t>{0, 0, 0, 0};
  blk.operators = {pool};
  blk.inputs = {"in", "izp", "ozp"};
  f.regions.push_back({"main", {blk}});
  auto v = validateTosaFile(f);
  ASSERT_FALSE(v.empty());
  EXPECT_NE(v[0].message.find("MAX_KERNEL"), std::string::npos) << v[0].message;

  // Dimensions whose product overflows int64 (a fuzzer's file): reported as too many elements,
  // without overflowing while counting; a dilation x kernel product is checked the same way.
  io::TosaFileInfo huge;
  io::TosaBlockInfo hb;
  hb.name = "main";
  hb.tensors = {{"a", {int64_t(1) << 40, int64_t(1) << 40, 3}, "FP32"}, {"b", {int64_t(1) << 40, int64_t(1) << 40, 3}, "FP32"}};
  io::TosaOperatorInfo sig;
  sig.op = "SIGMOID";
  sig.inputs = {"a"};
  sig.outputs = {"b"};
  hb.operators = {sig};
  hb.inputs = {"a"};
  huge.regions.push_back({"main", {hb}});
  TosaCheckOptions nolevel;
  nolevel.level8k = false;
  auto hv = validateTosaFile(huge, nolevel);
  ASSERT_EQ(hv.size(), 2u) << formatViolations(hv, nolevel);
  EXPECT_NE(hv[0].message.find("more than 2^63"), std::string::npos) << hv[0].message;

  // RESCALE with a shift outside [2, 62] (ERROR_IF), from a graph with constant operands.
  test::GraphBuilder r;
  auto xi = r.input("x", DType::Int32, {4});
  auto mult = r.constant("mult", DType::Int32, {1}, {1 << 30});
  auto shift = r.constant("shift", DType::Int8, {1}, {70});
  auto izp = r.constant("izp", DType::Int32, {1}, {0});
  auto ozp = r.constant("ozp", DType::Int8, {1}, {0});
  r.output({r.call("tosa.RESCALE", {xi, mult, shift, izp, ozp},
                   {{"scale32", true}, {"rounding_mode", "SINGLE_ROUND"}, {"per_channel", false}}, "rescale")});
  auto rv = validateTosaGraph(r.g);
  ASSERT_EQ(rv.size(), 1u) << formatViolations(rv, {});
  EXPECT_NE(rv[0].message.find("shift 70"), std::string::npos) << rv[0].message;
}

TEST(TosaValidate, TheReferenceExecutorRefusesAnIllegalGraph) {
  ir::Graph g = clampOnInt32();
  exec::Executor ex;
  auto out = ex.run(g, {exec::Tensor(DType::Int32, ir::Shape{1, 8})});
  ASSERT_FALSE(out.isOk()) << "the executor must not agree with illegal TOSA";
  EXPECT_NE(out.message().find("illegal in TOSA"), std::string::npos) << out.message();
  EXPECT_NE(out.message().find("clamp_i32"), std::string::npos) << out.message();
}

}  // namespace
}  // namespace ls::arm
