// Golden tests of the trace exports (Chrome trace JSON, CSV, Markdown, DOT, comparisons) and
// the .lstrace format, on a real graph (deit_tiny: the generic pipeline changes it).
//
// Timings are the only nondeterministic part of a trace; the tests replace them with fixed
// values derived from the pass index, so the goldens also pin the number formatting.
// Regenerate after an intended format change with LS_UPDATE_GOLDEN=1 and review the diff.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/trace/trace_recorder.h"
#include "core/io/exports.h"
#include "core/io/fxjson.h"
#include "core/io/lstrace.h"
#include "core/ir/printer.h"
#include "core/ops/registry.h"
#include "core/passes/pass_manager.h"
#include "core/trace/compare.h"
#include "core/trace/diff.h"
#include "core/trace/trace.h"

namespace ls::io {
namespace {

std::string goldenPath(const std::string& name) { return std::string(LS_TESTS_DIR) + "/golden/" + name; }

std::string readFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// Compares `actual` with the golden file; LS_UPDATE_GOLDEN=1 rewrites it instead.
void expectGolden(const std::string& name, const std::string& actual) {
  const std::string path = goldenPath(name);
  if (const char* u = std::getenv("LS_UPDATE_GOLDEN"); u && std::string(u) == "1") {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(path)) << "missing golden " << path << " (run with LS_UPDATE_GOLDEN=1)";
  const std::string expected = readFile(path);
  if (expected == actual) return;
  // Report the first differing line, which is what a reviewer needs.
  std::istringstream e(expected), a(actual);
  std::string le, la;
  int line = 1;
  while (true) {
    bool me = bool(std::getline(e, le)), ma = bool(std::getline(a, la));
    if (!me && !ma) break;
    if (le != la || me != ma) {
      ADD_FAILURE() << name << " differs at line " << line << "\n  golden: " << le << "\n  actual: " << la;
      return;
    }
    ++line;
  }
  ADD_FAILURE() << name << " differs (line endings)";
}

/// Fixed timings: pass i starts at (i+1) ms, scan 10 us, run (i+1)*100 us, verify 0.
void fixTimes(trace::Trace& t, int64_t slowIndex = -1, int64_t slowFactor = 1) {
  int64_t start = 0;
  for (auto& r : t.records) {
    r.startNs = start;
    r.scanNs = 10'000;
    r.runNs = r.ran() ? int64_t(r.index + 1) * 100'000 : 0;
    if (int64_t(r.index) == slowIndex) r.runNs *= slowFactor;
    r.verifyNs = 0;
    start += r.totalNs() + 1'000;
  }
  t.totalNs = start;
}

trace::Trace recordGeneric(const std::string& model) {
  auto g = importFxJsonFile(std::string(LS_ASSETS_DIR) + "/graphs/" + model + ".fxjson.json");
  EXPECT_TRUE(g.isOk()) << g.message();
  auto pm = passes::PassManager::fromPipeline("generic");
  EXPECT_TRUE(pm.isOk()) << pm.message();
  trace::TraceRecorder rec;
  pm->addInstrumentation(&rec);
  ops::InferenceCache cache;
  passes::PassContext ctx;
  ctx.engine.cache = true;  // the goldens' cache_hits/cache_misses columns come from it
  ctx.cache = &cache;
  ir::Graph graph = std::move(g).value();
  auto res = pm->run(graph, ctx);
  EXPECT_EQ(res.failedIndex, -1) << res.failure;
  trace::Trace t = rec.take();
  t.model = model;
  fixTimes(t);
  return t;
}

const trace::Trace& deitTrace() {
  static const trace::Trace t = recordGeneric("deit_tiny_vit");
  return t;
}

int firstChangedPass(const trace::Trace& t) {
  for (const auto& r : t.records)
    if (r.status == passes::PassStatus::Changed) return int(r.index);
  return -1;
}

TEST(Exports, MarkdownAndCsvMatchGolden) {
  const auto& t = deitTrace();
  ASSERT_GE(firstChangedPass(t), 0) << "the generic pipeline must change deit_tiny for these goldens to mean much";
  expectGolden("deit_generic.md", traceToMarkdown(t));
  expectGolden("deit_generic.csv", traceToCsv(t));
}

TEST(Exports, CsvHasOneRowPerPassAndTheDocumentedColumns) {
  const auto& t = deitTrace();
  std::istringstream in(traceToCsv(t));
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header,
            "index,name,status,reason,start_ms,scan_ms,run_ms,verify_ms,total_ms,nodes_before,nodes_after,hot,"
            "fast_copied,reinferred,cache_hits,cache_misses,message");
  size_t rows = 0;
  for (std::string line; std::getline(in, line);) ++rows;
  EXPECT_EQ(rows, t.records.size());
}

TEST(Exports, ChromeTraceMatchesGoldenAndHasNestedTraceEvents) {
  const auto& t = deitTrace();
  const std::string json = traceToChromeJson(t);
  expectGolden("deit_generic.chrome.json", json);

  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS);
  simdjson::dom::array events;
  ASSERT_EQ(doc["traceEvents"].get_array().get(events), simdjson::SUCCESS);
  double pipeStart = -1, pipeEnd = -1;
  int passSlices = 0, instants = 0, phases = 0;
  struct Slice {
    double ts, end;
  };
  std::vector<Slice> passes;
  for (simdjson::dom::element e : events) {
    std::string_view ph, name;
    ASSERT_EQ(e["ph"].get_string().get(ph), simdjson::SUCCESS);
    ASSERT_EQ(e["name"].get_string().get(name), simdjson::SUCCESS);
    int64_t pid = 0, tid = 0;
    ASSERT_EQ(e["pid"].get_int64().get(pid), simdjson::SUCCESS) << name;
    ASSERT_EQ(e["tid"].get_int64().get(tid), simdjson::SUCCESS) << name;
    if (ph == "M") continue;
    double ts = 0;
    ASSERT_EQ(e["ts"].get_double().get(ts), simdjson::SUCCESS) << name;
    std::string_view cat;
    ASSERT_EQ(e["cat"].get_string().get(cat), simdjson::SUCCESS) << name;
    if (ph == "X") {
      double dur = 0;
      ASSERT_EQ(e["dur"].get_double().get(dur), simdjson::SUCCESS) << name;
      EXPECT_GE(dur, 0) << name;
      if (cat == "pipeline") {
        pipeStart = ts;
        pipeEnd = ts + dur;
      } else if (cat == "pass") {
        ++passSlices;
        passes.push_back({ts, ts + dur});
      } else {
        ++phases;
        // A phase lies inside some pass slice.
        bool inside = false;
        for (const auto& p : passes) inside |= ts >= p.ts - 1e-6 && ts + dur <= p.end + 1e-6;
        EXPECT_TRUE(inside) << "phase " << name << " at " << ts << " is not nested in its pass";
      }
    } else if (ph == "i") {
      ++instants;
      EXPECT_EQ(cat, "skipped");
      std::string_view reason;
      EXPECT_EQ(e["args"]["reason"].get_string().get(reason), simdjson::SUCCESS) << name;
      EXPECT_FALSE(reason.empty());
    } else {
      ADD_FAILURE() << "unexpected phase " << ph;
    }
  }
  ASSERT_GE(pipeStart, 0);
  for (const auto& p : passes) {
    EXPECT_GE(p.ts, pipeStart - 1e-6);
    EXPECT_LE(p.end, pipeEnd + 1e-6);
  }
  size_t ran = 0, skipped = 0;
  for (const auto& r : t.records) (r.ran() ? ran : skipped) += 1;
  EXPECT_EQ(size_t(passSlices), ran);
  EXPECT_EQ(size_t(instants), skipped);
  EXPECT_GE(phases, int(ran));  // at least the run phase of each pass
}

