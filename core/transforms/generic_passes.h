// Backend-independent cleanup passes (the `generic` pipeline): no-op removal, getitem
// cleanup, dead-code elimination (its constant view folding: core/transforms/constant_folding.h).
#pragma once

#include "core/passes/backend.h"
#include "core/passes/editor.h"
#include "core/passes/retrace.h"

namespace ls::transforms {

using passes::GraphEditor;
using passes::InPlacePass;
using passes::PassContext;
using passes::RetracePass;
using passes::Rewriter;
using passes::ShouldRun;

/// Removes value-identity copies (clone, lift_fresh_copy, alias_copy, detach_copy) whose
/// output metadata equals the input's (a clone that changes the dim order is kept).
class RemoveNoopClonePass : public RetracePass {
 public:
  RemoveNoopClonePass();
 protected:
  Status rewrite(Rewriter& rw) override;
  size_t removed_;
};

/// Removes shape ops that do nothing: view/reshape to the same shape, expand to the same
/// shape, identity permutation, transpose of a dim with itself, full-range slice with step 1.
class RemoveNoopViewPass : public RetracePass {
 public:
  RemoveNoopViewPass();
 protected:
  Status rewrite(Rewriter& rw) override;
  size_t removed_;
};

/// getitem cleanup: getitem(x, 0) of a single-output producer becomes x; duplicate getitems
/// of the same producer and index are merged into the first.
class CleanupGetItemPass : public InPlacePass {
 public:
  CleanupGetItemPass();
 protected:
  Status transform(GraphEditor& ed) override;
  size_t single_, merged_;
};

/// Removes call and get_attr nodes whose values are never used (and their constants).
class DeadCodeEliminationPass : public InPlacePass {
 public:
  DeadCodeEliminationPass();
  ShouldRun shouldRunImpl(const ir::Graph& g, const PassContext& ctx) const override;
 protected:
  Status transform(GraphEditor& ed) override;
  size_t removed_;
};

/// The generic passes and the `generic` pipeline, as a backend for registerBackend.
const passes::Backend& genericBackend();

}  // namespace ls::transforms
