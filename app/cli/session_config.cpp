// Shared by `lower`, `verify` and `bench`: the LoweringSession configuration from the common
// options, and the line that says what the session's INT-profile quantization did.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include <cctype>

#include "app/cli/commands.h"
#include "core/quant/quantizer.h"

namespace ls::cli {

session::SessionConfig sessionConfig(const LowerCommand& cmd) {
  session::SessionConfig c;
  c.pipeline = cmd.pipeline;
  c.profile = *passes::parseProfile(cmd.profile);
  c.target = *passes::parseTarget(cmd.target);
  c.engine.skip = !cmd.noSkip;
  c.engine.fastCopy = !cmd.noFastCopy;
  c.engine.cache = cmd.cache;  // --no-cache (the default, still accepted) excludes --cache
  c.disabled = cmd.disabled;
  c.structuralVerify = cmd.verifyEach;
  c.quantize = !cmd.noQuantize;
  c.recordTrace = !cmd.traceOut.empty();
  applySessionOptions(cmd.quant, c);
  return c;
}

void addSessionOptions(CLI::App* s, SessionCli& q) {
  s->add_option("--calibration", q.calibration,
                "with --profile int: calibrate on your data instead of the seeded inputs: a .npy file (one input: a "
                "sample or a stack [N, ...] of samples), a directory of <input>.npy files (stacks, the same N), a "
                "directory of sample directories holding them, or, for one input, a directory of .npy files");
  s->add_option("--observer", q.observer,
                "with --profile int: activation observers, histogram (upstream's HistogramObserver) or minmax")
      ->check(CLI::IsMember({"histogram", "minmax"}))
      ->capture_default_str();
  s->add_option("--tosa-extension", q.extensions,
                "let the TOSA file use an extension beyond the profile: bf16, int16, int4, fp8e4m3, fp8e5m2, ... "
                "(or EXT-BF16 ...); repeatable");
}

void applySessionOptions(const SessionCli& q, session::SessionConfig& c) {
  c.calibration = q.calibration;
  c.observer = q.observer == "minmax" ? quant::ActivationObserver::MinMax : quant::ActivationObserver::Histogram;
  // "bf16" -> "EXT-BF16"; the pipeline's legality check refuses a name the specification
  // does not have.
  c.extensions.clear();
  for (std::string e : q.extensions) {
    for (char& ch : e) ch = char(std::toupper(static_cast<unsigned char>(ch)));
    c.extensions.push_back(e.starts_with("EXT-") ? e : "EXT-" + e);
  }
}

void reportQuantize(const session::Prepared& p) {
  if (p.alreadyQuantized) fmt::print("input already holds quantize/dequantize ops: using it as it is\n");
  if (!p.quantized) return;
  fmt::print("quantized the float graph for --profile int (--no-quantize keeps it float): {}\n", p.quantizeSummary);
  fmt::print("quantizer passes (pipeline {}, {:.3f} ms):\n", quant::kQuantizePipelineName, double(p.quantizeNs) / 1e6);
  for (const passes::PassRecord& r : p.quantizePasses) {
    std::string nodes =
        r.ran() || r.status == passes::PassStatus::Failed ? fmt::format("{} -> {}", r.nodesBefore, r.nodesAfter) : "";
    fmt::print("  q{:<2} {:<40} {:<10} {:<20} {:>9.3f}  {}\n", r.index, r.name, passes::passStatusName(r.status),
               passes::skipReasonName(r.reason), double(r.totalNs()) / 1e6, nodes);
  }
}

}  // namespace ls::cli
