// Post-training quantizer: turns a float graph into the graph PT2E (prepare_pt2e /
// convert_pt2e with the Arm backend's TOSAQuantizer and its symmetric int8 config) produces:
// quantized_decomposed quantize/dequantize_per_tensor around activations, int8 weights of
// conv/linear quantised per output channel symmetrically (dequantize_per_channel), int32
// biases with scale = input scale * weight scale, calibrated by upstream's observers
// (HistogramObserver for activations, per-channel min/max for weights) on seeded random inputs
// run through the reference executor.
//
// Steps (upstream names):
//   1. transform for annotation: every node gets kFlagDisallowTransform when its
//      quantisation config is None (TOSAQuantizer._set_disallow_tfa_for_nodes: global config,
//      then module-type/name overrides), then the transform-for-annotation passes run; they
//      honour the flag (ArmPass.allowed_to_transform), so float-only parts stay untouched.
//   2. conv + batch norm folding (prepare_pt2e folds BN into the preceding conv for PTQ).
//   3. annotation (quantization_annotator.py rules: conv/linear with input, weight, bias and
//      output specs, conv->relu/hardtanh(min 0) fusion, shared specs for add/sub/cat, parent
//      shared specs for relu/pools/permute, input-shared specs for views/slices, ...).
//   4. calibration: HistogramObserver (or min/max) over `calibrationRuns` seeded inputs (one
//      observer per value, values with shared specs share one observer, fed in torch's order).
//   5. convert: q/dq pairs inserted, weights folded to int8 constants (fold_quantize=True), as
//      are float constants annotated as operands (layer-norm weight/bias, embeddings).
// Graphs that already hold quantized_decomposed ops are left as they are.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/exec/tensor.h"
#include "core/ir/graph.h"
#include "core/passes/pass_manager.h"
#include "core/passes/pass_record.h"
#include "core/util/progress.h"
#include "core/util/status.h"

