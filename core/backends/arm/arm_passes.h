// The Arm TOSA passes and pipelines ("tosa": ToTosaMemoryFormatPass + FuseTosaTransposesPass;
// "tosa-permute": permutes around NHWC-only ops + propagation/cancellation).
#pragma once

#include "core/passes/backend.h"
#include "core/passes/editor.h"
#include "core/passes/pass_manager.h"

namespace ls::arm {

/// The Arm backend: tosa.* ops and reference kernels, every Arm pass, and the "tosa" and
/// "tosa-permute" pipelines, for registerBackend (called by the composition root only).
const passes::Backend& armBackend();

/// Registers every Arm pass / the pipelines (parts of armBackend()).
void registerArmPasses(passes::PassRegistry& r);
void registerArmPipelines(passes::PipelineRegistry& r);

// One file per pass in core/backends/arm/passes/, named after upstream's file for the pass
// (decompose_int_pow_pass.cpp) or after the pass where upstream has none, each registering
// its pass: a passes::PassSpec (core/passes/rule_pass.h), or a class that keeps state.
void registerCheckTosaOperatorSupportPass(passes::PassRegistry& r);
void registerConv1dUnsqueezePass(passes::PassRegistry& r);
void registerConvertClampMinPass(passes::PassRegistry& r);
void registerConvertExpandCopyToRepeatPass(passes::PassRegistry& r);
void registerConvertInt64ConstOpsToInt32Pass(passes::PassRegistry& r);
void registerConvertSplitToSlicePass(passes::PassRegistry& r);
void registerConvertSqueezesToViewPass(passes::PassRegistry& r);
void registerConvertToClampPass(passes::PassRegistry& r);
void registerConvertTransposeToPermutePass(passes::PassRegistry& r);
void registerDecomposeAcoshPass(passes::PassRegistry& r);
void registerDecomposeAdaptiveAvgPool2dPass(passes::PassRegistry& r);
void registerDecomposeAddmmPass(passes::PassRegistry& r);
void registerDecomposeAnyPass(passes::PassRegistry& r);
void registerDecomposeAsStridedCopyPass(passes::PassRegistry& r);
void registerDecomposeAsinAndAcosPass(passes::PassRegistry& r);
void registerDecomposeAsinhPass(passes::PassRegistry& r);
void registerDecomposeAtanPass(passes::PassRegistry& r);
void registerDecomposeAtanhPass(passes::PassRegistry& r);
void registerDecomposeAvgPool2dPass(passes::PassRegistry& r);
void registerDecomposeBatchNormNoStatsPass(passes::PassRegistry& r);
void registerDecomposeCoshPass(passes::PassRegistry& r);
void registerDecomposeCumsumPass(passes::PassRegistry& r);
void registerDecomposeEluPass(passes::PassRegistry& r);
void registerDecomposeEmbeddingPass(passes::PassRegistry& r);
void registerDecomposeExpm1Pass(passes::PassRegistry& r);
void registerDecomposeEyePass(passes::PassRegistry& r);
void registerDecomposeFactoriesPass(passes::PassRegistry& r);
void registerDecomposeFlipPass(passes::PassRegistry& r);
void registerDecomposeFloorDividePass(passes::PassRegistry& r);
void registerDecomposeGeluPass(passes::PassRegistry& r);
void registerDecomposeGluPass(passes::PassRegistry& r);
void registerDecomposeGroupedConvPass(passes::PassRegistry& r);
void registerDecomposeIndexSelectToGatherPass(passes::PassRegistry& r);
void registerDecomposeIntPowPass(passes::PassRegistry& r);
void registerDecomposeLeakyReLUPass(passes::PassRegistry& r);
void registerDecomposeLinalgVectorNormPass(passes::PassRegistry& r);
void registerDecomposeLinearPass(passes::PassRegistry& r);
void registerDecomposeLog1pPass(passes::PassRegistry& r);
void registerDecomposeLogitPass(passes::PassRegistry& r);
void registerDecomposeMaskedFillPass(passes::PassRegistry& r);
void registerDecomposePixelShufflePass(passes::PassRegistry& r);
void registerDecomposePool3dPass(passes::PassRegistry& r);
void registerDecomposePreluPass(passes::PassRegistry& r);
void registerDecomposeQuantizeDequantizePass(passes::PassRegistry& r);
void registerDecomposeRemainderPass(passes::PassRegistry& r);
void registerDecomposeRollPass(passes::PassRegistry& r);
void registerDecomposeRoundPass(passes::PassRegistry& r);
void registerDecomposeRsubPass(passes::PassRegistry& r);
void registerDecomposeSdpaPass(passes::PassRegistry& r);
void registerDecomposeSelectPass(passes::PassRegistry& r);
void registerDecomposeSignPass(passes::PassRegistry& r);
void registerDecomposeSinhPass(passes::PassRegistry& r);
void registerDecomposeSliceScatterPass(passes::PassRegistry& r);
void registerDecomposeStackPass(passes::PassRegistry& r);
void registerDecomposeSumPass(passes::PassRegistry& r);
void registerDecomposeTanPass(passes::PassRegistry& r);
void registerDecomposeTransposedConvPass(passes::PassRegistry& r);
void registerDecomposeTrilPass(passes::PassRegistry& r);
void registerDecomposeUnbindPass(passes::PassRegistry& r);
void registerDecomposeVarPass(passes::PassRegistry& r);
void registerDecomposeWeightNormPass(passes::PassRegistry& r);
void registerDecorateFp32toInt32CastingPass(passes::PassRegistry& r);
void registerConstantFoldingPass(passes::PassRegistry& r);
void registerConvertMinMaxPass(passes::PassRegistry& r);
void registerConvertMmToBmmPass(passes::PassRegistry& r);
void registerDecomposeDivTensorModePass(passes::PassRegistry& r);
void registerDecomposeTOSAUnsupportedClampPass(passes::PassRegistry& r);
void registerEnsureUniqueOutputNodesPass(passes::PassRegistry& r);
void registerExirToTosaPass(passes::PassRegistry& r);
void registerExtractIOQuantizationPass(passes::PassRegistry& r);
void registerFoldAndAnnotateQParamsPass(passes::PassRegistry& r);
void registerFuseBatchNorm2dPass(passes::PassRegistry& r);
void registerFuseConsecutiveRescalesPass(passes::PassRegistry& r);
void registerFuseConstantArgsPass(passes::PassRegistry& r);
void registerFuseEqualPlaceholdersPass(passes::PassRegistry& r);
void registerFuseTosaTransposesPass(passes::PassRegistry& r);
void registerFuseViewCopyTransformPass(passes::PassRegistry& r);
void registerInsertInt32CastsAfterInt64PlaceholdersPass(passes::PassRegistry& r);
void registerInsertRescalePass(passes::PassRegistry& r);
void registerInsertTableOpsPass(passes::PassRegistry& r);
void registerMatchArgDtypePass(passes::PassRegistry& r);
void registerMatchArgRanksPass(passes::PassRegistry& r);
void registerPromoteBoolOperandsPass(passes::PassRegistry& r);
void registerPropagateTransposesPass(passes::PassRegistry& r);
void registerReplaceScalarWithTensorPass(passes::PassRegistry& r);
void registerRewriteArgmaxPass(passes::PassRegistry& r);
void registerRewriteAvgPool2dPass(passes::PassRegistry& r);
void registerRewriteBoolToFp32CastViaInt8Pass(passes::PassRegistry& r);
void registerRewriteConv2dPass(passes::PassRegistry& r);
void registerRewriteIndexTensorPass(passes::PassRegistry& r);
void registerRewriteMatmulPass(passes::PassRegistry& r);
void registerRewriteMaxPool2dPass(passes::PassRegistry& r);
void registerRewritePadPass(passes::PassRegistry& r);
void registerRewriteSlicePass(passes::PassRegistry& r);
void registerRewriteUpsamplePass(passes::PassRegistry& r);
void registerToTosaMemoryFormatPass(passes::PassRegistry& r);
void registerUnsqueezeBeforeRepeatPass(passes::PassRegistry& r);

/// scale ~= multiplier * 2^-shift for RESCALE (31-bit multiplier, shift in [2, 62]).
Result<std::pair<int64_t, int64_t>> quantizeScale(double scale);
/// True for quantizeScale's error on a factor no RESCALE can hold (not a malformed graph: the
/// quantised op then stays in float, a float island).
bool isUnrepresentableScale(const Status& st);

/// Removes redundant tosa.TRANSPOSE nodes (upstream FuseTosaTransposesPass, PR 18947):
/// identity elimination, inverse-pair cancellation, composition, and propagation of a
/// TRANSPOSE through layout-agnostic ops (RESCALE, unary elementwise, binary elementwise
/// whose other operand is broadcast-safe: one element) towards a cancelling partner.
/// Metadata is refreshed after every rewrite (GraphEditor::finish re-infers downstream).
class FuseTosaTransposesPass : public passes::InPlacePass {
 public:
  FuseTosaTransposesPass();

