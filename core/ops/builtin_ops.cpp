// Built-in op registration and the backend registration hook list.
#include "core/ops/builtin_ops.h"

#include <vector>

#include "core/backends/arm/tosa_ops.h"

namespace ls::ops {

namespace {
std::vector<RegisterFn>& hooks() {
  static std::vector<RegisterFn> h;
  return h;
}
}  // namespace

bool addRegistrationHook(RegisterFn fn) {
  hooks().push_back(fn);
  return true;
}

void registerBuiltinOps(OpRegistry& r) {
  registerAtenOps(r);
  registerQuantOps(r);
  arm::registerTosaOps(r);
  for (RegisterFn fn : hooks()) fn(r);
}

}  // namespace ls::ops
