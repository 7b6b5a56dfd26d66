// The Arm TOSA pipelines: one ordered list per memory-format strategy (upstream style:
// static order, duplicates allowed, every pass decides in should_run by its target ops and
// the TOSA profile/target).
#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/operator_support/operator_support.h"

namespace ls::arm {

void registerArmPasses(passes::PassRegistry& r) {
  registerCheckTosaOperatorSupportPass(r);
  registerConv1dUnsqueezePass(r);
  registerConvertClampMinPass(r);
  registerConvertExpandCopyToRepeatPass(r);
  registerConvertInt64ConstOpsToInt32Pass(r);
  registerConvertSplitToSlicePass(r);
  registerConvertSqueezesToViewPass(r);
  registerConvertToClampPass(r);
  registerConvertTransposeToPermutePass(r);
  registerDecomposeAcoshPass(r);
  registerDecomposeAdaptiveAvgPool2dPass(r);
  registerDecomposeAddmmPass(r);
  registerDecomposeAnyPass(r);
  registerDecomposeAsStridedCopyPass(r);
  registerDecomposeAsinAndAcosPass(r);
  registerDecomposeAsinhPass(r);
  registerDecomposeAtanPass(r);
  registerDecomposeAtanhPass(r);
  registerDecomposeAvgPool2dPass(r);
  registerDecomposeBatchNormNoStatsPass(r);
  registerDecomposeCoshPass(r);
  registerDecomposeCumsumPass(r);
  registerDecomposeEluPass(r);
  registerDecomposeEmbeddingPass(r);
  registerDecomposeExpm1Pass(r);
  registerDecomposeEyePass(r);
  registerDecomposeFactoriesPass(r);
  registerDecomposeFlipPass(r);
  registerDecomposeFloorDividePass(r);
  registerDecomposeGeluPass(r);
  registerDecomposeGluPass(r);
  registerDecomposeGroupedConvPass(r);
  registerDecomposeIndexSelectToGatherPass(r);
  registerDecomposeIntPowPass(r);
  registerDecomposeLeakyReLUPass(r);
  registerDecomposeLinalgVectorNormPass(r);
  registerDecomposeLinearPass(r);
  registerDecomposeLog1pPass(r);
  registerDecomposeLogitPass(r);
  registerDecomposeMaskedFillPass(r);
  registerDecomposePixelShufflePass(r);
  registerDecomposePool3dPass(r);
  registerDecomposePreluPass(r);
  registerDecomposeQuantizeDequantizePass(r);
  registerDecomposeRemainderPass(r);
  registerDecomposeRollPass(r);
  registerDecomposeRoundPass(r);
  registerDecomposeRsubPass(r);
  registerDecomposeSdpaPass(r);
  registerDecomposeSelectPass(r);
  registerDecomposeSignPass(r);
  registerDecomposeSinhPass(r);
  registerDecomposeSliceScatterPass(r);
  registerDecomposeStackPass(r);
  registerDecomposeSumPass(r);
  registerDecomposeTanPass(r);
  registerDecomposeTransposedConvPass(r);
  registerDecomposeTrilPass(r);
  registerDecomposeUnbindPass(r);
  registerDecomposeVarPass(r);
  registerDecomposeWeightNormPass(r);
  registerDecorateFp32toInt32CastingPass(r);
  registerConstantFoldingPass(r);
  registerConvertMinMaxPass(r);
  registerConvertMmToBmmPass(r);
  registerDecomposeDivTensorModePass(r);
  registerDecomposeTOSAUnsupportedClampPass(r);
  registerEnsureUniqueOutputNodesPass(r);
  registerExirToTosaPass(r);
  registerExtractIOQuantizationPass(r);
  registerFoldAndAnnotateQParamsPass(r);
  registerFuseBatchNorm2dPass(r);
  registerFuseConsecutiveRescalesPass(r);
  registerFuseConstantArgsPass(r);
  registerFuseEqualPlaceholdersPass(r);
  registerFuseTosaTransposesPass(r);
  registerFuseViewCopyTransformPass(r);
  registerInsertInt32CastsAfterInt64PlaceholdersPass(r);
  registerInsertRescalePass(r);
  registerInsertTableOpsPass(r);
  registerMatchArgDtypePass(r);
  registerMatchArgRanksPass(r);
  registerPromoteBoolOperandsPass(r);
  registerPropagateTransposesPass(r);
  registerReplaceScalarWithTensorPass(r);
  registerRewriteArgmaxPass(r);
  registerRewriteAvgPool2dPass(r);
  registerRewriteBoolToFp32CastViaInt8Pass(r);
  registerRewriteConv2dPass(r);
  registerRewriteIndexTensorPass(r);
  registerRewriteMatmulPass(r);
  registerRewriteMaxPool2dPass(r);
  registerRewritePadPass(r);
  registerRewriteSlicePass(r);
  registerRewriteUpsamplePass(r);
  registerToTosaMemoryFormatPass(r);
  registerUnsqueezeBeforeRepeatPass(r);
}

namespace {

/// Blocks 1-6 shared by both strategies (ATen transforms, then ATen -> TOSA with NHWC
/// permutes around NHWC-only operators).
std::vector<std::string> commonPrefix() {
  return {
      // 1. node transforms before Q/DQ folding (INT: int8 graph I/O first, the boundary q/dq
      //    leave the graph as upstream's partitioner leaves them outside the delegate; quantised
      //    unary ops become TABLEs before the float decompositions below would take them apart)
      "ExtractIOQuantizationPass", "InsertInt32CastsAfterInt64PlaceholdersPass", "InsertTableOpsPass", "RemoveNoopClonePass", "CleanupGetItemPass", "RewriteBoolToFp32CastViaInt8Pass", "ConvertToClampPass", "DecomposeTOSAUnsupportedClampPass", "DecomposeGroupNormPass", "DecomposeLayerNormPass",
      "DecomposeMeanDimPass", "DecomposeHardswishPass", "DecomposeHardsigmoidPass", "DecomposeSiluPass",
      "DecomposeGeluPass", "DecomposeLeakyReLUPass", "DecomposeEluPass", "DecomposeRoundPass",
      "DecomposePreluPass", "DecomposeGluPass", "DecomposeLogitPass",
      "DecomposeFloorDividePass", "DecomposeRemainderPass", "DecomposeVarPass", "DecomposeLinalgVectorNormPass",
      "ConvertClampMinPass", "DecomposeCumsumPass", "DecomposeTrilPass", "DecomposeEyePass", "DecomposeEmbeddingPass",
      "DecomposeIndexSelectToGatherPass",
      "DecomposeSumPass", "DecomposeAnyPass", "DecomposeSdpaPass", "DecomposeExpm1Pass", "DecomposeIntPowPass", "DecomposeLog1pPass", "DecomposeSignPass", "DecomposeSinhPass", "DecomposeCoshPass",
      "DecomposeTanPass", "DecomposeAsinhPass", "DecomposeAcoshPass", "DecomposeAtanhPass", "DecomposeAtanPass",
      "DecomposeAsinAndAcosPass", "DecomposeAsStridedCopyPass", "DecomposeMaskedFillPass", "DecomposeRollPass",
      "DecomposeSliceScatterPass", "DecomposeFactoriesPass", "DecomposePool3dPass", "DecomposeBatchNormTrainingPass", "DecomposeWeightNormPass",
      // 2. Q/DQ fold + rescale (INT profile only): quantised conv/linear/matmul/sum/elementwise
      //    ops to integer TOSA before the float decompositions below could split them
      "FoldAndAnnotateQParamsPass", "DeadCodeEliminationPass", "InsertRescalePass", "FuseConsecutiveRescalesPass",
      // 3. post-fold transforms
      "DecomposeRsubPass", "DecomposePixelShufflePass", "DecomposeFlipPass", "ConvertSplitToSlicePass", "DecomposeUnbindPass", "DecomposeStackPass", "RemoveGetItemPass", "CleanupGetItemPass", "FuseBatchNorm2dPass",
      "DecomposeBatchNormNoStatsPass", "DeadCodeEliminationPass", "ConvertTransposeToPermutePass",
      "ConvertSqueezesToViewPass", "FuseConstantArgsPass", "DecomposeLinearPass", "DecomposeAddmmPass", "PromoteBoolOperandsPass",
      "DecomposeTransposedConvPass", "DecomposeGroupedConvPass", "DecomposeAdaptiveAvgPool2dPass", "DecomposeAvgPool2dPass", "Conv1dUnsqueezePass",
      "FuseConstantArgsPass",
      // 4. scalars to tensors, rank/dtype matching
      "DecomposeDivPass", "DecomposeSoftmaxPass", "DecomposeLogSoftmaxPass", "DecomposeMeanDimPass",
      "ReplaceScalarWithTensorPass", "MatchArgDtypePass", "MatchArgRanksPass", "FuseConstantArgsPass", "DecomposeDivTensorModePass",
      // 5. more decompositions (DecorateFp32toInt32CastingPass after the scalar and rank
      //    matching, before ConvertExpandCopyToRepeatPass, as upstream orders it)
      "ConvertMmToBmmPass", "ConvertMinMaxPass", "DecorateFp32toInt32CastingPass", "ConvertExpandCopyToRepeatPass", "UnsqueezeBeforeRepeatPass", "DecomposeSelectPass", "ConvertSqueezesToViewPass",
      "RemoveNoopViewPass", "RemoveNoopClonePass", "CleanupGetItemPass", "FuseConstantArgsPass",
      "DeadCodeEliminationPass",
      // 6. ATen -> TOSA (INT: quantised ops to integer TOSA first, remaining q/dq as TOSA ops)
      "FoldAndAnnotateQParamsPass", "DeadCodeEliminationPass", "DecomposeQuantizeDequantizePass", "FuseConstantArgsPass", "RewriteUpsamplePass", "RewriteMaxPool2dPass", "RewriteAvgPool2dPass", "RewriteConv2dPass", "RewriteMatmulPass",
      "RewritePadPass", "RewriteArgmaxPass", "RewriteSlicePass", "RewriteIndexTensorPass", "ExirToTosaPass", "FuseConstantArgsPass", "DeadCodeEliminationPass"};
}

std::vector<std::string> cleanupSuffix() {
  return {"FuseTosaTransposesPass", "FuseViewCopyTransformPass", "ConvertInt64ConstOpsToInt32Pass", "FuseConstantArgsPass",
          "FuseEqualPlaceholdersPass", "DeadCodeEliminationPass",
          "InsertRescalePass", "FuseConsecutiveRescalesPass", "EnsureUniqueOutputNodesPass",
          "CheckTosaOperatorSupportPass"};
}

}  // namespace

/// Upstream's transform for annotation decomposes these before quantizing, so each part gets
/// its own qparams and lowers to integer TOSA (var and norms to sums, squares and a sqrt TABLE).
static std::vector<std::string> annotationPasses() {
  return {"ConstantFoldingPass", "DecomposeVarPass",  "DecomposeLinalgVectorNormPass", "DecomposeGluPass",         "DecomposeLogitPass",
          "DecomposePreluPass", "PromoteBoolOperandsPass", "DecomposeTrilPass", "DecomposeFloorDividePass", "DecomposeDivTensorModePass", "DecomposeRemainderPass",
          "DecomposeTransposedConvPass", "DecomposeBatchNormTrainingPass", "ConvertSplitToSlicePass",
          "DecomposeUnbindPass", "DecomposeStackPass", "DecomposeWeightNormPass", "DecomposeCumsumPass",
          "DecomposeSdpaPass"};
}

/// Upstream's partitioner checks (operator_support/), run by the session on the graph the
/// pipeline starts from; CheckTosaOperatorSupportPass fails on what they refuse for u55 / u85.
static std::vector<passes::SupportRejection> tosaSupportChecks(const ir::Graph& g, passes::Profile p,
                                                               passes::Target t) {
  return support::evaluate(g, {p, t});
}

void registerArmPipelines(passes::PipelineRegistry& r) {
  std::vector<std::string> tosa = commonPrefix();
  tosa.push_back("ToTosaMemoryFormatPass");
  for (auto& p : cleanupSuffix()) tosa.push_back(p);
  r.add({"tosa",
         "Arm TOSA lowering (FP; INT passes gated by profile): ATen decompositions, ATen -> TOSA, "
         "ToTosaMemoryFormatPass (NHWC regions, boundary TRANSPOSEs) + FuseTosaTransposesPass, cleanup",
         tosa, annotationPasses(), tosaSupportChecks});
  std::vector<std::string> perm = commonPrefix();
  perm.push_back("PropagateTransposesPass");
  for (auto& p : cleanupSuffix()) perm.push_back(p);
  r.add({"tosa-permute",
         "Arm TOSA lowering with upstream's newer memory-format strategy: permutes around NHWC-only ops, "
         "then permute propagation (PropagateTransposesPass) and cancellation (FuseTosaTransposesPass)",
         perm, annotationPasses(), tosaSupportChecks});
}

}  // namespace ls::arm