 protected:
  Status transform(passes::GraphEditor& ed) override;

 private:
  size_t identity_, inverse_, composed_, propagated_;
};

/// INT profile: the graph takes and returns int8, as the TOSA graph upstream's partitioner hands
/// to Vela (the boundary quantize/dequantize stay outside the delegate). A graph input read only
/// by quantize_per_tensor nodes with one set of qparams becomes an int8 input annotated with
/// them (the quantizes go); an output slot filled by a dequantize_per_tensor of an int8 value
/// returns that value (annotated with the dequantize's qparams). Inputs with another reader
/// and outputs of any other kind stay as they are (the float islands check counts them).
class ExtractIOQuantizationPass : public passes::InPlacePass {
 public:
  ExtractIOQuantizationPass();

 protected:
  Status transform(passes::GraphEditor& ed) override;

 private:
  size_t inputs_, outputs_;
};

/// TOSA has no int64: an int64 graph input (token ids, indices) becomes an int32 input; a cast
/// int64 -> int32 of it, as upstream's InsertInt32CastsAfterInt64PlaceholdersPass inserts,
/// moves out of the graph (the caller casts, as the boundary quantize of the INT profile), and
/// the same-type cast left behind is removed by RemoveNoopClonePass. Verification hands the
/// graph int32 values of its int64 inputs (exec::adaptInputs).
class InsertInt32CastsAfterInt64PlaceholdersPass : public passes::InPlacePass {
 public:
  InsertInt32CastsAfterInt64PlaceholdersPass();
  passes::ShouldRun shouldRunImpl(const ir::Graph& g, const passes::PassContext& ctx) const override;