namespace ls::quant {

/// The Arm backend's get_symmetric_quantization_config(is_per_channel=True), PTQ.
struct QuantSpec {
  int64_t actQmin = -128, actQmax = 127;        ///< int8 activations, per tensor affine
  int64_t weightQmin = -127, weightQmax = 127;  ///< int8 weights, per channel symmetric (axis 0)
  double eps = 1.0 / 65536.0;                   ///< smallest scale (upstream eps = 2**-16)
};

/// How activation ranges are observed during calibration (histogram_observer.h).
enum class ActivationObserver : uint8_t { Histogram, MinMax };

struct QuantizeOptions {
  QuantSpec spec;
  /// A global config is set (TOSAQuantizer.set_global(config)); false: only nodes matched by
  /// includeModules are quantised.
  bool global = true;
  /// set_module_name(name, None): nodes of these modules (prefix match on the node's module
  /// path, see moduleOf) stay float and are flagged "disallow transform".
  std::vector<std::string> excludeModules;
  /// set_module_name(name, config) with global = false.
  std::vector<std::string> includeModules;
  /// Node names / op names that stay float (set_node_name / set_node_target with None).
  std::vector<std::string> excludeNodes, excludeOps;
  /// Calibration: synthesised inputs with seeds seed, seed + 1, ...
  int calibrationRuns = 4;
  /// The user's calibration data: one entry per sample, a tensor per graph input in placeholder
  /// order (session::loadCalibrationSamples). Non-empty: used instead of the seeded inputs.
  std::vector<std::vector<exec::Tensor>> calibrationInputs;
  /// Activation observers: upstream's HistogramObserver (the default), or MinMaxObserver.
  ActivationObserver activationObserver = ActivationObserver::Histogram;
  uint64_t seed = 1;
  /// prepare_pt2e folds batch norm into the preceding conv.
  bool foldBatchNorm = true;
  /// convert_pt2e(fold_quantize=True): weights become int8 constants feeding
  /// dequantize_per_channel, and float constants read as activation operands (a layer norm's
  /// weight in a mul, its bias in an add) int8 constants feeding dequantize_per_tensor.
  /// false: float constant -> quantize_per_channel / quantize_per_tensor -> dequantize.
  bool foldWeightQuantize = true;
  /// Extra transform-for-annotation passes by registered name, run before the built-in ones (so
  /// the built-ins decompose what they emit).
  std::vector<std::string> extraTfaPasses;
  /// Reports the calibration runs (stage "quantize: calibration", per executed node) and the
  /// conversion (stage "quantize: converting").
  StageProgressFn progress;
};

struct QuantizeReport {
  bool alreadyQuantized = false;  ///< the graph held q/dq ops: nothing was done
  size_t disallowed = 0;          ///< nodes flagged kFlagDisallowTransform
  std::vector<std::string> tfaChanged;  ///< transform-for-annotation passes that changed the graph
  size_t batchNormsFolded = 0;
  /// Batch norms without a convolution to fold into (pre-activation blocks, DenseNet):
  /// x * scale + shift with per-channel constants, so they quantize like any mul/add.
  size_t batchNormsDecomposed = 0;
  size_t annotatedNodes = 0;
  size_t observers = 0;           ///< distinct activation observers (= distinct activation qparams)
  ActivationObserver observer = ActivationObserver::Histogram;  ///< their kind
  size_t calibrationSamples = 0;  ///< runs the observers saw
  bool userCalibration = false;   ///< the samples were the user's data (QuantizeOptions::calibrationInputs)
  size_t quantizedValues = 0;     ///< values given a q/dq pair (or a folded int8 constant + dq)
  size_t quantizePerTensor = 0, dequantizePerTensor = 0;
  /// Float constants annotated as operands (e.g. a layer norm's weight and bias), folded to
  /// int8 per-tensor constants feeding dequantize_per_tensor (foldWeightQuantize).
  size_t foldedConstants = 0;
  size_t perChannelWeights = 0, int32Biases = 0;
  /// One record per pass of the quantizer's run (status, ms, node counts, statistics).
  std::vector<passes::PassRecord> passes;
  int64_t totalNs = 0;
  /// One line, e.g. "74 activation q/dq pairs (52 observers), 53 per-channel int8 weights, 53 int32
  /// biases, 2 per-tensor int8 constants, ...".
  std::string summary() const;
};

/// The module path a node belongs to: Node::module when recorded, else the module of the
/// parameter it reads ("features.0.0" for a conv reading "features.0.0.weight"); empty if none.
std::string moduleOf(const ir::Graph& g, const ir::Node& n);

/// True when the options give node `n` no quantisation config (it stays float).
bool quantizationDisabled(const ir::Graph& g, const ir::Node& n, const QuantizeOptions& o);

/// Step 1 alone: flags nodes without a config kFlagDisallowTransform (and clears the flag on
/// the others), then runs the transform-for-annotation passes. Fills disallowed/tfaChanged.
Status transformForAnnotation(ir::Graph& g, const QuantizeOptions& o, QuantizeReport& report);

/// The name of the quantizer's own pipeline run, as it appears in a trace.
inline constexpr const char* kQuantizePipelineName = "quantize-pt2e";

/// Quantises `g` in place (steps 1-5). Shape-only constants are materialised first (their
/// synthesised values become data). A graph with quantized_decomposed ops is left unchanged
/// (report.alreadyQuantized). Errors name the node.
///
/// The steps run as passes of a PassManager (pipeline kQuantizePipelineName, INT profile,
/// structural verifier after every changed pass): SetDisallowTfaForNodesPass, the
/// transform-for-annotation decompositions (extraTfaPasses first), FuseBatchNorm2dPass (when
/// foldBatchNorm), DecomposeBatchNormNoStatsPass, QuantizePt2ePass (annotate, calibrate,
/// convert). `instrumentations` observe that run like any pipeline's (a TraceRecorder there
/// records the quantizer's changes pass by pass; LoweringSession does this).
Result<QuantizeReport> quantizeGraph(ir::Graph& g, const QuantizeOptions& o = {},
                                     const std::vector<passes::Instrumentation*>& instrumentations = {});

}  // namespace ls::quant
