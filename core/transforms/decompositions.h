// The ATen decompositions shared by the Arm TOSA pipeline, the quantizer's
// transform-for-annotation and the XNNPACK pipeline: silu, hardswish / hardsigmoid, mean.dim,
// native_layer_norm, softmax / log_softmax and div, each written once. What differs between
// their users is an option (DecomposeOptions), never a copy.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/passes/retrace.h"

namespace ls::passes {
class PassRegistry;
}  // namespace ls::passes

namespace ls::transforms {

/// The form hardsigmoid(x) = clamp(x + 3, 0, 6) / 6 is emitted in.
enum class HardsigmoidForm : uint8_t {
  MulReciprocal,  ///< add(x, 3.0), clamp, mul(., 1/6) with Python-number operands (Arm: scalars become tensors later)
  DivConstants,   ///< add(x, c3), clamp, div(., c6) with 0-d constants of x's dtype (XNNPACK: tensor-tensor ops only)
  COUNT
};

/// The real differences between the users of one decomposition.
struct DecomposeOptions {
  /// Nodes flagged kFlagDisallowTransform stay (and a pass whose targets are all flagged is
  /// skipped as targets-disallowed): the quantizer's transform-for-annotation.
  bool honourDisallowFlag = false;
  /// Only float32 nodes are supported (the quantizer: nothing else is quantised); otherwise
  /// any floating dtype is.
  bool float32Only = false;
  /// A node the decomposition does not cover (unsupported dtype, rounding-mode or integer
  /// division, an explicit mean dtype, an empty reduction) fails the
  /// pass (Arm: it could not be lowered); false keeps the node as it is.
  bool rejectUnsupported = true;
  /// Emitted nodes are named after the decomposed node ("silu_3_sigmoid") instead of their op
  /// ("sigmoid") (XNNPACK's naming).
  bool nameAfterNode = false;
  HardsigmoidForm hardsigmoid = HardsigmoidForm::MulReciprocal;
};

// ---- the decompositions as rewrite functions, usable from any retrace pass ----
// Each replaces rw.node() and returns true, returns false when the node is kept (see
// DecomposeOptions), or an error when the node is malformed or rejected.

/// silu(x) -> mul(x, sigmoid(x)).
Result<bool> decomposeSilu(passes::Rewriter& rw, const DecomposeOptions& o);
/// hardsigmoid(x) -> clamp(x + 3, 0, 6) / 6 in the form o.hardsigmoid; hardswish(x) -> x * that.
Result<bool> decomposeHardswish(passes::Rewriter& rw, const DecomposeOptions& o);
/// mean.dim(x, dims, keepdim) -> mul(sum.dim_IntList(x, dims, keepdim), 1 / N), dims wrapped
/// to non-negative indices (no dims: all of them).
Result<bool> decomposeMeanDim(passes::Rewriter& rw, const DecomposeOptions& o);
/// native_layer_norm(x, normalized_shape, w, b, eps) -> mean = sum(x) * 1/N, d = x - mean,
/// var = sum(d * d) * 1/N, rstd = rsqrt(var + eps), y = d * rstd [* w] [+ b] over the trailing
/// normalized dims (keepdim); outputs 1 and 2 (mean, rstd) become the decomposition's mean and
/// rstd.
Result<bool> decomposeLayerNorm(passes::Rewriter& rw, const DecomposeOptions& o);
/// native_group_norm(x, w, b, N, C, HxW, group, eps) -> x viewed [N, group, C/group * HxW],
/// the layer-norm steps over the last dim, viewed back, * w[1, C, 1..] + b; outputs 1 and 2
/// (mean, rstd) are the [N, group] views of the decomposition's.
Result<bool> decomposeGroupNorm(passes::Rewriter& rw, const DecomposeOptions& o);
/// Training-mode batch norm (what make_fx records for InstanceNorm and for BatchNorm without
/// running statistics) -> the layer-norm steps over every dim but the channels, * w[1, C, 1..]
/// + b; outputs 1 and 2 (save_mean, save_invstd) are the [C] statistics. Eval mode is kept.
Result<bool> decomposeBatchNormTraining(passes::Rewriter& rw, const DecomposeOptions& o);
/// The numerically stable form: softmax -> exp(x - amax(x)) * reciprocal(sum(exp(x - amax(x)))),
/// log_softmax -> (x - amax(x)) - log(sum(exp(x - amax(x)))) (see decompositions.cpp for why).
Result<bool> decomposeSoftmax(passes::Rewriter& rw, const DecomposeOptions& o);
/// div(a, b) -> mul(a, reciprocal(b)); a number divisor becomes mul(a, 1 / b) (+-inf for +-0).
Result<bool> decomposeDiv(passes::Rewriter& rw, const DecomposeOptions& o);

// ---- the passes ----

/// A retrace pass applying one or more of the decompositions above with one set of options.
/// Statistic 0 "decomposed" counts the nodes decomposed.
class DecompositionPass : public passes::RetracePass {
 public:
  using Fn = Result<bool> (*)(passes::Rewriter& rw, const DecomposeOptions& o);
  /// `fn` decomposes one node of any op in `targets`.
  DecompositionPass(std::string name, std::string desc, std::vector<std::string> targets, Fn fn,
                    DecomposeOptions o = {});
  const DecomposeOptions& options() const { return opts_; }

 protected:
  Status rewrite(passes::Rewriter& rw) override;
  /// Called after each decomposed node (for per-op statistics of subclasses).
  virtual void decomposed(const ir::Node& n) { (void)n; }

 private:
  Fn fn_;
  DecomposeOptions opts_;
  size_t decomposed_;
};

class DecomposeSiluPass : public DecompositionPass {
 public:
  explicit DecomposeSiluPass(DecomposeOptions o = {});
};
class DecomposeHardswishPass : public DecompositionPass {
 public:
  explicit DecomposeHardswishPass(DecomposeOptions o = {});
};
class DecomposeHardsigmoidPass : public DecompositionPass {
 public:
  explicit DecomposeHardsigmoidPass(DecomposeOptions o = {});
};
class DecomposeMeanDimPass : public DecompositionPass {
 public:
  explicit DecomposeMeanDimPass(DecomposeOptions o = {});
};
class DecomposeLayerNormPass : public DecompositionPass {
 public:
  explicit DecomposeLayerNormPass(DecomposeOptions o = {});
};
class DecomposeGroupNormPass : public DecompositionPass {
 public:
  explicit DecomposeGroupNormPass(DecomposeOptions o = {});
};
class DecomposeBatchNormTrainingPass : public DecompositionPass {
 public:
  explicit DecomposeBatchNormTrainingPass(DecomposeOptions o = {});
};
class DecomposeSoftmaxPass : public DecompositionPass {
 public:
  explicit DecomposeSoftmaxPass(DecomposeOptions o = {});
};
class DecomposeLogSoftmaxPass : public DecompositionPass {
 public:
  explicit DecomposeLogSoftmaxPass(DecomposeOptions o = {});
};
class DecomposeDivPass : public DecompositionPass {
 public:
  explicit DecomposeDivPass(DecomposeOptions o = {});
};

/// Registers the decomposition passes above with default options (the Arm pipeline's).
void registerDecompositionPasses(passes::PassRegistry& r);

}  // namespace ls::transforms
