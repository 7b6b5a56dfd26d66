// Tests for the native .lsg graph format: lossless round trips, corruption handling, atomic save.
#include "core/io/lsg.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "core/exec/materialize.h"
#include "core/io/load.h"
#include "core/io/lsg_graph.h"
#include "core/io/schema/lsg_generated.h"
#include "core/ir/printer.h"
#include "core/util/atomic_file.h"

#if __has_include("core/io/fxjson.h")
#include "core/io/fxjson.h"
#define LS_HAVE_FXJSON 1
#endif

namespace ls::io {
namespace {

namespace fsys = std::filesystem;

// ---------------------------------------------------------------- graph building helpers

ir::TensorMeta meta(ir::DType t, ir::Shape s) { return ir::TensorMeta(t, s); }

std::shared_ptr<const ir::Blob> bytesOf(ir::Graph& g, size_t n, uint8_t seed) {
  std::vector<uint8_t> b(n);
  for (size_t i = 0; i < n; ++i) b[i] = uint8_t(seed + i * 7);
  return g.store().intern(std::move(b));
}

ir::NodeId addNode(ir::Graph& g, ir::NodeKind kind, const std::string& name, const std::string& op,
                   std::vector<ir::Arg> args, std::vector<ir::TensorMeta> outs, std::vector<ir::Kwarg> kwargs = {}) {
  ir::Node n;
  n.kind = kind;
  n.name = name;
  if (kind == ir::NodeKind::Call) {
    n.op = ir::internOp(op);
    n.target = op;
  } else {
    n.target = op.empty() ? name : op;
  }
  n.args = std::move(args);
  n.kwargs = std::move(kwargs);
  n.outputs = std::move(outs);
  return g.append(std::move(n));
}

ir::NodeId addOutput(ir::Graph& g, ir::RefList refs) {
  ir::Node n;
  n.kind = ir::NodeKind::Output;
  n.name = "output";
  n.target = "output";
  n.args.push_back(std::move(refs));
  return g.append(std::move(n));
}

void addConstant(ir::Graph& g, const std::string& name, ir::ConstantKind kind, ir::DType t, ir::Shape s,
                 std::shared_ptr<const ir::Blob> data) {
  ir::Constant c;
  c.name = name;
  c.fqn = "model." + name;
  c.kind = kind;
  c.dtype = t;
  c.shape = s;
  c.data = std::move(data);
  g.setConstant(std::move(c));
}

/// A small graph: x -> relu -> output (the minimal seed).
ir::Graph tinyGraph() {
  ir::Graph g;
  g.modelName = "tiny";
  auto x = addNode(g, ir::NodeKind::Placeholder, "x", "", {}, {meta(ir::DType::Float32, {1, 4})});
  auto r = addNode(g, ir::NodeKind::Call, "relu", "aten.relu.default", {ir::ValueRef{x, 0}},
                   {meta(ir::DType::Float32, {1, 4})});
  addOutput(g, {ir::ValueRef{r, 0}});
  return g;
}

/// A graph exercising every field of the format: every ArgKind, kwargs, multi-output and
/// non-tensor outputs, dim orders, per-tensor and per-channel quantisation, provenance,
/// flags, modules, constants with and without data (deduplicated bytes, zero-size data),
/// id gaps, a custom target, an unknown (opaque) op and nested subgraphs.
ir::Graph richGraph() {
  ir::Graph g;
  g.modelName = "rich \"model\"";

  ir::TensorMeta xm = meta(ir::DType::Float32, {1, 3, 8, 8});
  xm.dimOrder = ir::DimOrder::of({0, 2, 3, 1});
  auto x = addNode(g, ir::NodeKind::Placeholder, "x", "", {}, {xm});
  addNode(g, ir::NodeKind::Placeholder, "y_1", "y", {}, {meta(ir::DType::Float32, {})});  // target != name
  auto gap = addNode(g, ir::NodeKind::Placeholder, "to_erase", "", {}, {meta(ir::DType::Int64, {})});
  g.erase(gap);  // leaves an id gap

  auto wq = std::make_shared<ir::QuantParams>();
  wq->scheme = ir::QScheme::PerChannel;
  wq->axis = 0;
  wq->scales = {0.5, 0.25, 0.125, 1e-3};
  wq->zeroPoints = {0, 1, -1, 3};
  ir::TensorMeta wm = meta(ir::DType::Int8, {4, 3, 3, 3});
  wm.quant = wq;
  auto w = addNode(g, ir::NodeKind::GetAttr, "w", "w", {}, {wm});
  auto b = addNode(g, ir::NodeKind::GetAttr, "b", "b", {}, {meta(ir::DType::Float32, {4})});
  auto e = addNode(g, ir::NodeKind::GetAttr, "e", "e", {}, {meta(ir::DType::Float32, {0})});
  auto w2 = addNode(g, ir::NodeKind::GetAttr, "w_copy", "w_copy", {}, {wm});
  addConstant(g, "w", ir::ConstantKind::Parameter, ir::DType::Int8, {4, 3, 3, 3}, bytesOf(g, 108, 3));
  addConstant(g, "w_copy", ir::ConstantKind::Constant, ir::DType::Int8, {4, 3, 3, 3}, bytesOf(g, 108, 3));
  addConstant(g, "b", ir::ConstantKind::Buffer, ir::DType::Float32, {4}, nullptr);  // shape-only
  addConstant(g, "e", ir::ConstantKind::Constant, ir::DType::Float32, {0}, g.store().intern({}));

  auto aq = std::make_shared<ir::QuantParams>();
  aq->scheme = ir::QScheme::PerTensor;
  aq->storage = ir::DType::UInt8;
  aq->qmin = 0;
  aq->qmax = 255;
  aq->scales = {0.0078125};
  aq->zeroPoints = {128};
  ir::TensorMeta cm = meta(ir::DType::Float32, {1, 4, 6, 6});
  cm.dimOrder = ir::DimOrder::of({0, 2, 3, 1});
  cm.quant = aq;
  ir::Node conv;
  conv.kind = ir::NodeKind::Call;
  conv.name = "conv";
  conv.op = ir::internOp("aten.convolution.default");
  conv.target = "aten.convolution.default";
  conv.args = {ir::ValueRef{x, 0}, ir::ValueRef{w, 0}, ir::ValueRef{b, 0}, ir::IntList{1, 1}, ir::IntList{0, 0},
               ir::IntList{1, 1},  false,               ir::IntList{},        int64_t(1)};
  conv.outputs = {cm};
  conv.flags = ir::kFlagDisallowTransform;
  conv.module = "features.0.conv";
  conv.provenance.createdBy = "FuseConvPass";
  conv.provenance.derivedFrom = {1, 2, 99};
  auto c = g.append(std::move(conv));

  // Multi-output: three outputs recorded as a list, the last one non-tensor.
  auto split = addNode(g, ir::NodeKind::Call, "split", "aten.split_with_sizes.default",
                       {ir::ValueRef{c, 0}, ir::IntList{2, 2}, int64_t(1)},
                       {meta(ir::DType::Float32, {1, 2, 6, 6}), meta(ir::DType::Float32, {1, 2, 6, 6}), ir::TensorMeta()});
  g.mutableNode(split).flags = ir::kFlagOutputsAsList;
  g.mutableNode(split).module = "features.0.conv";  // shared module string

  // An unknown op with every arg kind, positional and keyword.
  std::vector<ir::Arg> all = {
      ir::Arg(),
      true,
      int64_t(std::numeric_limits<int64_t>::min()),
      -0.0,
      std::string("str \"quoted\" \xc3\xa9\n"),
      ir::EnumArg{ir::EnumKind::DType, int32_t(ir::DType::BFloat16)},
      ir::ValueRef{split, 1},
      ir::IntList{std::numeric_limits<int64_t>::max(), -1, 0},
      ir::FloatList{1.5, std::numeric_limits<double>::infinity(), -1e-300},
      ir::BoolList{1, 0, 1},
      ir::RefList{ir::ValueRef{x, 0}, ir::ValueRef{}, ir::ValueRef{split, 0}},
      ir::SliceArg{std::nullopt, int64_t(5), int64_t(-2)},
  };
  std::vector<ir::Kwarg> kw = {
      {"layout", ir::EnumArg{ir::EnumKind::Layout, 0}},
      {"memory_format", ir::EnumArg{ir::EnumKind::MemoryFormat, 2}},
      {"device", ir::EnumArg{ir::EnumKind::Device, 1 | (1 + 1) << 8}},
      {"empty_str", std::string()},
      {"empty_refs", ir::RefList{}},
      {"slice", ir::SliceArg{int64_t(0), std::nullopt, std::nullopt}},
      {"none", ir::Arg()},
  };
  EXPECT_EQ(all.size(), size_t(ir::ArgKind::COUNT)) << "add the new ArgKind to this test";
  auto u = addNode(g, ir::NodeKind::Call, "mystery", "vendor.mystery_op.default", all,
                   {meta(ir::DType::Float32, {1, 2, 6, 6})}, kw);
  g.mutableNode(u).flags = ir::kFlagOpaque;

  // Zero outputs, and a custom target that differs from the op name.
  auto chk = addNode(g, ir::NodeKind::Call, "check", "aten._assert_async.msg", {ir::ValueRef{u, 0}, "msg"}, {});
  g.mutableNode(chk).target = "custom_target";
  (void)chk;
  // A single non-tensor output.
  auto sym = addNode(g, ir::NodeKind::Call, "sym_size", "aten.sym_size.int", {ir::ValueRef{x, 0}, int64_t(2)},
                     {ir::TensorMeta()});
  addOutput(g, {ir::ValueRef{u, 0}, ir::ValueRef{split, 1}, ir::ValueRef{sym, 0}, ir::ValueRef{w2, 0},
                ir::ValueRef{e, 0}});
  g.reserveIds(1000);

  // Nested subgraphs, with their own constants (bytes shared with the parent's).
  auto body = std::make_shared<ir::Graph>();
  body->shareStore(g.storePtr());
  auto bx = addNode(*body, ir::NodeKind::Placeholder, "bx", "", {}, {meta(ir::DType::Float32, {2})});
  auto bw = addNode(*body, ir::NodeKind::GetAttr, "bw", "bw", {}, {meta(ir::DType::Int8, {4, 3, 3, 3})});
  addConstant(*body, "bw", ir::ConstantKind::Parameter, ir::DType::Int8, {4, 3, 3, 3}, bytesOf(*body, 108, 3));
  auto badd = addNode(*body, ir::NodeKind::Call, "badd", "aten.add.Tensor", {ir::ValueRef{bx, 0}, ir::ValueRef{bx, 0}},
                      {meta(ir::DType::Float32, {2})}, {{"alpha", int64_t(2)}});
  addOutput(*body, {ir::ValueRef{badd, 0}, ir::ValueRef{bw, 0}});
  auto inner = std::make_shared<ir::Graph>();
  auto ix = addNode(*inner, ir::NodeKind::Placeholder, "ix", "", {}, {meta(ir::DType::Bool, {})});
  addOutput(*inner, {ir::ValueRef{ix, 0}});
  body->subgraphs()["inner"] = inner;
  g.subgraphs()["cond_true"] = body;
  auto other = std::make_shared<ir::Graph>();
  addOutput(*other, {});
  g.subgraphs()["cond_false"] = other;
  return g;
}

// ---------------------------------------------------------------- comparison

void expectSameConstant(const ir::Constant& a, const ir::Constant& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.fqn, b.fqn);
  EXPECT_EQ(a.kind, b.kind) << a.name;
  EXPECT_EQ(a.dtype, b.dtype) << a.name;
  EXPECT_EQ(a.shape, b.shape) << a.name;
  EXPECT_EQ(a.contentHash, b.contentHash) << a.name;
  ASSERT_EQ(a.hasData(), b.hasData()) << a.name;
  if (a.hasData()) {
    EXPECT_TRUE(std::ranges::equal(a.data->bytes, b.data->bytes)) << a.name;
    EXPECT_EQ(a.data->hash, b.data->hash) << a.name;
  }
}

/// Field-by-field equality of two graphs (recursively through subgraphs).
void expectSameGraph(const ir::Graph& a, const ir::Graph& b, const std::string& where = "root") {
  SCOPED_TRACE(where);
  EXPECT_EQ(a.modelName, b.modelName);
  EXPECT_EQ(a.nextId(), b.nextId());
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    const ir::Node& x = a.at(i);
    const ir::Node& y = b.at(i);
    SCOPED_TRACE(x.name);
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.flags, y.flags);
    EXPECT_EQ(x.op, y.op);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.target, y.target);
    EXPECT_TRUE(x.args == y.args);
    EXPECT_TRUE(x.kwargs == y.kwargs);
    ASSERT_EQ(x.outputs.size(), y.outputs.size());
    for (size_t k = 0; k < x.outputs.size(); ++k) {
      EXPECT_TRUE(x.outputs[k] == y.outputs[k]) << ir::toString(x.outputs[k]) << " vs " << ir::toString(y.outputs[k]);
      EXPECT_EQ(x.outputs[k].dimOrder.rank(), y.outputs[k].dimOrder.rank());
    }
    EXPECT_EQ(x.module, y.module);
    EXPECT_TRUE(x.provenance == y.provenance);
  }
  ASSERT_EQ(a.constants().size(), b.constants().size());
  for (const auto& [name, c] : a.constants()) {
    const ir::Constant* d = b.constant(name);
    ASSERT_NE(d, nullptr) << name;
    expectSameConstant(c, *d);
  }
  ASSERT_EQ(a.subgraphs().size(), b.subgraphs().size());
  for (const auto& [name, sg] : a.subgraphs()) {
    auto it = b.subgraphs().find(name);
    ASSERT_NE(it, b.subgraphs().end()) << name;
    expectSameGraph(*sg, *it->second, where + "/" + name);
  }
}

