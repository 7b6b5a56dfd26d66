// Tests for the fxjson importer/exporter: real graphs, printed forms, round trips, bad inputs.
#include "core/io/fxjson.h"
#include "core/ops/registry.h"

#include <algorithm>

#include <gtest/gtest.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <iostream>
#include <string>

#include "core/ir/printer.h"
#include "core/util/atomic_file.h"

namespace ls::io {
namespace {

std::string assetPath(const std::string& rel) { return std::string(LS_ASSETS_DIR) + "/graphs/" + rel; }

struct RealGraph {
  const char* file;
  size_t nodes;
  size_t calls;
  size_t constants;
  size_t constantsWithData;
};

// Node counts from assets/graphs/README.md; constant counts from the files (Python json).
const RealGraph kRealGraphs[] = {
    {"mobilenet_v2.fxjson.json", 469, 205, 262, 48},
    {"mobilenet_v3_small.fxjson.json", 404, 192, 210, 47},
    {"resnet18.fxjson.json", 195, 91, 102, 20},
    {"squeezenet1_1.fxjson.json", 122, 68, 52, 13},
    {"efficientnet_b0.fxjson.json", 602, 289, 311, 45},
    {"deeplabv3_mobilenet_v3_large.fxjson.json", 561, 260, 299, 44},
    {"deit_tiny_vit.fxjson.json", 670, 516, 152, 0},
    {"wav2letter.fxjson.json", 51, 25, 24, 1},
    {"large/vit_tiny_deep200.fxjson.json", 10822, 8412, 2408, 0},
};

// A tiny valid graph; the bad-input tests mutate it with textual replacements.
const std::string kTiny = R"({"format": "fxjson", "version": 1, "model": "tiny",
 "nodes": [
  {"name": "x", "op": "placeholder", "target": "x", "args": [], "kwargs": {}, "meta": {"shape": [1, 4], "dtype": "float32"}},
  {"name": "w", "op": "get_attr", "target": "w", "args": [], "kwargs": {}, "meta": {"shape": [4], "dtype": "float32"}},
  {"name": "add", "op": "call_function", "target": "aten.add.Tensor", "args": [{"node": "x"}, {"node": "w"}], "kwargs": {}, "meta": {"shape": [1, 4], "dtype": "float32"}},
  {"name": "relu", "op": "call_function", "target": "aten.relu.default", "args": [{"node": "add"}], "kwargs": {}, "meta": {"shape": [1, 4], "dtype": "float32"}},
  {"name": "output", "op": "output", "target": "output", "args": [[{"node": "relu"}]], "kwargs": {}, "meta": {}}
 ],
 "constants": {"w": {"shape": [4], "dtype": "float32", "fqn": "w", "kind": "parameter", "data_b64": "AACAPwAAAEAAAEBAAACAQA=="}},
 "inputs": ["x"], "outputs": ["relu"]})";

/// kTiny with `from` replaced by `to` (the test fails if `from` is absent).
std::string tinyWith(const std::string& from, const std::string& to, const std::string& base = kTiny) {
  std::string s = base;
  size_t pos = s.find(from);
  EXPECT_NE(pos, std::string::npos) << "test bug: '" << from << "' not in the base document";
  if (pos != std::string::npos) s.replace(pos, from.size(), to);
  return s;
}

/// Imports `json` expecting failure; returns the error message.
std::string importError(const std::string& json) {
  auto r = importFxJson(json, "tiny.json");
  EXPECT_FALSE(r.isOk()) << "expected an import error for:\n" << json;
  if (r.isOk()) return "";
  EXPECT_EQ(r.message().rfind("tiny.json: ", 0), 0u) << r.message();
  return r.message();
}

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "missing '" << (needle) << "' in: " << (haystack)

ir::Graph importOk(const std::string& json, ImportReport* report = nullptr) {
  auto r = importFxJson(json, "tiny.json", report);
  EXPECT_TRUE(r.isOk()) << r.message();
  if (!r.isOk()) return ir::Graph();
  EXPECT_TRUE(r->validate().isOk()) << r->validate().message();
  return std::move(r).value();
}

size_t countLines(const std::string& text, const std::string& line) {
  size_t n = 0, pos = 0;
  while ((pos = text.find(line + "\n", pos)) != std::string::npos) {
    if (pos == 0 || text[pos - 1] == '\n') ++n;
    pos += line.size();
  }
  return n;
}

void expectSameConstants(const ir::Graph& a, const ir::Graph& b) {
  ASSERT_EQ(a.constants().size(), b.constants().size());
  for (const auto& [name, ca] : a.constants()) {
    const ir::Constant* cb = b.constant(name);
    ASSERT_NE(cb, nullptr) << name;
    EXPECT_EQ(ca.fqn, cb->fqn) << name;
    EXPECT_EQ(ca.kind, cb->kind) << name;
    EXPECT_EQ(ca.dtype, cb->dtype) << name;
    EXPECT_EQ(ca.shape, cb->shape) << name;
    EXPECT_EQ(ca.contentHash, cb->contentHash) << name;
    ASSERT_EQ(ca.hasData(), cb->hasData()) << name;
    if (ca.hasData()) {
      EXPECT_TRUE(std::ranges::equal(ca.data->bytes, cb->data->bytes)) << name;
    }
  }
}

// ------------------------------------------------------------------ real graphs

TEST(FxJsonReal, EveryGraphImports) {
  for (const RealGraph& rg : kRealGraphs) {
    SCOPED_TRACE(rg.file);
    ImportReport report;
    auto r = importFxJsonFile(assetPath(rg.file), &report);
    ASSERT_TRUE(r.isOk()) << r.message();
    const ir::Graph& g = *r;
    EXPECT_EQ(g.size(), rg.nodes);
    size_t calls = 0;
    for (const ir::NodePtr& p : g.nodes()) calls += p->isCall();
    EXPECT_EQ(calls, rg.calls);
    EXPECT_TRUE(g.validate().isOk()) << g.validate().message();
    EXPECT_EQ(report.opaqueNodes, 0u);
    for (const std::string& w : report.warnings) ADD_FAILURE() << "warning: " << w;
    EXPECT_FALSE(g.modelName.empty());
    size_t withData = 0;
    for (const auto& [name, c] : g.constants()) {
      if (!c.hasData()) continue;
      ++withData;
      EXPECT_EQ(int64_t(c.data->bytes.size()), c.numel() * ir::dtypeSize(c.dtype)) << name;
    }
    EXPECT_EQ(g.constants().size(), rg.constants);
    EXPECT_EQ(withData, rg.constantsWithData);
    // Ids are dense and in graph order.
    for (size_t i = 0; i < g.size(); ++i) EXPECT_EQ(g.at(i).id, ir::NodeId(i));
  }
}

