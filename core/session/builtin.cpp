// The composition root: every built-in backend, registered once.
#include "core/session/builtin.h"

#include <mutex>

#include "core/backends/arm/arm_passes.h"
#include "core/backends/xnnpack/xnnpack_passes.h"
#include "core/passes/backend.h"
#include "core/transforms/generic_passes.h"

namespace ls {

const Status& registerBuiltins() {
  static Status status;
  static std::once_flag once;
  std::call_once(once, [] {
    for (const passes::Backend* b : {&transforms::genericBackend(), &arm::armBackend(), &xnnpack::xnnpackBackend()}) {
      Status s = passes::registerBackend(*b);
      if (!s && status) status = s;
    }
  });
  return status;
}

}  // namespace ls
