// Eval-mode batch norm, written once for the Arm pipeline, the XNNPACK pipeline and the
// quantizer: matching (constant statistics, only output 0 read) into per-channel
// y = x * scale + shift, folding into the producing convolution (or linear) weights, and
// decomposition of the batch norms no weight absorbed. BatchNormOptions hold the users' real
// differences.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/exec/materialize.h"
#include "core/passes/editor.h"

namespace ls::transforms {

/// What a remaining batch norm is decomposed into.
enum class BatchNormDecomposition : uint8_t {
  MulAdd,         ///< x * scale + shift with [C, 1, ...] constants (Arm, the quantizer)
  DepthwiseConv,  ///< a 1x1 depthwise convolution, weight scale, bias shift (XNNPACK; rank 3/4 inputs)
  COUNT
};

struct BatchNormOptions {
  /// Batch norms (and convolutions) flagged kFlagDisallowTransform stay (the quantizer).
  bool honourDisallowFlag = false;
  /// Only float32 batch norms / weights (the quantizer); otherwise any floating dtype.
  bool float32Only = false;
  /// A training-mode batch norm fails the pass (Arm: it cannot be lowered); false keeps it.
  bool rejectTraining = true;
  /// Fold into a producing aten.linear as well as aten.convolution (XNNPACK).
  bool foldIntoLinear = false;
  BatchNormDecomposition decomposition = BatchNormDecomposition::MulAdd;
};

/// An eval-mode batch norm with constant statistics (weight, bias, running mean/var: get_attr
/// constants or None) read only through getitem(., 0) (other getitems unused), as
/// y = x * scale + shift per channel: scale = w / sqrt(var + eps), shift = b - mean * scale.
struct EvalBatchNorm {
  ir::NodeId bn = ir::kInvalidNode;
  ir::ValueRef input;
  std::vector<ir::NodeId> getitems;  ///< getitem(bn, 0) nodes
  int64_t channels = 0;              ///< C: dim 1 of the input
  /// Per channel (`channels` values each); empty when matched without them (matchEvalBatchNorm).
  std::vector<double> scale, shift;
  double eps = 0;
  /// The batch norm's weight, bias, running mean and running var constants (none: 1, 0, 0, 1).
  std::array<std::optional<ir::Constant>, 4> params;
};

/// scale = weight / sqrt(var + eps), shift = bias - mean * scale per channel, from the values
/// of (weight, bias, running mean, running var).
void batchNormScaleShift(const std::vector<double> (&v)[4], double eps, std::vector<double>& scale,
                         std::vector<double>& shift);
/// `w` (dim 0 the output channels) times scale per output channel, as a new tensor.
exec::Tensor foldBatchNormWeight(const exec::Tensor& w, const std::vector<double>& scale);
/// b * scale + shift per channel (b null: zeros), as `dtype`.
exec::Tensor foldBatchNormBias(const exec::Tensor* b, ir::DType dtype, const std::vector<double>& scale,
                               const std::vector<double>& shift);
/// Recipe "fold_bn" of a conv/linear weight (`weight`, target: the weight constant) or bias
/// (target: the bias constant, or null for none) with the batch norm `m` folded in:
/// foldBatchNormWeight / foldBatchNormBias when materialised. Shown as
/// "fold_bn(conv1.weight, bn1.*)".
std::shared_ptr<const exec::TensorRecipe> foldBatchNormRecipe(bool weight, const ir::Constant* target,
                                                              const EvalBatchNorm& m, ir::DType dtype);

/// `n` as an EvalBatchNorm under `o`; nullopt when it is not one (or must stay), an error for a
/// training-mode batch norm when o.rejectTraining. `scaleShift`: also compute scale and shift
/// from the statistics' values (false: the match alone, which reads no constant's values; a
/// fold recipe needs only the match).
Result<std::optional<EvalBatchNorm>> matchEvalBatchNorm(const ir::Graph& g, const ir::Node& n,
                                                        const BatchNormOptions& o, bool scaleShift = true);

/// conv (not transposed) / linear -> eval batch norm: the producer's weight and bias become
/// W * scale and b * scale + shift per output channel (new constants "<producer>_fused_weight"
/// / "_fused_bias"), the producer keeps its id and the batch norm disappears. Only a single-use
/// producer with constant weight and constant or absent bias. Statistics "fused", "kept".
class FuseBatchNormPass : public passes::InPlacePass {
 public:
  /// `name`: the pipeline's name for this pass.
  FuseBatchNormPass(std::string name, BatchNormOptions o);

 protected:
  Status transform(passes::GraphEditor& ed) override;

 private:
  BatchNormOptions opts_;
  size_t fused_, kept_;
};

/// A remaining eval batch norm -> o.decomposition. Statistic "decomposed".
class DecomposeBatchNormPass : public passes::InPlacePass {
 public:
  DecomposeBatchNormPass(std::string name, BatchNormOptions o);

 protected:
  Status transform(passes::GraphEditor& ed) override;

 private:
  BatchNormOptions opts_;
  size_t decomposed_;
};

}  // namespace ls::transforms
