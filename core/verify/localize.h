// Numerics localisation (verify --each --localize): past "the first bad pass", which node of
// that pass's result goes wrong. The graphs before and after the pass run on the same inputs
// keeping every node's value; each call node after the pass is compared with its counterpart
// before it (same NodeId, else the removed node its provenance names), and the first node in
// topological order whose error exceeds the tolerance while its inputs' do not is the culprit.
#pragma once

#include <memory>
#include <vector>

#include "core/exec/compare.h"
#include "core/exec/executor.h"
#include "core/trace/trace.h"
#include "core/util/status.h"

namespace ls::verify {

class Reference;

struct LocalizeOptions {
  /// The tolerance notion of verify (exec::compareTensors, the error in tolerances is its
  /// OutputDiff::tolerances): float values pass when max|after - before| <= atol + rtol *
  /// max|before| over the value (scaleRelative; else per element as torch.allclose), quantised
  /// integer values (qparams before the pass) when they differ by at most maxSteps units, other
  /// integer values when they are equal.
  exec::CompareOptions compare;
  int threads = 0;
  /// ExecOptions::exactAccumulation (verify turns it on for the INT profile).
  bool exactAccumulation = false;
};

/// Localises the numerical difference between `before` and `after` (the graphs around one
/// pass, of one lineage: NodeIds are shared). `inputs` are made for the pipeline's source
/// graph (adaptInputs is applied for each graph); `constants` should be the cache the
/// reference used, so both graphs see the same weights. Matching, per call node of `after`:
///  - the node with the same NodeId before the pass; else
///  - a new node's provenance: of the removed nodes it derives from, the last in `before`'s
///    order; of the new nodes matched to one removed node only the one whose value leaves
///    that group (its sink) is compared: a split into several values is skipped.
/// Outputs are compared pairwise where dtype and shape agree (a memory-format change such as
/// an NHWC transpose is skipped, with the two metas as the reason). Nested graphs are not
/// entered (a delegate call is compared by its outputs). Fails, naming the graph, when
/// either graph does not run.
Result<trace::Localization> localize(const ir::Graph& before, const ir::Graph& after,
                                     const std::vector<exec::Tensor>& inputs, const LocalizeOptions& opts,
                                     std::shared_ptr<exec::ConstantCache> constants = nullptr);

/// Localises pass `passIndex` of `t` (graphBefore / graphAfter) on the reference's inputs,
/// weights and tolerances; the result names the pass.
Result<trace::Localization> localizePass(const trace::Trace& t, int passIndex, const Reference& ref);

}  // namespace ls::verify
