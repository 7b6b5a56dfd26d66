// Output comparison for semantic checks: float outputs by an allclose-style rtol/atol rule,
// quantised integer outputs in quantisation steps, every other integer or bool output exactly,
// with max abs/rel errors and the first failing output and element.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/exec/tensor.h"
#include "core/ir/graph.h"

namespace ls::exec {

class ConstantCache;

struct CompareOptions {
  /// Float element passes when |a - b| <= atol + rtol * |b| (torch.allclose; b = expected),
  /// or with scaleRelative when |a - b| <= atol + rtol * max|expected| over the tensor: the
  /// normwise rule for lowerings that reassociate float arithmetic (BN folding, decomposed
  /// means), where an element near zero carries the rounding of its large neighbours.
  double rtol = 1e-4;
  bool scaleRelative = false;
  double atol = 1e-5;
  /// Floor of the denominator of the relative error |a - b| / max(|b|, relFloor).
  double relFloor = 1e-6;
  /// A quantised integer element (the stored integer of a quantised value: one unit is one
  /// quantisation step) passes when |a - b| <= maxSteps. Integers that are not quantised
  /// (casts, indices, counts) and bools must be equal: a rounding or truncation difference is
  /// a wrong value, not a step.
  int64_t maxSteps = 1;
  /// NaN equals NaN (same position in both); infinities must match in sign.
  bool nanEqual = true;
};

/// Comparison of one output pair.
struct OutputDiff {
  bool equivalent = true;
  bool shapeMismatch = false;
  bool dtypeMismatch = false;  ///< float vs integer (float32 vs float64 compare by value)
  double maxAbsError = 0.0;    ///< max |a - b| (integers: in steps)
  double maxRelError = 0.0;    ///< max |a - b| / max(|b|, relFloor) (floats only)
  double maxRelToMax = 0.0;    ///< max |a - b| / max |b| (scale-relative, floats only)
  int64_t maxSteps = 0;        ///< integer outputs: max |a - b| (quantised or not)
  int64_t mismatches = 0;      ///< elements failing the rule
  int64_t firstFailingElement = -1;  ///< flat index
  double actualAtFailure = 0.0, expectedAtFailure = 0.0;
  int64_t worstElement = -1;   ///< flat index of the max abs error
  /// The worst element's error over the tolerance the rule allows it: <= 1 passes, so it is
  /// the error "in tolerances" (integers: units over maxSteps; +inf where nothing is allowed
  /// or for a NaN/inf mismatch). Numerics localisation ranks nodes by it.
  double tolerances = 0.0;
};

/// Comparison of two output lists (actual vs expected).
struct CompareResult {
  bool equivalent = true;
  double maxAbsError = 0.0;  ///< over float outputs
  double maxRelError = 0.0;  ///< over float outputs
  double maxRelToMax = 0.0;  ///< over float outputs
  int64_t maxSteps = 0;      ///< over integer outputs
  int firstFailingOutput = -1;
  int64_t firstFailingElement = -1;
  std::vector<OutputDiff> outputs;
  /// One line: "equivalent (max abs 1.2e-07, max rel 3.4e-06)" or what failed first:
  /// "output #0 element 17: 0.5 vs expected 0.75 (|diff| 0.25 > tol 7.5e-05)".
  std::string message;
};

/// `quantised`: an integer `expected` holds quantised values (compared in steps, maxSteps);
/// otherwise integers compare exactly. Floats ignore it.
OutputDiff compareTensors(const Tensor& actual, const Tensor& expected, const CompareOptions& opts = {},
                          bool quantised = false);
/// `quantised[i]`: output i holds quantised integers (see quantisedOutputs); missing entries are
/// false.
CompareResult compareOutputs(const std::vector<Tensor>& actual, const std::vector<Tensor>& expected,
                             const CompareOptions& opts = {}, const std::vector<bool>& quantised = {});

/// Per output of `g`: true when the returned value is quantised (its TensorMeta::quant is set:
/// a quantize's output, or a lowered integer value carrying its qparams).
std::vector<bool> quantisedOutputs(const ir::Graph& g);

/// Per output of `g`: the scale of the per-tensor dequantize producing it, 0 when the output
/// is not produced by one (scale given as a number or as a 1-element constant); with
/// `zeroPoints`, also its zero point.
std::vector<double> outputQuantSteps(const ir::Graph& g, ConstantCache& constants,
                                     std::vector<int64_t>* zeroPoints = nullptr);

/// True when `g` (or a nested graph) holds quantized_decomposed quantize/dequantize ops.
bool hasQuantOps(const ir::Graph& g);

}  // namespace ls::exec
