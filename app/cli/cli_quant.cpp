// --profile int input handling shared by `lower` and `verify`: a float graph (no q/dq ops) is
// quantized first with the post-training quantizer, as the Arm flow expects an INT graph.
#include <fmt/format.h>

#include "app/cli/commands.h"
#include "core/exec/verify.h"
#include "core/quant/quantizer.h"

namespace ls::cli {

Status quantizeForIntProfile(ir::Graph& g, uint64_t seed) {
  if (exec::hasQuantOps(g)) {
    fmt::print("input already holds quantize/dequantize ops: using it as it is\n");
    return Status::ok();
  }
  quant::QuantizeOptions o;
  o.seed = seed;
  auto rep = quant::quantizeGraph(g, o);
  if (!rep) return Status::error("quantizing the float graph for --profile int failed: " + rep.message());
  fmt::print("quantized the float graph for --profile int (--no-quantize keeps it float): {}\n", rep->summary());
  return Status::ok();
}

}  // namespace ls::cli
