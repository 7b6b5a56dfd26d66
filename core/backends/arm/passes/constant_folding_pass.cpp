// ConstantFoldingPass (upstream backends/arm/_passes/constant_folding_pass.py): the first
// pass of the quantizer's transform for annotation folds every subgraph whose inputs are all
// constants (torch's export constant_fold), so what the model computes from its parameters
// (weight standardisation, a merged LoRA update w0 + a @ b, masks and position grids from
// arange) is a constant when the quantizer annotates: a convolution's computed weight is then
// a weight, quantised per channel, not an activation. Factories alone (arange, full) are not
// folded here, as torch's constant_fold skips constructors; q/dq never fold.
// The folded constant takes the kind and name of its first constant input, so a weight made
// from a parameter stays a parameter (upstream re-marks it as one after folding). Ops that only
// move values (t, views, permutes) stay: upstream's graph there still has aten.linear where
// ours has t + mm, and the quantizer follows a weight through them to its output channels.
#include "core/backends/arm/arm_passes.h"
#include "core/transforms/constant_folding.h"

namespace ls::arm {

void registerConstantFoldingPass(passes::PassRegistry& r) {
  r.add("ConstantFoldingPass", [] {
    return std::make_unique<transforms::FoldConstantsRetracePass>(
        "ConstantFoldingPass", "Folds every op whose inputs are all constants (before annotation)",
        std::vector<std::string>{}, transforms::ConstantFoldingOptions{.nameAfterInput = true, .anyOp = true, .keepValueMoves = true});
  });
}

}  // namespace ls::arm
