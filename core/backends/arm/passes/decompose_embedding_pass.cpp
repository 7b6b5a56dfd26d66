// DecomposeEmbeddingPass (upstream backends/arm/_passes/decompose_embedding_pass.py): embedding ->
// index.Tensor (one GATHER).
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <numeric>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/arm_util.h"
#include "core/backends/arm/passes/decompose_common.h"
#include "core/passes/pass_manager.h"
#include "core/passes/rule_pass.h"
#include "core/transforms/batch_norm.h"
#include "core/transforms/constant_folding.h"
#include "core/transforms/constant_values.h"

namespace ls::arm {

using passes::Rewriter;
using ir::DType;
using ir::Shape;
using namespace decompose;

void registerDecomposeEmbeddingPass(passes::PassRegistry& r) {
  passes::addPass(r, {.name = "DecomposeEmbeddingPass",
                      .description = "embedding -> index.Tensor (one GATHER)",
                      .targets = {"aten.embedding.default"},
                      .rewrite = convertToIndexTensor});
}

}  // namespace ls::arm