 protected:
  Status transform(passes::GraphEditor& ed) override;

 private:
  size_t inputs_;
};

/// One distinct node per graph-output slot (upstream EnsureUniqueOutputNodesPass, PR 18866):
/// a value that fills several output slots gets a tosa.IDENTITY per extra slot.
class EnsureUniqueOutputNodesPass : public passes::InPlacePass {
 public:
  EnsureUniqueOutputNodesPass();
  passes::ShouldRun shouldRunImpl(const ir::Graph& g, const passes::PassContext& ctx) const override;

 protected:
  Status transform(passes::GraphEditor& ed) override;

 private:
  size_t inserted_;
};

/// Merges constants with equal dtype, shape and bytes (upstream FuseEqualPlaceholdersPass):
/// should_run pre-checks (dtype, shape) collisions cheaply, the run hashes contents
/// (synthesised values of shape-only constants count as their data).
class FuseEqualPlaceholdersPass : public passes::InPlacePass {
 public:
  FuseEqualPlaceholdersPass();
  passes::ShouldRun shouldRunImpl(const ir::Graph& g, const passes::PassContext& ctx) const override;

 protected:
  Status transform(passes::GraphEditor& ed) override;

 private:
  size_t merged_, groups_;
};

/// Rank-4 values in NHWC (upstream ToTosaMemoryFormatPass, the strategy of seeds 002/004):
/// every layout-agnostic op fed by an NHWC value runs on NHWC tensors; tosa.TRANSPOSE only at
/// NCHW<->NHWC boundaries (graph inputs, consumers that need PyTorch layout such as
/// rank-changing RESHAPE, MATMUL and graph outputs). One boundary TRANSPOSE per producer, so
/// output slots sharing a producer stay distinct values after EnsureUniqueOutputNodesPass.
class ToTosaMemoryFormatPass : public passes::InPlacePass {
 public:
  ToTosaMemoryFormatPass();

 protected:
  Status transform(passes::GraphEditor& ed) override;

 private:
  size_t toNhwc_, boundaries_, reshapes_, constants_, removed_;
};

/// tosa-permute strategy: sinks a TRANSPOSE below a layout-agnostic consumer when every
/// rank-4 operand of that consumer is the same TRANSPOSE pattern (or a constant, which is
/// permuted at compile time), so that permutes meet their inverses and cancel.
class PropagateTransposesPass : public passes::InPlacePass {
 public:
  PropagateTransposesPass();

 protected:
  Status transform(passes::GraphEditor& ed) override;

 private:
  size_t sunk_, constants_;
};

}  // namespace ls::arm
