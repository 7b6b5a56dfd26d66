// Where an INT lowering's outputs differ from its quantised source, and why: the source runs
// with every dequantize fed the lowered graph's int8 value of its quantize (teacher forcing),
// so each quantize is computed from the same int8 inputs the integer graph used and no
// difference propagates; the per-quantize differences left are then the lowering's own. An
// integer graph rounds a value's exact x / scale once (RESCALE's 31-bit multiplier, TOSA's
// rounding: .5 rounds up), PyTorch's quantize rounds .5 to even, so a value at a rounding tie
// may differ by one step without any lowering error. A deep network can carry one such step to
// several output steps (docs/DESIGN.md, "The INT reference runs in float64"): `verify
// --profile int` runs this when the outputs differ and says which of the two it is.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/exec/executor.h"
#include "core/ir/graph.h"
#include "core/util/status.h"

namespace ls::verify {

/// One quantize node of the source whose values differ from the lowered graph's.
struct QuantizeDisagreement {
  std::string quantize;    ///< the source's quantize node
  std::string producer;    ///< the node whose value it quantizes
  std::string producerOp;  ///< and its op (e.g. aten.avg_pool2d.default)
  int64_t elements = 0, differ = 0;
  int64_t notTie = 0;      ///< differences farther from a .5 boundary than RESCALE resolves
  int64_t notNearTie = 0;  ///< of them, farther than 1e-3 steps (see IntAgreement)
  int64_t maxDiff = 0;     ///< in quantisation steps
  /// One differing element, the farthest from a rounding tie: its flat index (the source's
  /// layout), the source's x / scale there (float64 or float32 as the source ran), and the
  /// quantised values of source and lowered graph.
  int64_t example = -1;
  double exampleSteps = 0;
  int64_t exampleSource = 0, exampleLowered = 0;
};

struct IntAgreement {
  size_t quantizes = 0;  ///< quantize nodes of the source
  size_t compared = 0;   ///< of them, those whose lowered int8 value was found (provenance)
  int64_t elements = 0, differ = 0;
  /// Differences farther from a .5 boundary than RESCALE's multiplier resolves (|x / scale -
  /// (k + .5)| > |x / scale| 2^-30), and of them those farther than 1e-3 steps. The ones in
  /// between are near-ties that float32 arithmetic decides either way: a value the lowering
  /// fixed in float32 as PyTorch computes it (a folded constant, quantised with x * (1 / scale)
  /// in float32) against the float64 reference.
  int64_t notTie = 0, notNearTie = 0;
  int64_t maxDiff = 0;
  /// The quantize nodes with differences: those with differences away from a near-tie first,
  /// then away from a tie, then by the number of differences.
  std::vector<QuantizeDisagreement> nodes;
  /// Every difference is one step at a rounding tie.
  bool onlyTies() const { return notTie == 0 && maxDiff <= 1; }
  /// Every difference is one step at a tie or a float32 near-tie.
  bool onlyNearTies() const { return notNearTie == 0 && maxDiff <= 1; }
};

struct AgreementOptions {
  /// The source runs in float64 (verify's INT reference), or in float32 with float32 dequantize
  /// arithmetic (what PyTorch computes).
  bool float64 = true;
  int threads = 0;
};

/// Compares `lowered` (an INT lowering of `source`, a graph with quantize/dequantize ops) with
/// `source` quantize by quantize on `inputs` (the source's graph inputs; the lowered graph gets
/// exec::adaptInputs of them). A lowered value takes over a source quantize when it is int8,
/// its provenance names that quantize alone (the last such node), and its shape is the
/// quantize's or that shape's NHWC form ([N, 1, W, C] for an NCW value, a 1-D convolution's,
/// which the lowering computes as a 2-D one; when C = H = W makes the two alike, the layout that
/// agrees with the source in more elements). A quantize of a value no graph input reaches (a
/// weight, or a value computed from weights alone) has no such node: the lowering folds it into
/// an int8 constant, quantised as PyTorch's convert does (x * (1 / scale) in float32), and it is
/// compared with, and fed, that quantisation of the source's value. Fails when either graph
/// does not run.
Result<IntAgreement> intAgreement(const ir::Graph& source, const ir::Graph& lowered,
                                  const std::vector<exec::Tensor>& inputs, const AgreementOptions& opts = {},
                                  std::shared_ptr<exec::ConstantCache> constants = nullptr);

}  // namespace ls::verify
