// Recorder bundles (io/bundle.h): records and snapshots as recorded, node identity shared by fx
// node name across snapshots (so diffs work), unknown ops opaque, round trip through .lstrace,
// and malformed bundles rejected with errors naming the file, the pass and what was expected.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/io/bundle.h"
#include "core/io/lstrace.h"
#include "core/trace/diff.h"
#include "core/util/atomic_file.h"

namespace ls::io {
namespace {

constexpr const char* kSource = R"({"format": "fxjson", "version": 1, "model": "tiny", "nodes": [
  {"name": "x", "op": "placeholder", "target": "x", "args": [], "kwargs": {}, "meta": {"shape": [1, 4], "dtype": "float32"}},
  {"name": "relu", "op": "call_function", "target": "aten.relu.default", "args": [{"node": "x"}], "kwargs": {},
   "meta": {"shape": [1, 4], "dtype": "float32", "module": "act"}},
  {"name": "output", "op": "output", "target": "output", "args": [[{"node": "relu"}]], "kwargs": {}, "meta": {}}],
  "constants": {}, "inputs": ["x"], "outputs": ["relu"]})";

constexpr const char* kAfterReplace = R"({"format": "fxjson", "version": 1, "model": "tiny", "nodes": [
  {"name": "x", "op": "placeholder", "target": "x", "args": [], "kwargs": {}, "meta": {"shape": [1, 4], "dtype": "float32"}},
  {"name": "sigmoid", "op": "call_function", "target": "aten.sigmoid.default", "args": [{"node": "x"}], "kwargs": {},
   "meta": {"shape": [1, 4], "dtype": "float32"}},
  {"name": "output", "op": "output", "target": "output", "args": [[{"node": "sigmoid"}]], "kwargs": {}, "meta": {}}],
  "constants": {}, "inputs": ["x"], "outputs": ["sigmoid"]})";

constexpr const char* kAfterCustom = R"({"format": "fxjson", "version": 1, "model": "tiny", "nodes": [
  {"name": "x", "op": "placeholder", "target": "x", "args": [], "kwargs": {}, "meta": {"shape": [1, 4], "dtype": "float32"}},
  {"name": "sigmoid", "op": "call_function", "target": "aten.sigmoid.default", "args": [{"node": "x"}], "kwargs": {},
   "meta": {"shape": [1, 4], "dtype": "float32"}},
  {"name": "custom", "op": "call_function", "target": "mylib.custom_op.default", "args": [{"node": "sigmoid"}],
   "kwargs": {}, "meta": {"shape": [1, 4], "dtype": "float32"}},
  {"name": "output", "op": "output", "target": "output", "args": [[{"node": "custom"}]], "kwargs": {}, "meta": {}}],
  "constants": {}, "inputs": ["x"], "outputs": ["custom"]})";

std::string bundle(const std::string& passes, const std::string& graphs = "") {
  return std::string(R"({"format": "lowerscope-bundle", "version": 1, "model": "tiny", "pipeline": "python:PassManager",
  "total_ns": 90000, "source": 0, "graphs": [)") +
         (graphs.empty() ? std::string(kSource) + ", " + kAfterReplace + ", " + kAfterCustom : graphs) +
         R"(], "passes": [)" + passes + "]}";
}

const std::string kPasses = R"(
  {"index": 0, "name": "ReplaceReluPass", "status": "changed", "start_ns": 0, "wall_ns": 10000, "should_run_ns": 1000,
   "cpu_ns": 9000, "graph": 1, "modified": true, "should_run": true},
  {"index": 1, "name": "DecomposeGeluPass", "status": "skipped", "reason": "should_run_pass returned False",
   "targeted_ops": ["aten.gelu.default"], "start_ns": 10000, "wall_ns": 500, "should_run_ns": 400, "graph": 1,
   "modified": false, "should_run": false},
  {"index": 2, "name": "AddCustomPass", "status": "changed", "start_ns": 11000, "wall_ns": 20000, "cpu_ns": 5000,
   "graph": 2, "modified": true},
  {"index": 3, "name": "NoopPass", "status": "unchanged", "start_ns": 31000, "wall_ns": 3000, "graph": 2,
   "modified": true, "message": "PassResult.modified is True but the graph is structurally unchanged"},
  {"index": 4, "name": "CheckPass", "status": "failed", "start_ns": 34000, "wall_ns": 1000, "graph": 2,
   "message": "RuntimeError: boom"})";