Result<ir::Graph> roundTrip(const ir::Graph& g, const std::string& name = "mem.lsg") {
  auto bytes = serializeLsg(g);
  if (!bytes) return bytes.status();
  return loadLsgBytes(*bytes, name);
}

// ---------------------------------------------------------------- temp files

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fsys::temp_directory_path() / "lsg_test_XXXXXX").string();
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    const char* p = ::mkdtemp(buf.data());
    path_ = p ? std::string(p) : std::string();
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fsys::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto& e : fsys::directory_iterator(path_)) out.push_back(e.path().filename().string());
    return out;
  }

 private:
  std::string path_;
};

// ---------------------------------------------------------------- round trips

TEST(LsgRoundTrip, TinyGraph) {
  ir::Graph g = tinyGraph();
  auto back = roundTrip(g);
  ASSERT_TRUE(back) << back.message();
  EXPECT_EQ(ir::printGraph(g), ir::printGraph(*back));
  expectSameGraph(g, *back);
  EXPECT_TRUE(back->validate().isOk());
}

TEST(LsgRoundTrip, RichGraphIsLossless) {
  ir::Graph g = richGraph();
  ASSERT_TRUE(g.validate().isOk()) << g.validate().message();
  auto bytes = serializeLsg(g);
  ASSERT_TRUE(bytes) << bytes.message();
  EXPECT_TRUE(looksLikeLsg(*bytes));
  auto back = loadLsgBytes(*bytes, "rich.lsg");
  ASSERT_TRUE(back) << back.message();
  EXPECT_EQ(ir::printGraph(g), ir::printGraph(*back));
  expectSameGraph(g, *back);

  // Saving the loaded graph again gives the same bytes (deterministic writer).
  auto again = serializeLsg(*back);
  ASSERT_TRUE(again) << again.message();
  EXPECT_EQ(*bytes, *again);
}

