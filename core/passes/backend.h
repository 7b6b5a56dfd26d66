// Backend registration: a backend (or any pass module, e.g. the generic transforms) adds its
// ops, reference kernels, passes and pipelines through one registerBackend call. Only the
// composition root (core/session/builtin.cpp) calls it, so nothing below the backends names
// a backend and the build can enforce the layer order.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/util/status.h"

namespace ls::ops {
class OpRegistry;
}
namespace ls::exec {
class KernelRegistry;
}

namespace ls::passes {

class PassRegistry;
class PipelineRegistry;

/// The four process-wide registries a backend adds to.
struct Registries {
  ops::OpRegistry& ops;
  exec::KernelRegistry& kernels;
  PassRegistry& passes;
  PipelineRegistry& pipelines;
};

/// What a backend registers. `registerAll` adds to the registries; it runs once.
struct Backend {
  std::string_view name;         ///< "arm", "xnnpack", "generic"
  std::string_view description;  ///< one line for `lowerscope-cli backends` and the docs
  void (*registerAll)(const Registries& r) = nullptr;
};

/// Registers `b` into the process-wide registries. Errors: a backend registered twice, a
/// pass or pipeline name registered twice (by this or another backend), a pass name that does
/// not end in "Pass", or a pass whose name() differs from its registration name. Not
/// thread-safe: call before any pipeline runs (the composition root does it once).
Status registerBackend(const Backend& b);
/// The same checks, registering into `into` (tests use private registries).
Status registerBackend(const Backend& b, const Registries& into);

/// Names of the backends registered so far, in registration order.
std::vector<std::string> registeredBackends();

}  // namespace ls::passes
