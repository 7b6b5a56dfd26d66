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

// Per-file registration (internal).
void registerArmDecompositionPasses(passes::PassRegistry& r);
void registerArmRewritePasses(passes::PassRegistry& r);
void registerArmLayoutPasses(passes::PassRegistry& r);
void registerArmCleanupPasses(passes::PassRegistry& r);
void registerArmIntPasses(passes::PassRegistry& r);
void registerArmQFoldPasses(passes::PassRegistry& r);
void registerArmTablePasses(passes::PassRegistry& r);
// One file per pass in core/backends/arm/passes/, named after upstream's file
// (decompose_int_pow_pass.cpp), each a passes::PassSpec (core/passes/rule_pass.h).
void registerDecomposeIntPowPass(passes::PassRegistry& r);
void registerDecorateFp32toInt32CastingPass(passes::PassRegistry& r);
void registerConstantFoldingPass(passes::PassRegistry& r);
void registerFuseViewCopyTransformPass(passes::PassRegistry& r);
void registerRewriteBoolToFp32CastViaInt8Pass(passes::PassRegistry& r);
void registerPromoteBoolOperandsPass(passes::PassRegistry& r);
void registerDecomposeTOSAUnsupportedClampPass(passes::PassRegistry& r);
void registerDecomposeDivTensorModePass(passes::PassRegistry& r);
void registerConvertMinMaxPass(passes::PassRegistry& r);
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
