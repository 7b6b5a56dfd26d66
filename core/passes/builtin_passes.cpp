// The built-in pass and pipeline lists (explicit calls: no static-initialiser registration,
// which a static library would drop).
#include "core/backends/arm/arm_passes.h"
#include "core/backends/xnnpack/xnnpack_passes.h"
#include "core/passes/generic_passes.h"
#include "core/passes/pass_manager.h"
#include "core/transforms/constant_folding.h"
#include "core/transforms/decompositions.h"
#include "core/transforms/remove_getitem.h"

namespace ls::passes {

void registerBuiltinPasses(PassRegistry& r) {
  registerGenericPasses(r);
  transforms::registerConstantFoldingPasses(r);
  transforms::registerDecompositionPasses(r);
  transforms::registerRemoveGetItemPasses(r);
  arm::registerArmPasses(r);
  xnnpack::registerXnnpackPasses(r);
}

void registerBuiltinPipelines(PipelineRegistry& r) {
  r.add({"generic",
         "Backend-independent cleanup: no-op copies and views, getitem cleanup, constant view folding, DCE",
         {"RemoveNoopClonePass", "RemoveNoopViewPass", "CleanupGetItemPass", "FoldConstantViewsPass",
          "DeadCodeEliminationPass"}});
  arm::registerArmPipelines(r);
  xnnpack::registerXnnpackPipelines(r);
}

}  // namespace ls::passes