TEST(Exports, DotOfTheChangedPassMatchesGoldenAndColoursTheDiff) {
  const auto& t = deitTrace();
  int k = firstChangedPass(t);
  ASSERT_GE(k, 0);
  const std::string dot = snapshotToDot(t, k);
  expectGolden("deit_generic_changed.dot", dot);
  EXPECT_EQ(dot.rfind("digraph", 0), 0u);
  EXPECT_NE(dot.find("style=\"rounded,dashed\", color=\"#d03030\""), std::string::npos)
      << "removed nodes are drawn as red dashed ghosts";
  // The source snapshot has nothing to diff against: no ghosts.
  EXPECT_EQ(snapshotToDot(t, -1).find("dashed"), std::string::npos);
}

TEST(Exports, ComparisonFormatsMatchGolden) {
  trace::Trace a = deitTrace();
  trace::Trace b = deitTrace();
  int k = firstChangedPass(a);
  fixTimes(b, k, 3);  // that pass is 3x slower in B
  auto c = trace::compareTraces(a, b);
  c.labelA = "baseline";
  c.labelB = "slowed";
  expectGolden("deit_compare.md", comparisonToMarkdown(c));
  expectGolden("deit_compare.csv", comparisonToCsv(c));
  expectGolden("deit_compare.json", comparisonToJson(c));
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  EXPECT_EQ(parser.parse(comparisonToChromeJson(a, b, c)).get(doc), simdjson::SUCCESS);
}