TEST(FxJsonReal, Resnet18PrintsAsExpected) {
  auto r = importFxJsonFile(assetPath("resnet18.fxjson.json"));
  ASSERT_TRUE(r.isOk()) << r.message();
  const std::string text = ir::printGraph(*r);
  EXPECT_EQ(r->modelName, "resnet18");
  EXPECT_EQ(countLines(text, "%x = placeholder[x] : f32[1,3,224,224]"), 1u) << text;
  EXPECT_EQ(countLines(text, "%conv1_weight = get_attr[conv1_weight] : f32[64,3,7,7]"), 1u);
  EXPECT_EQ(countLines(text, "%convolution = aten.convolution.default(%x, %conv1_weight, None, [2, 2], [3, 3], [1, 1], "
                             "False, [0, 0], 1) : f32[1,64,112,112]"),
            1u);
  EXPECT_EQ(countLines(text, "%native_batch_norm = aten.native_batch_norm.default(%convolution, %bn1_weight, %bn1_bias, "
                             "%bn1_running_mean, %bn1_running_var, False, 0.1, 1e-05) : (f32[1,64,112,112], f32[0], "
                             "f32[0])"),
            1u);
  EXPECT_EQ(countLines(text, "%getitem = operator.getitem(%native_batch_norm, 0) : f32[1,64,112,112]"), 1u);
  EXPECT_EQ(countLines(text, "%max_pool2d_with_indices = aten.max_pool2d_with_indices.default(%relu, [3, 3], [2, 2], "
                             "[1, 1]) : (f32[1,64,56,56], i64[1,64,56,56])"),
            1u);
  EXPECT_EQ(countLines(text, "return (%addmm)"), 1u);
  // The output node is last; its recorded meta is kept.
  const ir::Node* out = r->outputNode();
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out, &r->at(r->size() - 1));
  EXPECT_TRUE(out->hasFlag(ir::kFlagOutputsAsList));
  // Small constants carry data: bn1.weight is 64 ones.
  const ir::Constant* bn = r->constant("bn1_weight");
  ASSERT_NE(bn, nullptr);
  EXPECT_EQ(bn->fqn, "bn1.weight");
  EXPECT_EQ(bn->kind, ir::ConstantKind::Parameter);
  ASSERT_TRUE(bn->hasData());
  ASSERT_EQ(bn->data->bytes.size(), 64u * 4);
  float v;
  std::memcpy(&v, bn->data->bytes.data() + 4 * 17, 4);
  EXPECT_EQ(v, 1.0f);
  const ir::Constant* w = r->constant("conv1_weight");
  ASSERT_NE(w, nullptr);
  EXPECT_FALSE(w->hasData());
  // Signature.
  ir::GraphSignature sig = r->signature();
  ASSERT_EQ(sig.userInputs.size(), 1u);
  EXPECT_EQ(r->node(sig.userInputs[0]).name, "x");
  ASSERT_EQ(sig.outputs.size(), 1u);
  EXPECT_EQ(r->node(sig.outputs[0].node).name, "addmm");
}

TEST(FxJsonReal, ExportImportRoundTripPrintsIdentically) {
  for (const RealGraph& rg : kRealGraphs) {
    SCOPED_TRACE(rg.file);
    auto a = importFxJsonFile(assetPath(rg.file));
    ASSERT_TRUE(a.isOk()) << a.message();
    std::string json = exportFxJson(*a);
    auto b = importFxJson(json, "roundtrip.json");
    ASSERT_TRUE(b.isOk()) << b.message();
    EXPECT_EQ(ir::printGraph(*a), ir::printGraph(*b));
    EXPECT_EQ(a->modelName, b->modelName);
    expectSameConstants(*a, *b);
    for (size_t i = 0; i < a->size(); ++i) {
      EXPECT_EQ(a->at(i).flags, b->at(i).flags) << a->at(i).name;
      EXPECT_EQ(a->at(i).outputs, b->at(i).outputs) << a->at(i).name;
      EXPECT_EQ(a->at(i).module, b->at(i).module) << a->at(i).name;
    }
    // Exporting again gives the same bytes (the writer is deterministic).
    EXPECT_EQ(json, exportFxJson(*b));
  }
}

