// Registration entry points of the built-in op sets.
#pragma once

namespace ls::ops {

class OpRegistry;

/// Registers every built-in op: aten, operator.getitem, quantized_decomposed, and the
/// backend dialects that have been linked in.
void registerBuiltinOps(OpRegistry& r);
void registerAtenOps(OpRegistry& r);
void registerQuantOps(OpRegistry& r);

/// Backend dialects register through this hook list (see core/backends/*), so that the core
/// registry does not depend on backend code at compile time.
using RegisterFn = void (*)(OpRegistry&);
/// Adds a registration function run when the registry is first built. Call from a static
/// initialiser in the backend's translation unit. Returns true.
bool addRegistrationHook(RegisterFn fn);

}  // namespace ls::ops
