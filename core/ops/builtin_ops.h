// Registration entry points of the core op sets (aten, quantized_decomposed, operator,
// lowerscope) and the names of core ops other layers refer to. Backend dialects (tosa.*,
// xnnpack.*) register through registerBackend (core/passes/backend.h), never from here.
#pragma once

#include <string_view>

namespace ls::ops {

class OpRegistry;

/// Registers every core op: aten, operator.getitem, quantized_decomposed, the attention op
/// and the generic delegate call. Called by OpRegistry::instance().
void registerCoreOps(OpRegistry& r);
void registerAtenOps(OpRegistry& r);
void registerQuantOps(OpRegistry& r);
void registerAttentionAndDelegateOps(OpRegistry& r);

/// Op name of the generic nested-graph call: args [subgraph name (str), inputs (Tensor[])].
/// A partitioner (e.g. XNNPACK's) puts a delegated subgraph behind one such node.
inline constexpr std::string_view kCallDelegateOp = "lowerscope.call_delegate.default";
/// torch's aten::scaled_dot_product_attention (query, key, value, attn_mask, dropout_p,
/// is_causal, *, scale): softmax(q @ k^T * scale + mask) @ v, scale defaulting to 1/sqrt(E).
inline constexpr std::string_view kSdpaOp = "aten.scaled_dot_product_attention.default";

}  // namespace ls::ops