TEST(LsgRoundTrip, DetailsSurvive) {
  ir::Graph g = richGraph();
  auto back = roundTrip(g);
  ASSERT_TRUE(back) << back.message();
  const ir::Graph& h = *back;

  // Unknown op: interned under its own name, opaque flag kept.
  const ir::Node& u = h.node(h.findByName("mystery"));
  EXPECT_EQ(ir::opName(u.op), "vendor.mystery_op.default");
  EXPECT_TRUE(u.hasFlag(ir::kFlagOpaque));
  ASSERT_EQ(u.args.size(), size_t(ir::ArgKind::COUNT));
  for (size_t k = 0; k < u.args.size(); ++k) EXPECT_EQ(size_t(u.args[k].kind()), k);
  EXPECT_TRUE(std::signbit(*u.args[3].asFloat()));  // -0.0 kept

  // Custom target kept; default target restored from the op table.
  EXPECT_EQ(h.node(h.findByName("check")).target, "custom_target");
  EXPECT_EQ(h.node(h.findByName("conv")).target, "aten.convolution.default");
  EXPECT_EQ(h.node(h.findByName("y_1")).target, "y");
  EXPECT_EQ(h.node(h.findByName("x")).target, "x");

  // Quantisation: per channel and per tensor, shared by the two users of `wm`.
  const ir::Node& w = h.node(h.findByName("w"));
  const ir::Node& w2 = h.node(h.findByName("w_copy"));
  ASSERT_TRUE(w.meta().quant);
  EXPECT_EQ(w.meta().quant->scheme, ir::QScheme::PerChannel);
  EXPECT_EQ(w.meta().quant->scales.size(), 4u);
  EXPECT_EQ(w.meta().quant.get(), w2.meta().quant.get());
  const ir::Node& conv = h.node(h.findByName("conv"));
  ASSERT_TRUE(conv.meta().quant);
  EXPECT_EQ(conv.meta().quant->storage, ir::DType::UInt8);
  EXPECT_EQ(conv.meta().dimOrder, ir::DimOrder::of({0, 2, 3, 1}));
  EXPECT_EQ(conv.provenance.createdBy, "FuseConvPass");
  EXPECT_EQ(conv.provenance.derivedFrom, (std::vector<ir::NodeId>{1, 2, 99}));
  EXPECT_EQ(conv.module, "features.0.conv");

  // Multi-output node with a non-tensor output, a zero-output node.
  const ir::Node& split = h.node(h.findByName("split"));
  ASSERT_EQ(split.outputs.size(), 3u);
  EXPECT_FALSE(split.outputs[2].isTensor());
  EXPECT_TRUE(split.hasFlag(ir::kFlagOutputsAsList));
  EXPECT_TRUE(h.node(h.findByName("check")).outputs.empty());

  // Id gap and next id.
  EXPECT_EQ(h.findByName("to_erase"), ir::kInvalidNode);
  EXPECT_EQ(h.nextId(), 1000u);

  // Constants: identical bytes are deduplicated through the store, across subgraphs too.
  const ir::Constant* cw = h.constant("w");
  const ir::Constant* cw2 = h.constant("w_copy");
  ASSERT_TRUE(cw && cw2 && cw->hasData() && cw2->hasData());
  EXPECT_EQ(cw->data.get(), cw2->data.get());
  const ir::Graph& body = *h.subgraphs().at("cond_true");
  ASSERT_TRUE(body.constant("bw") && body.constant("bw")->hasData());
  EXPECT_EQ(body.constant("bw")->data.get(), cw->data.get());
  EXPECT_FALSE(h.constant("b")->hasData());
  ASSERT_TRUE(h.constant("e")->hasData());
  EXPECT_TRUE(h.constant("e")->data->bytes.empty());
  EXPECT_EQ(body.subgraphs().count("inner"), 1u);
}

TEST(LsgRoundTrip, NanAndEmptyGraph) {
  ir::Graph g = tinyGraph();
  g.mutableNode(g.findByName("relu")).args.push_back(ir::FloatList{std::nan(""), -std::nan("")});
  g.mutableNode(g.findByName("relu")).args.push_back(std::numeric_limits<double>::quiet_NaN());
  auto back = roundTrip(g);
  ASSERT_TRUE(back) << back.message();
  EXPECT_EQ(ir::printGraph(g), ir::printGraph(*back));

  ir::Graph empty;
  auto e = roundTrip(empty);
  ASSERT_TRUE(e) << e.message();
  EXPECT_EQ(e->size(), 0u);
  EXPECT_TRUE(e->modelName.empty());
}

TEST(LsgRoundTrip, SaveRefusesUnstorableMeta) {
  ir::Graph g = tinyGraph();
  auto q = std::make_shared<ir::QuantParams>();
  q->scales = {0.1, 0.2};  // per tensor with two scales
  q->zeroPoints = {0, 0};
  g.mutableNode(g.findByName("relu")).outputs[0].quant = q;
  auto bytes = serializeLsg(g);
  ASSERT_FALSE(bytes);
  EXPECT_NE(bytes.message().find("'relu'"), std::string::npos) << bytes.message();
  EXPECT_NE(bytes.message().find("exactly 1"), std::string::npos) << bytes.message();
}

TEST(LsgRoundTrip, DeeplyNestedSubgraphs) {
  auto nest = [](int levels) {
    ir::Graph g = tinyGraph();
    ir::Graph* cur = &g;
    for (int i = 0; i < levels; ++i) {
      auto sub = std::make_shared<ir::Graph>(tinyGraph());
      sub->mutableNode(sub->findByName("relu")).args.push_back(ir::IntList{i, i});
      cur->subgraphs()["level" + std::to_string(i)] = sub;
      cur = sub.get();
    }
    return g;
  };
  ir::Graph ok = nest(kMaxSubgraphNesting);
  auto back = roundTrip(ok);
  ASSERT_TRUE(back) << back.message();
  EXPECT_EQ(ir::printGraph(ok), ir::printGraph(*back));

  auto tooDeep = serializeLsg(nest(kMaxSubgraphNesting + 1));
  ASSERT_FALSE(tooDeep);
  EXPECT_NE(tooDeep.message().find("nested deeper"), std::string::npos) << tooDeep.message();
}