TEST(FxJsonReal, LargeGraphImportIsFast) {
  auto text = readFile(assetPath("large/vit_tiny_deep200.fxjson.json"));
  ASSERT_TRUE(text.isOk()) << text.message();
  ASSERT_TRUE(importFxJson(*text, "warmup").isOk());  // registry and op table initialised
  double best = 1e9;
  for (int rep = 0; rep < 3; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = importFxJson(*text, "vit_tiny_deep200.fxjson.json");
    auto t1 = std::chrono::steady_clock::now();
    ASSERT_TRUE(r.isOk()) << r.message();
    ASSERT_EQ(r->size(), 10822u);
    best = std::min(best, std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::cout << "[ info ] import of vit_tiny_deep200 (10822 nodes, 3.8 MB): " << best << " ms (best of 3)\n";
  RecordProperty("import_ms", std::to_string(best));
  // Generous bound (sanitizer/debug builds, busy machine); release runs are a few tens of ms.
  EXPECT_LT(best, 2000.0);
}

// ------------------------------------------------------------------ decoding details

TEST(FxJsonImport, TinyGraph) {
  ImportReport report;
  ir::Graph g = importOk(kTiny, &report);
  EXPECT_TRUE(report.warnings.empty());
  EXPECT_EQ(g.modelName, "tiny");
  EXPECT_EQ(ir::printGraph(g),
            "%x = placeholder[x] : f32[1,4]\n"
            "%w = get_attr[w] : f32[4]\n"
            "%add = aten.add.Tensor(%x, %w) : f32[1,4]\n"
            "%relu = aten.relu.default(%add) : f32[1,4]\n"
            "return (%relu)\n");
  const ir::Constant* w = g.constant("w");
  ASSERT_NE(w, nullptr);
  ASSERT_TRUE(w->hasData());
  float vals[4];
  ASSERT_EQ(w->data->bytes.size(), sizeof vals);
  std::memcpy(vals, w->data->bytes.data(), sizeof vals);
  EXPECT_EQ(vals[0], 1.0f);
  EXPECT_EQ(vals[3], 4.0f);
  EXPECT_NE(w->contentHash, 0u);
  EXPECT_EQ(g.at(2).op, ir::findOp("aten.add.Tensor"));
  EXPECT_EQ(g.at(2).target, "aten.add.Tensor");
}

TEST(FxJsonImport, AllArgKindsDecodeAndRoundTrip) {
  // An unknown op, so any argument mix is accepted (and the node is opaque).
  std::string json = tinyWith(
      R"("target": "aten.relu.default", "args": [{"node": "add"}], "kwargs": {})",
      R"("target": "test.everything.default",
         "args": [{"node": "add"}, [{"node": "x"}, null, {"node": "w"}], [1, -2, 9223372036854775807],
                  [1, 2.5, {"float": "-inf"}], [true, false], [], "a \"str\"\n", 3, -9223372036854775808,
                  0.1, {"float": "nan"}, {"float": "inf"}, null, false,
                  {"enum": "torch.float16", "kind": "dtype"}, {"enum": "cpu", "kind": "device"},
                  {"slice": [null, 5, -1]}, [null, null]],
         "kwargs": {"zeta": 1, "alpha": {"enum": "torch.channels_last", "kind": "memory_format"},
                    "layout": {"enum": "torch.strided", "kind": "layout"}, "dev": {"enum": "cuda:1", "kind": "device"}})");
  ImportReport report;
  ir::Graph g = importOk(json, &report);
  const ir::Node& n = g.at(3);
  EXPECT_TRUE(n.hasFlag(ir::kFlagOpaque));
  EXPECT_EQ(report.opaqueNodes, 1u);
  EXPECT_EQ(ir::printArgs(g, n),
            "%add, [%x, None, %w], [1, -2, 9223372036854775807], [1.0, 2.5, -inf], [True, False], [], "
            "\"a \\\"str\\\"\\n\", 3, -9223372036854775808, 0.1, nan, inf, None, False, torch.float16, cpu, "
            "slice(None, 5, -1), [None, None], zeta=1, alpha=torch.channels_last, layout=torch.strided, dev=cuda:1");
  EXPECT_EQ(n.args[1].kind(), ir::ArgKind::RefList);
  EXPECT_EQ(n.args[2].kind(), ir::ArgKind::IntList);
  EXPECT_EQ(n.args[3].kind(), ir::ArgKind::FloatList);
  EXPECT_EQ(n.args[4].kind(), ir::ArgKind::BoolList);
  EXPECT_EQ(n.args[5].kind(), ir::ArgKind::IntList);
  EXPECT_EQ(n.args[6].kind(), ir::ArgKind::String);
  EXPECT_EQ(n.args[9].kind(), ir::ArgKind::Float);
  EXPECT_EQ(n.args[14].kind(), ir::ArgKind::Enum);
  EXPECT_EQ(n.args[16].kind(), ir::ArgKind::Slice);
  EXPECT_EQ(n.args[17].kind(), ir::ArgKind::RefList);
  ASSERT_EQ(n.kwargs.size(), 4u);
  EXPECT_EQ(n.kwargs[0].name, "zeta");  // file order, not sorted
  EXPECT_EQ(n.kwargs[1].name, "alpha");

  auto back = importFxJson(exportFxJson(g), "rt.json");
  ASSERT_TRUE(back.isOk()) << back.message();
  EXPECT_EQ(ir::printGraph(g), ir::printGraph(*back));
  const ir::Node& m = back->at(3);
  for (size_t i = 0; i < n.args.size(); ++i) {
    if (n.args[i].asFloat() && std::isnan(*n.args[i].asFloat())) continue;  // nan != nan
    EXPECT_EQ(n.args[i], m.args[i]) << "arg " << i;
  }
  EXPECT_EQ(n.kwargs, m.kwargs);
}

TEST(FxJsonImport, FloatsRoundTripExactly) {
  const double values[] = {0.1, 1e-05, 1.0 / 3.0, 1e300, 5e-324, -0.0, 123456789.0, 2.5e-308, -7.0};
  std::string args;
  for (double v : values) {
    if (!args.empty()) args += ", ";
    args += ir::formatFloat(v);
  }
  std::string json = tinyWith(R"("target": "aten.relu.default", "args": [{"node": "add"}])",
                              R"("target": "test.floats.default", "args": [{"node": "add"}, [)" + args + "], " + args +
                                  "]");
  ir::Graph g = importOk(json);
  auto back = importFxJson(exportFxJson(g), "rt.json");
  ASSERT_TRUE(back.isOk()) << back.message();
  const ir::Node& n = back->at(3);
  const auto* list = std::get_if<ir::FloatList>(&n.args[1].v);
  ASSERT_NE(list, nullptr);
  for (size_t i = 0; i < std::size(values); ++i) {
    uint64_t a, b, c;
    std::memcpy(&a, &values[i], 8);
    std::memcpy(&b, &(*list)[i], 8);
    ASSERT_NE(n.args[2 + i].asFloat(), nullptr);
    std::memcpy(&c, n.args[2 + i].asFloat(), 8);
    EXPECT_EQ(a, b) << values[i];
    EXPECT_EQ(a, c) << values[i];
  }
}

TEST(FxJsonImport, MultiOutputDimOrderAndModule) {
  std::string json = tinyWith(R"("meta": {"shape": [1, 4], "dtype": "float32"}},
  {"name": "relu")",
                              R"("meta": {"shapes": [[1, 4], null, [2]], "dtypes": ["float32", null, "int64"],
                                  "dim_orders": [[1, 0], null, [0]], "module": "layer.0"}},
  {"name": "relu")");
  ir::Graph g = importOk(json);
  const ir::Node& add = g.at(2);
  EXPECT_TRUE(add.hasFlag(ir::kFlagOpaque) == false);
  EXPECT_TRUE(add.hasFlag(ir::kFlagOutputsAsList));
  EXPECT_EQ(add.module, "layer.0");
  EXPECT_EQ(ir::printNode(g, add), "%add = aten.add.Tensor(%x, %w) : (f32[1,4]{1,0}, none, i64[2])");
  auto back = importFxJson(exportFxJson(g), "rt.json");
  ASSERT_TRUE(back.isOk()) << back.message();
  EXPECT_EQ(ir::printGraph(g), ir::printGraph(*back));
  EXPECT_EQ(back->at(2).module, "layer.0");
  EXPECT_EQ(back->at(2).outputs, add.outputs);

  ir::Graph g2 = importOk(
      tinyWith(R"("meta": {"shape": [1, 4], "dtype": "float32"}},
  {"name": "w")",
               R"("meta": {"shape": [1, 4], "dtype": "float32", "dim_order": [1, 0], "ignored_key": 3}},
  {"name": "w")"));
  EXPECT_EQ(ir::printNode(g2, g2.at(0)), "%x = placeholder[x] : f32[1,4]{1,0}");
}

TEST(FxJsonImport, ForwardReferenceIsSorted) {
  // relu (which reads add) comes before add in the file.
  std::string json = R"({"nodes": [
    {"name": "x", "op": "placeholder", "target": "x", "meta": {"shape": [2], "dtype": "float32"}},
    {"name": "relu", "op": "call_function", "target": "aten.relu.default", "args": [{"node": "add"}], "meta": {"shape": [2], "dtype": "float32"}},
    {"name": "add", "op": "call_function", "target": "aten.add.Tensor", "args": [{"node": "x"}, {"node": "x"}], "meta": {"shape": [2], "dtype": "float32"}},
    {"name": "y", "op": "placeholder", "target": "y", "meta": {"shape": [2], "dtype": "float32"}},
    {"name": "output", "op": "output", "args": [[{"node": "relu"}, {"node": "y"}]]}],
   "inputs": ["x", "y"], "outputs": ["relu", "y"]})";
  ImportReport report;
  ir::Graph g = importOk(json, &report);
  ASSERT_EQ(g.size(), 5u);
  EXPECT_EQ(g.at(0).name, "x");
  EXPECT_EQ(g.at(1).name, "add");
  EXPECT_EQ(g.at(2).name, "relu");
  EXPECT_EQ(g.at(3).name, "y");  // stable: keeps file order where references allow
  EXPECT_EQ(g.at(4).name, "output");
  for (size_t i = 0; i < g.size(); ++i) EXPECT_EQ(g.at(i).id, ir::NodeId(i));
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_HAS(report.warnings[0], "not in topological order");
  EXPECT_HAS(report.warnings[0], "node 'relu' (#1) reads node 'add' (#2)");
}

