// Multi-output ops whose extra outputs are unused become their single-output form, and the
// getitem(., 0) between them and their users disappears (upstream RemoveGetItemPass of the Arm
// and XNNPACK backends, one implementation for both pipelines).
#pragma once

#include "core/passes/editor.h"

namespace ls::passes {
class PassRegistry;
}  // namespace ls::passes

namespace ls::transforms {

/// max_pool2d_with_indices(x, ...) -> max_pool2d(x, ...) and max.dim(x, d, keepdim) ->
/// amax(x, [d], keepdim) when nothing reads the indices: users of getitem(., 0) read the new
/// node, unused getitem(., 1) nodes go. A node whose indices are read, or with a non-getitem
/// user, is kept. Statistic 0 "removed".
class RemoveGetItemPass : public passes::InPlacePass {
 public:
  RemoveGetItemPass();

 protected:
  Status transform(passes::GraphEditor& ed) override;

 private:
  size_t removed_;
};

/// Registers RemoveGetItemPass (used by the Arm and the XNNPACK pipelines).
void registerRemoveGetItemPasses(passes::PassRegistry& r);

}  // namespace ls::transforms
