// Registration of the core op sets.
#include "core/ops/builtin_ops.h"

namespace ls::ops {

void registerCoreOps(OpRegistry& r) {
  registerAtenOps(r);
  registerQuantOps(r);
  registerAttentionAndDelegateOps(r);
}

}  // namespace ls::ops
