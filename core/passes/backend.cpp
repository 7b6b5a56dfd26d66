// registerBackend: one entry point for a backend's ops, kernels, passes and pipelines.
#include "core/passes/backend.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/exec/kernel.h"
#include "core/ops/registry.h"
#include "core/passes/pass_manager.h"

namespace ls::passes {

namespace {
std::vector<std::string>& backendNames() {
  static std::vector<std::string> names;
  return names;
}
}  // namespace

Status registerBackend(const Backend& b) {
  auto& names = backendNames();
  if (std::find(names.begin(), names.end(), b.name) != names.end())
    return Status::error(fmt::format("backend '{}' registered twice", b.name));
  if (!b.registerAll) return Status::error(fmt::format("backend '{}' has no registration function", b.name));
  names.emplace_back(b.name);
  return registerBackend(b, Registries{ops::OpRegistry::instance(), exec::KernelRegistry::instance(),
                                       PassRegistry::instance(), PipelineRegistry::instance()});
}

Status registerBackend(const Backend& b, const Registries& into) {
  if (!b.registerAll) return Status::error(fmt::format("backend '{}' has no registration function", b.name));
  PassRegistry& passes = into.passes;
  PipelineRegistry& pipelines = into.pipelines;
  const std::vector<std::string> before = passes.names();
  b.registerAll(into);
  std::vector<std::string> problems = passes.takeErrors();
  for (std::string& e : pipelines.takeErrors()) problems.push_back(std::move(e));
  // Every new pass: its registry name ends in "Pass" and is the name the pass reports.
  for (const std::string& n : passes.names()) {
    if (std::binary_search(before.begin(), before.end(), n)) continue;
    if (!n.ends_with("Pass")) problems.push_back(fmt::format("pass '{}': registry names end in 'Pass'", n));
    std::unique_ptr<Pass> p = passes.create(n);
    if (!p) problems.push_back(fmt::format("pass '{}': the factory returned null", n));
    else if (p->name() != n)
      problems.push_back(fmt::format("pass registered as '{}' calls itself '{}'", n, p->name()));
  }
  if (problems.empty()) return Status::ok();
  std::string msg = fmt::format("backend '{}':", b.name);
  for (const std::string& p : problems) msg += "\n  " + p;
  return Status::error(msg);
}

std::vector<std::string> registeredBackends() { return backendNames(); }

}  // namespace ls::passes
