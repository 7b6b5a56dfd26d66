// lowerscope-cli: the headless front end. Each command group lives in its own file.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "app/cli/commands.h"
#include "core/session/builtin.h"

namespace ls::cli {

int fail(const std::string& msg) {
  fmt::print(stderr, "error: {}\n", msg);
  return 1;
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
  CLI::App app{"lowerscope-cli: load ML graphs, run lowering pipelines, inspect and compare passes"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "lowerscope-cli 0.1.0");

  std::string in, out, jsonOut;
  bool json = false, checkShapes = false;

  auto* imp = app.add_subcommand("import", "Convert a graph (fxjson or .lsg) to the native .lsg format");
  imp->add_option("input", in, "input graph (.fxjson.json or .lsg)")->required();
  imp->add_option("-o,--out", out, "output .lsg path")->required();

  auto* info = app.add_subcommand("info", "Summarise a graph: nodes, op histogram, inputs/outputs");
  info->add_option("input", in, "graph (.fxjson.json or .lsg)")->required();
  info->add_flag("--json", json, "print the summary as JSON on stdout");
  info->add_option("--json-out", jsonOut, "also write the JSON summary to this file (atomically)");
  info->add_flag("--check-shapes", checkShapes,
                 "re-infer every node ignoring recorded metadata and compare; exit 1 on any mismatch");

  auto* print = app.add_subcommand("print", "Print the graph, one line per node");
  print->add_option("input", in, "graph (.fxjson.json or .lsg)")->required();
  bool printModules = false;
  print->add_flag("--modules", printModules, "group the lines by the module that produced each node (meta.module)");
  bool printConstants = false;
  print->add_flag("--constants", printConstants,
                  "print the constants instead: dtype, shape, kind and where the values come from (bytes, "
                  "synthesis, or the recipe of a derived constant)");

  auto* passesCmd = app.add_subcommand("passes", "List every registered pass: description, target ops, profiles/targets, pipelines");
  bool namesOnly = false;
  passesCmd->add_flag("--json", json, "print the list as JSON");
  passesCmd->add_flag("--names", namesOnly, "print only the names, one per line");

  auto* opsCmd = app.add_subcommand("ops", "Op coverage: per ATen op, shape inference, reference kernel, the passes that "
                                           "lower it in FP and INT, upstream's support (docs/OPS.md)");
  bool opsMarkdown = false;
  std::string opsPipeline = "tosa";
  opsCmd->add_flag("--markdown", opsMarkdown, "print docs/OPS.md (the Markdown table)");
  opsCmd->add_option("--pipeline", opsPipeline, "pipeline whose passes are read")->capture_default_str();

  auto* tosaCheck = app.add_subcommand("tosa-check", "Check a .tosa file (any tool's) against the TOSA 1.0 specification: "
                                                    "operand types per profile, ranks, level limits, ERROR_IF rules");
  std::string tcProfile = "fp", tcLevel = "8k";
  std::vector<std::string> tcExtensions;
  tosaCheck->add_option("file", in, "TOSA 1.0 flatbuffer (.tosa)")->required();
  tosaCheck->add_option("--profile", tcProfile, "int (PRO-INT only) or fp (PRO-FP and PRO-INT)")->capture_default_str();
  tosaCheck->add_option("--level", tcLevel, "8k or none")->capture_default_str();
  tosaCheck->add_option("--extension", tcExtensions, "allow an extension too (EXT-INT16, EXT-BF16, ...); repeatable");
  tosaCheck->add_flag("--json", json, "print the report as JSON");

  LowerCommand* lower = addLowerCommand(app);
  BenchCommand* bench = addBenchCommand(app);
  TraceCommands* traceCmds = addTraceCommands(app);
  VerifyCommand* verify = addVerifyCommand(app);
  RunCommand* runCmd = addRunCommand(app);

  CLI11_PARSE(app, argc, argv);
  if (const ls::Status& reg = ls::registerBuiltins(); !reg) return fail(reg.message());
  if (*imp) return cmdImport(in, out);
  if (*info) return cmdInfo(in, json, checkShapes, jsonOut);
  if (*print) return cmdPrint(in, printModules, printConstants);
  if (*passesCmd) return cmdPasses(json, namesOnly);
  if (*opsCmd) return cmdOps(opsPipeline, opsMarkdown);
  if (*tosaCheck) return cmdTosaCheck(in, tcProfile, tcLevel, tcExtensions, json);
  if (selected(*lower)) return runLower(*lower);
  if (selected(*bench)) return runBench(*bench);
  if (selected(*verify)) return runVerify(*verify);
  if (selected(*runCmd)) return runRun(*runCmd);
  if (selectedExport(*traceCmds)) return runExport(*traceCmds);
  if (selectedCompare(*traceCmds)) return runCompare(*traceCmds);
  if (selectedImportTrace(*traceCmds)) return runImportTrace(*traceCmds);
  return 1;
}