TEST(FxJsonImport, UnknownOpIsOpaqueWithWarning) {
  ImportReport report;
  ir::Graph g = importOk(tinyWith("aten.relu.default", "foo.bar.baz"), &report);
  EXPECT_EQ(report.opaqueNodes, 1u);
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_HAS(report.warnings[0], "unknown op 'foo.bar.baz' imported as opaque: 1 node ('relu')");
  const ir::Node& n = g.at(3);
  EXPECT_TRUE(n.hasFlag(ir::kFlagOpaque));
  EXPECT_EQ(ir::printNode(g, n), "%relu = foo.bar.baz(%add) : f32[1,4] [opaque]");
  // Also without a report.
  EXPECT_TRUE(importFxJson(tinyWith("aten.relu.default", "foo.bar.baz"), "t").isOk());
}

TEST(FxJsonImport, UnknownOpsWarnOncePerKindWithCountAndFirstNodes) {
  // A symbolic_trace graph as the recorder writes it: call_module nodes (one target per module
  // path, one kind), a repeated unknown function, and a one-off. One warning per kind, in the
  // order first seen, with the count and the first few nodes; every node is still opaque.
  std::string nodes;
  auto call = [&](const std::string& name, const std::string& target, const std::string& input) {
    nodes += R"({"name": ")" + name + R"(", "op": "call_function", "target": ")" + target + R"(", "args": [{"node": ")" +
             input + R"("}], "kwargs": {}, "meta": {"shape": [1, 4], "dtype": "float32"}},)";
  };
  call("conv1", "call_module.conv1", "x");
  call("add", "operator.add", "conv1");
  call("layer1_0_conv1", "call_module.layer1.0.conv1", "add");
  call("add_1", "operator.add", "layer1_0_conv1");
  call("layer1_0_relu", "call_module.layer1.0.relu", "add_1");
  call("layer1_0_relu_1", "call_module.layer1.0.relu", "layer1_0_relu");
  call("flatten", "torch.flatten", "layer1_0_relu_1");
  std::string doc = R"({"format": "fxjson", "version": 1, "model": "sym", "nodes": [
  {"name": "x", "op": "placeholder", "target": "x", "args": [], "kwargs": {}, "meta": {"shape": [1, 4], "dtype": "float32"}},)" +
                    nodes +
                    R"({"name": "output", "op": "output", "target": "output", "args": [[{"node": "flatten"}]], "kwargs": {}, "meta": {}}],
  "constants": {}, "inputs": ["x"], "outputs": ["flatten"]})";
  ImportReport report;
  ir::Graph g = importOk(doc, &report);
  EXPECT_EQ(report.opaqueNodes, 7u);
  for (const char* n : {"conv1", "add", "layer1_0_relu_1", "flatten"})
    EXPECT_TRUE(g.node(g.findByName(n)).hasFlag(ir::kFlagOpaque)) << n;
  ASSERT_EQ(report.warnings.size(), 3u) << fmt::format("{}", fmt::join(report.warnings, "\n"));
  EXPECT_HAS(report.warnings[0], "tiny.json: unknown op 'call_module.*' imported as opaque: 4 nodes, e.g. 'conv1' "
                                 "(call_module.conv1), 'layer1_0_conv1' (call_module.layer1.0.conv1), "
                                 "'layer1_0_relu' (call_module.layer1.0.relu)");
  EXPECT_HAS(report.warnings[1], "unknown op 'operator.add' imported as opaque: 2 nodes ('add', 'add_1')");
  EXPECT_HAS(report.warnings[2], "unknown op 'torch.flatten' imported as opaque: 1 node ('flatten')");
  ASSERT_EQ(report.nodeFindings.size(), 3u);
  EXPECT_EQ(report.nodeFindings[0].nodes, 4u);
  EXPECT_EQ(report.nodeFindings[0].examples.size(), NodeFinding::kMaxExamples);
  EXPECT_EQ(unknownOpKind("call_method.view"), "call_method.view");  // a method name is a kind
}