TEST(Bundle, RecordsAndSnapshotsAsRecordedWithIdentityByName) {
  const std::string text = bundle(kPasses);
  EXPECT_TRUE(looksLikeBundle(text));
  ImportReport report;
  auto t = loadBundleBytes(text, "run.lsbundle", &report);
  ASSERT_TRUE(t.isOk()) << t.message();
  EXPECT_EQ(t->model, "tiny");
  EXPECT_EQ(t->pipeline, "python:PassManager");
  EXPECT_EQ(t->totalNs, 90000);
  ASSERT_EQ(t->records.size(), 5u);
  ASSERT_EQ(t->snapshots.size(), 2u);
  const auto& r = t->records;
  EXPECT_EQ(r[0].status, trace::PassStatus::Changed);
  EXPECT_EQ(r[0].snapshot, 0);
  EXPECT_EQ(r[0].scanNs, 1000);
  EXPECT_EQ(r[0].runNs, 9000);
  EXPECT_EQ(r[1].status, trace::PassStatus::Skipped);
  EXPECT_EQ(r[1].reason, trace::SkipReason::Precondition);
  EXPECT_EQ(r[1].message, "should_run_pass returned False; target ops: aten.gelu.default");
  EXPECT_EQ(r[1].snapshot, -1);
  EXPECT_EQ(r[2].status, trace::PassStatus::Changed);
  EXPECT_EQ(r[2].snapshot, 1);
  EXPECT_EQ(r[2].nodesBefore, 3u);
  EXPECT_EQ(r[2].nodesAfter, 4u);
  ASSERT_EQ(r[2].stats.size(), 2u);
  EXPECT_EQ(r[2].stats[0].name, "cpu_us");
  EXPECT_EQ(r[2].stats[0].value, 5);
  EXPECT_EQ(r[2].stats[1].name, "modified");
  EXPECT_EQ(r[2].stats[1].value, 1);
  EXPECT_EQ(r[3].status, trace::PassStatus::Unchanged);
  EXPECT_NE(r[3].message.find("structurally unchanged"), std::string::npos);
  EXPECT_EQ(r[4].status, trace::PassStatus::Failed);
  EXPECT_EQ(r[4].message, "RuntimeError: boom");
  trace::Trace::Totals tot = t->totals();
  EXPECT_EQ(tot.changed, 2);
  EXPECT_EQ(tot.skipped, 1);
  EXPECT_EQ(tot.failed, 1);

  // One id per fx name across snapshots; unchanged node versions are shared objects.
  const ir::Graph& src = *t->source;
  const ir::Graph& s0 = *t->snapshots[0];
  const ir::Graph& s1 = *t->snapshots[1];
  const ir::NodeId x = src.findByName("x");
  ASSERT_NE(x, ir::kInvalidNode);
  EXPECT_EQ(s0.findByName("x"), x);
  EXPECT_EQ(s1.findByName("x"), x);
  EXPECT_EQ(src.findPtr(x)->get(), s0.findPtr(x)->get());
  const ir::NodeId sig = s0.findByName("sigmoid");
  EXPECT_EQ(s1.findByName("sigmoid"), sig);
  EXPECT_EQ(s0.findPtr(sig)->get(), s1.findPtr(sig)->get());
  EXPECT_EQ(s0.node(sig).provenance.createdBy, "ReplaceReluPass");
  EXPECT_TRUE(src.node(src.findByName("relu")).provenance.empty());
  EXPECT_EQ(src.node(src.findByName("relu")).module, "act");

  // The diff machinery sees what the pass did.
  trace::GraphDiff d = trace::diffGraphs(src, s0);
  ASSERT_EQ(d.added.size(), 1u);
  EXPECT_EQ(d.added[0], sig);
  ASSERT_EQ(d.removed.size(), 1u);
  EXPECT_EQ(d.removed[0], src.findByName("relu"));
  trace::GraphDiff d2 = trace::diffGraphs(s0, s1);
  EXPECT_EQ(d2.added.size(), 1u);
  EXPECT_EQ(d2.removed.size(), 0u);

  // An op our registry does not know loads as an opaque node, with one warning naming the pass.
  const ir::Node& custom = s1.node(s1.findByName("custom"));
  EXPECT_TRUE(custom.hasFlag(ir::kFlagOpaque));
  EXPECT_EQ(custom.provenance.createdBy, "AddCustomPass");
  EXPECT_EQ(report.opaqueNodes, 1u);
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_NE(report.warnings[0].find("after pass #2 'AddCustomPass'"), std::string::npos) << report.warnings[0];

  // Through .lstrace and back: the same records and snapshots.
  auto bytes = serializeTrace(t.value());
  ASSERT_TRUE(bytes.isOk()) << bytes.message();
  auto back = loadTraceBytes(*bytes, "run.lstrace");
  ASSERT_TRUE(back.isOk()) << back.message();
  ASSERT_EQ(back->records.size(), 5u);
  EXPECT_EQ(back->records[1].message, r[1].message);
  EXPECT_EQ(back->snapshots.size(), 2u);
  EXPECT_EQ(back->snapshots[1]->findByName("custom"), s1.findByName("custom"));
}

