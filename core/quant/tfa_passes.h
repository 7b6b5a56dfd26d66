// Transform-for-annotation passes of the quantizer (upstream ArmPassManager
// .transform_for_annotation_pipeline, tfa_pass=True): decompositions that run before
// annotation so every part gets its own quantisation parameters. They honour the per-node
// "disallow transform" flag (kFlagDisallowTransform): nodes that stay float are not touched,
// and a pass whose targets are all disallowed is skipped (targets-disallowed).
// Not registered in the PassRegistry: the quantizer instantiates them (the Arm pipeline keeps
// its own post-quantisation decompositions under the same upstream names).
#pragma once

#include <memory>
#include <vector>

#include "core/passes/retrace.h"

namespace ls::quant {

/// silu(x) -> mul(x, sigmoid(x)) (upstream DecomposeSiluPass): sigmoid and mul are annotated
/// one by one, silu is not.
class DecomposeSiluPass : public passes::RetracePass {
 public:
  DecomposeSiluPass();

 protected:
  Status rewrite(passes::Rewriter& rw) override;
  size_t decomposed_;
};

/// div.Tensor(a, b) -> mul(a, reciprocal(b)); a number divisor becomes mul(a, 1 / b)
/// (upstream DecomposeDivPass). Rounding-mode divisions (div.Tensor_mode) are left alone.
class DecomposeDivPass : public passes::RetracePass {
 public:
  DecomposeDivPass();

 protected:
  Status rewrite(passes::Rewriter& rw) override;
  size_t decomposed_;
};

/// mean.dim(x, dims, keepdim) -> mul(sum.dim_IntList(x, dims, keepdim), 1 / N) (upstream
/// DecomposeMeanDimPass): the sum gets its own observer instead of sharing its input's
/// (mean.dim itself would share the parent's quantisation parameters).
class DecomposeMeanDimPass : public passes::RetracePass {
 public:
  DecomposeMeanDimPass();

 protected:
  Status rewrite(passes::Rewriter& rw) override;
  size_t decomposed_;
};

/// native_layer_norm(x, normalized_shape, w, b, eps) -> mean = sum(x, dims) * (1 / N),
/// d = x - mean, var = sum(d * d, dims) * (1 / N), rstd = rsqrt(var + eps), y = d * rstd
/// [* w] [+ b] over the trailing normalized dims, keepdim (upstream DecomposeLayerNormPass;
/// the means are emitted as sum * 1/N directly, the variance reuses d). Outputs 1 and 2
/// (mean, rstd) are the decomposition's mean and rstd: their getitem users are rewired. Only
/// float32 inputs are decomposed (nothing else is quantised).
class DecomposeLayerNormPass : public passes::RetracePass {
 public:
  DecomposeLayerNormPass();

 protected:
  Status rewrite(passes::Rewriter& rw) override;
  size_t decomposed_;
};

/// _softmax(x, dim, half_to_float) / softmax.int(x, dim, dtype) -> the numerically stable
/// form exp(x - amax(x)) * reciprocal(sum(exp(x - amax(x)))) (upstream DecomposeSoftmaxPass,
/// see tfa_passes.cpp for why the stable variant). Only float32 in and out.
class DecomposeSoftmaxPass : public passes::RetracePass {
 public:
  DecomposeSoftmaxPass();

 protected:
  Status rewrite(passes::Rewriter& rw) override;
  size_t decomposed_;
};

/// _log_softmax(x, dim, half_to_float) / log_softmax.int(x, dim, dtype) ->
/// (x - amax(x)) - log(sum(exp(x - amax(x)))). Only float32 in and out.
class DecomposeLogSoftmaxPass : public passes::RetracePass {
 public:
  DecomposeLogSoftmaxPass();

 protected:
  Status rewrite(passes::Rewriter& rw) override;
  size_t decomposed_;
};

/// The built-in transform-for-annotation passes, in order.
std::vector<std::unique_ptr<passes::Pass>> builtinTfaPasses();

}  // namespace ls::quant