TEST(FxJsonImport, ViewOpsImportAsTheirFunctionalTwins) {
  // A producer that keeps view ops (aten.t, aten.unsqueeze) and unsafe_split: each is the
  // registered op of the same values, with a warning; an in-place op has no twin.
  std::string doc = tinyWith(R"({"name": "relu", "op": "call_function", "target": "aten.relu.default", "args": [{"node": "add"}], "kwargs": {}, "meta": {"shape": [1, 4], "dtype": "float32"}})",
                             R"({"name": "relu", "op": "call_function", "target": "aten.t.default", "args": [{"node": "add"}], "kwargs": {}, "meta": {"shape": [4, 1], "dtype": "float32"}})");
  doc = tinyWith(R"("outputs": ["relu"])", R"("outputs": ["relu"])", doc);
  ImportReport report;
  ir::Graph g = importOk(doc, &report);
  EXPECT_EQ(report.opaqueNodes, 0u);
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_HAS(report.warnings[0], "'aten.t.default' imported as its functional twin 'aten.t_copy.default': 1 node ('relu')");
  EXPECT_EQ(g.at(3).op, ir::internOp("aten.t_copy.default"));
  EXPECT_EQ(g.at(3).meta().shape, (ir::Shape{4, 1}));
  const auto& reg = ops::OpRegistry::instance();
  ASSERT_TRUE(reg.functionalTwin("aten.unsqueeze.default"));
  EXPECT_EQ(reg.functionalTwin("aten.unsqueeze.default")->name, "aten.unsqueeze_copy.default");
  ASSERT_TRUE(reg.functionalTwin("aten.unsafe_split.Tensor"));
  EXPECT_EQ(reg.functionalTwin("aten.unsafe_split.Tensor")->name, "aten.split_copy.Tensor");
  EXPECT_EQ(reg.functionalTwin("aten.relu_.default"), nullptr);
  EXPECT_EQ(reg.functionalTwin("foo.t.default"), nullptr);
  EXPECT_EQ(reg.functionalTwin("aten.no_such_op.default"), nullptr);
}

TEST(FxJsonImport, MissingMetaIsInferred) {
  ir::Graph g = importOk(tinyWith(
      R"("args": [{"node": "add"}], "kwargs": {}, "meta": {"shape": [1, 4], "dtype": "float32"}})",
      R"("args": [{"node": "add"}], "kwargs": {}})"));
  EXPECT_EQ(ir::printNode(g, g.at(3)), "%relu = aten.relu.default(%add) : f32[1,4]");
  // get_attr without meta takes the constant's.
  ir::Graph g2 = importOk(tinyWith(R"("target": "w", "args": [], "kwargs": {}, "meta": {"shape": [4], "dtype": "float32"}})",
                                   R"("target": "w"})"));
  EXPECT_EQ(ir::printNode(g2, g2.at(1)), "%w = get_attr[w] : f32[4]");
}

TEST(FxJsonImport, EmptyOutputListAndOptionalKeys) {
  ir::Graph g = importOk(R"({"nodes": [{"name": "output", "op": "output", "args": [[]]}]})");
  EXPECT_EQ(ir::printGraph(g), "return ()\n");
  auto back = importFxJson(exportFxJson(g), "rt");
  ASSERT_TRUE(back.isOk()) << back.message();
  EXPECT_EQ(ir::printGraph(*back), "return ()\n");
}

TEST(FxJsonImport, FuzzSeedsImportAndRoundTrip) {
  const std::string dir = std::string(LS_TESTS_DIR) + "/fuzz/corpus/fxjson/";
  for (const char* f : {"tiny_add_relu.json", "batchnorm_getitem.json", "forward_opaque_args.json"}) {
    SCOPED_TRACE(f);
    auto a = importFxJsonFile(dir + f);
    ASSERT_TRUE(a.isOk()) << a.message();
    EXPECT_TRUE(a->validate().isOk()) << a->validate().message();
    auto b = importFxJson(exportFxJson(*a), "rt");
    ASSERT_TRUE(b.isOk()) << b.message();
    EXPECT_EQ(ir::printGraph(*a), ir::printGraph(*b));
  }
}

TEST(FxJsonBase64, EncodeDecode) {
  for (size_t len = 0; len < 12; ++len) {
    std::vector<uint8_t> bytes(len);
    for (size_t i = 0; i < len; ++i) bytes[i] = uint8_t(i * 37 + 250);
    std::string text = encodeBase64(bytes.data(), bytes.size());
    EXPECT_EQ(text.size() % 4, 0u);
    auto back = decodeBase64(text);
    ASSERT_TRUE(back.isOk()) << back.message();
    EXPECT_EQ(*back, bytes);
  }
  EXPECT_EQ(encodeBase64("foobar", 6), "Zm9vYmFy");
  EXPECT_EQ(encodeBase64("fo", 2), "Zm8=");
  EXPECT_HAS(decodeBase64("Zm8").message(), "not a multiple of 4");
  EXPECT_HAS(decodeBase64("Z=8=").message(), "padding '=' at offset 1");
  EXPECT_HAS(decodeBase64("Zm9v YmFy").message(), "length 9");
  EXPECT_HAS(decodeBase64("Zm9\x01").message(), "invalid byte 0x01 at offset 3");
  EXPECT_HAS(decodeBase64("Zm8===").message(), "not a multiple of 4");
  // Every length (all three padding cases), and an error deep inside a long text names its offset.
  std::vector<uint8_t> bytes;
  for (int n = 0; n < 70; ++n) {
    auto back = decodeBase64(encodeBase64(bytes.data(), bytes.size()));
    ASSERT_TRUE(back.isOk()) << n << ": " << back.message();
    EXPECT_EQ(*back, bytes) << n;
    bytes.push_back(uint8_t(n * 37 + 11));
  }
  std::string longText = encodeBase64(bytes.data(), 66);
  longText[50] = '*';
  EXPECT_HAS(decodeBase64(longText).message(), "invalid character '*' at offset 50");
  longText[50] = '=';
  EXPECT_HAS(decodeBase64(longText).message(), "padding '=' at offset 50 before the end");
  EXPECT_HAS(decodeBase64("====").message(), "padding '=' at offset 0");
  EXPECT_HAS(decodeBase64("Z===").message(), "padding '=' at offset 1");
}

