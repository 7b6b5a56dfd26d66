// Tests for the TOSA 1.0 flatbuffer writer: hand-built tosa.* graphs round-trip through
// write -> verify -> decode; flatc with our schema prints the expected JSON; bad graphs and
// corrupt files give clear errors.
#include "core/backends/arm/tosa/tosa_writer.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <tuple>
#include <string>
#include <vector>

#include "core/backends/arm/tosa/tosa_ops.h"
#include "core/io/load.h"
#include "core/backends/arm/tosa/schema/tosa_generated.h"
#include "core/ops/builtin_ops.h"
#include "core/ops/registry.h"
#include "core/passes/pass_manager.h"
#include "core/util/atomic_file.h"

namespace ls::io {
namespace {

namespace fsys = std::filesystem;
using ir::DType;

// ---------------------------------------------------------------- graph building

/// Builds tosa.* graphs by hand, the way the Arm pipeline leaves them (op names and
/// kwargs per /work/notes/tosa_contract.md). Nodes are opaque: their metadata is set here.
class TosaGraph {
 public:
  ir::Graph g;

  ir::ValueRef input(const std::string& name, DType t, ir::Shape s) {
    ir::Node n;
    n.kind = ir::NodeKind::Placeholder;
    n.name = name;
    n.target = name;
    n.outputs.push_back(ir::TensorMeta(t, s));
    return {g.append(std::move(n)), 0};
  }

  /// A get_attr constant; `bytes` empty -> shape-only (no data).
  ir::ValueRef constant(const std::string& name, DType t, ir::Shape s, std::vector<uint8_t> bytes) {
    ir::Constant c;
    c.name = name;
    c.fqn = name;
    c.kind = ir::ConstantKind::Parameter;
    c.dtype = t;
    c.shape = s;
    if (!bytes.empty()) c.data = g.store().intern(std::move(bytes));
    g.setConstant(std::move(c));
    ir::Node n;
    n.kind = ir::NodeKind::GetAttr;
    n.name = name;
    n.target = name;
    n.outputs.push_back(ir::TensorMeta(t, s));
    return {g.append(std::move(n)), 0};
  }

  ir::ValueRef floats(const std::string& name, ir::Shape s, const std::vector<float>& v) {
    std::vector<uint8_t> b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    return constant(name, DType::Float32, s, std::move(b));
  }

  ir::ValueRef op(const std::string& specName, std::vector<ir::Arg> args, std::vector<ir::Kwarg> kwargs,
                  ir::TensorMeta out, std::string name = "") {
    ir::Node n;
    n.kind = ir::NodeKind::Call;
    n.target = "tosa." + specName;
    n.op = ir::internOp(n.target);
    n.flags |= ir::kFlagOpaque;
    n.name = name.empty() ? g.uniqueName(lower(specName)) : name;
    n.args = std::move(args);
    n.kwargs = std::move(kwargs);
    n.outputs.push_back(out);
    return {g.append(std::move(n)), 0};
  }

  ir::ValueRef constShape(std::vector<int64_t> v, std::string name = "") {
    int64_t len = int64_t(v.size());
    return op("CONST_SHAPE", {}, {{"values", ir::IntList(std::move(v))}}, ir::TensorMeta(DType::Int64, {len}),
              std::move(name));
  }

  /// tosa.CONST with kwarg "values".
  ir::ValueRef tconst(ir::Arg values, DType t, ir::Shape s, std::string name = "") {
    return op("CONST", {}, {{"values", std::move(values)}}, ir::TensorMeta(t, s), std::move(name));
  }

  void output(std::vector<ir::ValueRef> refs) {
    ir::Node n;
    n.kind = ir::NodeKind::Output;
    n.name = "output";
    n.target = "output";
    n.args.push_back(ir::Arg(ir::RefList(refs.begin(), refs.end())));
    for (auto& r : refs) n.outputs.push_back(g.meta(r));
    n.flags |= ir::kFlagOutputsAsList;
    g.append(std::move(n));
  }

  static std::string lower(std::string s) {
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }
};

ir::TensorMeta f32(ir::Shape s) { return ir::TensorMeta(DType::Float32, s); }

/// A float pipeline touching most tensor ops: NCHW input -> TRANSPOSE -> CONV2D (asymmetric pad,
/// stride, dilation, zero-point inputs) -> CLAMP -> AVG_POOL2D -> RESHAPE (CONST_SHAPE) ->
/// MATMUL -> CONCAT.
TosaGraph floatGraph() {
  TosaGraph t;
  auto x = t.input("x", DType::Float32, {1, 3, 8, 8});
  auto nhwc = t.op("TRANSPOSE", {x}, {{"perms", ir::IntList{0, 2, 3, 1}}}, f32({1, 8, 8, 3}), "to_nhwc");
  std::vector<float> w(4 * 3 * 3 * 3);
  for (size_t i = 0; i < w.size(); ++i) w[i] = float(i) * 0.01f - 0.5f;
  auto weight = t.floats("conv_weight", {4, 3, 3, 3}, w);  // OHWI
  auto bias = t.floats("conv_bias", {4}, {0.1f, -0.2f, 0.3f, -0.4f});
  auto izp = t.tconst(ir::FloatList{0.0}, DType::Float32, {1}, "conv_input_zp");
  auto wzp = t.tconst(ir::FloatList{0.0}, DType::Float32, {1}, "conv_weight_zp");
  auto conv = t.op("CONV2D", {nhwc, weight, bias, izp, wzp},
                   {{"pad", ir::IntList{1, 0, 2, 1}},
                    {"stride", ir::IntList{2, 2}},
                    {"dilation", ir::IntList{1, 2}},
                    {"acc_type", "FP32"}},
                   f32({1, 4, 4, 4}), "conv");
  auto clamp = t.op("CLAMP", {conv}, {{"min_val", 0.0}, {"max_val", 6.0}, {"nan_mode", "PROPAGATE"}},
                    f32({1, 4, 4, 4}), "relu6");
  auto pzp = t.tconst(0.0, DType::Float32, {1}, "pool_zp");
  auto pool = t.op("AVG_POOL2D", {clamp, pzp, pzp},
                   {{"kernel", ir::IntList{2, 2}},
                    {"stride", ir::IntList{2, 2}},
                    {"pad", ir::IntList{0, 0, 0, 0}},
                    {"acc_type", "FP32"}},
                   f32({1, 2, 2, 4}), "pool");
  auto shape = t.constShape({1, 1, 16}, "flat_shape");
  auto flat = t.op("RESHAPE", {pool, shape}, {}, f32({1, 1, 16}), "flatten");
  std::vector<float> fc(16 * 5);
  for (size_t i = 0; i < fc.size(); ++i) fc[i] = float(i % 7) - 3.0f;
  auto fcw = t.floats("fc_weight", {1, 16, 5}, fc);
  auto mm = t.op("MATMUL", {flat, fcw, pzp, pzp}, {}, f32({1, 1, 5}), "fc");
  auto cat = t.op("CONCAT", {ir::RefList{mm, mm}}, {{"axis", int64_t(2)}}, f32({1, 1, 10}), "cat");
  t.output({cat});
  return t;
}

std::vector<uint8_t> int32Bytes(const std::vector<int32_t>& v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

/// An integer pipeline: int8 -> RESCALE (per-channel multiplier/shift constants) -> int32 ADD
/// -> RESCALE back to int8 -> MUL with shift (int32) -> output.
TosaGraph intGraph() {
  TosaGraph t;
  auto x = t.input("x", DType::Int8, {1, 2, 3});
  auto mult = t.constant("rs_multiplier", DType::Int32, {3}, int32Bytes({1073741824, 1518500250, 2147483647}));
  auto shift = t.tconst(ir::IntList{30, 31, 32}, DType::Int8, {3}, "rs_shift");
  auto izp = t.tconst(int64_t(-3), DType::Int8, {1}, "rs_izp");
  auto ozp32 = t.tconst(int64_t(0), DType::Int32, {1}, "rs_ozp");
  auto up = t.op("RESCALE", {x, mult, shift, izp, ozp32},
                 {{"scale32", true}, {"rounding_mode", "DOUBLE_ROUND"}, {"per_channel", true}},
                 ir::TensorMeta(DType::Int32, {1, 2, 3}), "rescale_in");
  auto bias = t.tconst(ir::IntList{100, -100, 7}, DType::Int32, {1, 1, 3}, "bias");
  auto add = t.op("ADD", {up, bias}, {}, ir::TensorMeta(DType::Int32, {1, 2, 3}), "add");
  auto m2 = t.tconst(int64_t(1 << 30), DType::Int32, {1}, "rs2_multiplier");
  auto s2 = t.tconst(int64_t(36), DType::Int8, {1}, "rs2_shift");
  auto ozp8 = t.tconst(int64_t(5), DType::Int8, {1}, "rs2_ozp");
  auto down = t.op("RESCALE", {add, m2, s2, ozp32, ozp8},
                   {{"scale32", true},
                    {"rounding_mode", "SINGLE_ROUND"},
                    {"per_channel", false},
                    {"input_unsigned", false},
                    {"output_unsigned", false}},
                   ir::TensorMeta(DType::Int8, {1, 2, 3}), "rescale_out");
  auto mshift = t.tconst(int64_t(0), DType::Int8, {1}, "mul_shift");
  // int8 x int8 MUL gives int32 (TOSA 1.0; the writer checks the registry's inference).
  auto sq = t.op("MUL", {down, down, mshift}, {}, ir::TensorMeta(DType::Int32, {1, 2, 3}), "square");
  t.output({sq});
  return t;
}

TosaFileInfo roundTrip(const ir::Graph& g, TosaWriteReport* report = nullptr,
                       const TosaWriteOptions& opts = {}) {
  auto bytes = serializeTosa(g, opts, report);
  EXPECT_TRUE(bytes.isOk()) << bytes.message();
  if (!bytes) return {};
  auto info = readTosaBytes(*bytes, "mem.tosa");
  EXPECT_TRUE(info.isOk()) << info.message();
  if (!info) return {};
  return std::move(info).value();
}

std::vector<std::string> opNames(const TosaBlockInfo& b) {
  std::vector<std::string> v;
  for (auto& o : b.operators) v.push_back(o.op);
  return v;
}

template <typename T>
T get(const TosaOperatorInfo& o, const char* k) {
  const TosaAttrValue* v = o.attr(k);
  EXPECT_NE(v, nullptr) << o.op << " has no attribute " << k;
  if (!v || !std::holds_alternative<T>(*v)) {
    ADD_FAILURE() << o.op << " attribute " << k << " has another type";
    return T{};
  }
  return std::get<T>(*v);
}

std::string errorOf(const ir::Graph& g, const TosaWriteOptions& opts = {}) {
  auto r = serializeTosa(g, opts);
  return r ? std::string("<no error>") : r.message();
}

fsys::path tmpDir() {
  auto d = fsys::temp_directory_path() / ("ls_tosa_test_" + std::to_string(::getpid()));
  fsys::create_directories(d);
  return d;
}

// ---------------------------------------------------------------- round trips

TEST(TosaWriter, FloatGraphRoundTripsOperatorsTensorsAndAttributes) {
  TosaGraph t = floatGraph();
  TosaWriteReport rep;
  TosaFileInfo f = roundTrip(t.g, &rep);
  EXPECT_EQ(f.major, 1);
  EXPECT_EQ(f.minor, 0);
  EXPECT_EQ(f.patch, 0);
  EXPECT_FALSE(f.draft);
  ASSERT_EQ(f.regions.size(), 1u);
  EXPECT_EQ(f.regions[0].name, "main");
  const TosaBlockInfo* b = f.mainBlock();
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->name, "main");
  EXPECT_EQ(opNames(*b), (std::vector<std::string>{"TRANSPOSE", "CONST", "CONST", "CONST", "CONST", "CONV2D", "CLAMP",
                                                   "CONST", "AVG_POOL2D", "CONST_SHAPE", "RESHAPE", "CONST", "MATMUL",
                                                   "CONCAT"}));
  EXPECT_EQ(rep.operators, b->operators.size());
  EXPECT_EQ(rep.tensors, b->tensors.size());
  EXPECT_EQ(b->inputs, std::vector<std::string>{"x"});
  EXPECT_EQ(b->outputs, std::vector<std::string>{"cat"});

  // Tensors: graph input without data, TOSA (NHWC) shapes from metadata, constants with bytes.
  const TosaTensorInfo* x = b->tensor("x");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->shape, (std::vector<int64_t>{1, 3, 8, 8}));
  EXPECT_EQ(x->dtype, "FP32");
  EXPECT_FALSE(x->hasData);
  EXPECT_EQ(b->tensor("to_nhwc")->shape, (std::vector<int64_t>{1, 8, 8, 3}));
  const TosaTensorInfo* w = b->tensor("conv_weight");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->shape, (std::vector<int64_t>{4, 3, 3, 3}));
  ASSERT_EQ(w->floats().size(), 108u);
  EXPECT_FLOAT_EQ(w->floats()[0], -0.5f);
  EXPECT_FLOAT_EQ(w->floats()[107], 107 * 0.01f - 0.5f);
  EXPECT_EQ(b->tensor("conv_bias")->floats(), (std::vector<float>{0.1f, -0.2f, 0.3f, -0.4f}));
  EXPECT_EQ(b->tensor("conv_input_zp")->floats(), std::vector<float>{0.0f});

