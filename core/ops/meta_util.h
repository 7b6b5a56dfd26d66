// Helpers shared by meta functions: broadcasting, torch type promotion, dim wrapping.
#pragma once

#include <span>

#include "core/ops/registry.h"

namespace ls::ops {

/// Wraps a possibly negative dim into [0, rank); rank 0 accepts -1 and 0 as dim 0.
Result<int> wrapDim(int64_t dim, int rank);
/// Right-aligned broadcast of two shapes (PyTorch rules); error names both shapes.
Result<ir::Shape> broadcastShapes(const ir::Shape& a, const ir::Shape& b);

/// torch.result_type over a mixed set of operands: tensors with dims, zero-dim tensors and
/// Python numbers ("wrapped numbers"), with the category rules of at::native::result_type.
class TypePromotion {
 public:
  void addTensor(const ir::TensorMeta& m);
  /// A Python scalar: bool, int (int64) or float (default dtype float32).
  void addScalar(const ir::Arg& a);
  ir::DType result() const;

 private:
  ir::DType dim_ = ir::DType::Undefined, zero_ = ir::DType::Undefined, wrapped_ = ir::DType::Undefined;
};

/// Output spatial size of a convolution / pooling window (floor or ceil mode, as
/// at::native::pooling_output_shape).
int64_t pooledSize(int64_t in, int64_t kernel, int64_t pad, int64_t stride, int64_t dilation, bool ceilMode);

/// Meta copying `in` (shape, dtype, dim order) without quantisation.
ir::TensorMeta sameAs(const ir::TensorMeta& in);
ir::TensorMeta withShape(ir::DType t, const ir::Shape& s);
/// Checks a shape fits kMaxRank before constructing it.
Status checkRank(size_t rank, const MetaCtx& ctx);

}  // namespace ls::ops