// ------------------------------------------------------------------ bad inputs

TEST(FxJsonErrors, TruncatedJson) {
  std::string msg = importError(kTiny.substr(0, kTiny.size() / 2));
  EXPECT_HAS(msg, "tiny.json: invalid JSON at line ");
  EXPECT_HAS(importError(""), "invalid JSON");
}

TEST(FxJsonErrors, GarbledJsonSaysWhereAndWhatWasExpected) {
  // The line and column of the missing ':' in the document as written.
  const std::string bad = tinyWith(R"("op": "call_function")", R"("op" "call_function")");
  const size_t at = bad.find(R"("op" "call_function")") + 5;
  size_t line = 1 + size_t(std::count(bad.begin(), bad.begin() + long(at), '\n'));
  size_t col = at - (bad.rfind('\n', at - 1) == std::string::npos ? size_t(-1) : bad.rfind('\n', at - 1));
  EXPECT_HAS(importError(bad), fmt::format("tiny.json: invalid JSON at line {}, column {} (byte {}): expected ':' after a "
                                           "member name", line, col, at));
  EXPECT_HAS(importError(tinyWith("[1, 4]", "[1, 4]]")), "invalid JSON");
  EXPECT_HAS(importError("\xff\xfe{}"), "invalid JSON");
  EXPECT_HAS(importError("[1, 2]"), "expected a JSON object at the top level, got list");
}

