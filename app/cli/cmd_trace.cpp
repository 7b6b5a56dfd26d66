// lowerscope-cli trace commands: import-trace (recorder bundle -> .lstrace), export (Chrome trace /
// CSV / Markdown / DOT) and compare (A/B per-pass table with a CI regression gate: exit 2 when it
// fails). Every command that takes a trace also opens a bundle (io::loadTrace sniffs it).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <chrono>

#include "app/cli/commands.h"
#include "core/io/bundle.h"
#include "core/io/exports.h"
#include "core/io/lstrace.h"
#include "core/trace/compare.h"
#include "core/util/atomic_file.h"

namespace ls::cli {

struct TraceCommands {
  CLI::App* exportCmd = nullptr;
  CLI::App* compareCmd = nullptr;
  CLI::App* importCmd = nullptr;
  std::string bundle, bundleOut;
  std::string trace, chrome, csv, md, dot;
  int dotPass = -1;
  std::vector<std::string> dotArgs;
  std::string a, b, format = "md", out, labelA = "A", labelB = "B";
  double failAbove = 0.0, noiseFloorMs = 0.2;
  bool quiet = false;
};

TraceCommands* addTraceCommands(CLI::App& app) {
  static TraceCommands c;
  auto* i = app.add_subcommand("import-trace", "Convert a recorder bundle (tools/lowerscope_record.py) to .lstrace");
  c.importCmd = i;
  i->add_option("bundle", c.bundle, "bundle written by the Python recorder (.lsbundle)")->required();
  i->add_option("-o,--out", c.bundleOut, "output .lstrace path (written atomically)")->required();
  addQuietFlag(i, c.quiet, "");
  auto* e = app.add_subcommand("export", "Export a trace: Chrome trace JSON, CSV, Markdown, or DOT of a snapshot");
  c.exportCmd = e;
  e->add_option("trace", c.trace, "trace (.lstrace or a recorder bundle)")->required();
  e->add_option("--chrome-trace", c.chrome, "Chrome trace-event JSON (open in Perfetto / chrome://tracing)");
  e->add_option("--csv", c.csv, "one row per pass");
  e->add_option("--md", c.md, "Markdown table");
  e->add_option("--dot", c.dotArgs, "N OUT.dot: Graphviz DOT of the graph after pass N (-1 = source), diff colours")
      ->expected(2);
  addQuietFlag(e, c.quiet, "");
  auto* k = app.add_subcommand("compare", "Compare two traces pass by pass; --fail-above makes it a CI gate (exit 2)");
  c.compareCmd = k;
  k->add_option("a", c.a, "reference trace (.lstrace or a recorder bundle)")->required();
  k->add_option("b", c.b, "new trace (.lstrace or a recorder bundle)")->required();
  k->add_option("--format", c.format, "md, csv or json")->check(CLI::IsMember({"md", "csv", "json"}))->capture_default_str();
  k->add_option("--out", c.out, "write the report to this file (atomically)");
  k->add_option("--fail-above", c.failAbove,
                "exit 2 when the total or any pass above the noise floor is slower than RATIO x the reference");
  k->add_option("--noise-floor-ms", c.noiseFloorMs, "passes faster than this in both traces are not gated")->capture_default_str();
  k->add_option("--label-a", c.labelA, "name of the reference run")->capture_default_str();
  k->add_option("--label-b", c.labelB, "name of the new run")->capture_default_str();
  return &c;
}

bool selectedExport(const TraceCommands& c) { return c.exportCmd && c.exportCmd->parsed(); }
bool selectedCompare(const TraceCommands& c) { return c.compareCmd && c.compareCmd->parsed(); }
bool selectedImportTrace(const TraceCommands& c) { return c.importCmd && c.importCmd->parsed(); }

int runImportTrace(const TraceCommands& c) {
  const auto start = std::chrono::steady_clock::now();
  io::ImportReport report;
  auto t = io::loadBundle(c.bundle, &report);
  if (!t) return fail(t.message());
  if (!c.quiet)
    for (const std::string& w : report.warnings) fmt::print(stderr, "warning: {}\n", w);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  Status st = io::saveTrace(t.value(), c.bundleOut);
  if (!st) return fail(st.message());
  if (c.quiet) return 0;
  trace::Trace::Totals tot = t->totals();
  fmt::print("{}: {} passes ({} changed, {} unchanged, {} skipped, {} failed), {} snapshots, {} opaque nodes; "
             "read in {:.1f} ms\nwrote {}\n",
             c.bundle, t->records.size(), tot.changed, tot.unchanged, tot.skipped, tot.failed, t->snapshots.size(),
             report.opaqueNodes, ms, c.bundleOut);
  return 0;
}

int runExport(const TraceCommands& c) {
  if (c.chrome.empty() && c.csv.empty() && c.md.empty() && c.dotArgs.empty())
    return fail("export: give at least one of --chrome-trace FILE, --csv FILE, --md FILE, --dot N FILE");
  auto t = io::loadTrace(c.trace);
  if (!t) return fail(t.message());
  auto write = [&](const std::string& path, const std::string& text) -> bool {
    if (path.empty()) return true;
    Status st = writeFileAtomic(path, text);
    if (!st) {
      fail(st.message());
      return false;
    }
    if (!c.quiet) fmt::print("wrote {}\n", path);
    return true;
  };
  if (!write(c.chrome, io::traceToChromeJson(t.value()))) return 1;
  if (!write(c.csv, io::traceToCsv(t.value()))) return 1;
  if (!write(c.md, io::traceToMarkdown(t.value()))) return 1;
  if (!c.dotArgs.empty()) {
    int n = 0;
    try {
      n = std::stoi(c.dotArgs[0]);
    } catch (...) {
      return fail("--dot: expected a pass index, got '" + c.dotArgs[0] + "'");
    }
    if (n < -1 || n >= int(t->records.size()))
      return fail(fmt::format("--dot: pass index {} out of range (-1..{})", n, int(t->records.size()) - 1));
    if (!write(c.dotArgs[1], io::snapshotToDot(t.value(), n))) return 1;
  }
  return 0;
}

int runCompare(const TraceCommands& c) {
  auto a = io::loadTrace(c.a);
  if (!a) return fail(a.message());
  auto b = io::loadTrace(c.b);
  if (!b) return fail(b.message());
  trace::GateOptions gate;
  gate.failAbove = c.failAbove;
  gate.noiseFloorNs = int64_t(c.noiseFloorMs * 1e6);
  trace::TraceComparison cmp = trace::compareTraces(a.value(), b.value(), gate);
  cmp.labelA = c.labelA;
  cmp.labelB = c.labelB;
  std::string text = c.format == "csv"    ? io::comparisonToCsv(cmp)
                     : c.format == "json" ? io::comparisonToJson(cmp)
                                          : io::comparisonToMarkdown(cmp);
  if (!c.out.empty()) {
    Status st = writeFileAtomic(c.out, text);
    if (!st) return fail(st.message());
  } else {
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  if (cmp.gateFailed) {
    for (const auto& r : cmp.gateReasons) fmt::print(stderr, "regression: {}\n", r);
    return 2;
  }
  return 0;
}

}  // namespace ls::cli
