// The XNNPACK backend's one registration: fused ops and kernels, passes, pipeline.
#include "core/backends/xnnpack/xnnpack_ops.h"
#include "core/backends/xnnpack/xnnpack_passes.h"

namespace ls::xnnpack {

namespace {
void registerXnnpack(const passes::Registries& r) {
  registerXnnpackOps(r.ops);
  registerXnnpackKernels(r.kernels);
  registerXnnpackPasses(r.passes);
  registerXnnpackPipelines(r.pipelines);
}
}  // namespace

const passes::Backend& xnnpackBackend() {
  static const passes::Backend b{"xnnpack", "ExecuTorch XNNPACK: transform passes and the partitioner, the `xnnpack` pipeline",
                                 registerXnnpack};
  return b;
}

}  // namespace ls::xnnpack
