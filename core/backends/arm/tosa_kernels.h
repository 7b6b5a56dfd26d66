// Reference-executor kernels for the tosa.* ops (see tosa_kernels.cpp).
#pragma once

#include "core/exec/kernel.h"

namespace ls::arm {

/// Registers a kernel for every tosa.* op (called from exec::KernelRegistry::instance()).
void registerTosaKernels(exec::KernelRegistry& r);

}  // namespace ls::arm
