// The op coverage table (docs/OPS.md, `lowerscope-cli ops`): for every ATen op the registry
// knows, whether it has shape inference and a reference kernel, which passes of a pipeline
// lower it in the FP and in the INT profile (read from the pass and pipeline registries: the
// passes' declared target ops and applicability, and the pipeline's annotation passes), and
// whether upstream's Arm support lists admit it. Nothing here is a list kept by hand except
// upstream's lists.
#pragma once

#include <string>
#include <vector>

#include "core/util/status.h"

namespace ls::session {

struct OpCoverage {
  std::string op;                       ///< "aten.add.Tensor"
  bool shapeInference = false;          ///< a meta function in the op registry
  bool referenceKernel = false;         ///< a kernel in the reference executor
  std::vector<std::string> fpPasses;    ///< pipeline passes (FP profile) that target the op
  std::vector<std::string> intPasses;   ///< annotation passes + INT-only passes that target it
  bool upstreamFp = false, upstreamInt = false;  ///< in upstream's TOSA support lists

  /// Under INT the op is lowered by the FP passes only: it computes in float (a float island).
  bool intFloatIsland() const { return intPasses.empty() && !fpPasses.empty(); }
};

/// One row per registered ATen op, sorted by name. Needs registerBuiltins().
Result<std::vector<OpCoverage>> opCoverage(const std::string& pipeline);

/// The table as Markdown (a heading, how to read it, totals, the rows).
std::string opCoverageMarkdown(const std::vector<OpCoverage>& rows, const std::string& pipeline);

}  // namespace ls::session