TEST(LsgRoundTrip, SaveRefusesConstantWithWrongByteCount) {
  ir::Graph g = tinyGraph();
  addConstant(g, "w", ir::ConstantKind::Parameter, ir::DType::Float32, {4}, bytesOf(g, 15, 0));
  auto bytes = serializeLsg(g);
  ASSERT_FALSE(bytes);
  EXPECT_NE(bytes.message().find("constant 'w'"), std::string::npos) << bytes.message();
}

TEST(LsgRoundTrip, DerivedConstantsAreWrittenOnceWithTheirValuesAndHashedAsLoaded) {
  // Recipes without bytes (over a constant with data and over a shape-only one) are saved with
  // their materialised values, written straight into the file's table: equal recipes once, an
  // empty one as the empty blob, each under the hash of the bytes the loaded constant holds.
  ir::Graph g = tinyGraph();
  addConstant(g, "w", ir::ConstantKind::Parameter, ir::DType::Int8, {4, 3, 5, 7}, bytesOf(g, 420, 9));
  addConstant(g, "s", ir::ConstantKind::Parameter, ir::DType::Float32, {64, 3, 3, 3}, nullptr);  // shape-only
  addConstant(g, "e", ir::ConstantKind::Parameter, ir::DType::Float32, {0, 3}, nullptr);
  auto derive = [&](const std::string& from, std::vector<int64_t> perm, const std::string& name) {
    ir::Constant c = exec::recipeConstant(exec::permuteRecipe(*g.constant(from), std::move(perm)));
    c.name = name;
    g.setConstant(std::move(c));
  };
  derive("w", {0, 2, 3, 1}, "w_ohwi");
  derive("s", {0, 2, 3, 1}, "s_ohwi");
  const std::string once = serializeLsg(g).value();
  derive("s", {0, 2, 3, 1}, "s_ohwi_again");  // the same recipe: no second copy of its bytes
  derive("e", {1, 0}, "e_t");
  const std::string bytes = serializeLsg(g).value();
  EXPECT_LT(bytes.size(), once.size() + 64 * 3 * 3 * 3 * 4 / 2);

  auto back = loadLsgBytes(bytes, "mem.lsg");
  ASSERT_TRUE(back) << back.message();
  for (const char* name : {"w_ohwi", "s_ohwi", "s_ohwi_again", "e_t"}) {
    const ir::Constant* before = g.constant(name);
    const ir::Constant* after = back->constant(name);
    ASSERT_TRUE(before && after) << name;
    auto v = exec::materialize(*before);
    ASSERT_TRUE(v) << v.message();
    ASSERT_TRUE(after->hasData()) << name;
    ASSERT_EQ(after->data->bytes.size(), v->nbytes()) << name;
    if (v->nbytes()) {
      EXPECT_EQ(std::memcmp(after->data->bytes.data(), v->bytes(), v->nbytes()), 0) << name;
    }
    EXPECT_EQ(after->contentHash, ir::constantContentHash(*after)) << name;
    ASSERT_TRUE(after->recipe) << name;
    EXPECT_EQ(after->recipe->describe(), before->recipe->describe());
  }
  EXPECT_EQ(back->constant("s_ohwi")->contentHash, back->constant("s_ohwi_again")->contentHash);
}

// ---------------------------------------------------------------- files and atomic save

TEST(LsgFile, SaveLoadAndReplace) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  std::string path = dir.file("model.lsg");
  ir::Graph rich = richGraph();
  ASSERT_TRUE(saveLsg(rich, path).isOk());
  auto back = loadLsg(path);
  ASSERT_TRUE(back) << back.message();
  EXPECT_EQ(ir::printGraph(rich), ir::printGraph(*back));

  // Saving over an existing file replaces it completely.
  ir::Graph tiny = tinyGraph();
  Status st = saveLsg(tiny, path);
  ASSERT_TRUE(st.isOk()) << st.message();
  auto back2 = loadLsg(path);
  ASSERT_TRUE(back2) << back2.message();
  EXPECT_EQ(ir::printGraph(tiny), ir::printGraph(*back2));
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"model.lsg"});  // no temp files left
}

TEST(LsgFile, SaveIntoMissingDirectoryFails) {
  TempDir dir;
  std::string missing = dir.file("no_such_dir");
  std::string path = missing + "/model.lsg";
  Status st = saveLsg(tinyGraph(), path);
  ASSERT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("model.lsg"), std::string::npos) << st.message();
  EXPECT_FALSE(fsys::exists(missing));
  EXPECT_TRUE(dir.entries().empty());
}

TEST(LsgFile, SaveOfAnUnstorableGraphNamesPathAndConstantAndWritesNothing) {
  TempDir dir;
  const std::string path = dir.file("bad.lsg");
  ir::Graph g = tinyGraph();
  addConstant(g, "w", ir::ConstantKind::Parameter, ir::DType::Float32, {4}, bytesOf(g, 15, 0));
  Status st = saveLsg(g, path);
  ASSERT_FALSE(st.isOk());
  EXPECT_EQ(st.message().rfind(path + ": ", 0), 0u) << st.message();
  EXPECT_NE(st.message().find("constant 'w'"), std::string::npos) << st.message();
  EXPECT_TRUE(dir.entries().empty());
}

TEST(LsgFile, MissingFileNamesThePath) {
  auto r = loadLsg("/nonexistent/dir/graph.lsg");
  ASSERT_FALSE(r);
  EXPECT_NE(r.message().find("/nonexistent/dir/graph.lsg"), std::string::npos) << r.message();
}

// ---------------------------------------------------------------- corruption

std::string loadError(std::string_view bytes, const std::string& name = "bad.lsg") {
  auto r = loadLsgBytes(bytes, name);
  EXPECT_FALSE(r) << "expected a load error";
  return r ? std::string() : r.message();
}

TEST(LsgCorrupt, EmptyFile) {
  std::string msg = loadError("", "empty.lsg");
  EXPECT_NE(msg.find("empty.lsg"), std::string::npos) << msg;
  EXPECT_NE(msg.find("empty"), std::string::npos) << msg;
}