TEST(FxJsonErrors, WrongTypes) {
  std::string msg = importError(tinyWith(R"("args": [{"node": "x"}, {"node": "w"}], "kwargs": {}, "meta": {"shape": [1, 4])",
                                         R"("args": [{"node": "x"}, {"node": "w"}], "kwargs": {}, "meta": {"shape": "1,4")"));
  EXPECT_HAS(msg, "tiny.json: node 'add' (#2): meta.shape: expected a list of integers, got string");
  msg = importError(tinyWith(R"("args": [{"node": "add"}])", R"("args": {"a": 1})"));
  EXPECT_HAS(msg, "tiny.json: node 'relu' (#3): args: expected a list, got object");
  msg = importError(tinyWith(R"("kwargs": {}, "meta": {"shape": [1, 4], "dtype": "float32"}},
  {"name": "w")",
                             R"("kwargs": [], "meta": {"shape": [1, 4], "dtype": "float32"}},
  {"name": "w")"));
  EXPECT_HAS(msg, "node 'x' (#0): kwargs: expected an object, got list");
  msg = importError(tinyWith(R"("shape": [1, 4], "dtype": "float32"}},
  {"name": "w")",
                             R"("shape": [1, 4.5], "dtype": "float32"}},
  {"name": "w")"));
  EXPECT_HAS(msg, "node 'x' (#0): meta.shape[1]: expected a non-negative integer, got float 4.5");
  msg = importError(tinyWith(R"("shape": [1, 4], "dtype": "float32"}},
  {"name": "w")",
                             R"("shape": [1, -4], "dtype": "float32"}},
  {"name": "w")"));
  EXPECT_HAS(msg, "meta.shape[1]: expected a non-negative integer, got -4");
  msg = importError(tinyWith(R"("dtype": "float32"}},
  {"name": "w")",
                             R"("dtype": "floaty"}},
  {"name": "w")"));
  EXPECT_HAS(msg, "node 'x' (#0): meta.dtype: expected a dtype name such as 'float32', got 'floaty'");
  msg = importError(tinyWith(R"({"name": "relu", "op": "call_function")", R"({"name": 7, "op": "call_function")"));
  EXPECT_HAS(msg, "node #3: name: expected a non-empty string, got integer 7");
  msg = importError(tinyWith(R"({"name": "relu", "op": "call_function")", R"({"name": "relu", "op": "call_module")"));
  EXPECT_HAS(msg, "node 'relu' (#3): op: expected 'placeholder', 'get_attr', 'call_function' or 'output', got "
                  "'call_module'");
  msg = importError(tinyWith(R"("nodes": [)", R"("nodes": {}, "x": [)"));
  EXPECT_HAS(msg, "nodes: expected a list of node objects, got object");
  msg = importError(tinyWith(R"("args": [{"node": "add"}])", R"("args": [{"node": "add"}, 18446744073709551615])"));
  EXPECT_HAS(msg, "node 'relu' (#3): arg 1: expected an integer in the int64 range, got integer 18446744073709551615");
  msg = importError(tinyWith(R"("args": [{"node": "add"}])", R"("args": [{"node": "add"}, [1, {"node": "x"}]])"));
  EXPECT_HAS(msg, "node 'relu' (#3): arg 1: expected a list of node refs (null allowed), integers, floats or bools, "
                  "got a list mixing node refs and integers");
  msg = importError(tinyWith(R"("args": [{"node": "add"}])", R"("args": [{"node": "add"}, ["a"]])"));
  EXPECT_HAS(msg, "arg 1[0]: expected a node ref, number, bool or null in a list, got string");
  msg = importError(tinyWith(R"("args": [{"node": "add"}])", R"("args": [{"node": "add"}, {"what": 1}])"));
  EXPECT_HAS(msg, "arg 1: expected {\"node\": ...}");
  msg = importError(tinyWith(R"("args": [{"node": "add"}])", R"("args": [{"node": "add"}, {"float": "infinity"}])"));
  EXPECT_HAS(msg, "arg 1: \"float\": expected 'inf', '-inf' or 'nan', got string 'infinity'");
  msg = importError(tinyWith(R"("args": [{"node": "add"}])", R"("args": [{"node": "add"}, {"slice": [1, 2]}])"));
  EXPECT_HAS(msg, "arg 1: \"slice\": expected [start, stop, step] (integers or null), got a list of 2");
  msg = importError(tinyWith(R"("args": [{"node": "add"}])", R"("args": [{"node": 3}])"));
  EXPECT_HAS(msg, "arg 0: \"node\": expected a node name, got integer");
}

TEST(FxJsonErrors, DanglingReference) {
  std::string msg = importError(tinyWith(R"("args": [{"node": "add"}])", R"("args": [{"node": "nope"}])"));
  EXPECT_HAS(msg, "tiny.json: node 'relu' (#3): arg 0 refers to unknown node 'nope'");
  msg = importError(tinyWith(R"([[{"node": "relu"}]])", R"([[{"node": "relu"}, {"node": "gone"}]])"));
  EXPECT_HAS(msg, "node 'output' (#4): arg 0[1] refers to unknown node 'gone'");
  msg = importError(tinyWith(R"("kwargs": {}, "meta": {"shape": [1, 4], "dtype": "float32"}},
  {"name": "output")",
                             R"("kwargs": {"other": {"node": "zz"}}, "meta": {"shape": [1, 4], "dtype": "float32"}},
  {"name": "output")"));
  EXPECT_HAS(msg, "node 'relu' (#3): kwarg 'other' refers to unknown node 'zz'");
  msg = importError(tinyWith(R"("args": [{"node": "add"}])", R"("args": [{"node": "output"}])"));
  EXPECT_HAS(msg, "node 'relu' (#3): arg 0 refers to the output node 'output'");
}

TEST(FxJsonErrors, Cycle) {
  std::string json = tinyWith(R"("args": [{"node": "x"}, {"node": "w"}])", R"("args": [{"node": "relu"}, {"node": "w"}])");
  std::string msg = importError(json);
  EXPECT_HAS(msg, "tiny.json: node 'add' (#2): cycle through node 'add' ('add' reads 'relu', which reads 'add')");
  // A node reading itself.
  msg = importError(tinyWith(R"("args": [{"node": "add"}])", R"("args": [{"node": "relu"}])"));
  EXPECT_HAS(msg, "node 'relu' (#3): cycle through node 'relu' ('relu' reads 'relu')");
}

TEST(FxJsonErrors, DuplicateName) {
  std::string msg = importError(tinyWith(R"({"name": "relu")", R"({"name": "add")"));
  EXPECT_HAS(msg, "tiny.json: node 'add' (#3): duplicate node name (first defined at #2)");
}

TEST(FxJsonErrors, ArityMismatch) {
  std::string msg =
      importError(tinyWith(R"("args": [{"node": "add"}])", R"("args": [{"node": "add"}, {"node": "x"}, 3])"));
  EXPECT_HAS(msg, "tiny.json: node 'relu' (#3): ");
  EXPECT_HAS(msg, "aten.relu.default");
  EXPECT_HAS(msg, "3");
}

TEST(FxJsonErrors, BadBase64) {
  std::string msg = importError(tinyWith("AACAPwAAAEAAAEBAAACAQA==", "AACAPwAAAEAAAEBAAAC!QA=="));
  EXPECT_HAS(msg, "tiny.json: constant 'w': data_b64: invalid base64: invalid character '!' at offset 19");
  msg = importError(tinyWith("AACAPwAAAEAAAEBAAACAQA==", "AACAPwAAAEAAAEBAAACAQA="));
  EXPECT_HAS(msg, "constant 'w': data_b64: invalid base64: length 23 is not a multiple of 4");
}

TEST(FxJsonErrors, DataLengthMismatch) {
  std::string msg = importError(tinyWith("AACAPwAAAEAAAEBAAACAQA==", "AACAPwAAAEAAAEBA"));
  EXPECT_HAS(msg, "tiny.json: constant 'w': data_b64: decoded 12 bytes, expected 16 (f32[4]: 4 elements x 4 bytes)");
}

TEST(FxJsonErrors, GetAttrOfMissingConstant) {
  std::string msg = importError(tinyWith(R"("target": "w")", R"("target": "w2")"));
  EXPECT_HAS(msg, "tiny.json: node 'w' (#1): get_attr target 'w2': no such entry in \"constants\"");
  msg = importError(tinyWith(R"("meta": {"shape": [4], "dtype": "float32"}})", R"("meta": {"shape": [5], "dtype": "float32"}})"));
  EXPECT_HAS(msg, "node 'w' (#1): meta: expected f32[4] like constant 'w', got f32[5]");
}

TEST(FxJsonErrors, UnknownEnum) {
  std::string clone = tinyWith(
      R"("target": "aten.relu.default", "args": [{"node": "add"}], "kwargs": {})",
      R"("target": "aten.clone.default", "args": [{"node": "add"}], "kwargs": {"memory_format": {"enum": "torch.weird_format", "kind": "memory_format"}})");
  std::string msg = importError(clone);
  EXPECT_HAS(msg, "tiny.json: node 'relu' (#3): kwarg 'memory_format': unknown memory_format enum value "
                  "'torch.weird_format' (expected e.g. 'torch.contiguous_format')");
  msg = importError(tinyWith("torch.weird_format\", \"kind\": \"memory_format\"", "torch.float99\", \"kind\": \"dtype\"",
                             clone));
  EXPECT_HAS(msg, "unknown dtype enum value 'torch.float99'");
  msg = importError(tinyWith("\"kind\": \"memory_format\"", "\"kind\": \"colour\"", clone));
  EXPECT_HAS(msg, "unknown kind 'colour'");
  // The valid form imports.
  ir::Graph g = importOk(tinyWith("torch.weird_format", "torch.channels_last", clone));
  EXPECT_EQ(ir::printNode(g, g.at(3)), "%relu = aten.clone.default(%add, memory_format=torch.channels_last) : f32[1,4]");
}

TEST(FxJsonErrors, RankAboveMax) {
  std::string msg = importError(tinyWith(R"("shape": [1, 4], "dtype": "float32"}},
  {"name": "w")",
                                         R"("shape": [1, 1, 1, 1, 1, 1, 1, 1, 4], "dtype": "float32"}},
  {"name": "w")"));
  EXPECT_HAS(msg, "tiny.json: node 'x' (#0): meta.shape: rank 9 exceeds the maximum supported rank 8");
  msg = importError(tinyWith(R"("constants": {"w": {"shape": [4])", R"("constants": {"w": {"shape": [1,1,1,1,1,1,1,1,1,4])"));
  EXPECT_HAS(msg, "constant 'w': shape: rank 10 exceeds the maximum supported rank 8");
  msg = importError(tinyWith(R"("shape": [1, 4], "dtype": "float32"}},
  {"name": "w")",
                             R"("shape": [4294967296, 4294967296], "dtype": "float32"}},
  {"name": "w")"));
  EXPECT_HAS(msg, "meta.shape: the element count overflows int64");
}

TEST(FxJsonErrors, OutputNodeProblems) {
  std::string noOutput = tinyWith(R"(,
  {"name": "output", "op": "output", "target": "output", "args": [[{"node": "relu"}]], "kwargs": {}, "meta": {}})",
                                  "");
  EXPECT_HAS(importError(noOutput), "tiny.json: no output node");
  EXPECT_HAS(importError(R"({"nodes": []})"), "no output node");
  std::string notLast = tinyWith(R"(
 ],)",
                                 R"(,
  {"name": "late", "op": "placeholder", "target": "late"}],)");
  EXPECT_HAS(importError(notLast), "node 'output' (#4): the output node is not last");
  std::string two = tinyWith(R"(
 ],)",
                             R"(,
  {"name": "output2", "op": "output", "args": [[]]}],)");
  EXPECT_HAS(importError(two), "node 'output2' (#5): second output node (the first is node 'output' (#4))");
  EXPECT_HAS(importError(tinyWith(R"([[{"node": "relu"}]])", R"([{"node": "relu"}])")),
             "node 'output' (#4): arg 0: expected the list of returned node refs, got a single node ref");
}

TEST(FxJsonImport, AReturnedNoneIsAnEmptyOutputSlotThatRoundTrips) {
  // A model returning (y, None) (an optional second result such as lengths): the None is an
  // empty output slot, printed, exported and re-imported as such (docs/FXJSON.md).
  ir::Graph g = importOk(tinyWith(R"([[{"node": "relu"}]])", R"([[{"node": "relu"}, null]])"));
  EXPECT_EQ(ir::printGraph(g),
            "%x = placeholder[x] : f32[1,4]\n"
            "%w = get_attr[w] : f32[4]\n"
            "%add = aten.add.Tensor(%x, %w) : f32[1,4]\n"
            "%relu = aten.relu.default(%add) : f32[1,4]\n"
            "return (%relu, None)\n");
  const ir::RefList* slots = g.outputNode()->args[0].asRefList();
  ASSERT_NE(slots, nullptr);
  ASSERT_EQ(slots->size(), 2u);
  EXPECT_TRUE((*slots)[1].isNone());
  ir::Graph again = importOk(exportFxJson(g));
  EXPECT_EQ(ir::printGraph(again), ir::printGraph(g));
}

TEST(FxJsonErrors, HeaderAndSignature) {
  EXPECT_HAS(importError(tinyWith(R"("version": 1)", R"("version": 2)")),
             "tiny.json: version: expected 1 (the only fxjson version this importer reads), got integer 2");
  EXPECT_HAS(importError(tinyWith(R"("format": "fxjson")", R"("format": "onnx")")),
             "tiny.json: format: expected 'fxjson', got string 'onnx'");
  EXPECT_HAS(importError(tinyWith(R"("inputs": ["x"])", R"("inputs": ["y"])")),
             "tiny.json: inputs[0]: expected 'x' (placeholder #0 of the graph), got 'y'");
  EXPECT_HAS(importError(tinyWith(R"("inputs": ["x"])", R"("inputs": ["x", "y"])")),
             "inputs[1]: 'y' is listed, but the graph has no more placeholders (it has 1)");
  EXPECT_HAS(importError(tinyWith(R"("outputs": ["relu"])", R"("outputs": [])")),
             "outputs: lists 0 names, but the graph has 1 returned values (first missing: 'relu')");
  EXPECT_HAS(importError(tinyWith(R"("outputs": ["relu"])", R"("outputs": ["add"])")),
             "outputs[0]: expected 'relu' (returned value #0 of the graph), got 'add'");
  EXPECT_HAS(importError(tinyWith(R"("kind": "parameter")", R"("kind": "weight")")),
             "constant 'w': kind: expected 'parameter', 'buffer' or 'constant', got 'weight'");
  EXPECT_HAS(importError(tinyWith(R"("target": "x", "args": [])", R"("target": "x", "args": [1])")),
             "node 'x' (#0): expected no args or kwargs for a placeholder node, got 1 args and 0 kwargs");
  EXPECT_HAS(importError(tinyWith(R"("kwargs": {}, "meta": {}})", R"("kwargs": {}, "meta": []})")),
             "node 'output' (#4): meta: expected an object, got list");
  EXPECT_HAS(importError(tinyWith(R"("target": "aten.relu.default", )", "")),
             "node 'relu' (#3): target: missing (expected an op name such as 'aten.add.Tensor')");
  EXPECT_HAS(importError(tinyWith(R"("kwargs": {}, "meta": {}})", R"("kwargs": {}, "meta": {"shapes": [[1]], "dtypes": []}})")),
             "meta.shapes has 1 entries but meta.dtypes has 0");
  EXPECT_HAS(importError(tinyWith(R"("dtype": "float32"}},
  {"name": "w")",
                                  R"("dtype": "float32", "dim_order": [0, 0]}},
  {"name": "w")")),
             "node 'x' (#0): meta.dim_order: expected a permutation of 0..1 (rank 2), got [0, 0]");
}

TEST(FxJsonErrors, InvalidInferredMetaIsAnError) {
  // Found by the fuzzer: a meta function must not turn an invalid size into a negative dim.
  std::string json = R"({"nodes": [
    {"name": "t", "op": "placeholder", "target": "t", "meta": {"shape": [0, 1, 192], "dtype": "float32"}},
    {"name": "expand_copy", "op": "call_function", "target": "aten.expand_copy.default", "args": [{"node": "t"}, [0, -3, -1]]},
    {"name": "output", "op": "output", "args": [[{"node": "expand_copy"}]]}]})";
  EXPECT_HAS(importError(json), "tiny.json: node 'expand_copy' (#1): ");
}

TEST(FxJsonErrors, FileErrorsNameTheFile) {
  auto r = importFxJsonFile("/nonexistent/dir/model.fxjson.json");
  ASSERT_FALSE(r.isOk());
  EXPECT_HAS(r.message(), "/nonexistent/dir/model.fxjson.json");
}

}  // namespace
}  // namespace ls::io
