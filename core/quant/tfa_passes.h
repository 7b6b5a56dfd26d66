// Transform-for-annotation passes of the quantizer (upstream ArmPassManager
// .transform_for_annotation_pipeline, tfa_pass=True): decompositions that run before
// annotation so every part gets its own quantisation parameters. They are the shared
// decompositions of core/transforms with the quantizer's options (tfaDecomposeOptions):
// they honour the per-node "disallow transform" flag (kFlagDisallowTransform: nodes that stay
// float are not touched, and a pass whose targets are all disallowed is skipped,
// targets-disallowed), and decompose float32 nodes only, keeping everything else.
#pragma once

#include <memory>
#include <vector>

#include "core/passes/pass.h"
#include "core/transforms/decompositions.h"

namespace ls::quant {

/// The options the quantizer runs the shared decompositions with.
transforms::DecomposeOptions tfaDecomposeOptions();

/// The built-in transform-for-annotation passes, in order.
std::vector<std::unique_ptr<passes::Pass>> builtinTfaPasses();

}  // namespace ls::quant
