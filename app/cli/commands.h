// lowerscope-cli commands (one file per command group) and shared helpers.
#pragma once

#include <string>
#include <vector>

#include "core/io/load.h"
#include "core/session/lowering_session.h"
#include "core/util/status.h"

namespace CLI {
class App;
}

namespace ls::cli {

/// Prints "error: <msg>" on stderr and returns exit code 1.
int fail(const std::string& msg);
/// Loads a graph (any format io::loadGraphFile reads), printing import warnings unless quiet.
Result<ir::Graph> load(const std::string& path, bool quiet = false);

/// Help text of a graph argument: the formats every command reads (fxjson, .lsg and the
/// formats backends register). Call after registerBuiltins().
std::string graphFileHelp();
/// Help text of --pipeline: the registered pipelines. Call after registerBuiltins().
std::string pipelineHelp();
/// -q/--quiet, worded the same for every command: only `result` (the command's one result
/// line, "" for none) and errors are printed.
void addQuietFlag(CLI::App* s, bool& quiet, const std::string& result);

int cmdImport(const std::string& in, const std::string& out, bool quiet);
int cmdPrint(const std::string& in, bool modules, bool constants, bool quiet);
/// Lists the registered passes (description, target ops, applicability, pipelines).
int cmdPasses(bool json, bool namesOnly);
/// The op coverage table of a pipeline (session::opCoverage), as text or as docs/OPS.md.
int cmdOps(const std::string& pipeline, bool markdown);
/// Checks a .tosa file against the TOSA 1.0 specification (profile int|fp, level 8k|none).
int cmdTosaCheck(const std::string& path, const std::string& profile, const std::string& level,
                 const std::vector<std::string>& extensions, bool json, bool quiet);
int cmdInfo(const std::string& in, bool json, bool checkShapes, const std::string& jsonOut, bool quiet);

/// Session options every command that lowers takes: the INT quantizer's calibration data and
/// observers, and the target format's extensions.
struct SessionCli {
  std::string calibration;            ///< .npy file or directory (session::loadCalibrationSamples)
  std::string observer = "histogram";  ///< histogram | minmax
  std::vector<std::string> extensions;  ///< --tosa-extension, as given (bf16 or EXT-BF16)
};
/// Adds --calibration, --observer and --tosa-extension to `s`.
void addSessionOptions(CLI::App* s, SessionCli& q);
/// Sets the session's calibration data, observer kind and extensions from `q`.
void applySessionOptions(const SessionCli& q, session::SessionConfig& c);

/// Options of `lower` (shared by `verify` and `bench` later).
struct LowerCommand {
  CLI::App* sub = nullptr;
  std::string input, pipeline = "generic", profile = "fp", target = "generic";
  bool noSkip = false, noFastCopy = false, cache = false, noCache = false, verifyEach = false, quiet = false, noQuantize = false;
  std::vector<std::string> disabled;
  std::string traceOut, graphOut, jsonOut;
  std::string tosaOut;  ///< --tosa: write the lowered graph as a TOSA 1.0 flatbuffer
  SessionCli quant;
};
/// Adds the `lower` subcommand (the returned object lives as long as the process).
LowerCommand* addLowerCommand(CLI::App& app);
bool selected(const LowerCommand& cmd);
int runLower(const LowerCommand& cmd);

/// The LoweringSession configuration of `lower`'s options (verify and bench start from it).
session::SessionConfig sessionConfig(const LowerCommand& cmd);
/// Prints what the session's INT-profile quantization did (nothing when it did nothing).
void reportQuantize(const session::Prepared& p);

struct TraceCommands;
TraceCommands* addTraceCommands(CLI::App& app);
bool selectedExport(const TraceCommands& c);
bool selectedCompare(const TraceCommands& c);
bool selectedImportTrace(const TraceCommands& c);
int runImportTrace(const TraceCommands& c);
int runExport(const TraceCommands& c);
int runCompare(const TraceCommands& c);

struct VerifyCommand;
VerifyCommand* addVerifyCommand(CLI::App& app);
bool selected(const VerifyCommand& cmd);
int runVerify(const VerifyCommand& cmd);

struct RunCommand;
RunCommand* addRunCommand(CLI::App& app);
bool selected(const RunCommand& cmd);
int runRun(const RunCommand& cmd);

struct BenchCommand;
BenchCommand* addBenchCommand(CLI::App& app);
bool selected(const BenchCommand& cmd);
int runBench(const BenchCommand& cmd);

}  // namespace ls::cli
