// Constant folding, written once: a call node whose inputs are all constants becomes a new
// constant whose recipe is that node (evaluated by the reference executor when its bytes are
// needed) (constants without data count with the values
// the executor synthesises for them, so the folded graph computes what the source computed).
// The Arm pipeline's FuseConstantArgsPass, XNNPACK's ConstProp and the generic
// FoldConstantViewsPass are this pass with their targets and ConstantFoldingOptions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/exec/materialize.h"
#include "core/exec/tensor.h"
#include "core/passes/editor.h"
#include "core/passes/retrace.h"

namespace ls::passes {
class PassRegistry;
}  // namespace ls::passes

namespace ls::transforms {

struct ConstantFoldingOptions {
  /// Inputs may also be arg-less call nodes (tosa.CONST_SHAPE), evaluated along (Arm).
  bool argLessProducers = false;
  /// Constants without data stay unfolded (their values are synthesised from their name, and
  /// the graph keeps them shape-only) (generic).
  bool requireData = false;
  /// Results with more elements stay unfolded (0: no limit) (XNNPACK).
  int64_t maxElements = 0;
  /// The folded constant is named after its first constant input ("<w>_folded", Arm) instead
  /// of after the folded node.
  bool nameAfterInput = false;
  /// Every op with a reference kernel is a target, as in upstream's FuseConstantArgsPass and
  /// torch's constant_fold (the tfa ConstantFoldingPass), except the ops foldsAnyOp() leaves
  /// alone (quantize/dequantize, RESCALE, TABLE, getitem, delegate calls). A
  /// node whose input or output carries qparams folds only when it moves values (a view of
  /// an int8 weight): anything else would compute on stored integers as if they were values.
  bool anyOp = false;
  /// Ops that only move values (views, t, permutes: ops::movesValuesOnly) stay unfolded: the
  /// quantizer follows a weight through them to find its output channels, where a folded
  /// transpose would hide them (tfa ConstantFoldingPass; upstream's graph there still holds
  /// aten.linear, not its t + mm).
  bool keepValueMoves = false;
};

/// With ConstantFoldingOptions::anyOp: whether op `op` may be folded (it has a reference
/// kernel and is none of the exceptions).
bool foldsAnyOp(ir::OpId op);

/// The recipe of `n`'s first output over its inputs, which must all be get_attr constants of
/// `g` (or arg-less calls when `argLessProducers`): evaluated by the reference executor when
/// materialised (exec::materialize), never here. An error when an input is not a constant or
/// an op has no reference kernel.
Result<std::shared_ptr<const exec::TensorRecipe>> foldRecipe(const ir::Graph& g, const ir::Node& n,
                                                             bool argLessProducers = false);
/// A constant holding foldRecipe(g, n) (name set when it is added).
Result<ir::Constant> foldedConstant(const ir::Graph& g, const ir::Node& n, bool argLessProducers = false,
                                    ir::ConstantKind kind = ir::ConstantKind::Constant, std::string fqn = {});
/// Values of `n` evaluated now (foldRecipe materialised), as a tensor the caller may write.
Result<exec::Tensor> evaluateOnConstants(const ir::Graph& g, const ir::Node& n, bool argLessProducers = false);

/// Folds every foldable call of a target op (no targets: of any op with a reference kernel,
/// except getitem and delegate calls) in graph order, so chains fold in one run. The new
/// constant keeps the fqn and kind of the node's first constant input. Statistics "folded",
/// "skipped_no_data", "skipped_large".
class FoldConstantsPass : public passes::InPlacePass {
 public:
  FoldConstantsPass(std::string name, std::string desc, std::vector<std::string> targetOps,
                    ConstantFoldingOptions o);
  /// Without target ops: runs when some call has only constant inputs.
  passes::ShouldRun shouldRunImpl(const ir::Graph& g, const passes::PassContext& ctx) const override;

 protected:
  Status transform(passes::GraphEditor& ed) override;

 private:
  /// The first constant input of `n` when every input is a constant (see options), else null.
  const ir::Node* foldable(const ir::Graph& g, const ir::Node& n) const;
  ConstantFoldingOptions opts_;
  size_t folded_, skippedNoData_, skippedLarge_;
};

/// The same fold as a retrace pass over target ops (Arm's FuseConstantArgsPass): each fold is
/// one hot-node rewrite while the engine rebuilds the graph, so many folds on a large graph
/// stay linear (the in-place driver pays O(graph) index rebuilds per fold). Chains fold in one
/// run as well: a folded node's users see the new constant. Same options and statistics.
class FoldConstantsRetracePass : public passes::RetracePass {
 public:
  /// With o.anyOp `targetOps` is ignored: every op foldsAnyOp() accepts is a target.
  FoldConstantsRetracePass(std::string name, std::string desc, std::vector<std::string> targetOps,
                           ConstantFoldingOptions o);

 protected:
  Status rewrite(passes::Rewriter& rw) override;
  /// Runs only when some target node is a candidate: a retrace folds nothing until it folds a
  /// candidate of the source graph (a fold's result can make its users candidates in turn).
  passes::ShouldRun shouldRunImpl(const ir::Graph& g, const passes::PassContext& ctx) const override;

 private:
  /// The first constant input of `n` when the pass would fold it (before the requireData and
  /// size limits, which count what they leave alone), else null.
  const ir::Node* candidate(const ir::Graph& g, const ir::Node& n) const;

  ConstantFoldingOptions opts_;
  size_t folded_, skippedNoData_, skippedLarge_;
};

/// The first constant input of call `n` when every tensor input is a get_attr constant of `g`
/// (or an arg-less call with `argLessProducers`), else null. Shared by both drivers.
const ir::Node* constantInputsOf(const ir::Graph& g, const ir::Node& n, bool argLessProducers);

/// The generic pipeline's pass: shape-only ops (t/transpose/permute/view/unsqueeze/squeeze) on
/// constants that carry data; shape-only constants are left alone.
class FoldConstantViewsPass : public FoldConstantsPass {
 public:
  FoldConstantViewsPass();
};

/// Registers FoldConstantViewsPass.
void registerConstantFoldingPasses(passes::PassRegistry& r);

}  // namespace ls::transforms
