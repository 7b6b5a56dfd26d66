// Ops the XNNPACK pipeline introduces: clamp-fused variants of the ops FuseActivationPass
// folds relu/hardtanh into. (The attention op and the delegate call are core ops.)
#pragma once

#include <string>
#include <string_view>

#include "core/ops/builtin_ops.h"

namespace ls::exec {
class KernelRegistry;
}

namespace ls::xnnpack {

/// The attention op ConvertToSDPAPass fuses into (a core op, core/ops/builtin_ops.h).
using ops::kSdpaOp;

/// The clamp-fused variant of a fuseable op ("aten.convolution.default" ->
/// "xnnpack.convolution_clamp.default"); empty when the op cannot carry an output clamp.
/// A fused op has the base op's schema plus keyword-only `output_min`, `output_max` (floats):
/// its result is the base result clamped to [output_min, output_max] (NaN stays NaN).
std::string fusedClampOf(std::string_view baseOp);
/// The base op of a clamp-fused op, or empty when `op` is not one.
std::string baseOfFusedClamp(std::string_view op);

/// Registers the fused ops (idempotent: ops already present are left alone) and their
/// reference kernels. Called by the XNNPACK backend's registration (xnnpack_backend.cpp).
void registerXnnpackOps(ops::OpRegistry& r);
void registerXnnpackKernels(exec::KernelRegistry& r);

}  // namespace ls::xnnpack
