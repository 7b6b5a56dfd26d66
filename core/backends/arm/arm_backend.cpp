// The Arm backend's one registration: TOSA ops and kernels, Arm passes, pipelines.
#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/tosa/tosa_import.h"
#include "core/backends/arm/tosa/tosa_kernels.h"
#include "core/backends/arm/tosa/tosa_ops.h"
#include "core/io/load.h"

namespace ls::arm {

namespace {
void registerArm(const passes::Registries& r) {
  registerTosaOps(r.ops);
  registerTosaKernels(r.kernels);
  registerArmPasses(r.passes);
  registerArmPipelines(r.pipelines);
  // .tosa files open as graphs of tosa.* nodes wherever a graph file is taken (CLI, app).
  io::registerGraphFormat({"tosa", ".tosa",
                           [](std::string_view b) { return b.size() >= 8 && b.substr(4, 4) == io::kTosaIdentifier; },
                           loadTosaGraphBytes});
}
}  // namespace

const passes::Backend& armBackend() {
  static const passes::Backend b{"arm", "Arm Ethos-U: TOSA 1.0 dialect, the `tosa` and `tosa-permute` pipelines",
                                 registerArm};
  return b;
}

}  // namespace ls::arm
