// Ops the XNNPACK pipeline introduces: scaled-dot-product attention, the generic delegate
// call (with a meta function that reads the nested graph), and clamp-fused variants of the
// ops FuseActivation folds relu/hardtanh into.
#pragma once

#include <string>
#include <string_view>

namespace ls::ops {
class OpRegistry;
}

namespace ls::xnnpack {

/// torch's aten::scaled_dot_product_attention (query, key, value, attn_mask, dropout_p,
/// is_causal, *, scale): softmax(q @ k^T * scale + mask) @ v, scale defaulting to 1/sqrt(E).
inline constexpr std::string_view kSdpaOp = "aten.scaled_dot_product_attention.default";

/// The clamp-fused variant of a fuseable op ("aten.convolution.default" ->
/// "xnnpack.convolution_clamp.default"); empty when the op cannot carry an output clamp.
/// A fused op has the base op's schema plus keyword-only `output_min`, `output_max` (floats):
/// its result is the base result clamped to [output_min, output_max] (NaN stays NaN).
std::string fusedClampOf(std::string_view baseOp);
/// The base op of a clamp-fused op, or empty when `op` is not one.
std::string baseOfFusedClamp(std::string_view op);

/// Registers the ops above (idempotent: ops already present are left alone). Installed as a
/// registry hook, so every OpRegistry has them.
void registerXnnpackOps(ops::OpRegistry& r);

}  // namespace ls::xnnpack
