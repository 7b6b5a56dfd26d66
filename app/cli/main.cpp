// lowerscope-cli: the headless front end. Each command group lives in its own file.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/cli/commands.h"
#include "core/passes/pass_manager.h"
#include "core/session/builtin.h"

namespace ls::cli {

int fail(const std::string& msg) {
  fmt::print(stderr, "error: {}\n", msg);
  return 1;
}

namespace {
/// "a, b or c".
std::string orList(const std::vector<std::string>& items) {
  if (items.size() < 2) return items.empty() ? std::string() : items[0];
  return fmt::format("{} or {}", fmt::join(items.begin(), items.end() - 1, ", "), items.back());
}
}  // namespace

std::string graphFileHelp() {
  std::vector<std::string> ext = {".fxjson.json", ".lsg"};
  for (const std::string& e : io::graphFormatExtensions()) ext.push_back(e);
  return fmt::format("graph file ({})", orList(ext));
}

std::string pipelineHelp() {
  return fmt::format("pipeline: {}", orList(passes::PipelineRegistry::instance().names()));
}

void addQuietFlag(CLI::App* s, bool& quiet, const std::string& result) {
  s->add_flag("-q,--quiet", quiet,
              fmt::format("print only {}errors: no load warnings, progress, notes or pass tables",
                          result.empty() ? "" : result + " and "));
}

Result<ir::Graph> load(const std::string& path, bool quiet) {
  io::ImportReport rep;
  // The CLI is short-lived: an .lsg is mapped, its constants read in place (io::FileAccess).
  auto g = io::loadGraphFile(path, &rep, io::FileAccess::Map);
  if (g && !quiet)
    for (const std::string& w : rep.warnings) fmt::print(stderr, "warning: {}\n", w);
  return g;
}

}  // namespace ls::cli

int main(int argc, char** argv) {
  using namespace ls::cli;
  // First: the help texts list the registered pipelines and graph formats.
  if (const ls::Status& reg = ls::registerBuiltins(); !reg) return fail(reg.message());
  CLI::App app{"lowerscope-cli: load ML graphs, run lowering pipelines, inspect and compare passes"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "lowerscope-cli 0.1.0");

  std::string in, out, jsonOut;
  bool json = false, checkShapes = false, quiet = false;

  auto* imp = app.add_subcommand("import", "Convert a graph to the native .lsg format");
  imp->add_option("graph", in, graphFileHelp())->required();
  imp->add_option("-o,--out", out, "output .lsg path")->required();
  addQuietFlag(imp, quiet, "");

  auto* info = app.add_subcommand("info", "Summarise a graph: nodes, op histogram, inputs/outputs");
  info->add_option("graph", in, graphFileHelp())->required();
  info->add_flag("--json", json, "print the summary as JSON on stdout");
  info->add_option("--json-out", jsonOut, "also write the JSON summary to this file (atomically)");
  info->add_flag("--check-shapes", checkShapes,
                 "re-infer every node ignoring recorded metadata and compare; exit 1 on any mismatch");
  addQuietFlag(info, quiet, "the summary");

  auto* print = app.add_subcommand("print", "Print the graph, one line per node");
  print->add_option("graph", in, graphFileHelp())->required();
  bool printModules = false;
  print->add_flag("--modules", printModules, "group the lines by the module that produced each node (meta.module)");
  bool printConstants = false;
  print->add_flag("--constants", printConstants,
                  "print the constants instead: dtype, shape, kind and where the values come from (bytes, "
                  "synthesis, or the recipe of a derived constant)");
  addQuietFlag(print, quiet, "the graph");

  auto* passesCmd = app.add_subcommand("passes", "List every registered pass: description, target ops, profiles/targets, pipelines");
  bool namesOnly = false;
  passesCmd->add_flag("--json", json, "print the list as JSON");
  passesCmd->add_flag("--names", namesOnly, "print only the names, one per line");

  auto* opsCmd = app.add_subcommand("ops", "Op coverage: per ATen op, shape inference, reference kernel, the passes that "
                                           "lower it in FP and INT, upstream's support (docs/OPS.md)");
  bool opsMarkdown = false;
  std::string opsPipeline = "tosa";
  opsCmd->add_flag("--markdown", opsMarkdown, "print docs/OPS.md (the Markdown table)");
  opsCmd->add_option("--pipeline", opsPipeline, pipelineHelp() + " (whose passes are read)")->capture_default_str();

  auto* tosaCheck = app.add_subcommand("tosa-check", "Check a .tosa file (any tool's) against the TOSA 1.0 specification: "
                                                    "operand types per profile, ranks, level limits, ERROR_IF rules");
  std::string tcProfile = "fp", tcLevel = "8k";
  std::vector<std::string> tcExtensions;
  tosaCheck->add_option("file", in, "TOSA 1.0 flatbuffer (.tosa)")->required();
  tosaCheck->add_option("--profile", tcProfile, "TOSA profile: int (PRO-INT only) or fp (PRO-FP and PRO-INT)")
      ->check(CLI::IsMember({"fp", "int"}))
      ->capture_default_str();
  tosaCheck->add_option("--level", tcLevel, "8k or none")->check(CLI::IsMember({"8k", "8K", "none"}))->capture_default_str();
  tosaCheck->add_option("--extension", tcExtensions, "allow an extension too (EXT-INT16, EXT-BF16, ...); repeatable");
  tosaCheck->add_flag("--json", json, "print the report as JSON");
  addQuietFlag(tosaCheck, quiet, "the report");

  LowerCommand* lower = addLowerCommand(app);
  BenchCommand* bench = addBenchCommand(app);
  TraceCommands* traceCmds = addTraceCommands(app);
  VerifyCommand* verify = addVerifyCommand(app);
  RunCommand* runCmd = addRunCommand(app);

  CLI11_PARSE(app, argc, argv);
  if (*imp) return cmdImport(in, out, quiet);
  if (*info) return cmdInfo(in, json, checkShapes, jsonOut, quiet);
  if (*print) return cmdPrint(in, printModules, printConstants, quiet);
  if (*passesCmd) return cmdPasses(json, namesOnly);
  if (*opsCmd) return cmdOps(opsPipeline, opsMarkdown);
  if (*tosaCheck) return cmdTosaCheck(in, tcProfile, tcLevel, tcExtensions, json, quiet);
  if (selected(*lower)) return runLower(*lower);
  if (selected(*bench)) return runBench(*bench);
  if (selected(*verify)) return runVerify(*verify);
  if (selected(*runCmd)) return runRun(*runCmd);
  if (selectedExport(*traceCmds)) return runExport(*traceCmds);
  if (selectedCompare(*traceCmds)) return runCompare(*traceCmds);
  if (selectedImportTrace(*traceCmds)) return runImportTrace(*traceCmds);
  return 1;
}