TEST(LsgCorrupt, WrongIdentifier) {
  std::string bytes = serializeLsg(tinyGraph()).value();
  std::memcpy(bytes.data() + 4, "TFL3", 4);
  EXPECT_FALSE(looksLikeLsg(bytes));
  std::string msg = loadError(bytes, "other.tflite");
  EXPECT_NE(msg.find("other.tflite"), std::string::npos) << msg;
  EXPECT_NE(msg.find("TFL3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("LSG1"), std::string::npos) << msg;

  std::string text = "{\"format\": \"fxjson\"}";
  EXPECT_FALSE(looksLikeLsg(text));
  EXPECT_NE(loadError(text, "x.json").find("x.json"), std::string::npos);
}

TEST(LsgCorrupt, TruncatedFile) {
  std::string bytes = serializeLsg(richGraph()).value();
  for (size_t len : {size_t(1), size_t(4), size_t(7), size_t(8), size_t(12), size_t(16), size_t(64),
                     bytes.size() / 3, bytes.size() / 2, bytes.size() - 100, bytes.size() - 9, bytes.size() - 1}) {
    SCOPED_TRACE(len);
    std::string msg = loadError(std::string_view(bytes).substr(0, len), "cut.lsg");
    EXPECT_EQ(msg.rfind("cut.lsg: ", 0), 0u) << msg;
  }
}

TEST(LsgCorrupt, FlippedBytesNeverCrash) {
  std::string good = serializeLsg(richGraph()).value();
  const std::string name = "flip.lsg";
  size_t failures = 0;
  for (size_t pos = 0; pos < good.size(); ++pos) {
    for (uint8_t mask : {uint8_t(0x01), uint8_t(0x80), uint8_t(0xff)}) {
      std::string bytes = good;
      bytes[pos] = char(uint8_t(bytes[pos]) ^ mask);
      auto r = loadLsgBytes(bytes, name);
      if (!r) {
        ++failures;
        ASSERT_EQ(r.message().rfind(name + ": ", 0), 0u) << "pos " << pos << ": " << r.message();
      } else {
        // Whatever loads must be a valid graph that prints and saves again.
        ASSERT_TRUE(r->validate().isOk()) << "pos " << pos;
        (void)ir::printGraph(*r);
        EXPECT_TRUE(serializeLsg(*r)) << "pos " << pos;
      }
    }
  }
  EXPECT_GT(failures, 0u);
}

TEST(LsgCorrupt, RandomGarbageNeverCrashes) {
  uint64_t s = 0x1234567;
  auto next = [&] {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  };
  std::string good = serializeLsg(tinyGraph()).value();
  for (int iter = 0; iter < 2000; ++iter) {
    std::string bytes = good;
    int edits = 1 + int(next() % 8);
    for (int k = 0; k < edits; ++k) bytes[next() % bytes.size()] = char(next());
    auto r = loadLsgBytes(bytes, "rnd.lsg");
    if (!r) {
      EXPECT_EQ(r.message().rfind("rnd.lsg: ", 0), 0u) << r.message();
    }
  }
}

// ---------------------------------------------------------------- hand-built flatbuffers

/// Builds .lsg files table by table, to produce files the writer never would.
struct RawLsg {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<flatbuffers::String>> ops;
  std::vector<flatbuffers::Offset<fb::TensorMeta>> tensors;
  std::vector<flatbuffers::Offset<fb::QuantParams>> quants;
  std::vector<flatbuffers::Offset<fb::Node>> nodes;
  std::vector<flatbuffers::Offset<fb::Constant>> constants;
  std::vector<flatbuffers::Offset<fb::Blob>> blobs;

  RawLsg() { blob({}); }

  int32_t op(const std::string& name) {
    ops.push_back(b.CreateString(name));
    return int32_t(ops.size() - 1);
  }
  int32_t tensor(fb::DType dt, std::vector<int64_t> shape, const std::vector<uint8_t>* order = nullptr,
                 int32_t quant = -1) {
    auto s = b.CreateVector(shape);
    auto o = order ? b.CreateVector(*order) : 0;
    fb::TensorMetaBuilder tb(b);
    tb.add_dtype(dt);
    tb.add_shape(s);
    if (order) tb.add_dim_order(o);
    tb.add_quant(quant);
    tensors.push_back(tb.Finish());
    return int32_t(tensors.size() - 1);
  }
  int32_t quant(fb::QScheme scheme, std::vector<double> scales, std::vector<int64_t> zps, int32_t axis = 0) {
    quants.push_back(fb::CreateQuantParamsDirect(b, scheme, fb::DType::Int8, axis, -128, 127, &scales, &zps));
    return int32_t(quants.size() - 1);
  }
  int32_t blob(const std::vector<uint8_t>& bytes) {
    blobs.push_back(fb::CreateBlobDirect(b, &bytes));
    return int32_t(blobs.size() - 1);
  }
  flatbuffers::Offset<fb::Arg> ref(uint32_t node, uint32_t output = 0) {
    fb::ValueRef r(node, output);
    fb::ArgBuilder ab(b);
    ab.add_kind(fb::ArgKind::Ref);
    ab.add_ref(&r);
    return ab.Finish();
  }
  flatbuffers::Offset<fb::Arg> arg(fb::ArgKind kind, int64_t i = 0, fb::EnumKind ek = fb::EnumKind::DType) {
    fb::ArgBuilder ab(b);
    ab.add_kind(kind);
    ab.add_i(i);
    ab.add_enum_kind(ek);
    return ab.Finish();
  }
  void node(uint32_t id, fb::NodeKind kind, const std::string& name, int32_t op,
            std::vector<flatbuffers::Offset<fb::Arg>> args, std::vector<int32_t> outputs) {
    auto n = b.CreateString(name);
    auto a = b.CreateVector(args);
    auto o = b.CreateVector(outputs);
    fb::NodeBuilder nb(b);
    nb.add_id(id);
    nb.add_kind(kind);
    nb.add_op(op);
    nb.add_name(n);  // no target: defaults to the op's name, else the node's name
    nb.add_args(a);
    nb.add_outputs(o);
    nodes.push_back(nb.Finish());
  }
  void output(uint32_t id, std::vector<uint32_t> refs) {
    std::vector<fb::ValueRef> rs;
    for (uint32_t r : refs) rs.emplace_back(r, 0);
    auto v = b.CreateVectorOfStructs(rs);
    fb::ArgBuilder ab(b);
    ab.add_kind(fb::ArgKind::RefList);
    ab.add_refs(v);
    auto a = ab.Finish();
    node(id, fb::NodeKind::Output, "output", -1, {a}, {});
  }
  void constant(const std::string& name, fb::DType dt, std::vector<int64_t> shape, int32_t data,
                fb::ConstantKind kind = fb::ConstantKind::Parameter) {
    constants.push_back(fb::CreateConstantDirect(b, name.c_str(), name.c_str(), kind, dt, &shape, 0, data));
  }
  std::string finish(uint32_t nextId, uint32_t version = kLsgVersion) {
    auto g = fb::CreateGraph(b, b.CreateString("raw"), nextId, b.CreateVector(ops), b.CreateVector(tensors),
                             b.CreateVector(quants), b.CreateVector(nodes), b.CreateVector(constants),
                             b.CreateVector(blobs));
    auto root = fb::CreateLsgFile(b, version, g, b.CreateString("test"));
    fb::FinishLsgFileBuffer(b, root);
    return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
  }
};

/// x (id 0) -> add (id 1, reading `ref`) -> output (id 2).
std::string rawGraphReading(uint32_t refNode, uint32_t refOutput = 0) {
  RawLsg r;
  int32_t t = r.tensor(fb::DType::Float32, {1, 4});
  int32_t add = r.op("aten.add.Tensor");
  r.node(0, fb::NodeKind::Placeholder, "x", -1, {}, {t});
  r.node(1, fb::NodeKind::Call, "add", add, {r.ref(0), r.ref(refNode, refOutput)}, {t});
  r.output(2, {1});
  return r.finish(3);
}

TEST(LsgRaw, ValidHandBuiltFileLoads) {
  auto g = loadLsgBytes(rawGraphReading(0), "raw.lsg");
  ASSERT_TRUE(g) << g.message();
  EXPECT_EQ(ir::printGraph(*g),
            "%x = placeholder[x] : f32[1,4]\n%add = aten.add.Tensor(%x, %x) : f32[1,4]\nreturn (%add)\n");
}

TEST(LsgRaw, NewerVersionIsRefused) {
  RawLsg r;
  r.output(0, {});
  std::string bytes = r.finish(1, (2u << 16) | 3u);
  std::string msg = loadError(bytes, "future.lsg");
  EXPECT_NE(msg.find("future.lsg"), std::string::npos) << msg;
  EXPECT_NE(msg.find("file version 2 is newer than supported 1"), std::string::npos) << msg;

  // A newer minor version of the same major loads.
  RawLsg r2;
  r2.output(0, {});
  auto ok = loadLsgBytes(r2.finish(1, (1u << 16) | 7u), "minor.lsg");
  EXPECT_TRUE(ok) << ok.message();

  RawLsg r3;
  r3.output(0, {});
  EXPECT_NE(loadError(r3.finish(1, 0), "v0.lsg").find("version"), std::string::npos);
}

TEST(LsgRaw, DanglingReference) {
  std::string msg = loadError(rawGraphReading(7), "dangling.lsg");
  EXPECT_NE(msg.find("dangling.lsg"), std::string::npos) << msg;
  EXPECT_NE(msg.find("node #1 'add'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("node id 7"), std::string::npos) << msg;

  // Forward reference (to the node itself) and a bad output index.
  EXPECT_NE(loadError(rawGraphReading(1)).find("node #1 'add'"), std::string::npos);
  std::string out = loadError(rawGraphReading(0, 3));
  EXPECT_NE(out.find("output 3"), std::string::npos) << out;
  // Reading the output node.
  EXPECT_NE(loadError(rawGraphReading(2)).find("node #1 'add'"), std::string::npos);
}

TEST(LsgRaw, BadDTypeEnum) {
  RawLsg r;
  int32_t bad = r.tensor(fb::DType(99), {1, 4});
  r.node(0, fb::NodeKind::Placeholder, "x", -1, {}, {bad});
  r.output(1, {0});
  std::string msg = loadError(r.finish(2), "dtype.lsg");
  EXPECT_NE(msg.find("dtype.lsg"), std::string::npos) << msg;
  EXPECT_NE(msg.find("node #0 'x'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("dtype enum value 99"), std::string::npos) << msg;
}

TEST(LsgRaw, BlobSizeMismatch) {
  RawLsg r;
  int32_t t = r.tensor(fb::DType::Float32, {2});
  int32_t blob = r.blob({1, 2, 3, 4, 5});
  r.constant("w", fb::DType::Float32, {2}, blob);
  r.node(0, fb::NodeKind::GetAttr, "w", -1, {}, {t});
  r.output(1, {0});
  std::string msg = loadError(r.finish(2), "blob.lsg");
  EXPECT_NE(msg.find("blob.lsg"), std::string::npos) << msg;
  EXPECT_NE(msg.find("constant #0 'w'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("5 bytes, expected 8"), std::string::npos) << msg;

  RawLsg r2;
  r2.constant("w", fb::DType::Float32, {2}, 5);
  r2.output(0, {});
  msg = loadError(r2.finish(1));
  EXPECT_NE(msg.find("blob index 5 out of range"), std::string::npos) << msg;

  RawLsg r3;  // numel * size overflows
  int32_t b3 = r3.blob({1});
  r3.constant("huge", fb::DType::Float64, {int64_t(1) << 62, 16}, b3);
  r3.output(0, {});
  msg = loadError(r3.finish(1));
  EXPECT_NE(msg.find("'huge'"), std::string::npos) << msg;
}

TEST(LsgRaw, EveryIndexAndEnumIsChecked) {
  struct Case {
    const char* what;
    std::string bytes;
    const char* expect;
  };
  std::vector<Case> cases;
  {
    RawLsg r;
    int32_t t = r.tensor(fb::DType::Float32, {1});
    r.node(0, fb::NodeKind::Call, "c", 5, {}, {t});
    r.output(1, {0});
    cases.push_back({"op index", r.finish(2), "op name index 5 out of range"});
  }
  {
    RawLsg r;
    int32_t t = r.tensor(fb::DType::Float32, {1});
    r.node(0, fb::NodeKind::Call, "c", -1, {}, {t});
    r.output(1, {0});
    cases.push_back({"call without op", r.finish(2), "call_function without an op"});
  }
  {
    RawLsg r;
    r.node(0, fb::NodeKind(9), "k", -1, {}, {});
    r.output(1, {});
    cases.push_back({"node kind", r.finish(2), "node kind enum value 9"});
  }
  {
    RawLsg r;
    int32_t op = r.op("aten.foo.default");
    r.node(0, fb::NodeKind::Call, "a", op, {r.arg(fb::ArgKind(42))}, {});
    r.output(1, {});
    cases.push_back({"arg kind", r.finish(2), "arg kind enum value 42"});
  }
  {
    RawLsg r;
    int32_t op = r.op("aten.foo.default");
    r.node(0, fb::NodeKind::Call, "a", op, {r.arg(fb::ArgKind::Enum, 200, fb::EnumKind::DType)}, {});
    r.output(1, {});
    cases.push_back({"dtype enum arg", r.finish(2), "dtype enum value 200"});
  }
  {
    RawLsg r;
    int32_t op = r.op("aten.foo.default");
    r.node(0, fb::NodeKind::Call, "a", op, {r.arg(fb::ArgKind::Enum, 0, fb::EnumKind(7))}, {});
    r.output(1, {});
    cases.push_back({"enum kind", r.finish(2), "enum kind 7"});
  }
  {
    RawLsg r;
    int32_t op = r.op("aten.foo.default");
    r.node(0, fb::NodeKind::Call, "a", op, {r.arg(fb::ArgKind::Enum, 77, fb::EnumKind::Layout)}, {});
    r.output(1, {});
    cases.push_back({"layout value", r.finish(2), "layout enum value 77"});
  }
  {
    RawLsg r;
    int32_t op = r.op("aten.foo.default");
    r.node(0, fb::NodeKind::Call, "a", op, {r.arg(fb::ArgKind::Ref)}, {});
    r.output(1, {});
    cases.push_back({"ref without value", r.finish(2), "without a value reference"});
  }
  {
    RawLsg r;
    int32_t t = r.tensor(fb::DType::Float32, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    r.node(0, fb::NodeKind::Placeholder, "x", -1, {}, {t});
    r.output(1, {0});
    cases.push_back({"rank", r.finish(2), "rank 9 exceeds the maximum 8"});
  }
  {
    RawLsg r;
    std::vector<uint8_t> order = {0, 2, 2, 1};
    int32_t t = r.tensor(fb::DType::Float32, {1, 2, 3, 4}, &order);
    r.node(0, fb::NodeKind::Placeholder, "x", -1, {}, {t});
    r.output(1, {0});
    cases.push_back({"dim order", r.finish(2), "is not a permutation"});
  }
  {
    RawLsg r;
    std::vector<uint8_t> order = {0, 1};
    int32_t t = r.tensor(fb::DType::Float32, {1, 2, 3, 4}, &order);
    r.node(0, fb::NodeKind::Placeholder, "x", -1, {}, {t});
    r.output(1, {0});
    cases.push_back({"dim order rank", r.finish(2), "expected the shape's rank 4"});
  }
  {
    RawLsg r;
    int32_t q = r.quant(fb::QScheme::PerChannel, {0.1, 0.2, 0.3}, {0, 0, 0}, 0);
    int32_t t = r.tensor(fb::DType::Int8, {4, 3}, nullptr, q);
    r.node(0, fb::NodeKind::Placeholder, "x", -1, {}, {t});
    r.output(1, {0});
    cases.push_back({"per-channel count", r.finish(2), "has 3 scales, expected 4"});
  }
  {
    RawLsg r;
    int32_t q = r.quant(fb::QScheme::PerTensor, {0.1}, {0, 1});
    int32_t t = r.tensor(fb::DType::Int8, {4}, nullptr, q);
    r.node(0, fb::NodeKind::Placeholder, "x", -1, {}, {t});
    r.output(1, {0});
    cases.push_back({"zero points", r.finish(2), "1 scales but 2 zero points"});
  }
  {
    RawLsg r;
    int32_t q = r.quant(fb::QScheme::PerChannel, {0.1}, {0}, 5);
    int32_t t = r.tensor(fb::DType::Int8, {4}, nullptr, q);
    r.node(0, fb::NodeKind::Placeholder, "x", -1, {}, {t});
    r.output(1, {0});
    cases.push_back({"axis", r.finish(2), "axis 5 out of range"});
  }
  {
    RawLsg r;
    int32_t t = r.tensor(fb::DType::Int8, {4}, nullptr, 3);
    r.node(0, fb::NodeKind::Placeholder, "x", -1, {}, {t});
    r.output(1, {0});
    cases.push_back({"quant index", r.finish(2), "quant params index 3 out of range"});
  }
  {
    RawLsg r;
    r.node(0, fb::NodeKind::Placeholder, "x", -1, {}, {4});
    r.output(1, {0});
    cases.push_back({"tensor index", r.finish(2), "tensor index 4 out of range"});
  }
  {
    RawLsg r;
    r.node(0, fb::NodeKind::Placeholder, "x", -1, {}, {});
    r.node(0, fb::NodeKind::Placeholder, "y", -1, {}, {});
    r.output(1, {0});
    cases.push_back({"duplicate id", r.finish(3), "node #1 'y': duplicate node id 0"});
  }
  {
    RawLsg r;
    r.node(5, fb::NodeKind::Placeholder, "x", -1, {}, {});
    r.output(1, {});
    cases.push_back({"id above next_id", r.finish(2), "id 5 is not below next_id 2"});
  }
  {
    RawLsg r;
    r.node(0, fb::NodeKind::Placeholder, "x", -1, {}, {});
    r.node(1, fb::NodeKind::Placeholder, "x", -1, {}, {});
    r.output(2, {});
    cases.push_back({"duplicate name", r.finish(3), "duplicate node name"});
  }
  {
    RawLsg r;
    r.output(0, {});
    r.node(1, fb::NodeKind::Placeholder, "late", -1, {}, {});
    cases.push_back({"node after output", r.finish(2), "node #1 'late': comes after the output node"});
  }
  {
    RawLsg r;
    r.node(0, fb::NodeKind::Placeholder, "x", -1, {}, {});
    cases.push_back({"no output", r.finish(1), "no output node"});
  }
  {
    RawLsg r;
    r.constant("c", fb::DType(50), {1}, -1);
    r.output(0, {});
    cases.push_back({"constant dtype", r.finish(1), "constant #0 'c': dtype enum value 50"});
  }
  {
    RawLsg r;
    r.constant("c", fb::DType::Float32, {1}, -1, fb::ConstantKind(9));
    r.output(0, {});
    cases.push_back({"constant kind", r.finish(1), "constant kind enum value 9"});
  }
  {
    RawLsg r;
    r.constant("c", fb::DType::Float32, {1}, -1);
    r.constant("c", fb::DType::Float32, {1}, -1);
    r.output(0, {});
    cases.push_back({"duplicate constant", r.finish(1), "duplicate constant name"});
  }
  {
    RawLsg r;
    r.output(0, {});
    cases.push_back({"next id limit", r.finish(kMaxGraphNodeIds + 1), "exceeds the limit"});
  }
  {
    RawLsg r;
    r.op("");
    r.output(0, {});
    cases.push_back({"empty op name", r.finish(1), "op name #0 is empty"});
  }
  {
    RawLsg r;
    int32_t t = r.tensor(fb::DType::Float32, {1, -3});
    r.node(0, fb::NodeKind::Placeholder, "neg", -1, {}, {t});
    r.output(1, {0});
    cases.push_back({"negative dim", r.finish(2), "node #0 'neg': output 0: shape [1,-3]: dim 1 is negative"});
  }
  {
    RawLsg r;
    int32_t t = r.tensor(fb::DType::Float32, {int64_t(1) << 40, int64_t(1) << 40});
    r.node(0, fb::NodeKind::Placeholder, "big", -1, {}, {t});
    r.output(1, {0});
    cases.push_back({"numel overflow", r.finish(2), "overflows int64"});
  }
  {
    RawLsg r;
    r.constant("c", fb::DType::Float32, {-1}, -1);
    r.output(0, {});
    cases.push_back({"constant negative dim", r.finish(1), "constant #0 'c': shape [-1]"});
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    std::string msg = loadError(c.bytes, "case.lsg");
    EXPECT_EQ(msg.rfind("case.lsg: ", 0), 0u) << msg;
    EXPECT_NE(msg.find(c.expect), std::string::npos) << msg;
  }
}

TEST(LsgRaw, SubgraphErrorsNameTheSubgraph) {
  flatbuffers::FlatBufferBuilder b;
  // Subgraph "body": one call node reading node id 9, which does not exist.
  fb::ValueRef ref(9, 0);
  fb::ArgBuilder ab(b);
  ab.add_kind(fb::ArgKind::Ref);
  ab.add_ref(&ref);
  std::vector<flatbuffers::Offset<fb::Arg>> args{ab.Finish()};
  std::vector<int32_t> outs{0};
  std::vector<flatbuffers::Offset<flatbuffers::String>> ops{b.CreateString("aten.neg.default")};
  std::vector<int64_t> shape{1};
  std::vector<flatbuffers::Offset<fb::TensorMeta>> tensors{fb::CreateTensorMetaDirect(b, fb::DType::Float32, &shape)};
  std::vector<flatbuffers::Offset<fb::Node>> nodes{
      fb::CreateNodeDirect(b, 0, fb::NodeKind::Call, 0, 0, "neg", nullptr, &args, nullptr, &outs)};
  auto body = fb::CreateGraphDirect(b, "body", 1, &ops, &tensors, nullptr, &nodes);
  std::vector<flatbuffers::Offset<fb::Subgraph>> subs{fb::CreateSubgraphDirect(b, "body", body)};
  auto root = fb::CreateGraphDirect(b, "outer", 0, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, &subs);
  fb::FinishLsgFileBuffer(b, fb::CreateLsgFileDirect(b, kLsgVersion, root, "test"));
  std::string bytes(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
  std::string msg = loadError(bytes, "sub.lsg");
  EXPECT_NE(msg.find("sub.lsg: subgraph 'body': node #0 'neg'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("node id 9"), std::string::npos) << msg;
}

TEST(LsgRaw, UnalignedInputIsHandled) {
  std::string bytes = serializeLsg(richGraph()).value();
  std::string shifted = " " + bytes;
  auto g = loadLsgBytes(std::string_view(shifted).substr(1), "shifted.lsg");
  ASSERT_TRUE(g) << g.message();
  EXPECT_EQ(ir::printGraph(*g), ir::printGraph(richGraph()));
}

TEST(LsgInPlace, ConstantsViewTheBufferAndKeepItAlive) {
  const ir::Graph rich = richGraph();
  const std::string bytes = serializeLsg(rich).value();
  auto held = std::make_shared<const std::string>(bytes);
  auto g = loadLsgBytes(*held, "mem.lsg", held);
  ASSERT_TRUE(g) << g.message();
  auto inside = [](const ir::Constant& c, const std::string& buf) {
    const char* p = reinterpret_cast<const char*>(c.data->bytes.data());
    return p >= buf.data() && p + c.data->bytes.size() <= buf.data() + buf.size();
  };
  size_t viewed = 0;
  for (const auto& [name, c] : g->constants())
    if (c.hasData() && !c.data->bytes.empty()) {
      EXPECT_TRUE(inside(c, *held)) << name << ": copied, not viewed in place";
      ++viewed;
    }
  EXPECT_GT(viewed, 0u);
  held.reset();  // the graph's constants alone keep the buffer alive now
  expectSameGraph(rich, *g);

  // A misaligned buffer is read through an aligned copy that dies with the load: the
  // constants are then copied, never left pointing into it.
  auto shifted = std::make_shared<const std::string>(" " + bytes);
  auto g2 = loadLsgBytes(std::string_view(*shifted).substr(1), "shifted.lsg", shifted);
  ASSERT_TRUE(g2) << g2.message();
  for (const auto& [name, c] : g2->constants())
    if (c.hasData() && !c.data->bytes.empty()) {
      EXPECT_FALSE(inside(c, *shifted)) << name;
    }
  shifted.reset();
  expectSameGraph(rich, *g2);
}

TEST(LsgFile, MappedLoadEqualsReadLoadAndSurvivesReplacingTheFile) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  std::string path = dir.file("model.lsg");
  const ir::Graph rich = richGraph();
  ASSERT_TRUE(saveLsg(rich, path).isOk());
  auto mapped = loadGraphFile(path, nullptr, FileAccess::Map);
  ASSERT_TRUE(mapped) << mapped.message();
  expectSameGraph(rich, *mapped);
  // Saving over it (temp + rename, as every writer of ours) leaves the loaded graph intact.
  ASSERT_TRUE(saveLsg(tinyGraph(), path).isOk());
  expectSameGraph(rich, *mapped);
  auto again = loadGraphFile(path, nullptr, FileAccess::Map);
  ASSERT_TRUE(again) << again.message();
  expectSameGraph(tinyGraph(), *again);
#ifdef LS_HAVE_FXJSON
  // Not an .lsg: read as with FileAccess::Read (fxjson parsed from the padded buffer).
  std::string json = dir.file("model.fxjson.json");
  ASSERT_TRUE(writeFileAtomic(json, exportFxJson(rich)).isOk());
  auto viaMap = loadGraphFile(json, nullptr, FileAccess::Map);
  auto viaRead = loadGraphFile(json);
  ASSERT_TRUE(viaMap && viaRead) << viaMap.message() << viaRead.message();
  EXPECT_EQ(ir::printGraph(*viaMap), ir::printGraph(*viaRead));
#endif
}

// ---------------------------------------------------------------- fuzz seed corpus

// Writes the seed corpus of tests/fuzz/lsg_fuzz.cpp when LS_WRITE_LSG_CORPUS names a directory.
TEST(LsgCorpus, WriteSeedsWhenAsked) {
  const char* dir = std::getenv("LS_WRITE_LSG_CORPUS");
  std::vector<std::pair<std::string, ir::Graph>> seeds;
  seeds.emplace_back("tiny.lsg", tinyGraph());
  {
    ir::Graph g = richGraph();  // every arg kind, quantisation, flags, provenance; no subgraphs
    g.subgraphs().clear();
    seeds.emplace_back("args.lsg", std::move(g));
  }
  {
    // Constants with data, quantisation and a subgraph, kept small.
    ir::Graph g = tinyGraph();
    auto w = addNode(g, ir::NodeKind::GetAttr, "w", "w", {}, {meta(ir::DType::Float32, {4})});
    addConstant(g, "w", ir::ConstantKind::Parameter, ir::DType::Float32, {4}, bytesOf(g, 16, 1));
    g.erase(g.outputNode()->id);
    addOutput(g, {ir::ValueRef{g.findByName("relu"), 0}, ir::ValueRef{w, 0}});
    auto sub = std::make_shared<ir::Graph>(tinyGraph());
    g.subgraphs()["body"] = sub;
    seeds.emplace_back("consts.lsg", std::move(g));
  }
  for (auto& [name, g] : seeds) {
    auto bytes = serializeLsg(g);
    ASSERT_TRUE(bytes) << name << ": " << bytes.message();
    EXPECT_LT(bytes->size(), 4096u) << name << " is too large for a seed";
    if (dir) {
      ASSERT_TRUE(writeFileAtomic(std::string(dir) + "/" + name, *bytes).isOk());
    }
  }
}

// ---------------------------------------------------------------- real graphs

#ifdef LS_HAVE_FXJSON
std::vector<std::string> realGraphFiles() {
  std::vector<std::string> files;
  std::string dir = std::string(LS_ASSETS_DIR) + "/graphs";
  std::error_code ec;
  for (const auto& e : fsys::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (e.is_regular_file() && name.size() > 12 && name.substr(name.size() - 12) == ".fxjson.json")
      files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(LsgReal, EveryAssetGraphRoundTrips) {
  TempDir dir;
  auto files = realGraphFiles();
  ASSERT_GE(files.size(), 8u) << "assets/graphs not found";
  for (const std::string& file : files) {
    SCOPED_TRACE(file);
    auto g = importFxJsonFile(file);
    ASSERT_TRUE(g) << g.message();
    std::string path = dir.file(fsys::path(file).filename().string() + ".lsg");
    Status st = saveLsg(*g, path);
    ASSERT_TRUE(st.isOk()) << st.message();
    auto back = loadLsg(path);
    ASSERT_TRUE(back) << back.message();
    EXPECT_EQ(ir::printGraph(*g), ir::printGraph(*back));
    expectSameGraph(*g, *back);
  }
}

TEST(LsgReal, LargeGraphRoundTrips) {
  auto g = importFxJsonFile(std::string(LS_ASSETS_DIR) + "/graphs/large/vit_tiny_deep200.fxjson.json");
  ASSERT_TRUE(g) << g.message();
  auto bytes = serializeLsg(*g);
  ASSERT_TRUE(bytes) << bytes.message();
  auto back = loadLsgBytes(*bytes, "vit_tiny_deep200.lsg");
  ASSERT_TRUE(back) << back.message();
  EXPECT_EQ(back->size(), 10822u);
  EXPECT_EQ(ir::printGraph(*g), ir::printGraph(*back));
}
#endif

}  // namespace
}  // namespace ls::io
