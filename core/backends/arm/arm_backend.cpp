// The Arm backend's one registration: TOSA ops and kernels, Arm passes, pipelines.
#include <fmt/format.h>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/arm/tosa/tosa_import.h"
#include "core/backends/arm/tosa/tosa_kernels.h"
#include "core/backends/arm/tosa/tosa_ops.h"
#include "core/backends/arm/upstream_pipeline.h"
#include "core/io/load.h"

namespace ls::arm {

namespace {
void registerArm(const passes::Registries& r) {
  registerTosaOps(r.ops);
  registerTosaKernels(r.kernels);
  registerArmPasses(r.passes);
  registerArmPipelines(r.pipelines);
  // Each pass's upstream entries (the pinned table), for `lowerscope-cli passes`.
  for (const std::string& name : r.passes.names())
    for (const UpstreamEntry* e : upstreamEntriesFor(name))
      r.passes.addOrigin(name, fmt::format("upstream {} #{} {} ({}): {}{}",
                                           e->list == UpstreamList::Tosa ? "_tosa_pipeline" : "transform_for_annotation_pipeline",
                                           e->index, e->name, e->file, dispositionName(e->disposition),
                                           e->name == name ? "" : " (this pass does its work)"));
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
