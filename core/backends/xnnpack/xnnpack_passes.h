// The XNNPACK pipeline's transform passes (ExecuTorch backends/xnnpack/_passes and the
// transform passes before partitioning), and the registration of the `xnnpack` pipeline.
#pragma once

#include <optional>
#include <vector>

#include "core/passes/backend.h"
#include "core/passes/editor.h"
#include "core/passes/retrace.h"
#include "core/transforms/batch_norm.h"
#include "core/transforms/decompositions.h"

namespace ls::passes {
class PassRegistry;
class PipelineRegistry;
}  // namespace ls::passes

namespace ls::xnnpack {

using passes::GraphEditor;
using passes::InPlacePass;
using passes::PassContext;
using passes::RetracePass;
using passes::Rewriter;
using passes::ShouldRun;

// ---------------------------------------------------------------- attention matching

/// A scalar scale on an attention path: `mul(x, c)` / `div(x, c)` with a Python-number
/// operand (mul.Scalar/div.Scalar or the torch 1.13 form mul.Tensor(x, 0.5)).
struct ScaleSite {
  ir::NodeId node = ir::kInvalidNode;
  ir::ValueRef input;      ///< the scaled tensor
  ir::NodeId consumer = ir::kInvalidNode;  ///< the next node on the path (reads the scale)
  double factor = 1.0;     ///< multiplier applied (c for mul, 1/c for div)
  bool removable = false;  ///< the scale and the layout ops after it feed only this path
};

/// One scaled-dot-product attention: bmm1(q, k^T) -> [scale] -> softmax(-1) -> bmm2(., v),
/// with optional scales on the q and k^T paths (reaching bmm1 through layout-only ops:
/// view_copy, expand_copy, permute/transpose/t, clone, (un)squeeze).
struct AttentionMatch {
  ir::NodeId bmm1 = ir::kInvalidNode, softmax = ir::kInvalidNode, bmm2 = ir::kInvalidNode;
  std::optional<ScaleSite> qScale, kScale, postScale;
  /// When bmm1's k^T operand is a last-two-dims transpose used only by bmm1: its input.
  std::optional<ir::ValueRef> keyBeforeTranspose;
};

/// True for ops that only move or alias data (commute with a scalar multiply).
bool isLayoutOnlyOp(ir::OpId op);
/// The factor of a scalar scale node (mul/div by a Python number), or nullopt.
std::optional<ScaleSite> scalarScale(const ir::Graph& g, const ir::Node& n);
/// Every attention pattern in `g` (not nested graphs).
std::vector<AttentionMatch> findAttention(const ir::Graph& g);

// ---------------------------------------------------------------- passes

/// Removes expand_copy whose output shape equals its input shape.
class RemoveNoopExpandCopyPass : public RetracePass {
 public:
  RemoveNoopExpandCopyPass();
 protected:
  Status rewrite(Rewriter& rw) override;
  size_t removed_;
};

/// The activations PyTorch's default (core ATen) decompositions remove before ExecuTorch's
/// edge dialect, which the XNNPACK table therefore never lists: silu(x) -> x * sigmoid(x),
/// hardsigmoid(x) -> clamp(x + 3, 0, 6) / 6 (3 and 6 as 0-d constants of x's dtype).
/// Graphs traced with make_fx keep them; without this they break partitions apart.
class DecomposeActivationsPass : public transforms::DecompositionPass {
 public:
  DecomposeActivationsPass();
 protected:
  void decomposed(const ir::Node& n) override;
  size_t silu_, hardsigmoid_;
};

/// Lifts Python-scalar operands of binary ops (mul.Scalar(x, c), mul.Tensor(x, 0.5),
/// div.Tensor(x, 8.0), add/sub/rsub) into 0-d constants of x's dtype, so the ops become
/// tensor-tensor ops XNNPACK delegates (no `full` op). Guard: a scale that reaches an
/// attention Q*K^T bmm through layout-only ops (or scales its scores) is kept, so
/// ConvertToSDPA can still read it (see findAttention).
class LiftConstantScalarOperandsPass : public InPlacePass {
 public:
  /// `sdpaGuard` = false disables the guard (for tests demonstrating why it exists).
  explicit LiftConstantScalarOperandsPass(bool sdpaGuard = true);
  ShouldRun shouldRunImpl(const ir::Graph& g, const PassContext& ctx) const override;
 protected:
  Status transform(GraphEditor& ed) override;
  bool guard_;
  size_t lifted_, keptSdpa_, skippedDtype_;
};

/// mm(x, W^T) / addmm(b, x, W^T) with W a constant and W^T a t/transpose/permute of it ->
/// linear(x, W[, b]) (addmm only with beta = alpha = 1 and a 1-D bias).
class ConvertToLinearPass : public InPlacePass {
 public:
  ConvertToLinearPass();
 protected:
  Status transform(GraphEditor& ed) override;
  size_t converted_;
};

/// Replaces each attention pattern (findAttention) by one
/// aten.scaled_dot_product_attention(q, k, v, scale=s), s = product of the scales it read
/// (q side, k side, scores); a scale shared with other users stays in the graph. The second
/// bmm becomes the sdpa (same id); the rest of the pattern is removed as dead code.
class ConvertToSDPAPass : public InPlacePass {
 public:
  ConvertToSDPAPass();
  /// The scale of every sdpa created by the last run, in graph order.
  const std::vector<double>& scalesRead() const { return scales_; }
 protected:
  Status transform(GraphEditor& ed) override;
  size_t matched_, scalesFolded_;
  std::vector<double> scales_;
};

/// "ConstPropPass": folds call nodes whose inputs are all constants into new constants
/// (core/transforms/constant_folding.h; results above 4M elements stay).
std::unique_ptr<passes::Pass> makeConstPropPass();

/// XNNPACK's batch norm options (core/transforms/batch_norm.h): folds into conv and linear
/// weights, a remaining norm becomes a 1x1 depthwise convolution, training mode is kept.
transforms::BatchNormOptions batchNormOptions();
/// "FuseBatchNormPass": conv/linear -> eval batch norm folded into the weights.
std::unique_ptr<passes::Pass> makeFuseBatchNormPass();
/// "DecomposeBatchNormPass": a remaining eval batch norm over a 3-D/4-D input -> 1x1 depthwise
/// convolution with weight gamma/sqrt(var+eps) and bias beta - mean * gamma/sqrt(var+eps).
std::unique_ptr<passes::Pass> makeDecomposeBatchNormPass();

/// relu / hardtanh whose producer (conv, linear, add, sub, mul; single user) can carry an
/// output clamp: the producer becomes its clamp-fused variant (xnnpack.*_clamp with
/// output_min/output_max kwargs) and the activation disappears.
class FuseActivationPass : public InPlacePass {
 public:
  FuseActivationPass();
 protected:
  Status transform(GraphEditor& ed) override;
  size_t fused_;
};

/// cat with more than 5 inputs (XNNPACK's concatenate limit) -> a chain of cats.
class DecomposeConcatenatePass : public InPlacePass {
 public:
  DecomposeConcatenatePass();
  ShouldRun shouldRunImpl(const ir::Graph& g, const PassContext& ctx) const override;
 protected:
  Status transform(GraphEditor& ed) override;
  size_t decomposed_;
};

/// Memory format: NHWC for conv, pools, mean.dim and upsample inputs; NCHW for view,
/// linear and every other layout-sensitive op and the graph outputs; layout-agnostic ops
/// (elementwise, activations) follow their input. A conversion (clone with memory_format)
/// is inserted where layouts meet, at most once per tensor and layout.
class ChannelsLastTaggedReshapePass : public InPlacePass {
 public:
  ChannelsLastTaggedReshapePass();
 protected:
  Status transform(GraphEditor& ed) override;
  size_t toNhwc_, toNchw_;
};

/// Removes memory-format conversions that do nothing (input already in that layout) and
/// back-to-back conversions that cancel (NCHW -> NHWC -> NCHW).
class RemoveRedundantCopyPass : public InPlacePass {
 public:
  RemoveRedundantCopyPass();
 protected:
  Status transform(GraphEditor& ed) override;
  size_t removed_;
};

/// The XNNPACK backend: clamp-fused ops and kernels, its passes and the "xnnpack" pipeline,
/// for registerBackend (called by the composition root only).
const passes::Backend& xnnpackBackend();

void registerXnnpackPasses(passes::PassRegistry& r);
void registerXnnpackPipelines(passes::PipelineRegistry& r);

}  // namespace ls::xnnpack
