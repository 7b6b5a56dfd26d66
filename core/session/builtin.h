// The composition root: the one place that names every backend and registers it (generic
// transforms, Arm TOSA, XNNPACK). Executables, tests, benchmarks and fuzz targets call
// registerBuiltins() once before they look anything up in a registry.
#pragma once

#include "core/util/status.h"

namespace ls {

/// Registers the generic transforms and every built-in backend through
/// passes::registerBackend, once per process (thread-safe; later calls return the first
/// result). An error (a duplicate pass name, ...) is a programming error: callers print it
/// and stop.
const Status& registerBuiltins();

}  // namespace ls