TEST(Bundle, LoadTraceOpensABundleFile) {
  const auto dir = std::filesystem::temp_directory_path() / "ls_bundle_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "renamed.json").string();  // sniffed, not picked by extension
  ASSERT_TRUE(writeFileAtomic(path, "\n  " + bundle(kPasses)).isOk());
  auto t = loadTrace(path);
  ASSERT_TRUE(t.isOk()) << t.message();
  EXPECT_EQ(t->records.size(), 5u);
  std::filesystem::remove_all(dir);
}

TEST(Bundle, MalformedBundlesAreClearErrors) {
  const std::string pass0 = R"({"name": "P", "status": "changed", "graph": 1})";
  struct Case {
    std::string text, expect;
  } cases[] = {
      {"{\"format\": \"lowerscope-bundle\"", "b.lsbundle: invalid JSON"},
      {"[1, 2]", "b.lsbundle: expected a JSON object at the top level, got a list"},
      {R"({"format": "fxjson", "version": 1})", "format: expected \"lowerscope-bundle\", got \"fxjson\""},
      {R"({"format": "lowerscope-bundle", "version": 2})", "version: expected 1, got 2"},
      {R"({"format": "lowerscope-bundle", "version": 1, "source": 0, "passes": []})", "graphs: expected the list"},
      {R"({"format": "lowerscope-bundle", "version": 1, "graphs": [], "source": 0, "passes": []})",
       "source graph: graph index 0 out of range"},
      {bundle(R"({"status": "changed", "graph": 1})"), "passes[0]: name: expected the pass's name"},
      {bundle(R"({"name": "P", "status": "done", "graph": 1})"),
       "pass #0 'P': status: expected changed, unchanged, skipped or failed, got 'done'"},
      {bundle(R"({"name": "P", "status": "changed", "graph": 0})"), "pass #0 'P': status changed but graph 0"},
      {bundle(R"({"name": "P", "status": "unchanged", "graph": 2})"),
       "pass #0 'P': status unchanged but graph 2 differs from the previous pass's graph 0"},
      {bundle(R"({"name": "P", "status": "changed", "graph": 7})"), "after pass #0 'P': graph index 7 out of range"},
      {bundle(R"({"name": "P", "status": "changed", "graph": -1})"), "pass #0 'P': graph: -1 is out of range"},
      {bundle(R"({"name": "P", "status": "changed", "graph": 1, "wall_ns": 5, "should_run_ns": 9})"),
       "pass #0 'P': should_run_ns (9) exceeds wall_ns (5)"},
      {bundle(R"({"name": "P", "status": "changed", "graph": 1, "wall_ns": 1e3})"),
       "pass #0 'P': wall_ns: expected a non-negative integer, got a float"},
      {bundle(R"({"name": "P", "status": "changed", "graph": 1, "wall_ns": 4611686018427387904})"),
       "pass #0 'P': wall_ns: 4611686018427387904 is out of range"},
      {bundle(R"({"name": "P", "status": "skipped", "targeted_ops": [3]})"),
       "pass #0 'P': targeted_ops: expected op names (strings), got an integer"},
      {bundle(R"({"name": "P", "status": "changed", "graph": 1, "modified": "yes"})"),
       "pass #0 'P': modified: expected a bool or null, got a string"},
      {bundle(pass0, std::string(kSource) + R"(, {"format": "fxjson", "version": 1, "nodes": 5})"),
       "b.lsbundle: graphs[1] (after pass #0 'P'): nodes: expected a list of node objects"},
      {bundle(pass0, std::string(kSource) + ", 17"), "graphs[1] (after pass #0 'P'): expected an fxjson graph object"},
      {bundle("5"), "passes[0]: expected a pass record object, got an integer"},
  };
  for (const Case& c : cases) {
    auto r = loadBundleBytes(c.text, "b.lsbundle");
    ASSERT_FALSE(r.isOk()) << c.text;
    EXPECT_EQ(r.message().rfind("b.lsbundle: ", 0), 0u) << r.message();
    EXPECT_NE(r.message().find(c.expect), std::string::npos) << "expected '" << c.expect << "' in: " << r.message();
  }
}

TEST(Bundle, EveryTruncationIsAnErrorNotACrash) {
  const std::string good = bundle(kPasses);
  for (size_t cut = 0; cut < good.size(); cut += 7) {
    auto r = loadBundleBytes(std::string_view(good).substr(0, cut), "cut.lsbundle");
    EXPECT_FALSE(r.isOk());
  }
  EXPECT_FALSE(looksLikeBundle(R"({"nodes": [], "format": "lowerscope-bundle"})"));
  EXPECT_FALSE(looksLikeBundle("LST1"));
  EXPECT_TRUE(looksLikeBundle(" {\n\"format\" :\"lowerscope-bundle\""));
}

}  // namespace
}  // namespace ls::io