TEST(Lstrace, RoundTripKeepsRecordsAndEverySnapshot) {
  const auto& t = deitTrace();
  auto bytes = serializeTrace(t);
  ASSERT_TRUE(bytes.isOk()) << bytes.message();
  EXPECT_TRUE(looksLikeTrace(*bytes));
  auto back = loadTraceBytes(*bytes, "deit.lstrace");
  ASSERT_TRUE(back.isOk()) << back.message();
  EXPECT_EQ(back->model, t.model);
  EXPECT_EQ(back->pipeline, t.pipeline);
  ASSERT_EQ(back->records.size(), t.records.size());
  // Every export of the loaded trace is byte-identical to the original's.
  EXPECT_EQ(traceToCsv(*back), traceToCsv(t));
  EXPECT_EQ(traceToChromeJson(*back), traceToChromeJson(t));
  for (int i = -1; i < int(t.records.size()); ++i) EXPECT_EQ(snapshotToDot(*back, i), snapshotToDot(t, i)) << i;
  EXPECT_EQ(ir::printGraph(back->finalGraph()), ir::printGraph(t.finalGraph()));
}

TEST(Lstrace, CorruptBytesGiveErrorsNamingTheFileNeverACrash) {
  auto bytes = serializeTrace(deitTrace());
  ASSERT_TRUE(bytes.isOk());
  const std::string good = *bytes;
  // Truncations at many points, and byte flips across the file.
  for (size_t cut : {size_t(0), size_t(4), size_t(8), good.size() / 3, good.size() / 2, good.size() - 1}) {
    auto r = loadTraceBytes(std::string_view(good).substr(0, cut), "cut.lstrace");
    EXPECT_FALSE(r.isOk()) << "cut at " << cut;
    if (!r.isOk()) {
      EXPECT_EQ(r.message().rfind("cut.lstrace", 0), 0u) << r.message();
    }
  }
  int rejected = 0;
  for (size_t i = 0; i < good.size(); i += good.size() / 97 + 1) {
    std::string bad = good;
    bad[i] = char(bad[i] ^ 0x5a);
    auto r = loadTraceBytes(bad, "flip.lstrace");  // must not crash; may still be valid
    if (!r.isOk()) {
      ++rejected;
      EXPECT_EQ(r.message().rfind("flip.lstrace", 0), 0u) << r.message();
    }
  }
  EXPECT_GT(rejected, 0);
  auto notTrace = loadTraceBytes("{\"nodes\": []}", "graph.json");
  ASSERT_FALSE(notTrace.isOk());
  EXPECT_NE(notTrace.message().find("graph.json"), std::string::npos);
}

}  // namespace
}  // namespace ls::io
