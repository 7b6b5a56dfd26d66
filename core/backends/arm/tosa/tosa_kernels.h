// Reference-executor kernels for the tosa.* ops (see tosa_kernels.cpp).
#pragma once

#include "core/exec/kernel.h"

namespace ls::arm {

/// Registers a kernel for every tosa.* op (called by the Arm backend registration).
void registerTosaKernels(exec::KernelRegistry& r);

}  // namespace ls::arm