  const TosaOperatorInfo& conv = *b->operatorsOf("CONV2D").at(0);
  EXPECT_EQ(conv.attributeType, "Conv2dAttribute");
  EXPECT_EQ(conv.inputs,
            (std::vector<std::string>{"to_nhwc", "conv_weight", "conv_bias", "conv_input_zp", "conv_weight_zp"}));
  EXPECT_EQ(conv.outputs, std::vector<std::string>{"conv"});
  EXPECT_EQ(get<std::vector<int64_t>>(conv, "pad"), (std::vector<int64_t>{1, 0, 2, 1}));
  EXPECT_EQ(get<std::vector<int64_t>>(conv, "stride"), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(get<std::vector<int64_t>>(conv, "dilation"), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(get<std::string>(conv, "acc_type"), "FP32");
  EXPECT_FALSE(get<bool>(conv, "local_bound"));

  const TosaOperatorInfo& tr = *b->operatorsOf("TRANSPOSE").at(0);
  EXPECT_EQ(get<std::vector<int64_t>>(tr, "perms"), (std::vector<int64_t>{0, 2, 3, 1}));

  // CLAMP bounds are the FP32 bytes of 0.0 and 6.0.
  const TosaOperatorInfo& cl = *b->operatorsOf("CLAMP").at(0);
  auto lo = get<std::vector<uint8_t>>(cl, "min_val");
  auto hi = get<std::vector<uint8_t>>(cl, "max_val");
  ASSERT_EQ(lo.size(), 4u);
  ASSERT_EQ(hi.size(), 4u);
  float flo, fhi;
  std::memcpy(&flo, lo.data(), 4);
  std::memcpy(&fhi, hi.data(), 4);
  EXPECT_EQ(flo, 0.0f);
  EXPECT_EQ(fhi, 6.0f);
  EXPECT_EQ(get<std::string>(cl, "nan_mode"), "PROPAGATE");

  const TosaOperatorInfo& pool = *b->operatorsOf("AVG_POOL2D").at(0);
  EXPECT_EQ(get<std::vector<int64_t>>(pool, "kernel"), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(get<std::vector<int64_t>>(pool, "pad"), (std::vector<int64_t>{0, 0, 0, 0}));
  EXPECT_EQ(pool.inputs, (std::vector<std::string>{"relu6", "pool_zp", "pool_zp"}));

  // RESHAPE reads a CONST_SHAPE: a SHAPE tensor [3] holding int64 values.
  const TosaTensorInfo* shp = b->tensor("flat_shape");
  ASSERT_NE(shp, nullptr);
  EXPECT_EQ(shp->dtype, "SHAPE");
  EXPECT_EQ(shp->shape, std::vector<int64_t>{3});
  EXPECT_EQ(shp->data.size(), 24u);
  EXPECT_EQ(shp->ints(), (std::vector<int64_t>{1, 1, 16}));
  EXPECT_EQ(b->operatorsOf("RESHAPE").at(0)->inputs, (std::vector<std::string>{"pool", "flat_shape"}));
  EXPECT_EQ(b->operatorsOf("CONST_SHAPE").at(0)->attributeType, "ConstShapeAttribute");

  const TosaOperatorInfo& mm = *b->operatorsOf("MATMUL").at(0);
  EXPECT_EQ(mm.attributeType, "MatMulAttribute");
  EXPECT_EQ(mm.inputs, (std::vector<std::string>{"flatten", "fc_weight", "pool_zp", "pool_zp"}));
  const TosaOperatorInfo& cat = *b->operatorsOf("CONCAT").at(0);
  EXPECT_EQ(cat.inputs, (std::vector<std::string>{"fc", "fc"}));
  EXPECT_EQ(get<int64_t>(cat, "axis"), 2);
  EXPECT_EQ(b->tensor("cat")->shape, (std::vector<int64_t>{1, 1, 10}));

  // Data bytes written: 108 + 4 + 1 + 1 + 1 weights/zp floats, 80 fc floats, 3 int64.
  EXPECT_EQ(rep.constantBytes, (108 + 4 + 1 + 1 + 1 + 80) * 4u + 24u);
  EXPECT_TRUE(rep.synthesized.empty());
}

TEST(TosaWriter, IntGraphRoundTripsRescaleConstantsAndAttributes) {
  TosaGraph t = intGraph();
  TosaFileInfo f = roundTrip(t.g);
  const TosaBlockInfo* b = f.mainBlock();
  ASSERT_NE(b, nullptr);
  auto rescales = b->operatorsOf("RESCALE");
  ASSERT_EQ(rescales.size(), 2u);
  const TosaOperatorInfo& in = *rescales[0];
  EXPECT_EQ(in.inputs, (std::vector<std::string>{"x", "rs_multiplier", "rs_shift", "rs_izp", "rs_ozp"}));
  EXPECT_TRUE(get<bool>(in, "scale32"));
  EXPECT_EQ(get<std::string>(in, "rounding_mode"), "DOUBLE_ROUND");
  EXPECT_TRUE(get<bool>(in, "per_channel"));
  EXPECT_FALSE(get<bool>(in, "input_unsigned"));
  const TosaOperatorInfo& out = *rescales[1];
  EXPECT_EQ(get<std::string>(out, "rounding_mode"), "SINGLE_ROUND");
  EXPECT_FALSE(get<bool>(out, "per_channel"));

  EXPECT_EQ(b->tensor("x")->dtype, "INT8");
  EXPECT_EQ(b->tensor("rs_multiplier")->dtype, "INT32");
  EXPECT_EQ(b->tensor("rs_multiplier")->ints(), (std::vector<int64_t>{1073741824, 1518500250, 2147483647}));
  EXPECT_EQ(b->tensor("rs_shift")->dtype, "INT8");
  EXPECT_EQ(b->tensor("rs_shift")->ints(), (std::vector<int64_t>{30, 31, 32}));
  EXPECT_EQ(b->tensor("rs_izp")->ints(), std::vector<int64_t>{-3});
  EXPECT_EQ(b->tensor("rs2_ozp")->ints(), std::vector<int64_t>{5});
  EXPECT_EQ(b->tensor("bias")->ints(), (std::vector<int64_t>{100, -100, 7}));
  EXPECT_EQ(b->tensor("rescale_in")->dtype, "INT32");
  EXPECT_EQ(b->tensor("rescale_out")->dtype, "INT8");
  const TosaOperatorInfo& mul = *b->operatorsOf("MUL").at(0);
  EXPECT_EQ(mul.inputs, (std::vector<std::string>{"rescale_out", "rescale_out", "mul_shift"}));
  EXPECT_EQ(mul.attributeType, "MulAttribute");
  EXPECT_EQ(b->outputs, std::vector<std::string>{"square"});
}

TEST(TosaWriter, UnaryBinaryAndDataLayoutOpsCarryTheirOwnAttributeType) {
  // Every elementwise op gets the attribute table of its own op (the union follows Op order).
  const std::vector<std::string> unary = {"ERF", "SIGMOID", "TANH", "EXP", "LOG", "RECIPROCAL", "RSQRT",
                                          "ABS", "CEIL", "FLOOR", "SIN", "COS", "IDENTITY"};  // CAST: to_f16 below
  const std::vector<std::string> binary = {"ADD", "SUB", "POW", "EQUAL", "GREATER", "GREATER_EQUAL", "MAXIMUM",
                                           "MINIMUM"};
  TosaGraph t;
  auto x = t.input("x", DType::Float32, {2, 3});
  auto y = t.input("y", DType::Float32, {2, 3});
  std::vector<ir::ValueRef> outs;
  for (auto& op : unary) outs.push_back(t.op(op, {x}, {}, f32({2, 3})));
  for (auto& op : binary) {
    bool cmp = op == "EQUAL" || op.rfind("GREATER", 0) == 0;
    outs.push_back(t.op(op, {x, y}, {}, ir::TensorMeta(cmp ? DType::Bool : DType::Float32, {2, 3})));
  }
  auto padShape = t.constShape({0, 1, 2, 0}, "pad_shape");
  auto padConst = t.op("CONST", {},
                       {{"values", ir::FloatList{-1.5}},
                        {"shape", ir::IntList{1}},
                        {"dtype", ir::EnumArg{ir::EnumKind::DType, int32_t(DType::Float32)}}},
                       f32({1}), "pad_value");  // the Arm registry's CONST form: shape/dtype repeated
  outs.push_back(t.op("CAST", {x}, {{"dtype", ir::EnumArg{ir::EnumKind::DType, int32_t(DType::Float16)}}},
                      ir::TensorMeta(DType::Float16, {2, 3}), "to_f16"));
  outs.push_back(t.op("PAD", {x, padShape, padConst}, {}, f32({3, 5}), "pad"));
  auto start = t.constShape({0, 1});
  auto size = t.constShape({2, 2});
  outs.push_back(t.op("SLICE", {x, start, size}, {}, f32({2, 2}), "slice"));
  auto mult = t.constShape({2, 1});
  outs.push_back(t.op("TILE", {x, mult}, {}, f32({4, 3}), "tile"));
  outs.push_back(t.op("REDUCE_SUM", {x}, {{"axis", int64_t(1)}}, f32({2, 1}), "rsum"));
  outs.push_back(t.op("REDUCE_MAX", {x}, {{"axis", int64_t(0)}, {"nan_mode", "IGNORE"}}, f32({1, 3}), "rmax"));
  auto cond = t.op("GREATER", {x, y}, {}, ir::TensorMeta(DType::Bool, {2, 3}), "cond");
  outs.push_back(t.op("SELECT", {cond, x, y}, {}, f32({2, 3}), "select"));
  t.output(outs);

  TosaFileInfo f = roundTrip(t.g);
  const TosaBlockInfo* b = f.mainBlock();
  ASSERT_NE(b, nullptr);
  auto camel = [](const std::string& op) {
    std::string s;
    bool up = true;
    for (char c : op) {
      if (c == '_') {
        up = true;
        continue;
      }
      s += up ? c : char(std::tolower(static_cast<unsigned char>(c)));
      up = false;
    }
    return s + "Attribute";
  };
  size_t checked = 0;
  for (const TosaOperatorInfo& o : b->operators) {
    std::string want = o.op == "INTDIV" ? "IntDivAttribute" : camel(o.op);
    EXPECT_EQ(o.attributeType, want) << o.op;
    ++checked;
  }
  EXPECT_EQ(checked, b->operators.size());
  EXPECT_EQ(b->outputs.size(), outs.size());
  EXPECT_EQ(b->operatorsOf("PAD").at(0)->inputs, (std::vector<std::string>{"x", "pad_shape", "pad_value"}));
  EXPECT_EQ(b->tensor("pad_shape")->ints(), (std::vector<int64_t>{0, 1, 2, 0}));
  EXPECT_EQ(get<int64_t>(*b->operatorsOf("REDUCE_SUM").at(0), "axis"), 1);
  EXPECT_EQ(get<std::string>(*b->operatorsOf("REDUCE_MAX").at(0), "nan_mode"), "IGNORE");
  EXPECT_EQ(get<std::string>(*b->operatorsOf("MAXIMUM").at(0), "nan_mode"), "PROPAGATE");  // spec default
  EXPECT_EQ(b->tensor("cond")->dtype, "BOOL");
  EXPECT_EQ(b->tensor("to_f16")->dtype, "FP16");
  EXPECT_EQ(b->tensor("pad_value")->floats(), std::vector<float>{-1.5f});
}

TEST(TosaWriter, ConvVariantsPoolsResizeAndTableAttributes) {
  TosaGraph t;
  auto x = t.input("x", DType::Int8, {1, 6, 6, 4});
  std::vector<uint8_t> wb(1 * 3 * 3 * 4, 1);
  auto dw = t.constant("dw_weight", DType::Int8, {3, 3, 4, 1}, wb);  // HWCM
  auto dwb = t.constant("dw_bias", DType::Int32, {4}, int32Bytes({1, 2, 3, 4}));
  auto zp = t.tconst(int64_t(0), DType::Int8, {1}, "zp");
  auto d = t.op("DEPTHWISE_CONV2D", {x, dw, dwb, zp, zp},
                {{"pad", ir::IntList{1, 1, 1, 1}},
                 {"stride", ir::IntList{1, 1}},
                 {"dilation", ir::IntList{1, 1}},
                 {"acc_type", "INT32"},
                 {"local_bound", true}},
                ir::TensorMeta(DType::Int32, {1, 6, 6, 4}), "dwconv");
  auto tw = t.constant("tc_weight", DType::Int8, {2, 3, 3, 4}, std::vector<uint8_t>(72, 2));
  auto tb = t.constant("tc_bias", DType::Int32, {2}, int32Bytes({0, 0}));
  auto tc = t.op("TRANSPOSE_CONV2D", {x, tw, tb, zp, zp},
                 {{"out_pad", ir::IntList{0, 1, 0, 1}}, {"stride", ir::IntList{2, 2}}, {"acc_type", "INT32"}},
                 ir::TensorMeta(DType::Int32, {1, 14, 14, 2}), "tconv");
  auto mp = t.op("MAX_POOL2D", {x},
                 {{"kernel", ir::IntList{3, 3}}, {"stride", ir::IntList{2, 2}}, {"pad", ir::IntList{0, 1, 0, 1}}},
                 ir::TensorMeta(DType::Int8, {1, 3, 3, 4}), "maxpool");
  std::vector<int64_t> table(256);
  for (int i = 0; i < 256; ++i) table[size_t(i)] = (i * 7) % 256 - 128;
  auto tab = t.tconst(ir::IntList(table), DType::Int8, {256}, "lut");
  auto look = t.op("TABLE", {mp, tab}, {}, ir::TensorMeta(DType::Int8, {1, 3, 3, 4}), "sigmoid_lut");
  auto sc = t.constShape({4, 2, 4, 2});
  auto off = t.constShape({0, 0});
  auto bor = t.constShape({2, 2});
  auto rs = t.op("RESIZE", {look, sc, off, bor}, {{"mode", "NEAREST_NEIGHBOR"}},
                 ir::TensorMeta(DType::Int8, {1, 6, 6, 4}), "upsample");
  t.output({d, tc, rs});

  TosaFileInfo f = roundTrip(t.g);
  const TosaBlockInfo* b = f.mainBlock();
  ASSERT_NE(b, nullptr);
  const TosaOperatorInfo& dwo = *b->operatorsOf("DEPTHWISE_CONV2D").at(0);
  EXPECT_EQ(dwo.attributeType, "DepthwiseConv2dAttribute");
  EXPECT_EQ(get<std::string>(dwo, "acc_type"), "INT32");
  EXPECT_TRUE(get<bool>(dwo, "local_bound"));
  const TosaOperatorInfo& tco = *b->operatorsOf("TRANSPOSE_CONV2D").at(0);
  EXPECT_EQ(get<std::vector<int64_t>>(tco, "out_pad"), (std::vector<int64_t>{0, 1, 0, 1}));
  EXPECT_EQ(get<std::vector<int64_t>>(tco, "stride"), (std::vector<int64_t>{2, 2}));
  const TosaOperatorInfo& mpo = *b->operatorsOf("MAX_POOL2D").at(0);
  EXPECT_EQ(get<std::vector<int64_t>>(mpo, "kernel"), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(get<std::string>(mpo, "nan_mode"), "PROPAGATE");
  EXPECT_EQ(b->tensor("lut")->ints(), table);
  const TosaOperatorInfo& ro = *b->operatorsOf("RESIZE").at(0);
  EXPECT_EQ(get<std::string>(ro, "mode"), "NEAREST");
  EXPECT_EQ(ro.inputs.size(), 4u);
  EXPECT_EQ(b->tensor("dw_bias")->ints(), (std::vector<int64_t>{1, 2, 3, 4}));
}

TEST(TosaWriter, UnsignedValuesOnlyThroughRescaleFlags) {
  TosaGraph t;
  auto x = t.input("x", DType::UInt8, {1, 4});
  auto m = t.tconst(int64_t(1 << 30), DType::Int32, {1}, "m");
  auto s = t.tconst(int64_t(30), DType::Int8, {1}, "s");
  auto izp = t.tconst(int64_t(128), DType::UInt8, {1}, "izp");
  auto ozp = t.tconst(int64_t(0), DType::Int8, {1}, "ozp");
  auto r = t.op("RESCALE", {x, m, s, izp, ozp},
                {{"scale32", true},
                 {"rounding_mode", "SINGLE_ROUND"},
                 {"per_channel", false},
                 {"input_unsigned", true}},
                ir::TensorMeta(DType::Int8, {1, 4}), "to_int8");
  t.output({r});
  TosaFileInfo f = roundTrip(t.g);
  const TosaBlockInfo* b = f.mainBlock();
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->tensor("x")->dtype, "INT8");    // uint8 storage in an int8 tensor
  EXPECT_EQ(b->tensor("izp")->data, std::vector<uint8_t>{128});
  EXPECT_TRUE(get<bool>(*b->operatorsOf("RESCALE").at(0), "input_unsigned"));

  // The same uint8 input read by ADD: no TOSA type for it.
  TosaGraph u;
  auto ux = u.input("x", DType::UInt8, {1, 4});
  auto add = u.op("ADD", {ux, ux}, {}, ir::TensorMeta(DType::UInt8, {1, 4}), "add");
  u.output({add});
  std::string e = errorOf(u.g);
  EXPECT_NE(e.find("node 'x'"), std::string::npos) << e;
  EXPECT_NE(e.find("no unsigned"), std::string::npos) << e;
}

TEST(TosaWriter, ShapeOnlyConstantsNeedDataOrExplicitSynthesis) {
  TosaGraph t;
  auto x = t.input("x", DType::Float32, {1, 4});
  auto w = t.constant("features.0.weight", DType::Float32, {1, 4}, {});  // shape-only
  auto a = t.op("ADD", {x, w}, {}, f32({1, 4}), "add");
  t.output({a});
  std::string e = errorOf(t.g);
  EXPECT_NE(e.find("constant 'features.0.weight' has no data"), std::string::npos) << e;

  TosaWriteOptions opts;
  opts.synthesizeMissingData = true;
  TosaWriteReport rep;
  TosaFileInfo f = roundTrip(t.g, &rep, opts);
  ASSERT_EQ(rep.synthesized, std::vector<std::string>{"features.0.weight"});
  const TosaTensorInfo* wt = f.mainBlock()->tensor("features.0.weight");
  ASSERT_NE(wt, nullptr);
  ASSERT_EQ(wt->floats().size(), 4u);
  // The synthesised values are deterministic: a second write gives the same bytes.
  TosaFileInfo f2 = roundTrip(t.g, nullptr, opts);
  EXPECT_EQ(f2.mainBlock()->tensor("features.0.weight")->data, wt->data);
  bool anyNonZero = false;
  for (float v : wt->floats()) anyNonZero |= v != 0.0f;
  EXPECT_TRUE(anyNonZero);
}

TEST(TosaWriter, DeadConstantsAreNotWritten) {
  TosaGraph t;
  auto x = t.input("x", DType::Float32, {2});
  t.floats("unused", {2}, {1.0f, 2.0f});
  auto e = t.op("EXP", {x}, {}, f32({2}), "exp");
  t.output({e});
  TosaFileInfo f = roundTrip(t.g);
  EXPECT_EQ(f.mainBlock()->tensor("unused"), nullptr);
  EXPECT_EQ(opNames(*f.mainBlock()), std::vector<std::string>{"EXP"});
}

// ---------------------------------------------------------------- writer errors

TEST(TosaWriter, NonTosaOpsAreAllListed) {
  TosaGraph t;
  auto x = t.input("x", DType::Float32, {2});
  ir::Node relu;
  relu.kind = ir::NodeKind::Call;
  relu.name = "relu_1";
  relu.target = "aten.relu.default";
  relu.op = ir::internOp(relu.target);
  relu.args = {x};
  relu.outputs = {f32({2})};
  auto r = ir::ValueRef{t.g.append(relu), 0};
  ir::Node sig = relu;
  sig.id = ir::kInvalidNode;
  sig.name = "sigmoid_2";
  sig.target = "aten.sigmoid.default";
  sig.op = ir::internOp(sig.target);
  sig.args = {r};
  auto s = ir::ValueRef{t.g.append(sig), 0};
  auto e = t.op("EXP", {s}, {}, f32({2}), "exp");
  t.output({e});
  EXPECT_EQ(nonTosaNodes(t.g), (std::vector<std::string>{"relu_1 (aten.relu.default)", "sigmoid_2 (aten.sigmoid.default)"}));
  std::string err = errorOf(t.g);
  EXPECT_NE(err.find("not pure TOSA: 2 node(s)"), std::string::npos) << err;
  EXPECT_NE(err.find("relu_1 (aten.relu.default)"), std::string::npos) << err;
  EXPECT_NE(err.find("sigmoid_2 (aten.sigmoid.default)"), std::string::npos) << err;
}

TEST(TosaWriter, BadNodesGiveErrorsNamingNodeAndExpectation) {
  struct Case {
    const char* what;
    std::function<void(TosaGraph&, ir::ValueRef)> build;
    std::vector<std::string> expect;
  };
  auto convArgs = [](TosaGraph& t, ir::ValueRef x) {
    auto w = t.floats("w", {1, 1, 1, 2}, {1.0f, 2.0f});
    auto bi = t.floats("b", {1}, {0.0f});
    auto zp = t.tconst(0.0, DType::Float32, {1}, "zp");
    return std::vector<ir::Arg>{x, w, bi, zp, zp};
  };
  std::vector<Case> cases = {
      {"missing acc_type",
       [&](TosaGraph& t, ir::ValueRef x) {
         t.output({t.op("CONV2D", convArgs(t, x),
                        {{"pad", ir::IntList{0, 0, 0, 0}}, {"stride", ir::IntList{1, 1}}, {"dilation", ir::IntList{1, 1}}},
                        f32({1, 2, 2, 1}), "conv")});
       },
       {"node 'conv' (tosa.CONV2D)", "missing attribute 'acc_type'", "\"FP32\""}},
      {"bad acc_type",
       [&](TosaGraph& t, ir::ValueRef x) {
         t.output({t.op("CONV2D", convArgs(t, x),
                        {{"pad", ir::IntList{0, 0, 0, 0}},
                         {"stride", ir::IntList{1, 1}},
                         {"dilation", ir::IntList{1, 1}},
                         {"acc_type", "FLOAT64"}},
                        f32({1, 2, 2, 1}), "conv")});
       },
       {"node 'conv'", "'acc_type' is \"FLOAT64\""}},
      {"pad of wrong length",
       [&](TosaGraph& t, ir::ValueRef x) {
         t.output({t.op("CONV2D", convArgs(t, x),
                        {{"pad", ir::IntList{0, 0}},
                         {"stride", ir::IntList{1, 1}},
                         {"dilation", ir::IntList{1, 1}},
                         {"acc_type", "FP32"}},
                        f32({1, 2, 2, 1}), "conv")});
       },
       {"node 'conv'", "'pad' must have 4 elements, got 2"}},
      {"too few inputs",
       [&](TosaGraph& t, ir::ValueRef x) {
         auto w = t.floats("w", {1, 1, 1, 2}, {1.0f, 2.0f});
         t.output({t.op("CONV2D", {x, w},
                        {{"pad", ir::IntList{0, 0, 0, 0}},
                         {"stride", ir::IntList{1, 1}},
                         {"dilation", ir::IntList{1, 1}},
                         {"acc_type", "FP32"}},
                        f32({1, 2, 2, 1}), "conv")});
       },
       {"node 'conv'", "expected 5 input(s) (input, weight, bias, input_zp, weight_zp), got 2"}},
      {"unknown attribute",
       [&](TosaGraph& t, ir::ValueRef x) {
         t.output({t.op("TRANSPOSE", {x}, {{"perm", ir::IntList{0, 1, 2, 3}}}, f32({1, 2, 2, 2}), "tr")});
       },
       {"node 'tr' (tosa.TRANSPOSE)", "unexpected attribute 'perm'", "perms"}},
      {"reshape shape is a tensor",
       [&](TosaGraph& t, ir::ValueRef x) {
         auto s = t.tconst(ir::IntList{1, 8}, DType::Int32, {2}, "not_a_shape");
         t.output({t.op("RESHAPE", {x, s}, {}, f32({1, 8}), "rs")});
       },
       {"node 'rs' (tosa.RESHAPE)", "input 1 ('shape')", "tosa.CONST_SHAPE"}},
      {"shape used as tensor",
       [&](TosaGraph& t, ir::ValueRef x) {
         auto s = t.constShape({1, 2, 2, 2}, "shp");
         t.output({t.op("ADD", {x, s}, {}, f32({1, 2, 2, 2}), "add")});
       },
       {"node 'add' (tosa.ADD)", "must be a tensor", "'shp'"}},
      {"int64 output",
       [&](TosaGraph& t, ir::ValueRef x) {
         t.output({t.op("ARGMAX", {x}, {{"axis", int64_t(3)}}, ir::TensorMeta(DType::Int64, {1, 2, 2}), "am")});
       },
       {"node 'am' (tosa.ARGMAX)", "dtype int64", "cannot represent"}},
      {"unsupported operator",
       [&](TosaGraph& t, ir::ValueRef x) { t.output({t.op("WHILE_LOOP", {x}, {}, f32({1, 2, 2, 2}), "loop")}); },
       {"node 'loop' (tosa.WHILE_LOOP)", "not supported"}},
      {"not a TOSA operator",
       [&](TosaGraph& t, ir::ValueRef x) { t.output({t.op("RELU", {x}, {}, f32({1, 2, 2, 2}), "relu")}); },
       {"node 'relu' (tosa.RELU)", "'RELU' is not a TOSA 1.0 operator"}},
      {"CONST values count",
       [&](TosaGraph& t, ir::ValueRef x) {
         auto c = t.tconst(ir::FloatList{1.0, 2.0}, DType::Float32, {1, 2, 2, 2}, "c");
         t.output({t.op("ADD", {x, c}, {}, f32({1, 2, 2, 2}), "add")});
       },
       {"node 'c' (tosa.CONST)", "2 element(s)", "has 8"}},
      {"CONST dtype kwarg disagrees with metadata",
       [&](TosaGraph& t, ir::ValueRef x) {
         auto c = t.op("CONST", {},
                       {{"values", ir::IntList{1}},
                        {"shape", ir::IntList{1}},
                        {"dtype", ir::EnumArg{ir::EnumKind::DType, int32_t(DType::Int32)}}},
                       ir::TensorMeta(DType::Int8, {1}), "c");
         t.output({x, c});
       },
       {"node 'c' (tosa.CONST)", "attribute 'dtype' is int32 but the output metadata says int8"}},
      {"CONST shape kwarg disagrees with metadata",
       [&](TosaGraph& t, ir::ValueRef x) {
         auto c = t.op("CONST", {}, {{"values", ir::IntList{1, 2}}, {"shape", ir::IntList{2, 1}}},
                       ir::TensorMeta(DType::Int8, {1, 2}), "c");
         t.output({x, c});
       },
       {"node 'c' (tosa.CONST)", "attribute 'shape' is [2,1] but the output metadata says [1,2]"}},
      {"CAST dtype kwarg disagrees with metadata",
       [&](TosaGraph& t, ir::ValueRef x) {
         t.output({t.op("CAST", {x}, {{"dtype", ir::EnumArg{ir::EnumKind::DType, int32_t(DType::Float16)}}},
                        ir::TensorMeta(DType::Int32, {1, 2, 2, 2}), "cast")});
       },
       {"node 'cast' (tosa.CAST)", "attribute 'dtype' is float16 but the output metadata says int32"}},
      {"CONST value out of range",
       [&](TosaGraph& t, ir::ValueRef x) {
         auto c = t.tconst(ir::IntList{300}, DType::Int8, {1}, "c");
         t.output({x, c});
       },
       {"node 'c' (tosa.CONST)", "value 300 out of range [-128, 127]"}},
      {"clamp bound not integral for int8",
       [&](TosaGraph& t, ir::ValueRef x) {
         auto q = t.tconst(ir::IntList{1}, DType::Int8, {1}, "q");
         t.output({x, t.op("CLAMP", {q}, {{"min_val", 0.5}, {"max_val", 6.0}}, ir::TensorMeta(DType::Int8, {1}), "cl")});
       },
       {"node 'cl' (tosa.CLAMP)", "'min_val'", "not an integer"}},
      {"repeated output slot",
       [&](TosaGraph& t, ir::ValueRef x) {
         auto e = t.op("EXP", {x}, {}, f32({1, 2, 2, 2}), "exp");
         t.output({e, e});
       },
       {"output slot 1 repeats", "'exp'", "EnsureUniqueOutputNodesPass"}},
      {"concat of a single ref",
       [&](TosaGraph& t, ir::ValueRef x) {
         t.output({t.op("CONCAT", {x}, {{"axis", int64_t(0)}}, f32({1, 2, 2, 2}), "cat")});
       },
       {"node 'cat' (tosa.CONCAT)", "non-empty list of value references, got a value reference"}},
      // TOSA 1.0 shape rules (ERROR_IF conditions), checked against the node's metadata.
      {"conv output size not an exact division",
       [&](TosaGraph& t, ir::ValueRef x) {
         t.output({t.op("CONV2D", convArgs(t, x),
                        {{"pad", ir::IntList{0, 0, 0, 0}},
                         {"stride", ir::IntList{2, 2}},
                         {"dilation", ir::IntList{1, 1}},
                         {"acc_type", "FP32"}},
                        f32({1, 1, 1, 1}), "conv")});
       },
       {"node 'conv'", "1 is not a multiple of the stride 2", "adjust_pad_if_needed"}},
      {"conv output shape wrong",
       [&](TosaGraph& t, ir::ValueRef x) {
         t.output({t.op("CONV2D", convArgs(t, x),
                        {{"pad", ir::IntList{0, 0, 0, 0}},
                         {"stride", ir::IntList{1, 1}},
                         {"dilation", ir::IntList{1, 1}},
                         {"acc_type", "FP32"}},
                        f32({1, 2, 2, 2}), "conv")});
       },
       {"node 'conv'", "output shape [1,2,2,2] breaks the TOSA 1.0 shape rule: expected [1,2,2,1]"}},
      {"pool output size not an exact division",
       [&](TosaGraph& t, ir::ValueRef x) {
         auto zp = t.tconst(0.0, DType::Float32, {1}, "zp");
         t.output({t.op("AVG_POOL2D", {x, zp, zp},
                        {{"kernel", ir::IntList{1, 1}},
                         {"stride", ir::IntList{2, 2}},
                         {"pad", ir::IntList{0, 0, 0, 0}},
                         {"acc_type", "FP32"}},
                        f32({1, 1, 1, 2}), "pool")});
       },
       {"node 'pool' (tosa.AVG_POOL2D)", "(IH + pad_top + pad_bottom - kernel_y) 1 is not a multiple of the stride 2"}},
      {"reshape operand differs from output",
       [&](TosaGraph& t, ir::ValueRef x) {
         auto s = t.constShape({2, 4}, "shp");
         t.output({t.op("RESHAPE", {x, s}, {}, f32({4, 2}), "rs")});
       },
       {"node 'rs' (tosa.RESHAPE)", "the shape operand [2,4] differs from the output shape [4,2]"}},
      {"transpose perms not a permutation",
       [&](TosaGraph& t, ir::ValueRef x) {
         t.output({t.op("TRANSPOSE", {x}, {{"perms", ir::IntList{0, 1, 1, 3}}}, f32({1, 2, 2, 2}), "tr")});
       },
       {"node 'tr' (tosa.TRANSPOSE)", "perms [0,1,1,3] is not a permutation of 0..3"}},
      {"binary operand of lower rank",
       [&](TosaGraph& t, ir::ValueRef x) {
         auto c = t.tconst(ir::FloatList{1.0, 2.0}, DType::Float32, {2}, "c");
         t.output({t.op("ADD", {x, c}, {}, f32({1, 2, 2, 2}), "add")});
       },
       {"node 'add' (tosa.ADD)", "operand 1 has shape [2], which does not broadcast to the output [1,2,2,2]"}},
      {"concat shapes disagree",
       [&](TosaGraph& t, ir::ValueRef x) {
         auto y = t.input("y", DType::Float32, {1, 3, 2, 2});
         t.output({t.op("CONCAT", {ir::RefList{x, y}}, {{"axis", int64_t(3)}}, f32({1, 2, 2, 4}), "cat")});
       },
       {"node 'cat' (tosa.CONCAT)", "input 1 has shape [1,3,2,2], which does not match [1,2,2,2] outside axis 3"}},
      {"slice out of bounds",
       [&](TosaGraph& t, ir::ValueRef x) {
         auto st = t.constShape({0, 1, 0, 0}, "start");
         auto sz = t.constShape({1, 2, 2, 2}, "size");
         t.output({t.op("SLICE", {x, st, sz}, {}, f32({1, 2, 2, 2}), "sl")});
       },
       {"node 'sl' (tosa.SLICE)", "out of bounds of input [1,2,2,2] at dimension 1"}},
      {"per-channel rescale with one multiplier",
       [&](TosaGraph& t, ir::ValueRef x) {
         auto m = t.tconst(int64_t(1 << 30), DType::Int32, {1}, "m");
         auto sh = t.tconst(int64_t(30), DType::Int8, {1}, "s");
         auto zp = t.tconst(int64_t(0), DType::Int32, {1}, "zp32");
         auto q = t.tconst(ir::IntList{1, 2, 3, 4, 5, 6, 7, 8}, DType::Int32, {1, 2, 2, 2}, "q");
         t.output({x, t.op("RESCALE", {q, m, sh, zp, zp},
                           {{"scale32", true}, {"rounding_mode", "SINGLE_ROUND"}, {"per_channel", true}},
                           ir::TensorMeta(DType::Int32, {1, 2, 2, 2}), "rs")});
       },
       {"node 'rs' (tosa.RESCALE)", "multiplier has shape [1], expected 2 element(s)"}},
      {"zero point with several elements",
       [&](TosaGraph& t, ir::ValueRef x) {
         auto zp = t.tconst(ir::FloatList{0.0, 0.0}, DType::Float32, {2}, "zp2");
         t.output({t.op("AVG_POOL2D", {x, zp, zp},
                        {{"kernel", ir::IntList{1, 1}},
                         {"stride", ir::IntList{1, 1}},
                         {"pad", ir::IntList{0, 0, 0, 0}},
                         {"acc_type", "FP32"}},
                        f32({1, 2, 2, 2}), "pool")});
       },
       {"node 'pool' (tosa.AVG_POOL2D)", "input 1 ('input_zp') has shape [2], expected one element"}},
      {"reduce axis out of range",
       [&](TosaGraph& t, ir::ValueRef x) {
         t.output({t.op("REDUCE_SUM", {x}, {{"axis", int64_t(-1)}}, f32({1, 2, 2, 1}), "sum")});
       },
       {"node 'sum' (tosa.REDUCE_SUM)", "axis -1 out of range for rank 4"}},
  };
  for (const Case& c : cases) {
    TosaGraph t;
    auto x = t.input("x", DType::Float32, {1, 2, 2, 2});
    c.build(t, x);
    std::string e = errorOf(t.g);
    for (const std::string& s : c.expect) EXPECT_NE(e.find(s), std::string::npos) << c.what << ": " << e;
  }
}

// ---------------------------------------------------------------- one source of truth

TEST(TosaWriter, MetadataThatDisagreesWithTheRegistrysInferenceIsAnErrorAndNoFileIsWritten) {
  // Shape: EXP keeps its input's shape; the node claims another.
  TosaGraph t;
  auto x = t.input("x", DType::Float32, {2, 3});
  t.output({t.op("EXP", {x}, {}, f32({3, 2}), "e")});
  std::string e = errorOf(t.g);
  for (const char* want : {"node 'e' (tosa.EXP)", "output shape [3,2] breaks the TOSA 1.0 shape rule: expected [2,3]",
                           "recorded metadata f32[3,2]", "inference f32[2,3]"})
    EXPECT_NE(e.find(want), std::string::npos) << want << " in " << e;

  // Dtype: GREATER gives bool; the node claims float.
  TosaGraph d;
  auto a = d.input("a", DType::Float32, {4});
  auto b = d.input("b", DType::Float32, {4});
  d.output({d.op("GREATER", {a, b}, {}, f32({4}), "gt")});
  std::string de = errorOf(d.g);
  for (const char* want : {"node 'gt' (tosa.GREATER)", "output dtype float32", "expected bool", "recorded metadata f32[4]",
                           "inference bool[4]"})
    EXPECT_NE(de.find(want), std::string::npos) << want << " in " << de;

  // saveTosa writes nothing.
  fsys::path p = tmpDir() / "disagree.tosa";
  fsys::remove(p);
  Status st = saveTosa(t.g, p.string());
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("node 'e' (tosa.EXP)"), std::string::npos) << st.message();
  EXPECT_FALSE(fsys::exists(p));
}

/// A meta function for the test op below: the input's metadata.
Status sameAsInputMeta(ops::MetaCtx& c) {
  auto m = c.tensor(0);
  if (!m) return m.status();
  c.out.push_back(**m);
  return Status::ok();
}

TEST(TosaWriter, RegisteredOpWithoutASerializationDescriptorIsRejected) {
  // A real TOSA 1.0 operator registered outside the TOSA op table (so without its
  // serialization facts): the writer refuses it by name instead of guessing an encoding.
  auto schema = ops::parseSchema("tosa::VARIABLE_READ(Tensor input1) -> Tensor", sameAsInputMeta);
  ASSERT_TRUE(schema.isOk()) << schema.message();
  schema->name = "tosa.VARIABLE_READ";  // the TOSA contract: no overload suffix
  schema->id = ir::internOp(schema->name);
  ops::OpRegistry::instance().add(std::move(schema).value());
  ASSERT_NE(ops::OpRegistry::instance().find("tosa.VARIABLE_READ"), nullptr);
  EXPECT_EQ(arm::tosaSerialization(ir::internOp("tosa.VARIABLE_READ")), nullptr);
  TosaGraph t;
  auto x = t.input("x", DType::Float32, {2});
  t.output({t.op("VARIABLE_READ", {x}, {}, f32({2}), "vr")});
  std::string e = errorOf(t.g);
  EXPECT_NE(e.find("node 'vr' (tosa.VARIABLE_READ)"), std::string::npos) << e;
  EXPECT_NE(e.find("no serialization descriptor"), std::string::npos) << e;
  EXPECT_NE(e.find("core/backends/arm/tosa/tosa_ops.cpp"), std::string::npos) << e;
}

TEST(TosaWriter, EveryRegisteredTosaOpHasAConsistentSerializationDescriptor) {
  // The core ops plus the TOSA dialect in a fresh registry (tests may register extra ops in
  // the process-wide one).
  ops::OpRegistry r;
  ops::registerCoreOps(r);
  arm::registerTosaOps(r);
  const char* const* opNames = tosa::EnumNamesOp();
  size_t tosaOps = 0;
  for (const ops::OpSchema* s : r.all()) {
    if (s->name.rfind("tosa.", 0) != 0) continue;
    ++tosaOps;
    const arm::TosaSerialization* d = arm::tosaSerialization(s->id);
    ASSERT_NE(d, nullptr) << s->name << " has no serialization descriptor";
    EXPECT_TRUE(arm::isTosaOp(s->id)) << s->name;
    EXPECT_EQ("tosa." + d->specName, s->name);
    bool known = false;
    for (int i = int(tosa::Op::MIN) + 1; i <= int(tosa::Op::MAX); ++i) known |= d->specName == opNames[i];
    EXPECT_TRUE(known) << s->name << " is not a TOSA 1.0 operator of the schema";
    EXPECT_EQ(s->numOutputs, 1) << s->name;
    for (const std::string& f : d->fields) {
      int i = s->argIndex(f);
      ASSERT_GE(i, 0) << s->name << ": attribute field '" << f << "' is not in the schema";
      const ops::ArgSpec& a = s->args[size_t(i)];
      EXPECT_TRUE(a.kwargOnly) << s->name << " " << f;
      EXPECT_TRUE(a.type == ops::ArgType::IntList || a.type == ops::ArgType::Int || a.type == ops::ArgType::Bool ||
                  a.type == ops::ArgType::String || a.type == ops::ArgType::Float)
          << s->name << " " << f << ": no TOSA encoding for " << ops::argTypeName(a.type);
    }
    for (const std::string& in : d->shapeInputs) {
      int i = s->argIndex(in);
      ASSERT_GE(i, 0) << s->name << ": shape input '" << in << "' is not in the schema";
      EXPECT_FALSE(s->args[size_t(i)].kwargOnly) << s->name << " " << in;
      EXPECT_EQ(s->args[size_t(i)].type, ops::ArgType::Tensor) << s->name << " " << in;
    }
    for (const std::string& k : d->metadataCopies) {
      int i = s->argIndex(k);
      ASSERT_GE(i, 0) << s->name << ": metadata copy '" << k << "' is not in the schema";
      EXPECT_TRUE(k == "shape" || k == "dtype") << s->name << " " << k;
    }
  }
  EXPECT_GE(tosaOps, 60u);
  // And the other way round: no descriptor without a registered op.
  for (const char* name : {"tosa.RELU", "tosa.aten", "aten.add.Tensor"})
    EXPECT_EQ(arm::tosaSerialization(ir::internOp(name)), nullptr) << name;
}

// ---------------------------------------------------------------- files, reader errors

TEST(TosaWriter, SaveIsAtomicAndFailureLeavesOldFile) {
  fsys::path dir = tmpDir();
  fsys::path p = dir / "g.tosa";
  TosaGraph t = floatGraph();
  ASSERT_TRUE(saveTosa(t.g, p.string()).isOk());
  auto first = readFile(p.string());
  ASSERT_TRUE(first.isOk());
  auto info = readTosa(p.string());
  ASSERT_TRUE(info.isOk()) << info.message();

  // A graph that cannot be written leaves the previous file as it was, and no temp files.
  TosaGraph bad;
  auto x = bad.input("x", DType::Float32, {2});
  bad.output({bad.op("NOT_AN_OP", {x}, {}, f32({2}), "n")});
  Status st = saveTosa(bad.g, p.string());
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find(p.string()), std::string::npos) << st.message();
  EXPECT_EQ(readFile(p.string()).value(), first.value());
  size_t files = 0;
  for (auto& e : fsys::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, 1u);

  Status missing = saveTosa(t.g, (dir / "no_such_dir" / "g.tosa").string());
  EXPECT_FALSE(missing.isOk());
  fsys::remove_all(dir);
}

TEST(TosaReader, RejectsEmptyForeignAndCorruptInput) {
  auto r0 = readTosaBytes("", "a.tosa");
  ASSERT_FALSE(r0.isOk());
  EXPECT_NE(r0.message().find("a.tosa: empty file"), std::string::npos) << r0.message();
  auto r1 = readTosaBytes("abc", "a.tosa");
  EXPECT_NE(r1.message().find("too short"), std::string::npos) << r1.message();
  std::string lsgLike = std::string("\x10\x00\x00\x00LSG1", 8) + std::string(32, '\0');
  auto r2 = readTosaBytes(lsgLike, "a.tosa");
  EXPECT_NE(r2.message().find("not a TOSA file (file identifier 'LSG1'"), std::string::npos) << r2.message();

  TosaGraph t = floatGraph();
  auto bytes = serializeTosa(t.g);
  ASSERT_TRUE(bytes.isOk());
  std::string trunc = bytes->substr(0, bytes->size() / 2);
  auto r3 = readTosaBytes(trunc, "t.tosa");
  ASSERT_FALSE(r3.isOk());
  EXPECT_NE(r3.message().find("t.tosa: corrupt TOSA flatbuffer"), std::string::npos) << r3.message();
  auto missing = readTosa("/nonexistent/dir/x.tosa");
  EXPECT_FALSE(missing.isOk());
}

TEST(TosaReader, EverySingleByteCorruptionIsHandledWithoutCrashing) {
  // Small file, every byte flipped in turn: decoding either succeeds or fails with a message.
  TosaGraph t = intGraph();
  auto bytes = serializeTosa(t.g);
  ASSERT_TRUE(bytes.isOk());
  size_t rejected = 0;
  for (size_t i = 0; i < bytes->size(); ++i) {
    std::string b = *bytes;
    b[i] = char(b[i] ^ 0x5a);
    auto r = readTosaBytes(b, "f.tosa");
    if (!r) {
      ++rejected;
      EXPECT_EQ(r.message().rfind("f.tosa: ", 0), 0u) << r.message();
    }
  }
  EXPECT_GT(rejected, bytes->size() / 4);  // most offsets, type tags and names are checked
}

/// Hand-assembles a one-block TOSA file with the generated builder API: `ops` as (op,
/// attribute type, inputs, outputs), tensors named in `tensors` (FP32 [2], no data).
std::string assemble(const std::vector<std::tuple<tosa::Op, tosa::Attribute, std::vector<std::string>,
                                                  std::vector<std::string>>>& ops,
                     const std::vector<std::string>& tensors, const std::vector<std::string>& inputs,
                     const std::vector<std::string>& outputs) {
  flatbuffers::FlatBufferBuilder b;
  auto strs = [&](const std::vector<std::string>& v) {
    std::vector<flatbuffers::Offset<flatbuffers::String>> o;
    for (auto& s : v) o.push_back(b.CreateString(s));
    return o;
  };
  std::vector<flatbuffers::Offset<tosa::TosaTensor>> ts;
  std::vector<int32_t> shape{2};
  for (auto& n : tensors) ts.push_back(tosa::CreateTosaTensorDirect(b, n.c_str(), &shape, tosa::DType::FP32));
  std::vector<flatbuffers::Offset<tosa::TosaOperator>> os;
  for (auto& [op, at, ins, outs] : ops) {
    auto i = strs(ins), o = strs(outs);
    flatbuffers::Offset<void> attr = at == tosa::Attribute::NONE ? 0 : tosa::CreateExpAttribute(b).Union();
    os.push_back(tosa::CreateTosaOperatorDirect(b, op, at, attr, &i, &o));
  }
  auto bi = strs(inputs), bo = strs(outputs);
  auto blk = tosa::CreateTosaBasicBlockDirect(b, "main", &os, &ts, &bi, &bo);
  std::vector<flatbuffers::Offset<tosa::TosaBasicBlock>> blocks{blk};
  auto reg = tosa::CreateTosaRegionDirect(b, "main", &blocks);
  std::vector<flatbuffers::Offset<tosa::TosaRegion>> regs{reg};
  auto root = tosa::CreateTosaGraphDirect(b, tosa::CreateVersion(b, 1, 0, 0, false), &regs);
  tosa::FinishTosaGraphBuffer(b, root);
  return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
}

TEST(TosaReader, ValidatorCatchesStructuralErrors) {
  using tosa::Attribute;
  using tosa::Op;
  // A valid file first, so the failures below are due to the one thing changed.
  auto ok = readTosaBytes(assemble({{Op::EXP, Attribute::ExpAttribute, {"x"}, {"y"}}}, {"x", "y"}, {"x"}, {"y"}),
                          "v.tosa");
  ASSERT_TRUE(ok.isOk()) << ok.message();
  EXPECT_EQ(ok->mainBlock()->operators.at(0).op, "EXP");

  struct Case {
    std::string bytes;
    std::string expect;
  };
  std::vector<Case> cases = {
      {assemble({{Op::EXP, Attribute::ExpAttribute, {"z"}, {"y"}}}, {"x", "y"}, {"x"}, {"y"}),
       "operator #0 (EXP): input 0 'z' is not a tensor of the block"},
      {assemble({{Op::EXP, Attribute::ExpAttribute, {"y"}, {"x"}}}, {"x", "y"}, {"x"}, {"x"}),
       "input 0 'y' is read before any operator produces it"},
      {assemble({{Op::LOG, Attribute::ExpAttribute, {"x"}, {"y"}}}, {"x", "y"}, {"x"}, {"y"}),
       "operator #0 (LOG) carries a ExpAttribute (the attribute of EXP), expected LogAttribute"},
      {assemble({{Op::EXP, Attribute::ExpAttribute, {"x"}, {"y"}}, {Op::EXP, Attribute::ExpAttribute, {"x"}, {"y"}}},
                {"x", "y"}, {"x"}, {"y"}),
       "operator #1 (EXP): output 0 'y' is already produced"},
      {assemble({{Op::EXP, Attribute::ExpAttribute, {"x"}, {"y"}}}, {"x", "y", "y"}, {"x"}, {"y"}),
       "tensor name 'y' is used twice"},
      {assemble({{Op::EXP, Attribute::ExpAttribute, {"x"}, {"y"}}}, {"x", "y", "w"}, {"x"}, {"w"}),
       "block output 'w' is never produced"},
      // Op 0 is UNKNOWN in every TOSA version; an op number past 1.0's last one is a newer
      // operator, read with a warning (TosaImport.NewerVersionsFieldsAndOpsAreWarningsNotFailures).
      {assemble({{Op(0), Attribute::NONE, {"x"}, {"y"}}}, {"x", "y"}, {"x"}, {"y"}), "invalid op 0"},
      {assemble({{Op::CONST, Attribute::NONE, {}, {"y"}}}, {"x", "y"}, {"x"}, {"y"}),
       "operator #0 (CONST): constant tensor 'y' has no data"},
  };
  for (const Case& c : cases) {
    auto r = readTosaBytes(c.bytes, "bad.tosa");
    ASSERT_FALSE(r.isOk()) << c.expect;
    EXPECT_NE(r.message().find(c.expect), std::string::npos) << r.message();
    EXPECT_EQ(r.message().rfind("bad.tosa: region 'main' block 'main'", 0), 0u) << r.message();
  }
}

// ---------------------------------------------------------------- flatc with our schema

struct Proc {
  int code = -1;
  std::string out;
};

Proc sh(const std::string& cmd) {
  Proc r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string stripSpace(const std::string& s) {
  std::string o;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) o += c;
  return o;
}

TEST(TosaFlatc, SchemaParsesWrittenFileAndJsonShowsOpsAndAttributes) {
  if (sh("command -v flatc").code != 0) GTEST_SKIP() << "flatc not installed (Debian: flatbuffers-compiler)";
  std::string schema = std::string(LS_TESTS_DIR) + "/../core/backends/arm/tosa/schema/tosa.fbs";
  ASSERT_TRUE(fsys::exists(schema)) << schema;
  fsys::path dir = tmpDir() / "flatc";
  fsys::create_directories(dir);

  TosaGraph t = floatGraph();
  fsys::path file = dir / "float.tosa";
  ASSERT_TRUE(saveTosa(t.g, file.string()).isOk());
  Proc p = sh("flatc --json --strict-json --raw-binary -o " + dir.string() + " " + schema + " -- " + file.string());
  ASSERT_EQ(p.code, 0) << p.out;
  auto json = readFile((dir / "float.json").string());
  ASSERT_TRUE(json.isOk()) << json.message();
  std::string j = stripSpace(*json);
  for (const char* want :
       {"\"version\":{\"_major\":1,\"_minor\":0,\"_patch\":0,\"_draft\":false}", "\"name\":\"main\"",
        "\"op\":\"TRANSPOSE\",\"attribute_type\":\"TransposeAttribute\",\"attribute\":{\"perms\":[0,2,3,1]}",
        "\"op\":\"CONV2D\",\"attribute_type\":\"Conv2dAttribute\"",
        "\"pad\":[1,0,2,1],\"stride\":[2,2],\"dilation\":[1,2],\"acc_type\":\"FP32\"",
        "\"inputs\":[\"to_nhwc\",\"conv_weight\",\"conv_bias\",\"conv_input_zp\",\"conv_weight_zp\"]",
        "\"op\":\"CLAMP\",\"attribute_type\":\"ClampAttribute\",\"attribute\":{\"min_val\":[0,0,0,0],"
        "\"max_val\":[0,0,192,64],\"nan_mode\":\"PROPAGATE\"}",
        "\"op\":\"AVG_POOL2D\"", "\"kernel\":[2,2]", "\"op\":\"CONST_SHAPE\"",
        "\"name\":\"flat_shape\",\"shape\":[3],\"type\":\"SHAPE\",\"data\":[1,0,0,0,0,0,0,0,1,0,0,0,0,0,0,0,16,0,0,0,0,0,0,0]",
        "\"op\":\"RESHAPE\",\"attribute_type\":\"ReshapeAttribute\"", "\"op\":\"MATMUL\"",
        "\"op\":\"CONCAT\",\"attribute_type\":\"ConcatAttribute\",\"attribute\":{\"axis\":2}",
        "\"name\":\"x\",\"shape\":[1,3,8,8],\"type\":\"FP32\"", "\"inputs\":[\"x\"],\"outputs\":[\"cat\"]"})
    EXPECT_NE(j.find(want), std::string::npos) << "missing " << want << "\nin " << j.substr(0, 4000);

  // The integer graph: RESCALE attributes and int8/int32 constants.
  TosaGraph ti = intGraph();
  fsys::path ifile = dir / "int.tosa";
  ASSERT_TRUE(saveTosa(ti.g, ifile.string()).isOk());
  Proc pi = sh("flatc --json --strict-json --raw-binary -o " + dir.string() + " " + schema + " -- " + ifile.string());
  ASSERT_EQ(pi.code, 0) << pi.out;
  std::string ji = stripSpace(readFile((dir / "int.json").string()).value());
  for (const char* want :
       {"\"op\":\"RESCALE\",\"attribute_type\":\"RescaleAttribute\",\"attribute\":{\"scale32\":true,"
        "\"rounding_mode\":\"DOUBLE_ROUND\",\"per_channel\":true}",
        "\"rounding_mode\":\"SINGLE_ROUND\"", "\"name\":\"rs_shift\",\"shape\":[3],\"type\":\"INT8\",\"data\":[30,31,32]",
        "\"name\":\"rs_izp\",\"shape\":[1],\"type\":\"INT8\",\"data\":[253]",
        "\"name\":\"rs_multiplier\",\"shape\":[3],\"type\":\"INT32\",\"data\":[0,0,0,64,",
        "\"op\":\"MUL\",\"attribute_type\":\"MulAttribute\""})
    EXPECT_NE(ji.find(want), std::string::npos) << "missing " << want << "\nin " << ji.substr(0, 4000);

  // With the official schema (path in LS_TOSA_OFFICIAL_FBS, e.g. serialization_lib's
  // schema/tosa.fbs of the 1.0 release): flatc must print exactly the same JSON.
  if (const char* official = std::getenv("LS_TOSA_OFFICIAL_FBS"); official && *official) {
    for (const char* stem : {"float", "int"}) {
      fsys::path od = dir / "official";
      fsys::create_directories(od);
      Proc po = sh("flatc --json --strict-json --raw-binary -o " + od.string() + " " + official + " -- " +
                   (dir / (std::string(stem) + ".tosa")).string());
      ASSERT_EQ(po.code, 0) << po.out;
      EXPECT_EQ(stripSpace(readFile((od / (std::string(stem) + ".json")).string()).value()),
                stripSpace(readFile((dir / (std::string(stem) + ".json")).string()).value()))
          << stem;
    }
  }

  // flatc refuses a damaged file with our schema too.
  std::string damaged = readFile(file.string()).value().substr(0, 40);
  ASSERT_TRUE(writeFileAtomic((dir / "bad.tosa").string(), damaged).isOk());
  Proc pb = sh("flatc --json --strict-json --raw-binary -o " + dir.string() + " " + schema + " -- " +
               (dir / "bad.tosa").string());
  EXPECT_NE(pb.code, 0) << pb.out;
  fsys::remove_all(dir.parent_path());
}

// ---------------------------------------------------------------- real graphs

/// Every real graph lowered with the `tosa` pipeline exports to a TOSA file that verifies
/// and decodes, with one operator per written node and the graph's inputs and outputs.
/// Skipped in a build without the Arm backend (the pipeline is registered there).
class TosaRealGraph : public ::testing::TestWithParam<std::pair<std::string, passes::Profile>> {};

TEST_P(TosaRealGraph, LowersToPureTosaAndExports) {
  auto pmr = passes::PassManager::fromPipeline("tosa");
  if (!pmr) GTEST_SKIP() << "no 'tosa' pipeline in this build: " << pmr.message();
  auto [model, profile] = GetParam();
  auto loaded = loadGraphFile(std::string(LS_ASSETS_DIR) + "/graphs/" + model + ".fxjson.json");
  ASSERT_TRUE(loaded.isOk()) << loaded.message();
  ir::Graph g = std::move(loaded).value();
  size_t inputs = g.signature().userInputs.size(), outputs = g.signature().outputs.size();
  passes::PassManager pm = std::move(pmr).value();
  passes::PassContext ctx;
  ctx.profile = profile;
  ops::InferenceCache cache;
  ctx.cache = &cache;
  passes::RunResult res = pm.run(g, ctx);
  ASSERT_LT(res.failedIndex, 0) << res.failure;
  std::vector<std::string> bad = nonTosaNodes(g);
  EXPECT_TRUE(bad.empty()) << bad.size() << " non-TOSA nodes, first: " << bad.front();

  TosaWriteOptions opts;
  opts.synthesizeMissingData = true;
  TosaWriteReport rep;
  auto bytes = serializeTosa(g, opts, &rep);
  ASSERT_TRUE(bytes.isOk()) << bytes.message();
  auto info = readTosaBytes(*bytes, model + ".tosa");
  ASSERT_TRUE(info.isOk()) << info.message();
  const TosaBlockInfo* b = info->mainBlock();
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->operators.size(), rep.operators);
  EXPECT_EQ(b->inputs.size(), inputs);
  EXPECT_EQ(b->outputs.size(), outputs);
  size_t calls = 0, constants = 0;
  for (const ir::NodePtr& p : g.nodes()) {
    calls += p->isCall();
    const ir::Constant* c = p->kind == ir::NodeKind::Call ? nullptr : g.constant(p->target);
    bool isConst = p->kind == ir::NodeKind::GetAttr || (p->kind == ir::NodeKind::Placeholder && c && c->hasData());
    constants += isConst && !g.users(p->id).empty();
  }
  EXPECT_EQ(b->operators.size(), calls + constants);
  // Every tensor an operator writes has the shape the graph's metadata gives its node.
  for (const TosaOperatorInfo& o : b->operators) {
    ir::NodeId id = g.findByName(o.outputs.at(0));
    ASSERT_NE(id, ir::kInvalidNode) << o.outputs[0];
    const TosaTensorInfo* t = b->tensor(o.outputs[0]);
    ASSERT_NE(t, nullptr);
    if (o.op != "CONST_SHAPE") {
      EXPECT_EQ(t->shape, g.node(id).meta().shape.toVector()) << o.outputs[0];
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Models, TosaRealGraph,
    ::testing::Values(std::pair{std::string("mobilenet_v2"), passes::Profile::FP},
                      std::pair{std::string("mobilenet_v2"), passes::Profile::INT},
                      std::pair{std::string("mobilenet_v3_small"), passes::Profile::FP},
                      std::pair{std::string("resnet18"), passes::Profile::FP},
                      std::pair{std::string("squeezenet1_1"), passes::Profile::FP},
                      std::pair{std::string("efficientnet_b0"), passes::Profile::FP},
                      std::pair{std::string("deeplabv3_mobilenet_v3_large"), passes::Profile::FP},
                      std::pair{std::string("deit_tiny_vit"), passes::Profile::FP},
                      std::pair{std::string("deit_tiny_vit"), passes::Profile::INT},
                      std::pair{std::string("wav2letter"), passes::Profile::FP}),
    [](const auto& p) {
      return p.param.first + (p.param.second == passes::Profile::FP ? "_fp" : "_int");
    });

}  // namespace
}  // namespace ls::io
